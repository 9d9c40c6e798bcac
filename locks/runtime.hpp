// The interfaces every lock algorithm is written against (docs/architecture.md,
// "One lock implementation, two runtimes"): RedisConn sends the exact argv a
// Redis client sends; Runtime is the client's view of the world (its local
// clocks, sleeps, tokens, connections). SimRuntime implements them over the
// simulated world, RealRuntime over hiredis and std::chrono; a lock cannot
// tell which it runs on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "locks/cp_client.hpp"
#include "vocab/reply.hpp"
#include "vocab/task.hpp"
#include "vocab/time.hpp"

namespace locksim::locks {

// The vocabulary a lock is written in, re-exported: a user's lock says
// `using namespace locksim::locks;` (examples/custom-lock) and finds them.
using locksim::Argv;
using locksim::Duration;
using locksim::LocalInstant;
using locksim::Reply;
using locksim::Task;

class RedisConn {
 public:
  virtual ~RedisConn() = default;
  // Sends one command and waits for its reply. A timeout, a reset connection
  // or a refused connection comes back as an error reply (never an
  // exception): the request may still have executed on the server.
  virtual Task<Reply> command(Argv argv) = 0;
  // The same with a per-call timeout (Redlock's short per-node timeout): a
  // reply that does not arrive within `timeout` comes back as an error reply
  // while the request may still execute later. The default ignores the
  // timeout and uses the connection's own; runtimes override it.
  virtual Task<Reply> command(Argv argv, Duration timeout) {
    (void)timeout;
    return command(std::move(argv));
  }
};

// Thrown by Runtime::service<Conn>() when the runtime holds no connection
// to that service.
class MissingService : public std::logic_error {
 public:
  explicit MissingService(const std::string& service)
      : std::logic_error("a lock asked for its " + service + " connection on a runtime without one (a " +
                         service + " lock on another topology)") {}
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual LocalInstant monotonic_now() = 0;  // drift applies, steps do not
  virtual LocalInstant wall_now() = 0;       // drift and steps apply
  virtual Task<void> sleep(Duration d) = 0;  // on the monotonic clock
  virtual std::string random_token() = 0;    // unique per call (a UUID-like string)
  // Appends the next random_token() to `out`. The simulator writes it in
  // place, so a retry loop that reuses `out` allocates nothing per attempt.
  virtual void append_random_token(std::string& out) { out += random_token(); }
  virtual std::uint64_t random_below(std::uint64_t n) = 0;  // jitter, n > 0
  virtual RedisConn& conn(std::size_t node) = 0;
  virtual std::size_t node_count() const = 0;

  // Runs `task` concurrently on this client, for background work such as a
  // watchdog's renewal loop: on the simulator it is another root task of the
  // client's host (so a GC pause of the client pauses it too); on the real
  // runtime a thread. cancel() stops it (its frame is destroyed); cancelling
  // a finished or unknown id does nothing.
  virtual std::uint64_t spawn(Task<void> task) = 0;
  virtual void cancel(std::uint64_t id) = 0;

  // The client's connection to its scenario's service beyond Redis (an
  // etcd cluster, a ZooKeeper ensemble: locks/cp_client.hpp), made by the
  // service's row; nullptr on a Redis topology. Locks reach it typed,
  // through service<Conn>().
  virtual ServiceConn* service_conn() { return nullptr; }

  // The client's connection as the lock's service interface:
  // `rt.service<EtcdConn>()`. Never null: a runtime without a connection of
  // that service throws MissingService (the runner refuses a lock on
  // another topology first: locks::topology_mismatch, so this is a bug).
  template <class Conn>
  Conn& service() {
    static_assert(std::is_base_of_v<ServiceConn, Conn>, "a service interface derives from ServiceConn");
    if (auto* conn = dynamic_cast<Conn*>(service_conn())) return *conn;
    throw MissingService(Conn::kService);
  }
};

}  // namespace locksim::locks
