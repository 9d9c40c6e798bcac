// TcpProxy: a poll() loop forwarding bytes with per-link delay, partition
// and reset (tcp_proxy.hpp).
#include "live/tcp_proxy.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <thread>

namespace locksim::live {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kReadChunk = 64 * 1024;
constexpr auto kIdlePoll = std::chrono::milliseconds(200);  // re-check even without events

struct Chunk {
  Clock::time_point due;
  std::string bytes;
  std::size_t sent = 0;
};

// One direction of one connection: bytes read from `from_fd`, queued until
// due, written to the other side.
struct Stream {
  std::deque<Chunk> queue;
  bool eof = false;  // the reading side closed (or failed)
};

struct Direction {
  std::chrono::nanoseconds latency{0};
  std::chrono::nanoseconds pending_delay{0};
  Clock::time_point last_due{};
};

struct Link {
  std::string source;
  int listen_fd = -1;
  int port = 0;
  Direction dir[2];  // indexed by Flow
  std::optional<PartitionMode> cut;
};

struct Conn {
  std::size_t link = 0;
  int source_fd = -1;
  int server_fd = -1;
  Stream to_server, to_source;
  bool failed = false;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int loopback_listener(int& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return -1;
  }
  port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

class TcpProxy::Impl {
 public:
  sockaddr_in upstream{};
  std::vector<Link> links;
  // The shared listener (SharedListener): its fd and port, and which link
  // each source address's connections belong to (else shared_otherwise).
  int shared_fd = -1;
  int shared_port = 0;
  std::vector<std::pair<in_addr_t, std::size_t>> shared_links;
  std::size_t shared_otherwise = 0;
  std::list<Conn> conns;
  // The local port of every upstream connection ever opened, and its link:
  // the address the server shows for it (CLIENT LIST, MONITOR).
  std::map<int, std::size_t> link_by_upstream_port;
  mutable std::mutex mutex;
  int wake_fd = -1;
  std::atomic<bool> stopping{false};
  std::thread thread;

