// Hunting and property-testing throughput: how long `hunt` takes to find
// and shrink the naive-del counterexample (in process, and as a cold
// `locksim hunt` process), how long the default hunt of each reproduction
// of a shipped client bug takes to find it blind (docs/reproductions.md),
// and how many generated property cases (draw a scenario + run it + judge
// it) run per second on one core.
//
// The reference point is a Python Hypothesis + fakeredis harness at
// about 500 examples/s and 0.3 s for the same hunt. Figures are printed,
// never asserted.
#include <benchmark/benchmark.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "locks/registry.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/schedule_gen.hpp"

namespace {

using namespace locksim::scenarios;

HuntOptions naive_del_hunt(std::uint64_t seed) {
  HuntOptions o;
  o.lock_kind = "naive-del";
  o.limits.kinds = default_hunt_kinds();
  o.seed = seed;
  o.budget = 10'000;
  return o;
}

// The whole hunt (search + shrink) in this process, default options.
void BM_HuntNaiveDel(benchmark::State& state) {
  std::uint64_t cases = 0, shrink_runs = 0, found = 0;
  for (auto _ : state) {
    const HuntResult r = hunt(naive_del_hunt(1));
    cases += r.cases;
    shrink_runs += r.shrink.runs;
    found += r.found;
    benchmark::DoNotOptimize(r.minimal.faults.size());
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["cases"] = static_cast<double>(cases) / n;
  state.counters["shrink_runs"] = static_cast<double>(shrink_runs) / n;
  state.counters["found"] = static_cast<double>(found) / n;
}
BENCHMARK(BM_HuntNaiveDel)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same hunt over ten different search seeds (how the time varies).
void BM_HuntNaiveDelSeeds(benchmark::State& state) {
  std::uint64_t seed = 0;
  for (auto _ : state) {
    const HuntResult r = hunt(naive_del_hunt(1 + seed++ % 10));
    benchmark::DoNotOptimize(r.found);
  }
}
BENCHMARK(BM_HuntNaiveDelSeeds)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(20);

// A cold process: `locksim hunt --lock naive-del` (start-up, catalog,
// search, shrink, printing the TOML and the timeline), output discarded.
// The binary is found beside this one's directory (build/bench/.. = build/).
void BM_HuntNaiveDelColdProcess(benchmark::State& state) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto locksim = exe.parent_path().parent_path() / "locksim";
  if (ec || !std::filesystem::exists(locksim)) {
    state.SkipWithError("the locksim binary is not next to bench/ (build it first)");
    return;
  }
  const std::string cmd = locksim.string() + " hunt --lock naive-del > /dev/null 2>&1";
  for (auto _ : state) {
    const int rc = std::system(cmd.c_str());
    if (rc == -1 || WEXITSTATUS(rc) != 1) {
      state.SkipWithError("locksim hunt did not find the counterexample (exit != 1)");
      return;
    }
  }
}
BENCHMARK(BM_HuntNaiveDelColdProcess)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(20);

// `locksim hunt --lock <reproduction>` with its defaults, in process: the
// search (counted against the fixed lock) and the shrink. Counters: cases
// until found, shrink runs, found (1 = found within `budget`: the default
// 1000, or what docs/reproductions.md says the lock needs).
void BM_HuntReproduction(benchmark::State& state, const std::string& lock, std::uint64_t budget) {
  const auto info = locksim::locks::find_lock(lock);
  if (!info) {
    state.SkipWithError("no such lock");
    return;
  }
  std::uint64_t cases = 0, shrink_runs = 0, found = 0;
  for (auto _ : state) {
    HuntOptions options = default_hunt_options(*info);
    options.budget = budget;
    const HuntResult r = hunt(options);
    cases += r.cases;
    shrink_runs += r.shrink.runs;
    found += r.found;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["cases"] = static_cast<double>(cases) / n;
  state.counters["shrink_runs"] = static_cast<double>(shrink_runs) / n;
  state.counters["found"] = static_cast<double>(found) / n;
}
BENCHMARK_CAPTURE(BM_HuntReproduction, shedlock_redis, std::string("shedlock-redis"), 1000)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_HuntReproduction, redlock_py_pr3, std::string("redlock-py-pr3"), 1000)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_HuntReproduction, redisson_watchdog_3194, std::string("redisson-watchdog-3194"), 1000)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_HuntReproduction, node_redlock_169, std::string("node-redlock-169"), 1000)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_HuntReproduction, redlock_net_48, std::string("redlock-net-48"), 1000)
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK_CAPTURE(BM_HuntReproduction, redlock_py, std::string("redlock-py"), 1000)
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK_CAPTURE(BM_HuntReproduction, etcd_mutex_11456, std::string("etcd-mutex-11456"), 1000)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_HuntReproduction, redlock_rb_36, std::string("redlock-rb-36"), 1000)
    ->Unit(benchmark::kMillisecond)->UseRealTime();

// One property case = draw a scenario with faults + run it + check it.
void property_cases(benchmark::State& state, const std::string& lock, std::vector<FaultKind> kinds) {
  GenLimits limits;
  limits.kinds = std::move(kinds);
  std::uint64_t seed = 0;
  for (auto _ : state) {
    const Scenario s = generate_scenario(++seed, lock, limits);
    RunOptions options;
    options.lock_kind = lock;
    options.seed = seed;
    auto run = run_scenario(s, options);
    benchmark::DoNotOptimize(run.ok());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void BM_PropertyCasesToken(benchmark::State& state) { property_cases(state, "token", default_hunt_kinds()); }
BENCHMARK(BM_PropertyCasesToken)->Unit(benchmark::kMicrosecond);

void BM_PropertyCasesNaiveDelPause(benchmark::State& state) {
  property_cases(state, "naive-del", {FaultKind::Pause});
}
BENCHMARK(BM_PropertyCasesNaiveDelPause)->Unit(benchmark::kMicrosecond);

void BM_PropertyCasesRedlock(benchmark::State& state) { property_cases(state, "redlock", default_hunt_kinds()); }
BENCHMARK(BM_PropertyCasesRedlock)->Unit(benchmark::kMicrosecond);

// Drawing and building a scenario alone (the generator's share of a case).
void BM_GenerateScenario(benchmark::State& state) {
  GenLimits limits;
  limits.kinds = default_hunt_kinds();
  std::uint64_t seed = 0;
  for (auto _ : state) benchmark::DoNotOptimize(generate_scenario(++seed, "token", limits).faults.size());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_GenerateScenario)->Unit(benchmark::kMicrosecond);

}  // namespace
