// Scenario throughput: whole runs per second on one core (world
// construction, the run, the checkers), for the canonical gc-pause scenario
// and its etcd and ZooKeeper twins (Jepsen's pause), and for every catalog
// scenario with its default lock, Redis and CP topologies apart so CP
// runs/s stand beside the Redis ones.
// Run: build/bench/locksim_bench --benchmark_filter=Scenario
#include <benchmark/benchmark.h>

#include "scenarios/catalog.hpp"
#include "scenarios/runner.hpp"

using namespace locksim::scenarios;

namespace {

// Runs of one catalog scenario with one lock, a new seed each.
void scenario_runs(benchmark::State& state, const char* name, const char* lock) {
  const auto scenario = load_catalog_scenario(name);
  std::uint64_t seed = 1, events = 0;
  std::int64_t sim_ms = 0;
  for (auto _ : state) {
    RunOptions o;
    o.lock_kind = lock;
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

void BM_ScenarioGcPauseRuns(benchmark::State& state) { scenario_runs(state, "gc-pause", "naive-del"); }
BENCHMARK(BM_ScenarioGcPauseRuns)->Unit(benchmark::kMicrosecond);

void BM_ScenarioEtcdGcPauseRuns(benchmark::State& state) { scenario_runs(state, "etcd-gc-pause", "etcd-mutex"); }
BENCHMARK(BM_ScenarioEtcdGcPauseRuns)->Unit(benchmark::kMicrosecond);

void BM_ScenarioZkGcPauseRuns(benchmark::State& state) { scenario_runs(state, "zk-gc-pause", "zk-lock"); }
BENCHMARK(BM_ScenarioZkGcPauseRuns)->Unit(benchmark::kMicrosecond);

// Every catalog scenario of one kind of topology with its default lock, in turn.
void catalog_runs(benchmark::State& state, bool cp) {
  std::vector<Scenario> all;
  for (const auto& e : catalog()) {
    auto s = *load_catalog_scenario(e.name);
    if ((s.topology != locksim::locks::Topology::Redis) == cp) all.push_back(std::move(s));
  }
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

void BM_ScenarioCatalogRuns(benchmark::State& state) { catalog_runs(state, false); }
BENCHMARK(BM_ScenarioCatalogRuns)->Unit(benchmark::kMicrosecond);

void BM_ScenarioCpCatalogRuns(benchmark::State& state) { catalog_runs(state, true); }
BENCHMARK(BM_ScenarioCpCatalogRuns)->Unit(benchmark::kMicrosecond);

}  // namespace
