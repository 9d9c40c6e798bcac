// redisson-watchdog-3194: Redisson's lock watchdog as shipped up to the
// renewal rewrite, where one failed renewal stops the watchdog for good —
// and beside it `watchdog-fixed`, which keeps renewing after an error.
//
// Repository: github.com/redisson/redisson. Version: 3.x up to the
// org.redisson.renewal package (file redisson/src/main/java/org/redisson/
// RedissonBaseLock.java, renewExpiration()). Reports: redisson#3194 ("the
// watchdog no longer works after a reconnect": a renewal timed out, Redisson
// logged "Can't update lock ... expiration" and renewed no more) and
// redisson#5698 ("Watchdog doesn't renew RLock intermittently which leads to
// premature release": a 5-minute job under the 30 s watchdog lease lost its
// lock to another pod).
// What the code did: renewExpiration() schedules a timer every
// lockWatchdogTimeout/3; when the renew script's future completes with an
// exception it logs the error, removes the renewal entry and returns without
// scheduling the next run (PR #3193, the #3194 fix, added the removal so a
// *later* lock gets a watchdog again; the failing lock's renewal still ends).
// A 0 reply ("not ours") also ends it. The lock then expires one lease after
// the last good renewal while the holder's job goes on.
// What the fix changed: org.redisson.renewal.RenewalTask.run() logs the
// error and calls schedule() either way, so the next interval renews again;
// only a lock that is no longer ours leaves the renewal set. We could read
// RenewalTask's run() (error: log + schedule) and the older renewExpiration
// in public copies; the exact release that switched (3.36-ish) we could not
// confirm from a changelog.
// Modelled: locks/watchdog_lock.cpp with WatchdogOnError::Stop (identical to
// the `watchdog` lock, listed here with its report) and ::KeepRenewing.
// Assumes a renewal "fails" when its reply is an error (the command timed
// out or the connection reset), as Redisson's RedisResponseTimeoutException.
#include "locks/registry.hpp"
#include "vocab/violation_kinds.hpp"
#include "locks/watchdog.hpp"

namespace locksim::locks {

LockInfo lock_info_redisson_watchdog_3194() {
  LockInfo info{"redisson-watchdog-3194",
                "Redisson watchdog as shipped: one failed renewal stops it for good (redisson#3194, #5698)",
                "redisson RedissonBaseLock.renewExpiration (3.x before org.redisson.renewal)",
                1,
                false,
                false,
                false,
                [](Runtime& rt, const LockConfig& c) { return make_watchdog_lock(rt, c, WatchdogOnError::Stop); }};
  info.reproduces = Reproduction{"Redisson", "3.x before org.redisson.renewal", "redisson#3194, #5698",
                                 "watchdog-fixed", std::string(violation_kind_name(ViolationKind::MutualExclusion))};
  info.long_jobs = true;
  info.options = watchdog_options();
  return info;
}

LockInfo lock_info_watchdog_fixed() {
  LockInfo info{"watchdog-fixed",
                "Redisson watchdog as fixed: a renewal error waits for the next interval instead of stopping",
                "redisson org.redisson.renewal.RenewalTask.run (error: log, schedule the next renewal)",
                1,
                false,
                false,
                false,
                [](Runtime& rt, const LockConfig& c) { return make_watchdog_lock(rt, c, WatchdogOnError::KeepRenewing); }};
  info.long_jobs = true;
  info.options = watchdog_options();
  return info;
}

}  // namespace locksim::locks
