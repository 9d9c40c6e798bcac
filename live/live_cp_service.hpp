// The etcd / ZooKeeper topologies' live service (live_service.hpp).
#pragma once

#include <atomic>
#include <memory>

#include "live/live_service.hpp"

namespace locksim::live {

// An etcd cluster or ZooKeeper ensemble of the (scaled) scenario.
Result<std::unique_ptr<LiveService>, LiveError> start_cp_service(const scenarios::Scenario& scaled,
                                                                 const std::atomic<int>* interrupted);

}  // namespace locksim::live
