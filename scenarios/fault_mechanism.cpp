// How a fault was produced live: the names and the merging of entries
// (fault_mechanism.hpp). The entries themselves are written by live mode's
// appliers (live/live_fault_appliers.cpp).
#include "scenarios/fault_mechanism.hpp"

#include <algorithm>

namespace locksim::scenarios {

std::string_view fault_production_name(FaultProduction production) {
  switch (production) {
    case FaultProduction::Real: return "real";
    case FaultProduction::Observed: return "observed";
    case FaultProduction::Emulated: return "emulated";
  }
  return "real";
}

std::optional<FaultProduction> fault_production_from_name(std::string_view name) {
  for (auto p : {FaultProduction::Real, FaultProduction::Observed, FaultProduction::Emulated})
    if (fault_production_name(p) == name) return p;
  return std::nullopt;
}

void merge_fault_mechanism(std::vector<FaultMechanism>& into, const FaultMechanism& m) {
  auto same = std::find_if(into.begin(), into.end(), [&](const FaultMechanism& e) {
    return e.fault == m.fault && e.production == m.production && e.means == m.means;
  });
  if (same == into.end()) same = into.insert(into.end(), FaultMechanism{m.fault, {}, m.production, m.means});
  for (const auto& t : m.targets)
    if (std::find(same->targets.begin(), same->targets.end(), t) == same->targets.end()) same->targets.push_back(t);
}

std::string fault_mechanism_text(const FaultMechanism& m) {
  std::string text = m.fault;
  for (std::size_t i = 0; i < m.targets.size(); ++i) text += (i ? ", " : " ") + m.targets[i];
  return text + ": " + std::string(fault_production_name(m.production)) + " (" + m.means + ")";
}

}  // namespace locksim::scenarios
