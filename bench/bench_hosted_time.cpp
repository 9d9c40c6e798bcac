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

}  // namespace
