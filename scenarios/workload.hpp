// The workload, written once for the simulator and live mode: a client's
// main (the `lock` loop or the `gate` attempt), its critical section with
// storage writes and validity checks, its trigger points and the attempt and
// belief bookkeeping, all against WorkloadWorld (scenarios/workload_world.hpp).
#pragma once

#include <cstdint>
#include <optional>

#include "locks/runtime.hpp"
#include "scenarios/workload_world.hpp"
#include "vocab/task.hpp"

namespace locksim::scenarios {

// Client c's main for one incarnation (a restarted client is a new process:
// it runs the iterations it has left, with a fresh lock object on
// `runtime`).
Task<void> client_main(WorkloadWorld& world, std::size_t c, locks::Runtime& runtime);

// Client c crashed: its crash time, its belief ends ("crash"), its open
// attempt ends. Through world.record, with the trace note.
void on_client_crash(WorkloadWorld& world, std::size_t c);
// The same records for a world that holds its record lock already (live's
// fault thread); returns the grant of the belief it ended.
std::optional<std::uint64_t> record_crash(const Ledger& ledger, std::size_t c);

}  // namespace locksim::scenarios
