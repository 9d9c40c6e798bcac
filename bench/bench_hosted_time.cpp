// The cost of simulated time for a real process (hosted/controlled_process.hpp
// and its shim, liblocksim_simtime.so): a python3 loop of 10,000
// time.sleep(0.001), each a report to the controller and an answer, and the
// same process with no sleep (its start and exit), whose difference per
// sleep is the round trip of one block. At real time the loop would take at
// least 10 s. Figures are printed, never asserted.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "hosted/controlled_process.hpp"
#include "hosted/process_lock_host.hpp"
#include "live/external_lock.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/runner.hpp"

namespace {

using namespace locksim::hosted;

// Runs `python3 -c` with every wait ending at its deadline; the blocks seen.
long run_python(const std::string& code) {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", "-c", code};
  spec.preload = LOCKSIM_SIMTIME_LIBRARY;
  std::int64_t now = 0;
  ControlledProcess p(spec);
  long blocks = 0;
  for (;;) {
    const Stop stop = p.run_until_blocked();
    const auto* blocked = std::get_if<Blocked>(&stop);
    if (!blocked || !blocked->deadline_ns) return std::holds_alternative<Exited>(stop) ? blocks : -1;
    ++blocks;
    now = *blocked->deadline_ns;
    p.set_clocks(now, now);
    p.resume_timed_out();
  }
}

void BM_HostedSleepLoop(benchmark::State& state) {
  const int sleeps = static_cast<int>(state.range(0));
  const std::string code = "import time\nfor _ in range(" + std::to_string(sleeps) + "): time.sleep(0.001)\n";
  long blocks = 0;
  for (auto _ : state) blocks = run_python(code);
  if (blocks != sleeps) state.SkipWithError("the loop did not block once per sleep");
  state.counters["blocks"] = static_cast<double>(blocks);
}
BENCHMARK(BM_HostedSleepLoop)->Arg(0)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// One block's round trip alone: the loop's time less the process's start
// and exit, per sleep.
void BM_HostedBlockRoundTrip(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  constexpr int kSleeps = 10000;
  double per_block_us = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    run_python("pass\n");
    const auto t1 = Clock::now();
    run_python("import time\nfor _ in range(" + std::to_string(kSleeps) + "): time.sleep(0.001)\n");
    const auto t2 = Clock::now();
    per_block_us = std::chrono::duration<double, std::micro>((t2 - t1) - (t1 - t0)).count() / kSleeps;
  }
  state.counters["us_per_block"] = per_block_us;
}
BENCHMARK(BM_HostedBlockRoundTrip)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// One gc-pause run, as `locksim run gc-pause --lock LOCK --seed SEED` makes
// it: for a library lock its adapter runs in simulated time (process_lock_host.hpp),
// each process started afresh or forked from this thread's zygote.
bool gc_pause_run(const std::string& lock, bool zygote, std::uint64_t seed) {
  using namespace locksim;
  static const auto scenario = [] {
    live::register_library_locks();
    return scenarios::load_catalog_scenario("gc-pause");
  }();
  scenarios::RunOptions run;
  run.lock_kind = lock;
  run.seed = seed;
  std::unique_ptr<ProcessLockHost> processes;
  if (lock.starts_with("lib:")) {
    ProcessLockOptions options;
    options.command = live::adapter_command(lock, scenario->lock);
    options.preload = LOCKSIM_SIMTIME_LIBRARY;
    options.zygote = zygote;
    processes = std::make_unique<ProcessLockHost>(options);
    run.process_locks = processes.get();
  }
  const auto result = scenarios::run_scenario(*scenario, run);
  return result && !result->violation_kinds().empty();
}

// Runs per second over all threads (2: the 2-core target of issue 39), one
// seed after another; each thread's zygote is started by a run before the
// timing (it is kept across runs, as a sweep's worker keeps it).
void BM_GcPause(benchmark::State& state, const std::string& lock, bool zygote) {
  std::uint64_t seed = 1 + 1000000 * static_cast<std::uint64_t>(state.thread_index());
  if (!gc_pause_run(lock, zygote, seed)) state.SkipWithError("gc-pause found no violation");
  for (auto _ : state)
    if (!gc_pause_run(lock, zygote, ++seed)) state.SkipWithError("gc-pause found no violation");
  state.counters["runs_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate);
}
// Fixed iteration counts: the benchmark runs once, so time(1) of the whole
// process (bench/hosted-speed.sh) counts exactly its runs (2 x (N + 1)).
BENCHMARK_CAPTURE(BM_GcPause, redis_py_cold, std::string("lib:redis-py"), false)
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Threads(2)->Iterations(8);
BENCHMARK_CAPTURE(BM_GcPause, redis_py_zygote, std::string("lib:redis-py"), true)
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Threads(2)->Iterations(20);
BENCHMARK_CAPTURE(BM_GcPause, token, std::string("token"), false)
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Threads(2)->Iterations(200);

}  // namespace
