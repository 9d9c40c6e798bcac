// Counts heap allocations (global operator new) made on the calling thread.
// The test binary replaces operator new with a counting one: a deterministic
// cost figure for the performance budget ("[perf]"), unlike a timing.
#pragma once

#include <cstdint>

namespace locksim::test {

std::uint64_t allocations_on_this_thread();

}  // namespace locksim::test
