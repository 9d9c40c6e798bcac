// Live run lines (cli/live_result.hpp).
#include "cli/live_result.hpp"

#include <cmath>

#include "cli/commands.hpp"
#include "scenarios/repro.hpp"

namespace locksim::cli {

std::int64_t live_time_scale_ppm(const scenarios::Scenario& scenario, std::optional<double> flag) {
  if (!flag)
    return scenario.live_time_scale_ppm.value_or(scenario.topology == locks::Topology::Redis ? kDefaultLiveTimeScalePpm
                                                                                              : kDefaultCpLiveTimeScalePpm);
  const double ppm = *flag * 1e6;
  if (!std::isfinite(ppm) || ppm < static_cast<double>(live::kMinTimeScalePpm) ||
      ppm > static_cast<double>(live::kMaxTimeScalePpm))
    throw InputError("--time-scale must be between 0.001 and 10");
  return std::llround(ppm);
}

double time_scale_of(std::int64_t ppm) { return static_cast<double>(ppm) / 1e6; }

reports::RunRecord live_run_record(const live::LiveRun& live, std::int64_t time_scale_ppm) {
  reports::RunRecord r = reports::record_of(live.run);
  r.live = reports::LiveRecord{time_scale_of(time_scale_ppm), live.notes, live.key_prefix, std::nullopt,
                               live.fault_mechanisms};
  return r;
}

nlohmann::ordered_json live_run_json(const live::LiveRun& live, std::int64_t time_scale_ppm) {
  return reports::to_json(live_run_record(live, time_scale_ppm));
}

reports::RunRecord live_skip_record(const scenarios::Scenario& scenario, const LiveSkip& skip) {
  reports::RunRecord r;
  r.scenario = scenario.name;
  r.lock = skip.lock;
  r.seed = skip.seed;
  r.source = skip.source;
  r.expected = scenario.expected_for(skip.lock);
  const double scale = time_scale_of(skip.time_scale_ppm);
  // The scale as JSON prints it ("0.01"), the same text the "live" object holds.
  r.repro = scenarios::live_repro(skip.source, skip.lock, nlohmann::json(scale).dump(), {}, std::nullopt);
  r.live = reports::LiveRecord{scale, {}, "", skip.reason, std::nullopt};
  return r;
}

nlohmann::ordered_json live_skip_json(const scenarios::Scenario& scenario, const LiveSkip& skip) {
  return reports::to_json(live_skip_record(scenario, skip));
}

}  // namespace locksim::cli
