// LiveServers: what a live run needs from the servers it runs against,
// whichever service they are — redis-server processes (RedisCluster) or the
// members of an etcd cluster or ZooKeeper ensemble (CpCluster). The live
// session (live_session.hpp) drives process faults, the proxies' links and
// the end of the run through it, so one session runs every topology; what
// only Redis has (replicas, promotion, server clocks, the AOF) stays on
// RedisCluster.
//
// Servers are numbered 0..server_count()-1 in the order the History lists
// them (redis-1.. or etcd-1.. / zk-1..). Process faults are called on the
// main thread only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "live/tcp_proxy.hpp"
#include "vocab/exit_code.hpp"
#include "vocab/result.hpp"

namespace locksim::live {

// Exit code and one line: kBadInput (no binary, a refused scenario),
// kInternal = the environment failed us (a server did not start or died).
struct LiveError {
  ExitCode exit_code = kInternal;
  std::string message;
  bool interrupted = false;  // SIGINT/SIGTERM ended it: a caller stops too
};

// A proxied connection carrying a scenario link's bytes: whose proxy, which
// listener, which way.
struct LinkRoute {
  std::size_t node = 0;  // whose proxy
  std::string source;    // which listener
  Flow flow = Flow::ToServer;
};

class LiveServers {
 public:
  virtual ~LiveServers() = default;

  virtual std::size_t server_count() const = 0;
  virtual const std::string& server_name(std::size_t i) const = 0;
  virtual bool server_up(std::size_t i) const = 0;  // false after a kill, until its restart
  virtual std::optional<std::size_t> find(const std::string& name) const = 0;
  // The proxy in front of server i: one listener per client (and, for
  // Redis, per other node of its shard).
  virtual TcpProxy& proxy(std::size_t i) const = 0;
  // The proxied link between two servers (Redis replication), if any: the
  // members of an etcd cluster or ZooKeeper ensemble talk to each other
  // directly, not through a proxy.
  virtual std::optional<LinkRoute> server_link(std::size_t from, std::size_t to) const = 0;

  // Process faults (main thread only).
  virtual void pause(std::size_t i) = 0;   // SIGSTOP
  virtual void resume(std::size_t i) = 0;  // SIGCONT
  virtual void kill9(std::size_t i) = 0;   // SIGKILL + reap
  virtual Result<bool, LiveError> restart(std::size_t i) = 0;  // same ports and data

  // A server that exited although no fault killed it, if any.
  virtual std::optional<std::string> died_unexpectedly() = 0;
  virtual void stop_all() = 0;
};

}  // namespace locksim::live
