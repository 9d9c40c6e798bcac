// SimSocketServer: one simulated Redis node's real listening socket.
//
// Listens on a free 127.0.0.1 port and serves RESP (locks/hiredis/
// resp_codec.hpp) on non-blocking connections. It has no thread and no
// timer: its owner drives it. drain() accepts, reads what every connection
// has and returns the complete commands in a deterministic order (connection
// id, then byte order); the owner decides how each command enters the
// simulated network and calls reply() when the answer arrives. Replies are
// written in command order per connection, as a redis-server answers.
// Malformed input is answered, after the replies owed for the commands
// before it, with redis-server's "-ERR Protocol error: ..." and the
// connection is closed (src/networking.c setProtocolError). reset() closes
// with an RST, as a crashed server's kernel does.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vocab/reply.hpp"
#include "vocab/time.hpp"

namespace locksim::hosted {

// A real TCP connection has no command timeout: the client library's own
// socket timeout decides. A command from a socket waits in the simulated
// network (almost) forever.
inline constexpr Duration kNoCommandTimeout = std::chrono::hours(24 * 365);

struct WireCommand {
  std::uint64_t connection;
  std::uint64_t seq;  // the command's position on its connection (0, 1, ...)
  Argv argv;
};

struct Drained {
  std::vector<WireCommand> commands;
  std::vector<std::uint64_t> opened;  // connections accepted by this drain
  std::vector<std::uint64_t> closed;  // connections the peer closed (EOF, error)
};

class SimSocketServer {
 public:
  SimSocketServer();  // throws std::runtime_error if it cannot listen
  ~SimSocketServer();
  SimSocketServer(const SimSocketServer&) = delete;
  SimSocketServer& operator=(const SimSocketServer&) = delete;

  int port() const { return port_; }
  Drained drain();
  // The reply to command `seq` of `connection`; held until the ones before it are written.
  void reply(std::uint64_t connection, std::uint64_t seq, const Reply& reply);
  // What the simulated network answered to command `seq`: a reset, lost or
  // refused connection resets the socket (false); any other reply is
  // written as reply() does (true).
  bool answer(std::uint64_t connection, std::uint64_t seq, const Reply& reply);
  // Close once every owed reply is written (QUIT).
  void close_after_replies(std::uint64_t connection);
  void reset(std::uint64_t connection);  // RST now, replies owed are lost
  void reset_all();                      // the node crashed
  bool is_open(std::uint64_t connection) const { return connections_.count(connection) != 0; }
  std::size_t open_connections() const { return connections_.size(); }
  // Waits up to timeout_ms for a connection, bytes to read or room to write.
  void wait(int timeout_ms) const { wait_any({this}, timeout_ms); }
  // The same over several servers at once (one simulated node each).
  static void wait_any(const std::vector<const SimSocketServer*>& servers, int timeout_ms);

 private:
  struct Conn;
  void accept_all(Drained& out);
  bool read_all(std::uint64_t id, Conn& c, Drained& out);
  void flush(std::uint64_t id, Conn& c);
  void drop(std::uint64_t id, bool rst);

  int listen_fd_ = -1;
  int port_ = 0;
  std::uint64_t next_id_ = 0;
  std::map<std::uint64_t, std::unique_ptr<Conn>> connections_;
};

}  // namespace locksim::hosted
