// Kernel throughput: scheduled-and-run events per second on one core.
//   timers:     coroutines on 8 hosts sleeping in a loop (one event each wake)
//   deliveries: one-way messages through the network to a service
//   calls:      request/reply round trips (two deliveries + a timeout event)
// Run: build/bench/locksim_bench --benchmark_filter=Kernel
#include <benchmark/benchmark.h>

#include "sim/world.hpp"

using namespace locksim;
using namespace locksim::sim;
using namespace std::chrono_literals;

namespace {

Task<void> tick(Host& h, int n) {
  for (int i = 0; i < n; ++i) co_await h.sleep(1ms);
}

struct Sink : Service {
  std::uint64_t received = 0;
  std::optional<Reply> on_request(const Request&) override { return Reply::ok(); }
  void on_message(HostId, const Argv&) override { ++received; }
};

Task<void> call_loop(Connection& c, int n) {
  for (int i = 0; i < n; ++i) {
    Argv argv{"PING"};
    (void)co_await c.call(std::move(argv), 1s);
  }
}

void BM_KernelTimerEvents(benchmark::State& state) {
  const int per_host = 100'000;
  std::uint64_t events = 0;
  for (auto _ : state) {
    World w(1);
    for (int i = 0; i < 8; ++i) {
      Host& h = w.add_host("h" + std::to_string(i));
      h.spawn(tick(h, per_host));
    }
    w.scheduler().run_until_idle();
    events += w.scheduler().events_run();
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_KernelTimerEvents)->Unit(benchmark::kMillisecond);

void BM_KernelMessageDeliveries(benchmark::State& state) {
  const int messages = 400'000;
  std::uint64_t events = 0;
  for (auto _ : state) {
    World w(1);
    Host& a = w.add_host("A");
    Host& b = w.add_host("B");
    Sink sink;
    w.network().register_service(b.id(), &sink);
    w.network().set_latency(LatencyModel::uniform(1ms, 3ms));
    const Argv msg{"x"};
    for (int i = 0; i < messages; ++i) {
      w.network().send_message(a.id(), b.id(), msg);
      if (i % 64 == 63) w.scheduler().run_until(w.now() + 1ms);
    }
    w.scheduler().run_until_idle();
    events += w.scheduler().events_run();
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_KernelMessageDeliveries)->Unit(benchmark::kMillisecond);

void BM_KernelRequestReply(benchmark::State& state) {
  const int calls = 100'000;
  std::uint64_t events = 0;
  for (auto _ : state) {
    World w(1);
    Host& a = w.add_host("A");
    Host& b = w.add_host("B");
    Sink sink;
    w.network().register_service(b.id(), &sink);
    Connection& c = w.network().connect(a.id(), b.id());
    a.spawn(call_loop(c, calls));
    w.scheduler().run_until_idle();
    events += w.scheduler().events_run();
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["calls/s"] = benchmark::Counter(static_cast<double>(calls) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_KernelRequestReply)->Unit(benchmark::kMillisecond);

}  // namespace
