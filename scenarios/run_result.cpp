// Judging a run's History into a RunResult, written once for the simulator's
// runner and live mode (runner.hpp: judged_run, history_digest).
#include "scenarios/runner.hpp"

#include "locks/registry.hpp"
#include "scenarios/cp_topology.hpp"
#include "scenarios/inventory_workload.hpp"
#include "scenarios/lock_assumptions.hpp"

namespace locksim::scenarios {

RunResult judged_run(const Scenario& scenario, const std::string& lock_kind, std::uint64_t seed, std::string source,
                     History history, RunSummary summary) {
  RunResult r;
  r.scenario = scenario.name;
  r.lock = lock_kind;
  r.seed = seed;
  r.violations = check_all(history, scenario.liveness_bound());
  r.expected = scenario.expected_for(lock_kind);
  r.may = scenario.may_for(lock_kind);
  r.matched = scenario.matches(lock_kind, r.violation_kinds());
  if (const auto info = locks::find_lock(lock_kind)) r.outside_assumptions = unmet_assumptions(scenario, *info);
  r.adjusted = cp_ttl_adjustments(scenario);
  r.source = std::move(source);
  r.summary = std::move(summary);
  r.summary.sale = sale_summary(scenario, history);
  r.history = std::move(history);
  return r;
}

std::uint64_t history_digest(const History& h) {
  std::uint64_t x = 1469598103934665603ull;  // FNV-1a over the recorded times and kinds
  auto mix = [&](std::int64_t v) {
    for (int i = 0; i < 8; ++i) x = (x ^ static_cast<std::uint64_t>((v >> (8 * i)) & 0xff)) * 1099511628211ull;
  };
  for (const auto& b : h.beliefs) mix(b.start.time_since_epoch().count()), mix(static_cast<std::int64_t>(b.client));
  for (const auto& e : h.entries) mix(e.at.time_since_epoch().count()), mix(static_cast<std::int64_t>(e.kind));
  for (const auto& w : h.writes) mix(w.at.time_since_epoch().count()), mix(w.accepted);
  return x;
}

std::uint64_t history_record_count(const History& h) {
  return h.entries.size() + h.writes.size() + h.beliefs.size() + h.attempts.size();
}

}  // namespace locksim::scenarios
