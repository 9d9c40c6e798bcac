// Reading a CP topology from a scenario file (scenarios/cp_topology.hpp has
// the contract): scenario.cpp calls these next to its [redis] reader, so the
// CP fields live in one place; they read with toml_section's Section readers
// and report into the parser's one error sink.
#pragma once

#include <toml++/toml.h>

#include "scenarios/cp_topology.hpp"
#include "scenarios/toml_section.hpp"

namespace locksim::scenarios {

// Reads [etcd] or [zookeeper] (at most one, never beside [redis]) of the
// file's `root` into s.topology and s.cp; a problem goes to root's error
// sink, located like every other field's.
void read_cp_topology(Section& root, Scenario& s);
// After the whole file: the lock's ttl fits the topology's rule.
void check_cp_lock_ttl(Section& root, const Scenario& s);

// For the services' own readers (<service>_service.cpp): `members`
// (1..kMaxCpMembers), and a positive duration in whole milliseconds that
// `service` takes in ms (named in the message).
void read_cp_members(Section& t, CpSpec& cp);
void read_cp_ms(Section& t, std::string_view key, std::string_view service, Duration& out);

// The writer's side (scenario_writer.cpp): the table's name (the service
// row's: "etcd", "zookeeper") and its fields, defaults left out except
// `members`.
const char* cp_table_name(locks::Topology topology);
toml::table cp_table(const Scenario& s);

}  // namespace locksim::scenarios
