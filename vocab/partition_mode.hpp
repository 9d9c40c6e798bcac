// PartitionMode: what a network partition does to the packets it cuts off.
// Shared by the simulated network (sim/network), the scenario format and
// live mode's TCP proxy, so it lives below all of them.
#pragma once

#include <cstdint>

namespace locksim {

enum class PartitionMode : std::uint8_t { Hold, Drop };

}  // namespace locksim
