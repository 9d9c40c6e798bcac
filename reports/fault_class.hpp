// Fault classes: the families of trouble a reader decides by ("does this
// lock survive a process pause? a failover?"), derived from a scenario's
// typed fault kinds and its typed settings (a client clock that drifts, a
// Sentinel that promotes on its own, a job that outlives its TTL) — never
// from display text. The report's decision table has a column per class.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/fault_kinds.hpp"

namespace locksim::scenarios {
struct Scenario;
}

namespace locksim::reports {

// The classes themselves, and which fault kind belongs to which, live in the
// fault kind table (scenarios/fault_kinds.hpp).
using scenarios::FaultClass;
const std::vector<FaultClass>& all_fault_classes();
std::string_view fault_class_name(FaultClass fault);  // "process pause", "clock step", ...
std::string_view fault_class_id(FaultClass fault);    // "process-pause", "clock-step", ... (JSON, CSS)

// What a scenario throws at the lock, as the decision table needs it.
struct ScenarioFaults {
  std::set<FaultClass> classes;  // never empty: {None} without any fault
  bool fencing = false;          // the storage checks fencing tokens ([storage] fencing)
  // A story that takes no lock (a sale by read-check-write, DECR or Lua, a
  // SET NX gate): its method ("read-check-write", "decr", "lua", "gate"),
  // so its runs never count against the lock the sweep named. "" = the
  // story takes the lock.
  std::string no_lock_method;
};
ScenarioFaults scenario_faults_of(const scenarios::Scenario& scenario);

}  // namespace locksim::reports
