// How `locksim live` produces each fault of a scenario: the one definition
// of it. Live mode records these in its run record (the "live" object's
// "fault_mechanisms", reports/run_record.hpp) and `locksim report` shows them
// in the "confirmed on real Redis" table, so a reader sees for each cell
// whether its faults were real, observed or emulated — not a sentence to
// trust. It lives here, below both live/ and reports/, because both need
// the words: live/ writes them, reports/ reads them back and checks them.
//
//  - real: the fault happens to the real thing — SIGSTOP/SIGCONT, SIGKILL,
//    SIGTERM and a restart, REPLICAOF NO ONE, the preload library's server
//    wall clock and fsync hold, the client runtime's clocks and threads, the
//    TCP proxy's delay or cut of real bytes;
//  - observed: a power loss, cut back to what the server's own fsync calls
//    made durable (the preload's record), no model of Redis inside;
//  - emulated: live mode stands in for something loopback does not have —
//    replication lag as a constant proxy delay, the in-process storage's
//    links.
// Each entry says which faults (kind and targets) it covers and how, in
// a few words that match docs/live.md's fault table. Live mode's appliers
// write the entries (live/live_fault_appliers.hpp, live_fault_mechanisms);
// this file holds the type, its names and how entries merge.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>


namespace locksim::scenarios {

enum class FaultProduction : std::uint8_t { Real, Observed, Emulated };
std::string_view fault_production_name(FaultProduction production);  // "real", "observed", "emulated"
std::optional<FaultProduction> fault_production_from_name(std::string_view name);

struct FaultMechanism {
  std::string fault;                 // a fault kind ("pause") or a scenario setting ("replication_lag")
  std::vector<std::string> targets;  // hosts or links it acts on, first seen first ("redis-1", "A -> storage")
  FaultProduction production = FaultProduction::Real;
  std::string means;  // how, in a few words: "SIGSTOP, SIGCONT after the duration"

  bool operator==(const FaultMechanism&) const = default;
};

// Adds `mechanism` to `into`: its targets join the entry of the same fault
// produced the same way (first seen first), or it becomes a new entry. The
// report merges the mechanisms of a cell's live runs with it.
void merge_fault_mechanism(std::vector<FaultMechanism>& into, const FaultMechanism& mechanism);

// "pause redis-1: real (SIGSTOP, SIGCONT after the duration)".
std::string fault_mechanism_text(const FaultMechanism& mechanism);

}  // namespace locksim::scenarios
