// The Redisson watchdog lock (locks/watchdog_lock.cpp) as a factory, so the
// reproduction of Redisson's renewal bug and its fix (locks/
// redisson_watchdog_3194_lock.cpp) reuse the one implementation and differ
// only in what a renewal that fails with an error does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "locks/lock.hpp"

namespace locksim::locks {

enum class WatchdogOnError : std::uint8_t {
  Stop,          // RedissonBaseLock.renewExpiration (<= 3.35): an error ends the renewal for good
  KeepRenewing,  // org.redisson.renewal.RenewalTask (3.36+): log it, schedule the next renewal
};

// The lock-specific [lock] options the watchdog lock reads (LockInfo::options;
// a function for the reason redlock_options() is).
inline std::vector<std::string> watchdog_options() { return {"renew_interval", "thread_name"}; }

std::unique_ptr<Lock> make_watchdog_lock(Runtime& rt, const LockConfig& config, WatchdogOnError on_error);

}  // namespace locksim::locks
