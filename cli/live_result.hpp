// One live run as a JSON line, shared by `locksim live --format json` and
// `locksim sweep --live` (so a live sweep's lines are exactly what `live`
// prints), plus the line a live sweep writes for a cell live mode cannot do.
//
// A live line is `run --format json`'s object plus
//   "live": {"time_scale": F, "deterministic": false, "notes": [...],
//            "fault_mechanisms": [...]}
// A skipped cell is a line with the cell's identity and the reason, and no
// run fields (no violations: nothing ran):
//   {"scenario", "lock", "seed", "source", "expected", "repro",
//    "live": {"time_scale": F, "deterministic": false, "skipped": "why"}}
// Both are run records (reports/run_record.hpp: its one writer and reader);
// `locksim report` tells them from simulated runs by the "live" object.
//
// The time scale: --time-scale when given, else the scenario's [live]
// time_scale, else live mode's default 0.01.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "live/live_runner.hpp"
#include "reports/run_record.hpp"
#include "scenarios/scenario.hpp"

namespace locksim::cli {

inline constexpr std::int64_t kDefaultLiveTimeScalePpm = 10'000;  // 0.01
// On an etcd / ZooKeeper topology: etcd grants leases in whole seconds, so
// the catalog's 10 s TTLs need at least 0.1 (and the members' heartbeats
// stay at 10 ms and more).
inline constexpr std::int64_t kDefaultCpLiveTimeScalePpm = 100'000;  // 0.1

// The time scale (ppm) a live run of `scenario` uses. Throws InputError for
// a --time-scale that is not a finite number in 0.001..10.
std::int64_t live_time_scale_ppm(const scenarios::Scenario& scenario, std::optional<double> flag);

double time_scale_of(std::int64_t ppm);

reports::RunRecord live_run_record(const live::LiveRun& live, std::int64_t time_scale_ppm);
nlohmann::ordered_json live_run_json(const live::LiveRun& live, std::int64_t time_scale_ppm);

struct LiveSkip {
  std::string source;  // how the scenario was named (catalog name or file)
  std::string lock;
  std::uint64_t seed = 1;
  std::int64_t time_scale_ppm = kDefaultLiveTimeScalePpm;
  std::string reason;  // run_live's exit-2 message
};
reports::RunRecord live_skip_record(const scenarios::Scenario& scenario, const LiveSkip& skip);
nlohmann::ordered_json live_skip_json(const scenarios::Scenario& scenario, const LiveSkip& skip);

}  // namespace locksim::cli