  Link* find(const std::string& source) {
    for (auto& l : links)
      if (l.source == source) return &l;
    return nullptr;
  }
  void wake() const {
    const std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(wake_fd, &one, sizeof one);
  }
  void run();
  void accept_all(std::size_t link);
  void accept_shared();
  std::string listen_shared(const SharedListener& shared);
  void open_conn(int fd, std::size_t link);
  std::size_t link_of_address(in_addr_t addr) const {
    for (const auto& [a, link] : shared_links)
      if (a == addr) return link;
    return shared_otherwise;
  }
  void read_side(Conn& c, bool from_source);
  void flush(Conn& c, bool to_server);
  bool finished(const Conn& c) const;
  std::optional<Clock::time_point> next_due(Clock::time_point now) const;
  void close_conn(Conn& c) {
    close_fd(c.source_fd);
    close_fd(c.server_fd);
  }
  void close_all() {
    for (auto& c : conns) close_conn(c);
    conns.clear();
    for (auto& l : links) close_fd(l.listen_fd);
    close_fd(shared_fd);
    close_fd(wake_fd);
  }
};

void TcpProxy::Impl::accept_all(std::size_t link) {
  for (;;) {
    const int fd = ::accept4(links[link].listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    open_conn(fd, link);
  }
}

// The link of a connection on the shared listener is its source address's.
void TcpProxy::Impl::accept_shared() {
  for (;;) {
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    const int fd = ::accept4(shared_fd, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    open_conn(fd, link_of_address(peer.sin_addr.s_addr));
  }
}

void TcpProxy::Impl::open_conn(int fd, std::size_t link) {
  int server = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const bool connecting =
      server >= 0 && (::connect(server, reinterpret_cast<const sockaddr*>(&upstream), sizeof upstream) == 0 ||
                      errno == EINPROGRESS);
  if (!connecting) {  // the node is down: the source sees its connection closed at once
    ::close(fd);
    if (server >= 0) ::close(server);
    return;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in local{};  // connect() bound it, even while in progress
  socklen_t len = sizeof local;
  if (::getsockname(server, reinterpret_cast<sockaddr*>(&local), &len) == 0)
    link_by_upstream_port[ntohs(local.sin_port)] = link;
  Conn c;
  c.link = link;
  c.source_fd = fd;
  c.server_fd = server;
  conns.push_back(std::move(c));
}

// "" or why not.
std::string TcpProxy::Impl::listen_shared(const SharedListener& shared) {
  const auto index = [&](const std::string& source) {
    for (std::size_t l = 0; l < links.size(); ++l)
      if (links[l].source == source) return l;
    return links.size();
  };
  shared_otherwise = index(shared.otherwise);
  if (shared_otherwise == links.size()) return "shared listener: " + shared.otherwise + " is not a source";
  for (const auto& [address, source] : shared.by_address) {
    in_addr a{};
    if (::inet_pton(AF_INET, address.c_str(), &a) != 1 || index(source) == links.size())
      return "shared listener: bad address " + address + " or source " + source;
    shared_links.emplace_back(a.s_addr, index(source));
  }
  shared_fd = loopback_listener(shared_port);
  return shared_fd < 0 ? "cannot listen on a loopback port for the shared listener" : "";
}

// Reads what is there; each read becomes one chunk, due per its direction.
void TcpProxy::Impl::read_side(Conn& c, bool from_source) {
  Stream& s = from_source ? c.to_server : c.to_source;
  const int fd = from_source ? c.source_fd : c.server_fd;
  Direction& d = links[c.link].dir[static_cast<int>(from_source ? Flow::ToServer : Flow::ToSource)];
  char buf[kReadChunk];
  while (!s.eof) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) {
      s.eof = true;
      return;
    }
    const auto due = std::max(Clock::now() + d.latency + std::exchange(d.pending_delay, {}), d.last_due);
    d.last_due = due;
    s.queue.push_back({due, std::string(buf, static_cast<std::size_t>(n)), 0});
  }
}

// Writes the due chunks that the link lets through.
void TcpProxy::Impl::flush(Conn& c, bool to_server) {
  Stream& s = to_server ? c.to_server : c.to_source;
  const int fd = to_server ? c.server_fd : c.source_fd;
  const auto cut = links[c.link].cut;
  const auto now = Clock::now();
  while (!s.queue.empty() && s.queue.front().due <= now) {
    if (cut == PartitionMode::Hold) return;
    Chunk& front = s.queue.front();
    if (cut == PartitionMode::Drop) {
      s.queue.pop_front();
      continue;
    }
    const ssize_t n = ::send(fd, front.bytes.data() + front.sent, front.bytes.size() - front.sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ENOTCONN)) return;
    if (n < 0) {
      c.failed = true;
      return;
    }
    front.sent += static_cast<std::size_t>(n);
    if (front.sent < front.bytes.size()) return;
    s.queue.pop_front();
  }
}

// A side closed and what it sent is delivered (or the connection failed).
bool TcpProxy::Impl::finished(const Conn& c) const {
  return c.failed || (c.to_server.eof && c.to_server.queue.empty()) ||
         (c.to_source.eof && c.to_source.queue.empty());
}

// When the loop must wake for bytes falling due: held bytes wait for the
// heal, and due bytes on an open link wait for POLLOUT (not a timeout, which
// would spin while the receiver's buffer is full); dropped ones go at once.
std::optional<Clock::time_point> TcpProxy::Impl::next_due(Clock::time_point now) const {
  std::optional<Clock::time_point> next;
  for (const auto& c : conns) {
    const auto cut = links[c.link].cut;
    for (const Stream* s : {&c.to_server, &c.to_source}) {
      if (s->queue.empty() || cut == PartitionMode::Hold) continue;
      const auto due = s->queue.front().due;
      if ((due > now || cut == PartitionMode::Drop) && (!next || due < *next)) next = due;
    }
  }
  return next;
}

void TcpProxy::Impl::run() {
  std::vector<pollfd> fds;
  while (!stopping.load()) {
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(kIdlePoll);
    {
      std::lock_guard lk(mutex);
      fds.clear();
      fds.push_back({wake_fd, POLLIN, 0});
      for (const auto& l : links) fds.push_back({l.listen_fd, POLLIN, 0});
      fds.push_back({shared_fd, POLLIN, 0});  // -1 (ignored by poll) when there is none
      const auto now = Clock::now();
      for (const auto& c : conns) {
        // POLLOUT only for bytes that may go now (else poll would spin), and
        // no entry at all (fd -1) for a side with nothing to wait for.
        const auto out = [&](const Stream& s) {
          return !s.queue.empty() && s.queue.front().due <= now && !links[c.link].cut ? POLLOUT : 0;
        };
        const auto entry = [](int fd, int events) { return pollfd{events ? fd : -1, static_cast<short>(events), 0}; };
        fds.push_back(entry(c.source_fd, (c.to_server.eof ? 0 : POLLIN) | out(c.to_source)));
        fds.push_back(entry(c.server_fd, (c.to_source.eof ? 0 : POLLIN) | out(c.to_server)));
      }
      if (auto due = next_due(now)) {
        const auto until = std::chrono::ceil<std::chrono::milliseconds>(*due - now);
        wait = std::clamp(until, std::chrono::milliseconds(0), wait);
      }
    }
    ::poll(fds.data(), fds.size(), static_cast<int>(wait.count()));
    std::lock_guard lk(mutex);
    if (fds[0].revents & POLLIN) {
      std::uint64_t drained = 0;
      [[maybe_unused]] auto n = ::read(wake_fd, &drained, sizeof drained);
    }
    for (std::size_t l = 0; l < links.size(); ++l)
      if (fds[1 + l].revents & POLLIN) accept_all(l);
    if (fds[1 + links.size()].revents & POLLIN) accept_shared();
    for (auto& c : conns) {
      read_side(c, true);
      read_side(c, false);
      flush(c, true);
      flush(c, false);
    }
    for (auto it = conns.begin(); it != conns.end();) {
      if (!finished(*it)) {
        ++it;
        continue;
      }
      close_conn(*it);
      it = conns.erase(it);
    }
  }
}

Result<std::unique_ptr<TcpProxy>, std::string> TcpProxy::start(const std::string& upstream_host, int upstream_port,
                                                               const std::vector<std::string>& sources,
                                                               const std::optional<SharedListener>& shared) {
  auto impl = std::make_unique<Impl>();
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(upstream_host.c_str(), nullptr, &hints, &found) != 0 || !found)
    return failure("cannot resolve " + upstream_host + " (IPv4)");
  impl->upstream = *reinterpret_cast<const sockaddr_in*>(found->ai_addr);
  impl->upstream.sin_port = htons(static_cast<std::uint16_t>(upstream_port));
  ::freeaddrinfo(found);
  impl->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl->wake_fd < 0) return failure(std::string("eventfd: ") + std::strerror(errno));
  for (const auto& source : sources) {
    Link l;
    l.source = source;
    l.listen_fd = loopback_listener(l.port);
    impl->links.push_back(l);
    if (l.listen_fd < 0) {
      impl->close_all();
      return failure("cannot listen on a loopback port for " + source + "'s link");
    }
  }
  if (shared) {
    if (auto why = impl->listen_shared(*shared); !why.empty()) {
      impl->close_all();
      return failure(why);
    }
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<TcpProxy>(new TcpProxy(std::move(impl)));
}

TcpProxy::TcpProxy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TcpProxy::~TcpProxy() { stop(); }

void TcpProxy::stop() {
  if (!impl_->thread.joinable()) return;
  impl_->stopping.store(true);
  impl_->wake();
  impl_->thread.join();
  std::lock_guard lk(impl_->mutex);
  impl_->close_all();
}

int TcpProxy::port(const std::string& source) const {
  std::lock_guard lk(impl_->mutex);
  const Link* l = impl_->find(source);
  return l ? l->port : 0;
}

std::vector<std::string> TcpProxy::sources() const {
  std::lock_guard lk(impl_->mutex);
  std::vector<std::string> out;
  for (const auto& l : impl_->links) out.push_back(l.source);
  return out;
}

int TcpProxy::shared_port() const {
  std::lock_guard lk(impl_->mutex);
  return impl_->shared_port;
}

bool TcpProxy::has_source(const std::string& source) const { return port(source) != 0; }

std::string TcpProxy::source_of_upstream_port(int port) const {
  std::lock_guard lk(impl_->mutex);
  const auto it = impl_->link_by_upstream_port.find(port);
  return it == impl_->link_by_upstream_port.end() ? "" : impl_->links[it->second].source;
}

void TcpProxy::set_latency(const std::string& source, Flow flow, std::chrono::nanoseconds latency) {
  std::lock_guard lk(impl_->mutex);
  if (Link* l = impl_->find(source)) l->dir[static_cast<int>(flow)].latency = latency;
}

void TcpProxy::delay_next(const std::string& source, Flow flow, std::chrono::nanoseconds extra) {
  std::lock_guard lk(impl_->mutex);
  if (Link* l = impl_->find(source)) l->dir[static_cast<int>(flow)].pending_delay += extra;
}

void TcpProxy::cut(const std::string& source, std::optional<PartitionMode> mode) {
  {
    std::lock_guard lk(impl_->mutex);
    if (Link* l = impl_->find(source)) l->cut = mode;
  }
  impl_->wake();
}

void TcpProxy::reset(const std::string& source) {
  {
    std::lock_guard lk(impl_->mutex);
    for (auto it = impl_->conns.begin(); it != impl_->conns.end();) {
      if (impl_->links[it->link].source != source) {
        ++it;
        continue;
      }
      impl_->close_conn(*it);
      it = impl_->conns.erase(it);
    }
  }
  impl_->wake();
}

}  // namespace locksim::live
