// A run's history as JSON Lines: one object per thing that happened (a
// client's belief, an acquire attempt, a change to a lock entry, a storage
// write, a fault, a client crash), in true-time order, times in nanoseconds
// since the run's start. `locksim run --store DIR` keeps it beside the result,
// so the evidence behind a verdict can be inspected with jq or re-plotted.
#pragma once

#include <string>

#include "scenarios/history.hpp"

namespace locksim::reports {

std::string history_to_jsonl(const scenarios::History& history);

}  // namespace locksim::reports
