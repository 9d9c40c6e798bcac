// Live mode's side of the fault kind table (scenarios/fault_kinds.hpp): for
// each kind, whether a real cluster can take a given fault honestly, and why
// not when it cannot (exit 2 before anything starts; never faked), and
// whether it needs control of the server processes (refused on existing
// servers). The appliers themselves are in live_fault_appliers.cpp, one per
// kind in the same order.
#pragma once

#include <array>
#include <vector>
#include <optional>
#include <string>

#include "scenarios/fault_mechanism.hpp"
#include "scenarios/scenario.hpp"

namespace locksim::live {

// Whether applying a kind stops, kills or promotes a server process.
enum class ProcessControl : std::uint8_t { Never, Always, ForRedisTargets };

struct LiveFaultKind {
  scenarios::FaultKind kind;
  // Why this fault of the scenario cannot run live, as it follows
  // "fault (line N) KIND" (" A->redis-9: unsupported ..." or ": unsupported
  // ..."), or nullopt.
  std::optional<std::string> (*refuse_fault)(const scenarios::Scenario&, const scenarios::FaultSpec&);
  ProcessControl process_control;
};

const LiveFaultKind& live_fault_kind(scenarios::FaultKind kind);

// Why this [[fault]] (or drawn nemesis fault) cannot run live, as it follows
// the fault's name in a message, or nullopt.
std::optional<std::string> live_fault_refusal(const scenarios::Scenario& s, const scenarios::FaultSpec& f);
// Whether applying it means stopping, killing or promoting a server process.
bool needs_process_control(const scenarios::FaultSpec& f);
bool may_need_process_control(scenarios::FaultKind kind);  // for a [nemesis] kind

// Whether `host` is one of the scenario's clients (not a server or the storage).
bool is_scenario_client(const scenarios::Scenario& s, const std::string& host);

// How this run produces each fault (live_fault_mechanisms, with
// the words for etcd / ZooKeeper members and CP client pauses on a CP
// topology, and for a client library's process when `library_lock`).
std::vector<scenarios::FaultMechanism> live_run_fault_mechanisms(const scenarios::Scenario& s, bool library_lock);

}  // namespace locksim::live
