// Every refusal of a live run before anything starts, in one place: what
// the lock, the scenario's faults, the time scale, the topology and
// existing servers (--redis) cannot take. Each is a property of the lock
// (locks::LockInfo), the fault (live_faults.hpp) or the service, never a
// lock or fault kind named in a condition. A refusal is exit 2 (kBadInput)
// with one line.
#pragma once

#include <optional>
#include <string>

#include "live/live_options.hpp"
#include "live/live_servers.hpp"
#include "locks/registry.hpp"
#include "scenarios/scenario.hpp"

namespace locksim::live {

// Why a scenario cannot run live with `lock`, or nullopt: a lock it cannot
// run, a fault live mode cannot produce (live_faults.hpp).
std::optional<std::string> live_unsupported(const scenarios::Scenario& s, const locks::LockInfo& lock);

// Why this run cannot start, or nullopt: `scenario` with its [nemesis]
// drawn, `scaled` the same at the options' time scale, `lock_kind` the lock
// it runs.
std::optional<LiveError> live_refusal(const scenarios::Scenario& scenario, const scenarios::Scenario& scaled,
                                      const std::string& lock_kind, const LiveOptions& options);

}  // namespace locksim::live
