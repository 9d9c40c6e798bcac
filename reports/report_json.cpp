// The JSON report: the aggregate for machines. Keys are stable; rates are
// fractions (0..1) beside the raw counts they come from.
//
// Live input adds, per cell, "confirmed_on_real_redis" (null when the input
// has no live line): {"status": "yes" | "differs" | "not run live" |
// "not simulated", "reason" (not run live) or null, "simulated" and "live":
// the violation sets found with their run counts, "live_runs",
// "time_scales", "fault_mechanisms": how live mode produced the faults, as
// in the run record, merged over the live runs}; and at the top "live_runs" and "live_only_cells" (live
// results of cells without simulated runs, in the same shape plus scenario
// and lock).
#include "reports/decision.hpp"
#include "reports/report.hpp"
#include "reports/run_record.hpp"

namespace locksim::reports {

namespace {

using nlohmann::ordered_json;

ordered_json perf_json(const CellPerf& p) {
  return {{"runs", p.acquire_p50_us.count()},
          {"acquire_p50_us_median", p.median_acquire_p50_us()},
          {"acquire_p99_us_max", p.acquire_p99_us_max},
          {"attempts", p.attempts},
          {"acquisitions", p.acquisitions},
          {"gave_up", p.gave_up},
          {"round_trips", p.round_trips},
          {"round_trips_per_acquisition", p.round_trips_per_acquisition()},
          {"acquisitions_per_sim_second", p.acquisitions_per_sim_second()},
          {"sim_time_ms", p.sim_time_ms}};
}

ordered_json run_ref_json(const RunRef& r) {
  return {{"seed", r.seed},     {"events", r.events},   {"digest", r.digest},
          {"kinds", r.kinds},   {"matched", r.matched}, {"repro", r.repro}};
}

ordered_json outcomes_json(const std::map<std::set<std::string>, std::uint64_t>& outcomes) {
  ordered_json out = ordered_json::array();
  for (const auto& [kinds, runs] : outcomes) out.push_back({{"violations", kinds}, {"runs", runs}});
  return out;
}

ordered_json agreement_json(const Comparison& c, const std::string& scenario, const std::string& lock) {
  if (!c.has_live()) return nullptr;
  const Agreement a = c.agreement(scenario, lock);
  const Cell* simulated = c.cell(scenario, lock);
  const LiveCell* live = c.live_cell(scenario, lock);
  ordered_json j;
  j["status"] = agreement_status_name(a.status);
  j["reason"] = a.reason.empty() ? ordered_json(nullptr) : ordered_json(a.reason);
  j["simulated"] = simulated ? outcomes_json(simulated->outcomes) : ordered_json::array();
  j["live"] = live ? outcomes_json(live->outcomes) : ordered_json::array();
  j["live_runs"] = live ? live->runs : 0;
  j["time_scales"] = live ? ordered_json(live->time_scales) : ordered_json::array();
  j["fault_mechanisms"] = fault_mechanisms_json(live ? live->fault_mechanisms : std::vector<scenarios::FaultMechanism>{});
  return j;
}

ordered_json live_only_json(const Comparison& c) {
  ordered_json out = ordered_json::array();
  for (const auto& [key, live] : c.live_cells()) {
    if (c.cell(key.first, key.second)) continue;
    ordered_json j{{"scenario", key.first}, {"lock", key.second}};
    j.update(agreement_json(c, key.first, key.second));
    out.push_back(std::move(j));
  }
  return out;
}

ordered_json cell_json(const Comparison& c, const Cell& cell) {
  ordered_json j;
  j["scenario"] = cell.scenario;
  j["lock"] = cell.lock;
  j["source"] = cell.source;
  j["runs"] = cell.runs;
  j["matched"] = cell.matched;
  j["unmatched"] = cell.unmatched;
  j["violated_runs"] = cell.runs_violated;
  j["violations"] = ordered_json::object();
  for (const auto& [kind, n] : cell.runs_with_kind) j["violations"][kind] = {{"runs", n}, {"rate", cell.rate(kind)}};
  if (cell.expected) j["expected"] = *cell.expected;
  else j["expected"] = nullptr;
  j["may"] = cell.may;
  j["expected_varies"] = cell.expected_varies;
  j["minimal_failing"] = cell.minimal_failing ? run_ref_json(*cell.minimal_failing) : ordered_json(nullptr);
  j["unmatched_examples"] = ordered_json::array();
  for (const auto& r : cell.unmatched_examples) j["unmatched_examples"].push_back(run_ref_json(r));
  j["perf"] = perf_json(cell.perf);
  j["confirmed_on_real_redis"] = agreement_json(c, cell.scenario, cell.lock);
  return j;
}

}  // namespace

ordered_json comparison_to_json(const Comparison& c) {
  ordered_json j;
  j["report"] = "locksim comparison";
  j["version"] = 1;
  j["inputs"] = c.inputs();
  j["runs"] = c.runs();
  j["unmatched_runs"] = c.unmatched_runs();
  j["duplicates"] = c.duplicates();
  j["skipped_lines"] = c.skipped_lines();
  j["scenarios"] = c.scenarios();
  j["locks"] = ordered_json::array();
  for (const auto& l : c.locks()) {
    const LockVerdict v = c.verdict(l);
    j["locks"].push_back(
        {{"lock", l}, {"level", verdict_level_name(v.level)}, {"verdict", v.text}, {"perf", perf_json(c.lock_perf(l))}});
  }
  j["cells"] = ordered_json::array();
  for (const auto& [key, cell] : c.cells()) j["cells"].push_back(cell_json(c, cell));
  j["live_runs"] = c.live_runs();
  j["live_only_cells"] = live_only_json(c);
  j["decision"] = decision_to_json(decide(c));  // added after the fields above, which keep their names
  j["provenance"] = {{"generated_at", c.provenance.generated_at},
                     {"locksim_version", c.provenance.version},
                     {"command", c.provenance.command}};
  j["input_files"] = ordered_json::array();
  for (const InputFile& f : c.input_files())
    j["input_files"].push_back(
        {{"file", f.name}, {"runs", f.runs}, {"duplicates", f.duplicates}, {"live_lines", f.live_lines}});
  return j;
}

std::string render_json(const Comparison& comparison) { return comparison_to_json(comparison).dump(2) + "\n"; }

}  // namespace locksim::reports
