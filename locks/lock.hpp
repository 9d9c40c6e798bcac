// Lock: the interface every lock algorithm implements, its configuration
// (the scenario's [lock] table) and the Lease a successful acquire returns.
//
// A lock talks to Redis only through `rt.conn(i).command(argv)` and sees time
// only through `rt.monotonic_now()/wall_now()/sleep()` (locks/runtime.hpp),
// so the same code runs on the simulator and on a real redis-server. Expected
// outcomes are values: a refused acquire is `nullopt`, a failed release
// `false`; nothing here throws on a Redis error reply. A Lock keeps a
// reference to its Runtime and must be destroyed first (a watchdog lock
// cancels its renewal task through it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "locks/runtime.hpp"

namespace locksim::locks {

using namespace std::chrono_literals;

enum class RedlockClock : std::uint8_t {
  Monotonic,  // go-redsync: elapsed measured on a monotonic reading
  Wall,       // redlock-py, node-redlock: Date.now()/time.time()
};

struct LockConfig {
  // --- every lock ---
  std::string key = "lock:locksim";  // the lock key, e.g. "lock:job:daily-report"
  Duration ttl = 30s;                // PX of the lock entry (lease time)
  Duration retry = 10ms;             // delay between acquire attempts
  Duration acquire_timeout = 60s;    // give up after this long (local monotonic clock)
  // Single-node locks and watchdog: keep a local validity deadline of
  // T1 + ttl (ttl − elapsed from the reply), T1 read before the acquire was
  // sent. Off by default: the articles' locks keep none. Redlock always tracks.
  bool track_validity = false;

  // --- redlock, redlock-fenced ---
  // Per-node command timeout; zero = default ttl/200 clamped to [5ms, 50ms]
  // (redis.io distlock: "5-50 ms for a 10 s TTL").
  Duration node_timeout = 0ms;
  RedlockClock clock = RedlockClock::Monotonic;
  // redis.io / redlock-rb / go-redsync refuse a grant whose validity
  // (ttl − elapsed − drift) is not positive; node-redlock v5 does not check.
  bool check_validity_after_acquire = true;
  // Extra random delay added to `retry` after a failed Redlock attempt:
  // retry + rand[0, retry_jitter) (redlock-rb: rand(200) ms).
  Duration retry_jitter = 200ms;
  // redlock-fenced: the node that holds the fencing counter; the other nodes
  // are the lock nodes. -1 (or out of range) = the last node.
  std::int64_t counter_node = -1;

  // --- fenced, redlock-fenced ---
  std::string counter_key;  // INCR'd per grant; empty = key + ":fence"

  // --- thread-id ---
  std::string thread_id = "thread-1";  // the "token", equal on every instance

  // --- watchdog (Redisson RLock) ---
  Duration renew_interval = 0ms;  // zero = ttl/3 (Redisson: 30 s lease, renew every 10 s)
  std::string thread_name = "1";  // the hash field is <clientUUID>:<thread_name>

  // --- external, lib:* (live/external_lock.hpp) ---
  // The client adapter's program and arguments (`[lock] command`, `--client`);
  // empty = the lock's own (a shipped adapter) or none.
  std::vector<std::string> command;
  // `[lock] options`: the adapter's own settings, passed to it as text in
  // hello ("options": {"timeout": "0"}); each adapter documents (and checks)
  // the ones it reads.
  std::map<std::string, std::string> adapter_options;

  std::string fence_key() const { return counter_key.empty() ? key + ":fence" : counter_key; }
};

struct Lease {
  std::string key, token;  // token: the value (or hash field) that marks ownership
  std::optional<std::int64_t> fencing_token;  // set by fenced locks; travels with storage writes
  std::optional<LocalInstant>
      valid_until;               // on the client's monotonic clock, if the lock tracks validity
  std::uint64_t background = 0;  // e.g. watchdog task id (0 = none)
};

class Lock {
 public:
  virtual ~Lock() = default;
  // Retries every `retry` until `acquire_timeout` has passed on the local
  // monotonic clock; nullopt = gave up.
  virtual Task<std::optional<Lease>> try_acquire() = 0;
  // True if this client's entry was removed (for algorithms that cannot
  // tell whose entry it was, e.g. a bare DEL: true if an entry was removed).
  virtual Task<bool> release(Lease& lease) = 0;
  // Renews the TTL; updates lease.valid_until when the lock tracks validity.
  virtual Task<bool> extend(Lease& lease) = 0;
  // False once the local validity deadline has passed; true if none is tracked.
  virtual bool still_valid(const Lease& lease) = 0;
  // Redis commands sent so far, background work included (for reports).
  virtual std::uint64_t round_trips() const = 0;
};

}  // namespace locksim::locks
