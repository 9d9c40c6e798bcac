// LockBase: the plumbing every built-in lock shares, so each lock file holds
// only its algorithm: counting round trips, the acquire retry loop (retry
// every `retry` until `acquire_timeout` on the local monotonic clock), the
// optional local validity deadline, and the two Lua scripts the articles
// copy around (compare-and-delete from docs/redis-model.md, verbatim, and its
// compare-and-pexpire sibling for extends).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "locks/lock.hpp"
#include "vocab/argv_pool.hpp"

namespace locksim::locks {

// `if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end`
extern const char* const kCompareAndDeleteScript;
// Same check, then PEXPIRE KEYS[1] ARGV[2].
extern const char* const kCompareAndPexpireScript;

// Whole milliseconds as Redis wants them in argv ("30000").
std::string ms_arg(Duration d);

class LockBase : public Lock {
 public:
  LockBase(Runtime& rt, LockConfig config) : rt_(rt), config_(std::move(config)) {}

  // Calls attempt() until it grants or acquire_timeout has passed, sleeping
  // retry_delay() between attempts. With track_validity, stamps
  // valid_until = T1 + ttl (T1 read before the attempt) unless the attempt
  // set its own.
  Task<std::optional<Lease>> try_acquire() override;
  bool still_valid(const Lease& lease) override;
  std::uint64_t round_trips() const override { return round_trips_; }

 protected:
  // One acquire attempt; nullopt = refused this time (the loop retries).
  virtual Task<std::optional<Lease>> attempt() = 0;
  virtual Duration retry_delay() { return config_.retry; }

  // Every Redis command a lock sends goes through here (counted).
  Task<Reply> send(std::size_t node, Argv argv);
  Task<Reply> send(std::size_t node, Argv argv, Duration timeout);
  // send() with the argv spelled as arguments: `co_await cmd(0, "DEL", key)`.
  // (GCC 12 rejects a braced argv temporary inside a co_await expression.)
  template <class... Args>
  Task<Reply> cmd(std::size_t node, Args&&... args) {
    return send(node, argv_of(std::forward<Args>(args)...));
  }
  template <class... Args>
  Task<Reply> cmd_within(Duration timeout, std::size_t node, Args&&... args) {
    return send(node, argv_of(std::forward<Args>(args)...), timeout);
  }
  // Builds the argv in a recycled vector (vocab/argv_pool.hpp): a retry of
  // the same command reuses the buffers of the last one, so it allocates
  // nothing. (A braced Argv{...} would copy every string out of its
  // initializer_list: two allocations per long argument.)
  template <class... Args>
  static Argv argv_of(Args&&... args) {
    Argv argv = argv_pool::take(sizeof...(Args));
    std::size_t i = 0;
    (argv[i++].assign(std::forward<Args>(args)), ...);
    return argv;
  }
  // This attempt's token (`prefix` then a fresh random token), written into
  // a buffer the next attempt reuses, so a retry allocates nothing. It stays
  // valid until the next call: attempts run one at a time (try_acquire's
  // loop). Copy it into the Lease only when the attempt wins.
  const std::string& fresh_token(const char* prefix = "");
  // The single-node acquire the SET-based locks share: `SET key token NX PX
  // ttl` on node 0; a lease on OK, nullopt otherwise. The coroutine starts
  // lazily and keeps the reference, so the token must outlive the attempt:
  // fresh_token() or a member; a temporary is refused at compile time.
  Task<std::optional<Lease>> set_nx_px(const std::string& token);
  Task<std::optional<Lease>> set_nx_px(std::string&& token) = delete;
  // The owner-checked extend (compare-and-pexpire script on node 0): renews
  // the entry only while it still holds this lease's token.
  Task<bool> extend_if_owner(Lease& lease);

  // After a successful extend that began at t1: valid_until = t1 + ttl when
  // the lock tracks validity.
  void renew_validity(Lease& lease, LocalInstant t1) const;

  Runtime& rt_;
  LockConfig config_;
  // Atomic: on RealRuntime a spawned renewal task sends from its own thread.
  std::atomic<std::uint64_t> round_trips_{0};

 private:
  std::string attempt_token_;  // fresh_token()'s buffer
};

}  // namespace locksim::locks
