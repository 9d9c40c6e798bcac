// The Redis topology's live service (live_service.hpp): redis-server
// processes started for the run, or existing servers (--redis).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "live/live_options.hpp"
#include "live/live_service.hpp"

namespace locksim::live {

// Started redis-server processes, or the existing servers
// options.redis_endpoints names (with none of `keys` on them).
Result<std::unique_ptr<LiveService>, LiveError> start_redis_service(const scenarios::Scenario& scenario,
                                                                    const LiveOptions& options,
                                                                    const std::vector<std::string>& keys,
                                                                    const std::atomic<int>* interrupted);

}  // namespace locksim::live
