// The benchmark binary's main (Google Benchmark). Each bench_*.cpp adds its
// benchmarks; figures are printed, never asserted.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
