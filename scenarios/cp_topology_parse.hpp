// Reading a CP topology from a scenario file (scenarios/cp_topology.hpp has
// the contract): scenario.cpp calls these, so the Redis parser stays as it
// was and the CP fields live in one place.
#pragma once

#include <optional>

#include <toml++/toml.h>

#include "scenarios/cp_topology.hpp"
#include "scenarios/scenario_bounds.hpp"

namespace locksim::scenarios {

// Reads [etcd] or [zookeeper] (at most one, never beside [redis]) into
// s.topology and s.cp; the first problem, located in `file`.
std::optional<BoundProblem> read_cp_topology(const toml::table& file, Scenario& s);
// After the whole file: the lock's ttl fits the topology's rule.
std::optional<BoundProblem> check_cp_lock_ttl(const toml::table& file, const Scenario& s);

// The writer's side (scenario_writer.cpp): the table's name ("etcd" or
// "zookeeper") and its fields, defaults left out except `members`.
const char* cp_table_name(locks::Topology topology);
toml::table cp_table(const Scenario& s);

}  // namespace locksim::scenarios
