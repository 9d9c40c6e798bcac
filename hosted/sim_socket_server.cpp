// SimSocketServer (sim_socket_server.hpp): non-blocking loopback sockets
// with a RESP reader and an ordered reply queue per connection.
#include "hosted/sim_socket_server.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "locks/hiredis/resp_codec.hpp"

namespace locksim::hosted {

struct SimSocketServer::Conn {
  int fd = -1;
  locks::RespCommandReader reader;
  std::uint64_t next_seq = 0;     // the next command's seq
  std::uint64_t next_reply = 0;   // the seq whose reply is written next
  std::map<std::uint64_t, std::string> held;  // replies that arrived early
  std::string out;                // bytes not yet written
  bool close_when_done = false;   // QUIT or a protocol error
  bool peer_gone = false;
};

namespace {

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

SimSocketServer::SimSocketServer() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listen_fd_, 64) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listen_fd_);
    throw std::runtime_error("cannot listen on 127.0.0.1: " + why);
  }
  set_nonblocking(listen_fd_);
  port_ = ntohs(addr.sin_port);
}

SimSocketServer::~SimSocketServer() {
  for (auto& [id, c] : connections_) ::close(c->fd);
  ::close(listen_fd_);
}

void SimSocketServer::accept_all(Drained& out) {
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    connections_.emplace(++next_id_, std::move(c));
    out.opened.push_back(next_id_);
  }
}

// Reads until EAGAIN; false if the peer closed or the connection failed.
bool SimSocketServer::read_all(std::uint64_t id, Conn& c, Drained& out) {
  char buf[16 * 1024];
  for (;;) {
    const ssize_t n = ::read(c.fd, buf, sizeof buf);
    if (n > 0) {
      c.reader.feed(std::string_view(buf, static_cast<std::size_t>(n)));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    c.peer_gone = true;
    break;
  }
  while (std::optional<Argv> argv = c.reader.next()) out.commands.push_back({id, c.next_seq++, std::move(*argv)});
  if (c.reader.error() && !c.close_when_done) {
    c.close_when_done = true;
    c.held[c.next_seq++] = locks::encode_resp2(Reply::error(*c.reader.error()));
  }
  return !c.peer_gone;
}

// One poll without waiting says which sockets have something: a failed
// accept4 allocates and frees a socket (and a failed read is a system call)
// at every instant the client ran, most of which wrote nothing.
Drained SimSocketServer::drain() {
  Drained out;
  std::vector<pollfd> ready{{listen_fd_, POLLIN, 0}};
  for (const auto& entry : connections_) ready.push_back({entry.second->fd, POLLIN, 0});
  const bool polled = poll(ready.data(), ready.size(), 0) >= 0;  // if not, every socket is looked at
  if (!polled || ready[0].revents) accept_all(out);
  std::vector<std::uint64_t> ids;
  for (const auto& entry : connections_) ids.push_back(entry.first);
  // In id order (flush() may close one): the polled ones first, then those
  // accepted just now, which are read whatever they hold.
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::uint64_t id = ids[i];
    Conn& c = *connections_.at(id);
    const bool look = !polled || i + 1 >= ready.size() || ready[i + 1].revents;
    if (look && !c.close_when_done && !read_all(id, c, out)) {
      drop(id, false);
      out.closed.push_back(id);
      continue;
    }
    flush(id, c);
  }
  return out;
}

bool SimSocketServer::answer(std::uint64_t connection, std::uint64_t seq, const Reply& reply) {
  if (reply.is_error() && (reply.str == kResetError || reply.str == kTimeoutError || reply.str == kRefusedError)) {
    reset(connection);
    return false;
  }
  this->reply(connection, seq, reply);
  return true;
}

void SimSocketServer::reply(std::uint64_t connection, std::uint64_t seq, const Reply& reply) {
  auto it = connections_.find(connection);
  if (it == connections_.end()) return;  // closed meanwhile: the reply is lost, as on a real socket
  it->second->held[seq] = locks::encode_resp2(reply);
  flush(connection, *it->second);
}

void SimSocketServer::close_after_replies(std::uint64_t connection) {
  auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  it->second->close_when_done = true;
  flush(connection, *it->second);
}

// Moves the replies that are next in order to the output, writes what the
// socket takes, and closes a connection that owes nothing more.
void SimSocketServer::flush(std::uint64_t id, Conn& c) {
  for (auto it = c.held.find(c.next_reply); it != c.held.end(); it = c.held.find(c.next_reply)) {
    c.out += it->second;
    c.held.erase(it);
    ++c.next_reply;
  }
  while (!c.out.empty()) {
    const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n <= 0) break;
    c.out.erase(0, static_cast<std::size_t>(n));
  }
  const bool owes_nothing = c.out.empty() && c.next_reply == c.next_seq;
  if (c.close_when_done && owes_nothing) drop(id, false);
}

void SimSocketServer::drop(std::uint64_t id, bool rst) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  if (rst) {
    const linger abort_on_close{1, 0};  // close() sends RST
    setsockopt(it->second->fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  }
  ::close(it->second->fd);
  connections_.erase(it);
}

void SimSocketServer::reset(std::uint64_t connection) { drop(connection, true); }

void SimSocketServer::reset_all() {
  while (!connections_.empty()) drop(connections_.begin()->first, true);
}

void SimSocketServer::wait_any(const std::vector<const SimSocketServer*>& servers, int timeout_ms) {
  std::vector<pollfd> fds;
  for (const SimSocketServer* server : servers) {
    fds.push_back({server->listen_fd_, POLLIN, 0});
    for (const auto& [id, c] : server->connections_) {
      const short events = static_cast<short>((c->close_when_done ? 0 : POLLIN) | (c->out.empty() ? 0 : POLLOUT));
      fds.push_back({c->fd, events, 0});
    }
  }
  (void)poll(fds.data(), fds.size(), timeout_ms);
}

}  // namespace locksim::hosted
