// Scenario bounds that protect later arithmetic and memory, checked after a
// file parsed (scenario.cpp calls these; they are separate so the parser
// stays about fields and types).
//
// Why each cap:
//  - kMaxDuration (duration.hpp) for every duration field, checked as each
//    is read.
//  - kMaxClockShift (10,000 h, as kMaxDuration): the total size of a host's clock
//    jumps, written or drawn by a [nemesis], so HostClock's wall offset
//    (origin 2023 + every step) cannot overflow.
//  - kMaxClients and kMaxHistoryEvents: the estimate of a run's history
//    (each iteration of a client records an acquire, its writes and a
//    release); a run that would not fit in memory is refused up front,
//    naming the fields, instead of growing for minutes.
//  - A field that cannot have an effect is an error, like an unknown key (a
//    silently ignored setting is a silent default): `failover_after` or
//    `replication_lag` with no replicas; a [lock] option the lock the file
//    names never reads (`renew_interval` with kind = "token"). A file that
//    names no kind may set any lock's options: the lock is chosen at run
//    time, and a sweep runs every lock on it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "scenarios/scenario.hpp"

namespace locksim::scenarios {

inline constexpr Duration kMaxClockShift = std::chrono::hours(10'000);
inline constexpr std::size_t kMaxClients = 1'000;
inline constexpr std::int64_t kMaxHistoryEvents = 5'000'000;

// The [lock] keys only some locks read; which ones read each is the lock's
// own LockInfo::options.
inline constexpr std::string_view kLockSpecificOptions[] = {
    "node_timeout", "clock", "check_validity_after_acquire", "retry_jitter", "counter_node",
    "counter_key",  "thread_id", "thread_name", "renew_interval"};

// A problem found in a parsed scenario: where, which field, why.
struct BoundProblem {
  int line = 0;
  std::string field;
  std::string message;
};

// The first bound the scenario parsed from `file` breaks (clients, history
// estimate, clock shifts, fields without effect), or nullopt. The line is
// the offending key's (or its table's) in `file`.
std::optional<BoundProblem> check_scenario_bounds(const Scenario& s, const toml::table& file);

}  // namespace locksim::scenarios
