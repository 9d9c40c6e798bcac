// redlock-net-48: RedLock.net's auto-extension as shipped (2.3.2), which
// re-creates a lock key that expired and keeps extending after a conflict —
// and beside it `redlock-net-fixed`, the behaviour issue #48 asks for.
//
// Repository: github.com/samcook/RedLock.net, files RedLockNet.SERedis/
// RedLock.cs (StartAutoExtendTimer, ExtendLockLifetime, ExtendInstance) and
// RedLockNet.SERedis/Lua/Extend.lua, version 2.3.2. Reports: #48 "Auto
// extend is not stopped even when getting conflict" (open): when the timer
// is starved and another process takes the key meanwhile, the extension
// conflicts but keeps trying and may succeed later, "so the client will
// never know that someone else took hold of the key"; #93 "Dead lock on
// extend fail": two app instances both saw IsAcquired == true.
// What the code does: after a grant a Timer fires every expiry/2 and runs
// Extend.lua on every instance: key missing → `SET key id PX expiry` (1);
// key ours → PEXPIRE (1); someone else's → -1. With a quorum of 1s and a
// positive validity Status becomes Acquired again, else Conflicted/
// NoQuorum; the timer never stops until the lock is disposed. IsAcquired
// (Status == Acquired) is what the caller checks. A holder that was paused
// past its expiry (the timer starved, or here the whole process frozen)
// resumes, its timer re-creates the expired key — after another client held
// and released it — and IsAcquired stays true: the holder never learns.
// What a fix changes (proposed in #48, not shipped): extend only a key that
// is still ours (compare-and-pexpire; a missing key is a failure), and once
// an extension fails the lock stays lost (IsAcquired false, timer stopped).
// Modelled on RedlockLock over every node (Stopwatch = monotonic clock);
// still_valid() answers IsAcquired; the lease has no deadline (RedLock.net
// exposes none). Assumptions: the outer retry waits retryTime without
// jitter (Start()), a GC pause stands for the timer's starvation, and the
// caller checks IsAcquired before each write (the README's advice).
#include <atomic>
#include <memory>
#include <numeric>

#include "locks/redlock.hpp"
#include "locks/registry.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::locks {
namespace {

// Extend.lua: re-create a missing key, renew ours, -1 for someone else's.
const char* const kRedlockNetExtendScript =
    "local currentVal = redis.call('get', KEYS[1]) "
    "if (currentVal == false) then return redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) and 1 or 0 "
    "elseif (currentVal == ARGV[1]) then return redis.call('pexpire', KEYS[1], ARGV[2]) "
    "else return -1 end";

LockConfig without_jitter(LockConfig config) {
  config.retry_jitter = Duration::zero();
  return config;
}

class RedlockNetLock final : public RedlockLock {
 public:
  RedlockNetLock(Runtime& rt, const LockConfig& config, std::vector<std::size_t> nodes, bool fixed)
      : RedlockLock(rt, without_jitter(config), std::move(nodes)), fixed_(fixed) {}
  ~RedlockNetLock() override { stop_timer(); }
  RedlockNetLock(const RedlockNetLock&) = delete;
  RedlockNetLock& operator=(const RedlockNetLock&) = delete;

  Task<std::optional<Lease>> try_acquire() override {
    std::optional<Lease> lease = co_await RedlockLock::try_acquire();
    if (!lease) co_return lease;
    if (!config_.track_validity) lease->valid_until.reset();
    acquired_ = true;
    stop_timer();
    timer_ = rt_.spawn(keepalive(*lease));
    lease->background = timer_;
    co_return lease;
  }

  Task<bool> release(Lease& lease) override {
    stop_timer();
    acquired_ = false;
    co_return co_await RedlockLock::release(lease);
  }

  bool still_valid(const Lease& lease) override { return acquired_ && RedlockLock::still_valid(lease); }

 private:
  // ExtendLockLifetime every expiry/2.
  Task<void> keepalive(Lease lease) {
    for (;;) {
      co_await rt_.sleep(config_.ttl / 2);
      bool extended = false;  // an if, not ?: around co_await (tests/test_rules.cpp)
      if (fixed_) extended = co_await RedlockLock::extend(lease);
      else extended = co_await extend_or_recreate(lease);
      acquired_ = extended;
      if (!extended && fixed_) co_return;  // lost: stays lost
    }
  }

  // Extend.lua on every node; a quorum of 1s and a positive validity.
  Task<bool> extend_or_recreate(const Lease& lease) {
    const LocalInstant t1 = clock_now();
    std::size_t extended = 0;
    for (std::size_t node : nodes_) {
      Reply r = co_await cmd_within(node_timeout(), node, "EVAL", kRedlockNetExtendScript, "1", lease.key,
                                    lease.token, ms_arg(config_.ttl));
      if (r.is_integer(1)) ++extended;
    }
    co_return extended >= quorum() && validity_after(clock_now() - t1) > Duration::zero();
  }

  void stop_timer() {
    if (const std::uint64_t id = timer_.exchange(0); id != 0) rt_.cancel(id);
  }

  bool fixed_;
  std::atomic<bool> acquired_{false};        // IsAcquired; the timer writes it (a thread on RealRuntime)
  std::atomic<std::uint64_t> timer_{0};
};

LockInfo redlock_net_info(std::string name, std::string description, std::string source, bool fixed) {
  LockInfo info = every_node_lock_info(
      std::move(name), std::move(description), std::move(source), 1, false,
      [fixed](Runtime& rt, const LockConfig& c, std::vector<std::size_t> nodes) -> std::unique_ptr<Lock> {
        return std::make_unique<RedlockNetLock>(rt, c, std::move(nodes), fixed);
      });
  info.long_jobs = true;
  // RedLock.net offers no extend to call: IRedLock (RedLockNet/IRedLock.cs)
  // has Resource, LockId, IsAcquired, Status, InstanceSummary, ExtendCount;
  // only its timer extends. Generated clients do not call extend().
  info.implements_extend = false;
  return info;
}

}  // namespace

LockInfo lock_info_redlock_net_48() {
  LockInfo info = redlock_net_info(
      "redlock-net-48",
      "RedLock.net 2.3.2 auto-extend: every expiry/2, re-creates an expired key and keeps going after a conflict",
      "RedLock.net RedLock.cs ExtendLockLifetime + Lua/Extend.lua (#48, #93)", false);
  info.reproduces = Reproduction{"RedLock.net", "2.3.2", "#48, #93", "redlock-net-fixed", std::string(violation_kind_name(ViolationKind::StaleWrite))};
  return info;
}

LockInfo lock_info_redlock_net_fixed() {
  return redlock_net_info("redlock-net-fixed",
                          "RedLock.net auto-extend as #48 proposes: extend only our own key; a failed extension "
                          "loses the lock for good",
                          "RedLock.net #48 (proposal; not shipped)", true);
}

}  // namespace locksim::locks
