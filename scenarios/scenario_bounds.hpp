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
//  - kMaxDerivedDuration (duration.hpp, 100,000 h) for every duration the
//    simulation derives from fields by a product or a sum: a latency tail
//    (latency x 2^tail_max_shift), the default liveness bound (2 x ttl), a
//    fault's end (at + duration + restart_after, from the run's end), a
//    client's section (duration + acquire_timeout + work), the nemesis's
//    draws (duration + 2 x mean_interval + max_duration), etcd's request
//    timeout (5s + 2 x election_timeout), ZooKeeper's longest session (20
//    ticks). Each is computed once, with derived_sum / derived_product;
//    all but the latency tail hold by the field caps today, and are checked
//    so a cap raised later cannot silently overflow. Generated scenarios
//    (schedule_gen.cpp) are held to the same function.
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

// A problem found in a parsed scenario: where, which field, why. `path`
// (toml++'s, 0-based: "fault[0].duration") locates it when `line` is 0.
struct BoundProblem {
  int line = 0;
  std::string field;
  std::string message;
  std::string path;
};

// The arithmetic bounds a Scenario alone can be checked against (no file
// needed): the clock jumps' totals, every fault duration within
// kMaxDuration, every derived duration within kMaxDerivedDuration. The
// parser reports the first through check_scenario_bounds; the generator
// drops a drawn fault that would break one.
std::optional<BoundProblem> scenario_arithmetic_problem(const Scenario& s);

// The first bound the scenario parsed from `file` breaks (clients, history
// estimate, clock shifts, fields without effect), or nullopt. The line is
// the offending key's (or its table's) in `file`.
std::optional<BoundProblem> check_scenario_bounds(const Scenario& s, const toml::table& file);

}  // namespace locksim::scenarios
