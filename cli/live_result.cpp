// Live run lines (cli/live_result.hpp).
#include "cli/live_result.hpp"

#include <cmath>

#include "cli/commands.hpp"
#include "reports/run_output.hpp"

namespace locksim::cli {

std::int64_t live_time_scale_ppm(const scenarios::Scenario& scenario, std::optional<double> flag) {
  if (!flag) return scenario.live_time_scale_ppm.value_or(kDefaultLiveTimeScalePpm);
  const double ppm = *flag * 1e6;
  if (!std::isfinite(ppm) || ppm < static_cast<double>(live::kMinTimeScalePpm) ||
      ppm > static_cast<double>(live::kMaxTimeScalePpm))
    throw InputError("--time-scale must be between 0.001 and 10");
  return std::llround(ppm);
}

double time_scale_of(std::int64_t ppm) { return static_cast<double>(ppm) / 1e6; }

nlohmann::json live_run_json(const live::LiveRun& live, std::int64_t time_scale_ppm) {
  auto j = reports::run_to_json(live.run);
  j["live"] = {{"time_scale", time_scale_of(time_scale_ppm)}, {"deterministic", false}, {"notes", live.notes}};
  if (!live.key_prefix.empty()) j["live"]["key_prefix"] = live.key_prefix;
  return j;
}

nlohmann::json live_skip_json(const scenarios::Scenario& scenario, const LiveSkip& skip) {
  nlohmann::json j;
  j["scenario"] = scenario.name;
  j["lock"] = skip.lock;
  j["seed"] = skip.seed;
  j["source"] = skip.source;
  const auto expected = scenario.expected_for(skip.lock);
  j["expected"] = expected ? nlohmann::json(*expected) : nlohmann::json(nullptr);
  const nlohmann::json scale = time_scale_of(skip.time_scale_ppm);
  j["repro"] = "locksim live " + skip.source + " --lock " + skip.lock + " --time-scale " + scale.dump();
  j["live"] = {{"time_scale", scale}, {"deterministic", false}, {"skipped", skip.reason}};
  return j;
}

}  // namespace locksim::cli
