// Fault classes: the families of trouble a reader decides by ("does this
// lock survive a process pause? a failover?"), derived from a scenario's
// typed fault kinds and its typed settings (a client clock that drifts, a
// Sentinel that promotes on its own, a job that outlives its TTL) — never
// from display text. The report's decision table has a column per class.
#pragma once

#include <cstdint>
#include <set>
#include <string_view>
#include <vector>

namespace locksim::scenarios {
struct Scenario;
}

namespace locksim::reports {

// In the order the decision table shows them. None: nothing injected and
// no setting that stresses the lock (the baseline); Unclassified: the
// scenario could not be loaded to say.
enum class FaultClass : std::uint8_t {
  ProcessPause, ClockStep, ClockDrift, DelayedPacket, CrashPowerLoss, Failover, Partition, LongWork, None,
  Unclassified
};
const std::vector<FaultClass>& all_fault_classes();
std::string_view fault_class_name(FaultClass fault);  // "process pause", "clock step", ...
std::string_view fault_class_id(FaultClass fault);    // "process-pause", "clock-step", ... (JSON, CSS)

// What a scenario throws at the lock, as the decision table needs it.
struct ScenarioFaults {
  std::set<FaultClass> classes;  // never empty: {None} without any fault
  bool fencing = false;          // the storage checks fencing tokens ([storage] fencing)
};
ScenarioFaults scenario_faults_of(const scenarios::Scenario& scenario);

}  // namespace locksim::reports
