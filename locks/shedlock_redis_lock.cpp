// shedlock-redis: ShedLock's Redis lock provider as shipped (and as it still
// behaves by default), and beside it `shedlock-redis-safe`, the provider with
// the fix switched on.
//
// Repository: github.com/lukas-krecan/ShedLock. Version: shedlock-provider-
// redis-spring <= 6.6 (file providers/redis/.../RedisLockProvider.java;
// since 6.7 the logic sits in shedlock-support-redis InternalRedisLockProvider
// .java). Report: ShedLock#2583 / PR #2593 "Redis Lock implementation do not
// account for race-conditions"; compare ShedLock#132 and #74, the same
// "unlock removes the next node's lock" story for other providers.
// What the code did: lock() = `SET key value NX PX lockAtMostFor` (value
// "ADDED:<time>@<host>:<uuid>"); unlock() with lockAtLeastFor passed =
// `DEL key` with no owner check; with lockAtLeastFor still to run = `SET key
// value XX PX remaining` (also no owner check); extend = `SET key value XX PX`.
// A node whose task outlives lockAtMostFor — a GC pause is enough — wakes
// after the key expired and another node took it, and its unlock deletes the
// other node's lock, so a third node runs the task alongside it.
// What the fix changed (7fddeb0, 6.7.0; b0efa01 made it the opt-in
// `safeUpdate`, still false by default): unlock runs the compare-and-delete
// script and extend/lockAtLeastFor the compare-and-pexpire script, keyed on
// the lock's unique value. Read from the provider sources at those commits.
// Modelled with lockAtLeastFor = 0 (ShedLock's default "PT0S"), so unlock is
// always the DEL (or the script). Assumption: ShedLock never waits for a lock
// — a node that finds it taken skips this run; our retry loop stands for the
// scheduler's next runs (`retry` = the schedule period).
#include <memory>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::locks {
namespace {

class ShedLockRedisLock final : public LockBase {
 public:
  ShedLockRedisLock(Runtime& rt, const LockConfig& config, bool safe_update)
      : LockBase(rt, config), safe_update_(safe_update) {}

  Task<bool> release(Lease& lease) override {
    if (safe_update_) {
      Reply r = co_await cmd(0, "EVAL", kCompareAndDeleteScript, "1", lease.key, lease.token);
      co_return r.is_integer(1);
    }
    Reply r = co_await cmd(0, "DEL", lease.key);
    co_return r.is_integer(1);
  }

  Task<bool> extend(Lease& lease) override {
    if (safe_update_) co_return co_await extend_if_owner(lease);
    const LocalInstant t1 = rt_.monotonic_now();
    Reply r = co_await cmd(0, "SET", lease.key, lease.token, "XX", "PX", ms_arg(config_.ttl));
    if (!r.is_ok()) co_return false;
    renew_validity(lease, t1);
    co_return true;
  }

 protected:
  Task<std::optional<Lease>> attempt() override { return set_nx_px(fresh_token("ADDED:")); }

 private:
  bool safe_update_;
};

LockInfo shedlock_info(std::string name, std::string description, std::string source, bool safe_update) {
  return {std::move(name),
          std::move(description),
          std::move(source),
          1,
          false,
          false,
          false,
          [safe_update](Runtime& rt, const LockConfig& c) {
            return std::make_unique<ShedLockRedisLock>(rt, c, safe_update);
          }};
}

}  // namespace

LockInfo lock_info_shedlock_redis() {
  LockInfo info = shedlock_info("shedlock-redis",
                                "ShedLock Redis provider as shipped: SET NX PX lockAtMostFor, unlock = DEL without "
                                "an owner check",
                                "ShedLock RedisLockProvider <= 6.6 (safeUpdate=false, still the default)", false);
  info.reproduces =
      Reproduction{"ShedLock", "<= 6.6 (and safeUpdate=false)", "ShedLock#2583/PR #2593, cf. #132",
                   "shedlock-redis-safe", std::string(violation_kind_name(ViolationKind::WrongOwnerRelease))};
  return info;
}

LockInfo lock_info_shedlock_redis_safe() {
  return shedlock_info("shedlock-redis-safe",
                       "ShedLock Redis provider with safeUpdate: unlock and extend check the lock's unique value",
                       "ShedLock InternalRedisLockProvider 6.7+ (delLuaScript / updLuaScript)", true);
}

}  // namespace locksim::locks
