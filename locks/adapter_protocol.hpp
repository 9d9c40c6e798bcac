// The client adapters' JSON-lines protocol (docs/external-clients.md), the
// parts both of its hosts share: live mode (live/external_lock.cpp) and
// simulated time (hosted/process_lock_host.cpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "locks/lock.hpp"

namespace locksim::locks {

inline constexpr int kAdapterProtocol = 1;

// What an answer to request `id` (operation `op`) must hold, checked field
// by field: "" when it is usable.
std::string adapter_answer_problem(const nlohmann::json& a, std::int64_t id, const std::string& op);

// The hello (without its id): where the servers are and the lock's
// settings; `time_scale` is live mode's scale (1 in simulated time).
nlohmann::json adapter_hello(const std::string& client, std::vector<std::string> servers, const LockConfig& config,
                             Duration command_timeout, double time_scale);

// A line of the adapter's in an error: control characters escaped, cut short.
std::string shown_adapter_line(const std::string& text);

}  // namespace locksim::locks
