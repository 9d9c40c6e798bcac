// Scenario → TOML text: the inverse of load_scenario_text.
//
// `locksim hunt` prints the minimal counterexample it found as a scenario
// file a user can save, edit and run (`locksim run FILE.toml`), so the text
// must load back to an equal Scenario. It is built as a toml::table and
// printed by toml++'s emitter (never by hand). Keys that hold their default
// value are left out, so a small scenario reads small; durations are written
// exactly in the largest unit that divides them ("1500ms", "30s", "2m") by
// duration_text (duration.hpp), with the unit table the loader reads.
//
// `scenario_difference` is the equality the round trip is tested with: it
// names the first field that differs (ignoring where a scenario was read
// from: `source` and a fault's `line`).
#pragma once

#include <string>

#include "scenarios/scenario.hpp"

namespace locksim::scenarios {

// The scenario as a TOML document that load_scenario_text reads back equal.
std::string scenario_to_toml(const Scenario& scenario);

// "" when equal; else the dotted name of the first differing field
// ("fault[2].duration", "client[1].work", "redis.masters").
std::string scenario_difference(const Scenario& a, const Scenario& b);

}  // namespace locksim::scenarios
