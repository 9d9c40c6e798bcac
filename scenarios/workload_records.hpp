// The workload's records, shared by its two families of client code (the
// lock and gate clients of workload.cpp, the inventory's buyers of
// inventory_workload.cpp): trigger points, acquire attempts and beliefs,
// each through WorkloadWorld::record with its trace note.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "locks/lock.hpp"
#include "scenarios/workload_world.hpp"

namespace locksim::scenarios {

// A trigger point, recorded before the world fires what it arms (`locksim
// check` places faults at the points a fault-free run reaches).
void note_point(WorkloadWorld& world, std::size_t c, TriggerEvent event, int write_index);
// An acquire attempt starts; it ends acquired or given up.
void begin_attempt(WorkloadWorld& world, std::size_t c);
void end_attempt(WorkloadWorld& world, std::size_t c, bool acquired);
// The client believes it holds `key` ("" = the scenario's one lock key)
// under `lease` (nullptr: the gate's win). The grant of the new belief (0
// once the run has ended: nothing follows).
std::uint64_t begin_belief(WorkloadWorld& world, std::size_t c, const locks::Lease* lease, const std::string& key);
// Ends the client's open belief ("release", "abandon").
void end_belief(WorkloadWorld& world, std::size_t c, const char* reason);

}  // namespace locksim::scenarios
