// Scenario throughput: whole runs per second on one core (world
// construction, the run, the checkers), for the canonical gc-pause scenario
// and for every catalog scenario with its default lock.
// Run: build/bench/locksim_bench --benchmark_filter=Scenario
#include <benchmark/benchmark.h>

#include "scenarios/catalog.hpp"
#include "scenarios/runner.hpp"

using namespace locksim::scenarios;

namespace {

void BM_ScenarioGcPauseRuns(benchmark::State& state) {
  const auto scenario = load_catalog_scenario("gc-pause");
  std::uint64_t seed = 1, events = 0;
  std::int64_t sim_ms = 0;
  for (auto _ : state) {
    RunOptions o;
    o.lock_kind = "naive-del";
    o.seed = seed++;
    auto r = run_scenario(*scenario, o);
    events += r->events;
    sim_ms += r->sim_time_ms;
    benchmark::DoNotOptimize(r->digest);
  }
  state.counters["runs/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["events/run"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  // Simulated seconds per wall-clock second: the simulated-time/wall-time ratio.
  state.counters["sim/wall"] = benchmark::Counter(static_cast<double>(sim_ms) / 1000.0, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ScenarioGcPauseRuns)->Unit(benchmark::kMicrosecond);

void BM_ScenarioCatalogRuns(benchmark::State& state) {
  std::vector<Scenario> all;
  for (const auto& e : catalog()) all.push_back(*load_catalog_scenario(e.name));
  std::uint64_t i = 0;
  std::int64_t sim_ms = 0;
  for (auto _ : state) {
    RunOptions o;
    o.seed = i / all.size() + 1;
    auto r = run_scenario(all[i++ % all.size()], o);
    sim_ms += r->sim_time_ms;
    benchmark::DoNotOptimize(r->digest);
  }
  state.counters["runs/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["sim/wall"] = benchmark::Counter(static_cast<double>(sim_ms) / 1000.0, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ScenarioCatalogRuns)->Unit(benchmark::kMicrosecond);

}  // namespace
