// What `locksim live` is asked to run with (cli/cmd_live.cpp, `sweep --live`):
// read by the pre-run refusals (live_refusals.hpp), the server start-up
// (live_service.hpp) and the runner (live_runner.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "vocab/time.hpp"

namespace locksim::live {

struct LiveOptions {
  std::string lock_kind;                 // empty = the scenario's [lock] kind
  std::uint64_t seed = 1;                // recorded only: live runs are not replayable
  std::int64_t time_scale_ppm = 10'000;  // F = 0.01
  std::string time_scale_text = "0.01";  // as the user wrote it, for the repro line
  std::filesystem::path redis_server;    // empty = search PATH
  std::string scenario_ref;              // how the user named the scenario
  // Existing servers instead of started ones (live/existing_servers.hpp).
  std::vector<std::string> redis_endpoints;  // "host:port", one per master
  std::string key_prefix;                    // empty: none for started servers, random for existing ones
  bool allow_remote = false;
};

inline constexpr std::int64_t kMinTimeScalePpm = 1'000;       // F >= 0.001
inline constexpr std::int64_t kMaxTimeScalePpm = 10'000'000;  // F <= 10

// d x ppm / 10^6, the product in 128 bits: a field of up to 10,000 h (the
// duration cap) at a scale of up to 10 is 3.6e23 before the division, far
// past int64 (any duration over 256 h overflowed at the default 0.01); the
// result, at most 100,000 h (scenarios::kMaxDerivedDuration), fits.
inline Duration scale(Duration d, std::int64_t ppm) {
  return Duration(static_cast<std::int64_t>(static_cast<__int128>(d.count()) * ppm / 1'000'000));
}

}  // namespace locksim::live
