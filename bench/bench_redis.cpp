// Benchmarks of the simulated node's command engine: the three commands a
// lock run is made of (SET NX PX to acquire, GET, and the cached EVAL of the
// compare-and-delete unlock script, whose target is under 2 µs per call).
// Google Benchmark prints the per-call time; nothing is asserted here.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "sim/redis/engine.hpp"

namespace {

using locksim::Argv;
using locksim::sim::redis::Engine;

constexpr std::int64_t kT0 = 1'700'000'000'000;

const std::string kCompareAndDelete =
    "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end";

// Acquire on a free key each time (the key is deleted again, untimed work
// would distort the figure more than the DEL it costs).
void BM_SetNxPx(benchmark::State& state) {
  Engine e;
  const Argv set{"SET", "lock:job", "token-123", "NX", "PX", "30000"};
  const Argv del{"DEL", "lock:job"};
  for (auto _ : state) {
    benchmark::DoNotOptimize(e.execute(set, kT0));
    e.execute(del, kT0);
    (void)e.take_effects();
  }
  state.SetLabel("SET NX PX + DEL per iteration");
  state.SetItemsProcessed(2 * state.iterations());  // items/s = simulated commands per second
}
BENCHMARK(BM_SetNxPx);

void BM_Get(benchmark::State& state) {
  Engine e;
  e.execute({"SET", "lock:job", "token-123", "PX", "30000"}, kT0);
  const Argv get{"GET", "lock:job"};
  for (auto _ : state) benchmark::DoNotOptimize(e.execute(get, kT0));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Get);

// The unlock of a lock held by someone else: the script runs GET, compares
// and returns 0, so the keyspace stays the same every iteration.
void BM_EvalCompareAndDeleteCached(benchmark::State& state) {
  Engine e;
  e.execute({"SET", "lock:job", "token-of-b", "PX", "30000"}, kT0);
  const Argv eval{"EVAL", kCompareAndDelete, "1", "lock:job", "token-of-a"};
  e.execute(eval, kT0);  // compile and cache
  for (auto _ : state) benchmark::DoNotOptimize(e.execute(eval, kT0));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EvalCompareAndDeleteCached);

// The owner's unlock: GET, compare, DEL (re-SET untimed-ish each round).
void BM_EvalCompareAndDeleteOwner(benchmark::State& state) {
  Engine e;
  const Argv set{"SET", "lock:job", "token-of-a", "PX", "30000"};
  const Argv eval{"EVAL", kCompareAndDelete, "1", "lock:job", "token-of-a"};
  e.execute(eval, kT0);
  for (auto _ : state) {
    e.execute(set, kT0);
    benchmark::DoNotOptimize(e.execute(eval, kT0));
    (void)e.take_effects();
  }
  state.SetLabel("SET + EVAL (deletes) per iteration");
  state.SetItemsProcessed(2 * state.iterations());
}
BENCHMARK(BM_EvalCompareAndDeleteOwner);

}  // namespace
