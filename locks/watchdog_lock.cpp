// watchdog: Redisson's RLock with its lock watchdog.
//
// Source: Redisson (RedissonLock.java; docs/redis-model.md, "Redisson RLock +
// watchdog"). The lock is a hash; the field `<clientUUID>:<threadId>` holds
// the re-entry count (clientUUID = rt.random_token() once per Lock instance,
// threadId = LockConfig::thread_name). Acquire, unlock and renew are
// Redisson's scripts, unchanged: lock = create or re-enter and PEXPIRE
// (nil = acquired, else the PTTL); unlock = decrement, PEXPIRE while > 0,
// DEL + PUBLISH on `redisson_lock__channel:{key}` at 0, nil for a non-owner
// (which never deletes); renew = HEXISTS then PEXPIRE. On the first grant a
// renewal task (rt.spawn) renews every renew_interval (default ttl/3, as
// Redisson's 30 s lease / 10 s); it stops when renew answers anything but 1
// (the lock is lost or — as in Redisson — the renewal command failed) and is
// cancelled by the release that deletes the hash.
//
// Claims: no lease-time guesswork — the lock lives exactly as long as its
// holder's process renews it; re-entrant; no wrong-owner unlock. Assumes the
// holder's process stays responsive: the watchdog runs on the same process,
// so a GC pause stops renewals too, the lock expires under a paused holder
// that still believes it holds it, and a failover can lose the hash.
// A contended acquire polls every `retry` (Redisson waits on the unlock
// channel instead: same outcome, more round trips). Redisson keeps no
// validity deadline; `track_validity` adds one (T1 + ttl, moved forward by
// every renewal).
#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"
#include "locks/watchdog.hpp"

namespace locksim::locks {
namespace {

// KEYS[1] lock; ARGV[1] lease ms, ARGV[2] field. nil = acquired, else PTTL.
const char* const kLockScript =
    "if (redis.call('exists',KEYS[1])==0) or (redis.call('hexists',KEYS[1],ARGV[2])==1) then "
    "redis.call('hincrby',KEYS[1],ARGV[2],1); redis.call('pexpire',KEYS[1],ARGV[1]); return nil; "
    "end; return redis.call('pttl',KEYS[1]);";
// KEYS[1] lock, KEYS[2] channel; ARGV[1] unlock message, ARGV[2] lease ms, ARGV[3] field.
const char* const kUnlockScript =
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; "
    "else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end; "
    "return nil;";
// KEYS[1] lock; ARGV[1] lease ms, ARGV[2] field. 1 = renewed, 0 = not ours.
const char* const kRenewScript =
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then "
    "redis.call('pexpire', KEYS[1], ARGV[1]); return 1; end; return 0;";

class WatchdogLock final : public LockBase {
 public:
  WatchdogLock(Runtime& rt, const LockConfig& config, WatchdogOnError on_error)
      : LockBase(rt, config), on_error_(on_error), field_(rt.random_token() + ":" + config.thread_name) {}
  ~WatchdogLock() override { stop_watchdog(); }
  WatchdogLock(const WatchdogLock&) = delete;
  WatchdogLock& operator=(const WatchdogLock&) = delete;

  Task<bool> release(Lease& lease) override {
    Reply r = co_await cmd(0, "EVAL", kUnlockScript, "2", lease.key, channel(lease.key), "0",
                           ms_arg(config_.ttl), lease.token);
    if (r.is_error()) co_return false;      // unknown outcome: keep renewing
    if (!r.is_integer(0)) stop_watchdog();  // deleted (1) or not ours (nil)
    co_return !r.is_nil();
  }

  Task<bool> extend(Lease& lease) override {
    const LocalInstant t1 = rt_.monotonic_now();
    if (!co_await renew(lease.key, lease.token)) co_return false;
    renew_validity(lease, t1);
    co_return true;
  }

  bool still_valid(const Lease& lease) override {
    if (!lease.valid_until) return true;
    const LocalInstant renewed{Duration(renewed_until_ns_.load())};
    return rt_.monotonic_now() < std::max(*lease.valid_until, renewed);
  }

 protected:
  Task<std::optional<Lease>> attempt() override {
    Reply r = co_await cmd(0, "EVAL", kLockScript, "1", config_.key, ms_arg(config_.ttl), field_);
    if (!r.is_nil()) co_return std::nullopt;
    co_return Lease{config_.key, field_, std::nullopt, std::nullopt, ensure_watchdog()};
  }

 private:
  static std::string channel(const std::string& key) {
    return "redisson_lock__channel:{" + key + "}";
  }

  Duration interval() const {
    return config_.renew_interval > Duration::zero() ? config_.renew_interval : config_.ttl / 3;
  }

  Task<bool> renew(const std::string& key, const std::string& field) {
    co_return (co_await renew_reply(key, field)).is_integer(1);
  }

  Task<Reply> renew_reply(const std::string& key, const std::string& field) {
    co_return co_await cmd(0, "EVAL", kRenewScript, "1", key, ms_arg(config_.ttl), field);
  }

  // The background task: renew every interval until a renewal fails (with
  // WatchdogOnError::KeepRenewing an error reply — a timeout, a reset — only
  // skips to the next interval; a 0, "not ours", still ends it).
  Task<void> renew_loop(std::string key) {
    for (;;) {
      co_await rt_.sleep(interval());
      const LocalInstant t1 = rt_.monotonic_now();
      const Reply r = co_await renew_reply(key, field_);
      if (r.is_error() && on_error_ == WatchdogOnError::KeepRenewing) continue;
      if (!r.is_integer(1)) break;
      renewed_until_ns_ = (t1 + config_.ttl).time_since_epoch().count();
    }
    renewal_ended_ = true;  // ended on its own: the next grant starts a new one
  }

  // Starts the renewal task unless one is running; its id.
  std::uint64_t ensure_watchdog() {
    if (watchdog_ == 0 || renewal_ended_) {
      stop_watchdog();
      renewal_ended_ = false;
      watchdog_ = rt_.spawn(renew_loop(config_.key));
    }
    return watchdog_;
  }

  void stop_watchdog() {
    if (const std::uint64_t id = watchdog_.exchange(0); id != 0) rt_.cancel(id);
  }

  WatchdogOnError on_error_;
  std::string field_;
  // Atomics: on RealRuntime the renewal task runs on its own thread.
  std::atomic<std::uint64_t> watchdog_{0};
  std::atomic<bool> renewal_ended_{false};
  std::atomic<std::int64_t> renewed_until_ns_{0};  // monotonic ns of the last renewal's deadline
};

}  // namespace

std::unique_ptr<Lock> make_watchdog_lock(Runtime& rt, const LockConfig& config, WatchdogOnError on_error) {
  return std::make_unique<WatchdogLock>(rt, config, on_error);
}

LockInfo lock_info_watchdog() {
  LockInfo info{"watchdog",
                "Redisson RLock: re-entrant hash lock renewed every ttl/3 by a background watchdog",
                "Redisson RedissonLock + lock watchdog",
                1,
                false,
                false,
                false,
                [](Runtime& rt, const LockConfig& c) { return make_watchdog_lock(rt, c, WatchdogOnError::Stop); }};
  info.options = watchdog_options();
  return info;
}

}  // namespace locksim::locks
