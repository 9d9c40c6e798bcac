// Kernel tests: time, PRNG, tasks, scheduler, hosts, clocks, network, trace.
// Each behaviour of docs/architecture.md's "Kernel rules" has a test here that fails if
// it breaks.
#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <pthread.h>

#include <string>
#include <vector>

#include "vocab/partition_mode.hpp"
#include "sim/world.hpp"
#include "vocab/argv_pool.hpp"

using namespace locksim;
using namespace locksim::sim;
using namespace std::chrono_literals;

namespace {

// A service that answers every request with its first argument, and records
// what it saw (true time in ms, argv[0]).
struct EchoService : Service {
  World& world;
  std::vector<std::pair<std::int64_t, std::string>> seen;
  explicit EchoService(World& w) : world(w) {}
  std::optional<Reply> on_request(const Request& r) override {
    seen.emplace_back(to_ms(world.now()), r.argv.empty() ? "" : r.argv[0]);
    return Reply::bulk(r.argv.empty() ? "" : r.argv[0]);
  }
  void on_message(HostId, const Argv& m) override { seen.emplace_back(to_ms(world.now()), m[0]); }
};

// Client A and an echo server B with a fixed one-way latency.
struct EchoPair {
  World w{1};
  Host& a = w.add_host("A");
  Host& b = w.add_host("B");
  EchoService echo{w};
  explicit EchoPair(Duration latency) {
    w.network().register_service(b.id(), &echo);
    w.network().set_latency(LatencyModel::fixed(latency));
  }
  Connection& conn() { return w.network().connect(a.id(), b.id()); }
};

Task<void> sleep_then_record(Host& h, Duration d, std::vector<std::int64_t>& out) {
  co_await h.sleep(d);
  out.push_back(to_ms(h.world().now()));
}

Task<int> forty_two() { co_return 42; }
Task<int> add_one(Task<int> inner) { co_return co_await std::move(inner) + 1; }
Task<int> throws_logic_error() {
  throw std::logic_error("boom");
  co_return 0;
}

}  // namespace

// ---- PRNG -------------------------------------------------------------------

TEST_CASE("the PRNG reproduces the xoshiro256** known answers", "[sim]") {
  Rng one(1);
  CHECK(one.next() == 0xb3f2af6d0fc710c5ULL);
  CHECK(one.next() == 0x853b559647364ceaULL);
  CHECK(one.next() == 0x92f89756082a4514ULL);
  Rng zero(0);
  CHECK(zero.next() == 0x99ec5f36cb75f2b4ULL);
  CHECK(zero.next() == 0xbf6e1f784956452aULL);
}

TEST_CASE("bounded integers follow Lemire's method exactly", "[sim]") {
  Rng r(42);
  std::vector<std::uint64_t> got;
  for (int i = 0; i < 8; ++i) got.push_back(r.below(10));
  CHECK(got == std::vector<std::uint64_t>{0, 3, 6, 9, 9, 7, 7, 8});
}

TEST_CASE("bounded integers stay in range and cover it evenly", "[sim]") {
  Rng r(7);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) {
    const auto v = r.below(6);
    REQUIRE(v < 6);
    ++counts[v];
  }
  for (int c : counts) CHECK((c > 9500 && c < 10500));
  CHECK(r.below(1) == 0);
  for (int i = 0; i < 1000; ++i) {
    const auto v = r.between(-3, 3);
    REQUIRE((v >= -3 && v <= 3));
  }
}

TEST_CASE("a ratio of 1/4 comes true about a quarter of the time", "[sim]") {
  Rng r(3);
  int hits = 0;
  for (int i = 0; i < 40000; ++i) hits += r.chance(1, 4) ? 1 : 0;
  CHECK((hits > 9500 && hits < 10500));
  CHECK(r.chance(0, 5) == false);
  CHECK(r.chance(5, 5) == true);
}

TEST_CASE("a forked stream depends on the seed and name, not on draws made before", "[sim]") {
  Rng a(7), b(7);
  for (int i = 0; i < 100; ++i) a.next();
  CHECK(a.fork("network").next() == b.fork("network").next());
  CHECK(b.fork("network").next() == 0x444b8f18133ef947ULL);
  CHECK(b.fork("network").next() != b.fork("storage").next());
  CHECK(Rng(8).fork("network").next() != b.fork("network").next());
}

// ---- time -------------------------------------------------------------------

TEST_CASE("durations print in the largest whole unit", "[sim]") {
  CHECK(format_duration(30s) == "30s");
  CHECK(format_duration(1500ms) == "1.5s");
  CHECK(format_duration(150ms) == "150ms");
  CHECK(format_duration(-5s) == "-5s");
  CHECK(format_duration(Duration(7)) == "7ns");
}

// ---- tasks ------------------------------------------------------------------

TEST_CASE("a task is lazy and returns its value to its awaiter", "[sim]") {
  const auto before = live_task_frames();
  {
    bool ran = false;
    auto body = [&]() -> Task<int> {
      ran = true;
      co_return 1;
    };
    Task<int> t = body();
    CHECK_FALSE(ran);
    CHECK(live_task_frames() == before + 1);
    CHECK(sync_wait(add_one(std::move(t))) == 2);
    CHECK(ran);
  }
  CHECK(live_task_frames() == before);
}

TEST_CASE("an exception in a task propagates to its awaiter", "[sim]") {
  auto outer = []() -> Task<std::string> {
    try {
      co_await throws_logic_error();
    } catch (const std::logic_error& e) {
      co_return std::string(e.what());
    }
    co_return std::string("no exception");
  };
  CHECK(sync_wait(outer()) == "boom");
  CHECK_THROWS_AS(sync_wait(throws_logic_error()), std::logic_error);
}

TEST_CASE("symmetric transfer runs a million sequential awaits without growing the stack", "[sim]") {
  auto loop = []() -> Task<long> {
    long sum = 0;
    for (int i = 0; i < 1'000'000; ++i) sum += co_await forty_two();
    co_return sum;
  };
  CHECK(sync_wait(loop()) == 42'000'000L);
}

TEST_CASE("await chains need constant stack at any optimisation level: a million awaits on a 128 KiB stack", "[sim]") {
  // At -O0 a returned handle (C++ symmetric transfer) is resumed by a call,
  // not a tail call, so this overflowed a thread's stack (issue 15); the
  // trampoline (vocab/task.hpp resume_chain) keeps the depth constant.
  auto loop = []() -> Task<long> {
    long sum = 0;
    for (int i = 0; i < 1'000'000; ++i) sum += co_await forty_two();
    co_return sum;
  };
  long result = 0;
  pthread_attr_t attr;
  REQUIRE(pthread_attr_init(&attr) == 0);
  REQUIRE(pthread_attr_setstacksize(&attr, 128 * 1024) == 0);
  struct Job {
    decltype(loop)* make;
    long* out;
  } job{&loop, &result};
  pthread_t thread;
  auto body = [](void* arg) -> void* {
    auto* j = static_cast<Job*>(arg);
    *j->out = sync_wait((*j->make)());
    return nullptr;
  };
  REQUIRE(pthread_create(&thread, &attr, body, &job) == 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  CHECK(result == 42'000'000L);
}

TEST_CASE("a nested resume finishes its whole chain before its caller goes on", "[sim]") {
  // resume_chain is re-entrant: code inside a coroutine that resumes
  // another (Scheduler::resume_slot) sees that chain run to its suspension.
  std::vector<int> order;
  auto child = [&]() -> Task<int> {
    order.push_back(2);
    co_return 1;
  };
  auto inner = [&]() -> Task<void> {
    order.push_back(1);
    co_await child();
    order.push_back(3);
  };
  auto outer = [&]() -> Task<void> {
    Task<void> t = inner();
    t.start();  // a direct, nested start: runs inner and child to completion here
    order.push_back(4);
    co_await child();
    order.push_back(5);
  };
  sync_wait(outer());
  CHECK(order == std::vector<int>{1, 2, 3, 4, 2, 5});
}

TEST_CASE("destroying a suspended task destroys its whole chain of frames", "[sim]") {
  World w(1);
  Host& h = w.add_host("A");
  const auto before = live_task_frames();
  std::vector<std::int64_t> woke;
  auto outer = [&](Host& host) -> Task<void> { co_await sleep_then_record(host, 5s, woke); };
  const auto id = h.spawn(outer(h));
  w.scheduler().run_until(true_epoch + 1s);
  CHECK(live_task_frames() == before + 3);  // guard + outer + inner
  h.cancel(id);
  CHECK(live_task_frames() == before);
  w.scheduler().run_until_idle();
  CHECK(woke.empty());
  CHECK(w.scheduler().live_slots() == 0);
}

// ---- scheduler --------------------------------------------------------------

TEST_CASE("events at the same instant run in insertion order", "[sim]") {
  Trace trace;
  Scheduler s(trace);
  std::vector<int> order;
  auto push = [](void* ctx, std::uint64_t arg) {
    static_cast<std::vector<int>*>(ctx)->push_back(static_cast<int>(arg));
  };
  s.schedule(true_epoch + 2ms, push, &order, 5);
  for (int i = 0; i < 5; ++i) s.schedule(true_epoch + 1ms, push, &order, static_cast<std::uint64_t>(i));
  s.run_until_idle();
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(s.now() == true_epoch + 2ms);
}

TEST_CASE("run_until stops at the given instant and leaves later events queued", "[sim]") {
  Trace trace;
  Scheduler s(trace);
  int fired = 0;
  auto count = [](void* ctx, std::uint64_t) { ++*static_cast<int*>(ctx); };
  s.schedule(true_epoch + 1s, count, &fired, 0);
  s.schedule(true_epoch + 3s, count, &fired, 0);
  s.run_until(true_epoch + 2s);
  CHECK(fired == 1);
  CHECK(s.now() == true_epoch + 2s);
  CHECK_FALSE(s.idle());
  s.run_until_idle();
  CHECK(fired == 2);
}

TEST_CASE("a world that never goes idle hits the step limit loudly", "[sim]") {
  Trace trace;
  Scheduler s(trace);
  struct Ctx {
    Scheduler* s;
  } ctx{&s};
  Scheduler::Callback again = [](void* c, std::uint64_t) {
    auto* me = static_cast<Ctx*>(c);
    me->s->schedule(me->s->now() + 1ms, [](void* c2, std::uint64_t) {
      auto* m2 = static_cast<Ctx*>(c2);
      m2->s->schedule(m2->s->now(), [](void*, std::uint64_t) {}, nullptr, 0);
    }, c, 0);
  };
  for (int i = 0; i < 10; ++i) s.schedule(true_epoch, again, &ctx, 0);
  s.set_step_limit(15);
  CHECK_THROWS_AS(s.run_until_idle(), Scheduler::StepLimitExceeded);
}

TEST_CASE("an exception escaping a root task stops the run", "[sim]") {
  World w(1);
  Host& h = w.add_host("A");
  h.spawn([]() -> Task<void> { co_await throws_logic_error(); }());
  CHECK_THROWS_AS(w.scheduler().run_until_idle(), std::logic_error);
}

// ---- hosts: pause, crash, restart -------------------------------------------

TEST_CASE("a paused host runs its timers after it resumes, in their order", "[sim]") {
  World w(1);
  Host& h = w.add_host("A");
  std::vector<std::int64_t> woke;
  h.spawn(sleep_then_record(h, 2s, woke));
  h.spawn(sleep_then_record(h, 3s, woke));
  h.spawn(sleep_then_record(h, 9s, woke));
  w.scheduler().run_until(true_epoch + 1s);
  h.pause(5s);  // paused from 1 s to 6 s
  CHECK(h.paused());
  w.scheduler().run_until_idle();
  CHECK(woke == std::vector<std::int64_t>{6000, 6000, 9000});
}

TEST_CASE("a pause during a pause extends it rather than shortening it", "[sim]") {
  World w(1);
  Host& h = w.add_host("A");
  std::vector<std::int64_t> woke;
  h.spawn(sleep_then_record(h, 2s, woke));
  w.scheduler().run_until(true_epoch + 1s);
  h.pause(10s);
  w.scheduler().run_until(true_epoch + 2s);
  h.pause(1s);
  w.scheduler().run_until_idle();
  CHECK(woke == std::vector<std::int64_t>{11000});
}

TEST_CASE("a paused host receives its messages after it resumes, in order", "[sim]") {
  EchoPair p(10ms);
  auto& [w, a, b, echo] = p;
  b.pause(1s);
  w.network().send_message(a.id(), b.id(), {"one"});
  w.network().send_message(a.id(), b.id(), {"two"});
  w.scheduler().run_until_idle();
  REQUIRE(echo.seen.size() == 2);
  CHECK(echo.seen[0] == std::make_pair(std::int64_t{1000}, std::string("one")));
  CHECK(echo.seen[1] == std::make_pair(std::int64_t{1000}, std::string("two")));
}

TEST_CASE("a crash destroys the host's frames and its pending timers never fire", "[sim]") {
  World w(1);
  Host& h = w.add_host("A");
  const auto before = live_task_frames();
  std::vector<std::int64_t> woke;
  h.spawn(sleep_then_record(h, 5s, woke));
  h.spawn(sleep_then_record(h, 6s, woke));
  w.scheduler().run_until(true_epoch + 1s);
  CHECK(live_task_frames() > before);
  h.crash();
  CHECK_FALSE(h.up());
  CHECK(live_task_frames() == before);
  CHECK(w.scheduler().live_slots() == 0);
  w.scheduler().run_until_idle();
  CHECK(woke.empty());
}

TEST_CASE("a crash drops events deferred by a pause", "[sim]") {
  World w(1);
  Host& h = w.add_host("A");
  std::vector<std::int64_t> woke;
  h.spawn(sleep_then_record(h, 2s, woke));
  w.scheduler().run_until(true_epoch + 1s);
  h.pause(5s);
  w.scheduler().run_until(true_epoch + 3s);  // the timer is deferred now
  h.crash();
  w.scheduler().run_until_idle();
  CHECK(woke.empty());
}

TEST_CASE("a restart runs the host's main again", "[sim]") {
  World w(1);
  Host& h = w.add_host("A");
  std::vector<std::int64_t> woke;
  h.set_main([&](Host& self) { return sleep_then_record(self, 1s, woke); });
  h.start();
  w.scheduler().run_until(true_epoch + 500ms);
  h.crash();
  w.scheduler().run_until(true_epoch + 2s);
  h.restart();
  w.scheduler().run_until_idle();
  CHECK(woke == std::vector<std::int64_t>{3000});
  CHECK(h.incarnation() == 1);
}

// ---- clocks -----------------------------------------------------------------

TEST_CASE("drift scales both clocks and the inverse never fires a timer early", "[sim]") {
  HostClock c(Duration(0), 500);  // runs 500 ppm fast
  const TrueInstant t = true_epoch + 10s;
  CHECK(c.monotonic(t).time_since_epoch() == 10s + 5ms);
  CHECK(c.wall(t).time_since_epoch() == 10s + 5ms);
  const LocalInstant target{10s};
  const TrueInstant when = c.true_when_monotonic(target);
  CHECK(c.monotonic(when) >= target);
  CHECK(c.monotonic(when - Duration(1)) < target);

  HostClock slow(Duration(0), -250'000);  // runs at 3/4 speed
  CHECK(slow.monotonic(true_epoch + 4s).time_since_epoch() == 3s);
  CHECK(slow.true_when_monotonic(LocalInstant{3s}) == true_epoch + 4s);
}

TEST_CASE("true to local conversions are exact for random drifts and instants", "[sim]") {
  const bool ok = rc::check("inverse of monotonic is exact", [](std::int32_t ppm_raw, std::uint32_t ms) {
    const std::int64_t ppm = ppm_raw % 200'000;
    HostClock c(Duration(0), ppm);
    const LocalInstant target{std::chrono::microseconds(ms)};
    const TrueInstant when = c.true_when_monotonic(target);
    RC_ASSERT(c.monotonic(when) >= target);
    if (when > true_epoch) RC_ASSERT(c.monotonic(when - Duration(1)) < target);
  });
  CHECK(ok);
}

TEST_CASE("a wall clock step moves wall reads but not monotonic ones", "[sim]") {
  HostClock c(Duration(0), 0);
  const TrueInstant t = true_epoch + 5s;
  c.step(20s);
  CHECK(c.wall(t).time_since_epoch() == 25s);
  CHECK(c.monotonic(t).time_since_epoch() == 5s);
  c.step(-30s);
  CHECK(c.wall(t).time_since_epoch() == -5s);
}

TEST_CASE("changing the drift keeps the clocks continuous", "[sim]") {
  HostClock c(Duration(0), 0);
  c.set_drift(true_epoch + 10s, 1000);
  CHECK(c.monotonic(true_epoch + 10s).time_since_epoch() == 10s);
  CHECK(c.monotonic(true_epoch + 20s).time_since_epoch() == 20s + 10ms);
}

TEST_CASE("a clock jump while a sleep is pending does not move the wake-up", "[sim]") {
  World w(1);
  Host& h = w.add_host("A");
  std::vector<std::int64_t> woke;
  h.spawn(sleep_then_record(h, 10s, woke));
  w.scheduler().run_until(true_epoch + 1s);
  const auto wall_before = h.wall_now();
  h.clock().step(60s);
  CHECK(h.wall_now() - wall_before == 60s);
  h.clock().step(-90s);
  w.scheduler().run_until_idle();
  CHECK(woke == std::vector<std::int64_t>{10000});
}

TEST_CASE("a drifting host's sleep takes its local duration", "[sim]") {
  World w(1);
  Host& h = w.add_host("A");
  h.clock().set_drift(w.now(), -500'000);  // half speed: 1 local s = 2 true s
  std::vector<std::int64_t> woke;
  h.spawn(sleep_then_record(h, 1s, woke));
  w.scheduler().run_until_idle();
  CHECK(woke == std::vector<std::int64_t>{2000});
}

// ---- network ----------------------------------------------------------------

namespace {
Task<void> call_and_record(Connection& c, std::string what, Duration timeout,
                           std::vector<std::string>& out, World& w) {
  Argv argv{std::move(what)};  // GCC 12 rejects a braced list inside co_await
  Reply r = co_await c.call(std::move(argv), timeout);
  out.push_back(std::to_string(to_ms(w.now())) + ":" + r.to_string());
}
}  // namespace

TEST_CASE("latency stays within its range and the heavy tail multiplies it", "[sim]") {
  Rng r(5);
  const auto uniform = LatencyModel::uniform(1ms, 3ms);
  for (int i = 0; i < 1000; ++i) {
    const Duration d = uniform.sample(r);
    REQUIRE((d >= 1ms && d <= 3ms));
  }
  LatencyModel tail{1ms, 1ms, 500, 4};
  int slow = 0;
  for (int i = 0; i < 1000; ++i) {
    const Duration d = tail.sample(r);
    REQUIRE((d == 1ms || d == 2ms || d == 4ms || d == 8ms || d == 16ms));
    slow += d > 1ms ? 1 : 0;
  }
  CHECK((slow > 400 && slow < 600));
}

TEST_CASE("a link is FIFO: a delayed packet holds everything behind it", "[sim]") {
  World w(1);
  Host& a = w.add_host("A");
  Host& b = w.add_host("B");
  EchoService echo(w);
  w.network().register_service(b.id(), &echo);
  w.network().set_latency(LatencyModel::uniform(1ms, 5ms));
  w.network().delay_next(a.id(), b.id(), 90s);
  for (int i = 0; i < 20; ++i) w.network().send_message(a.id(), b.id(), {std::to_string(i)});
  w.scheduler().run_until_idle();
  REQUIRE(echo.seen.size() == 20);
  for (int i = 0; i < 20; ++i) {
    CHECK(echo.seen[static_cast<std::size_t>(i)].second == std::to_string(i));
    CHECK(echo.seen[static_cast<std::size_t>(i)].first >= 90'000);
  }
}

TEST_CASE("a request that times out still arrives and executes later", "[sim]") {
  EchoPair p(1ms);
  auto& [w, a, b, echo] = p;
  w.network().delay_next(a.id(), b.id(), 5s);
  Connection& c = w.network().connect(a.id(), b.id());
  std::vector<std::string> got;
  a.spawn(call_and_record(c, "late", 1s, got, w));
  w.scheduler().run_until_idle();
  CHECK(got == std::vector<std::string>{"1000:(error) IOERR timeout"});
  REQUIRE(echo.seen.size() == 1);
  CHECK(echo.seen[0].first == 5001);
}

TEST_CASE("a reply arrives after one round trip; the timeout it beat leaves the queue with it", "[sim]") {
  EchoPair p(2ms);
  auto& [w, a, b, echo] = p;
  Connection& c = w.network().connect(a.id(), b.id());
  std::vector<std::string> got;
  a.spawn(call_and_record(c, "ping", 10s, got, w));
  w.scheduler().run_until_idle();
  CHECK(got == std::vector<std::string>{"4:\"ping\""});
  // Nothing was left to pop at 10 s: the world went idle at the reply.
  CHECK(to_ms(w.now()) == 4);
  CHECK(w.scheduler().events_run() == w.trace().event_count());
}

namespace {
Task<void> call_with(Connection& c, Argv argv) { (void)co_await c.call(std::move(argv), 10s); }
}  // namespace

TEST_CASE("a request's argv, once the server has run it, builds the next command in its buffers", "[sim]") {
  EchoPair p(2ms);
  auto& [w, a, b, echo] = p;
  Connection& c = w.network().connect(a.id(), b.id());
  const std::string long_key(40, 'k');  // past the small-string buffer: a heap block of its own
  Argv first = argv_pool::take(2);
  first[0].assign("GET");
  first[1].assign(long_key);
  const char* block = first[1].data();
  a.spawn(call_with(c, std::move(first)));
  w.scheduler().run_until_idle();
  REQUIRE(echo.seen.size() == 1);
  // The retry of the same command: its key is copied into the block the last one used.
  Argv retry = argv_pool::take(2);
  REQUIRE(retry.size() == 2);
  CHECK(retry[1].data() == block);
  CHECK(retry[1].capacity() >= long_key.size());
}

TEST_CASE("a cancelled sleep, running or deferred by a pause, takes its wake with it", "[sim]") {
  World w(1);
  Host& h = w.add_host("A");
  std::vector<std::int64_t> woke;
  const auto running = h.spawn(sleep_then_record(h, 5s, woke));
  const auto deferred = h.spawn(sleep_then_record(h, 2s, woke));
  h.spawn(sleep_then_record(h, 3s, woke));
  w.scheduler().run_until(true_epoch + 1s);
  h.cancel(running);
  h.pause(1500ms);
  w.scheduler().run_until(true_epoch + 2200ms);  // the 2 s wake is deferred now
  h.cancel(deferred);
  w.scheduler().run_until_idle();
  CHECK(woke == std::vector<std::int64_t>{3000});
  CHECK(to_ms(w.now()) == 3000);  // no event was left for 5 s
  // Three root starts, the resume at 2.5 s and the 3 s wake: neither lost
  // wake (5 s, nor the deferred 2 s one) was popped.
  CHECK(w.scheduler().events_run() == 5);
}

namespace {
// A host ticking every 100 ms, either as a sleep loop in a root task or as
// a Host::every timer, through a drift change, a pause and a crash with a
// restart; returns the digest and the tick instants.
std::pair<std::uint64_t, std::vector<std::int64_t>> ticking_world(bool timer) {
  World w(7);
  Host& h = w.add_host("node");
  std::vector<std::int64_t> ticks;
  h.set_main([&, timer](Host& host) -> Task<void> {
    if (timer) {
      host.every(100ms, [&] { ticks.push_back(std::chrono::nanoseconds(w.now() - true_epoch).count()); });
      co_return;
    }
    for (;;) {
      co_await host.sleep(100ms);
      ticks.push_back(std::chrono::nanoseconds(w.now() - true_epoch).count());
    }
  });
  h.start();
  w.scheduler().run_until(true_epoch + 1234ms);
  h.clock().set_drift(w.now(), 3000);
  w.scheduler().run_until(true_epoch + 2050ms);
  h.pause(777ms);
  w.scheduler().run_until(true_epoch + 4000ms);
  h.crash();
  w.scheduler().run_until(true_epoch + 4500ms);
  h.restart();
  w.scheduler().run_until(true_epoch + 6s);
  return {w.trace().digest(), ticks};
}
}  // namespace

TEST_CASE("a periodic timer makes the very events of a sleep loop", "[sim]") {
  const auto [loop_digest, loop_ticks] = ticking_world(false);
  const auto [timer_digest, timer_ticks] = ticking_world(true);
  CHECK(timer_ticks == loop_ticks);
  CHECK(timer_digest == loop_digest);
  CHECK(loop_ticks.size() > 40);
}

TEST_CASE("a partition that holds delivers after heal; one that drops loses", "[sim]") {
  for (auto mode : {PartitionMode::Hold, PartitionMode::Drop}) {
    World w(1);
    Host& a = w.add_host("A");
    Host& b = w.add_host("B");
    EchoService echo(w);
    w.network().register_service(b.id(), &echo);
    w.network().set_latency(LatencyModel::fixed(1ms));
    w.network().partition({{a.id()}, {b.id()}}, mode);
    CHECK(w.network().cut(a.id(), b.id()));
    w.network().send_message(a.id(), b.id(), {"x"});
    w.network().send_message(a.id(), b.id(), {"y"});
    w.scheduler().run_until(true_epoch + 10s);
    CHECK(echo.seen.empty());
    w.network().heal();
    w.scheduler().run_until_idle();
    if (mode == PartitionMode::Hold) {
      REQUIRE(echo.seen.size() == 2);
      CHECK(echo.seen[0] == std::make_pair(std::int64_t{10'001}, std::string("x")));
      CHECK(echo.seen[1].second == "y");
    } else {
      CHECK(echo.seen.empty());
    }
  }
}

TEST_CASE("hosts in no partition group keep all their links", "[sim]") {
  World w(1);
  Host& a = w.add_host("A");
  Host& b = w.add_host("B");
  Host& c = w.add_host("C");
  w.network().partition({{a.id()}, {b.id()}}, PartitionMode::Drop);
  CHECK(w.network().cut(a.id(), b.id()));
  CHECK_FALSE(w.network().cut(a.id(), c.id()));
  CHECK_FALSE(w.network().cut(c.id(), b.id()));
}

TEST_CASE("a crashed server resets the connection and its client sees an error", "[sim]") {
  EchoPair p(1ms);
  auto& [w, a, b, echo] = p;
  w.network().delay_next(a.id(), b.id(), 100ms);
  Connection& c = w.network().connect(a.id(), b.id());
  std::vector<std::string> got;
  a.spawn(call_and_record(c, "x", 10s, got, w));
  w.scheduler().run_until(true_epoch + 50ms);
  b.crash();
  w.scheduler().run_until_idle();
  CHECK(got == std::vector<std::string>{"51:(error) IOERR connection reset by peer"});
  CHECK(echo.seen.empty());  // the request reached a dead process
}

TEST_CASE("a request to a host that is down is refused", "[sim]") {
  EchoPair p(1ms);
  auto& [w, a, b, echo] = p;
  b.crash();
  Connection& c = w.network().connect(a.id(), b.id());
  std::vector<std::string> got;
  a.spawn(call_and_record(c, "x", 10s, got, w));
  w.scheduler().run_until_idle();
  CHECK(got == std::vector<std::string>{"2:(error) IOERR connection refused"});
}

TEST_CASE("a crashed client's outstanding call leaks nothing and its late reply is dropped", "[sim]") {
  EchoPair p(5ms);
  auto& [w, a, b, echo] = p;
  Connection& c = w.network().connect(a.id(), b.id());
  const auto before = live_task_frames();
  std::vector<std::string> got;
  a.spawn(call_and_record(c, "x", 10s, got, w));
  w.scheduler().run_until(true_epoch + 2ms);
  a.crash();
  CHECK(live_task_frames() == before);
  w.scheduler().run_until_idle();
  CHECK(got.empty());
  CHECK(echo.seen.size() == 1);  // the request still executed
  CHECK(w.scheduler().live_slots() == 0);
}

// ---- trace and determinism ----------------------------------------------------

namespace {

// A random small world: hosts that sleep, call each other and message each
// other, with pauses, crashes, restarts, jumps, partitions and delays drawn
// from the seed. Returns the trace digest.
struct SmallWorld {
  static Task<void> chatter(Host& self, std::vector<Connection*> peers, Rng rng) {
    for (int i = 0; i < 30; ++i) {
      co_await self.sleep(std::chrono::milliseconds(rng.between(1, 50)));
      Connection& c = *peers[rng.below(peers.size())];
      Argv argv{"m" + std::to_string(i)};
      Reply r = co_await c.call(std::move(argv), std::chrono::milliseconds(rng.between(5, 40)));
      self.world().note(self.id(), "reply", r.to_string());
    }
  }

  static std::uint64_t run(std::uint64_t seed, int hosts) {
    World w(seed);
    std::vector<Host*> hs;
    for (int i = 0; i < hosts; ++i) hs.push_back(&w.add_host("h" + std::to_string(i)));
    std::vector<std::unique_ptr<EchoService>> services;
    for (Host* h : hs) {
      services.push_back(std::make_unique<EchoService>(w));
      w.network().register_service(h->id(), services.back().get());
    }
    w.network().set_latency({1ms, 8ms, 50, 3});
    for (Host* h : hs) {
      std::vector<Connection*> peers;
      for (Host* p : hs)
        if (p != h) peers.push_back(&w.network().connect(h->id(), p->id()));
      Rng rng = w.stream("chatter:" + h->name());
      h->set_main([peers, rng](Host& self) { return chatter(self, peers, rng); });
      h->start();
    }
    Rng faults = w.stream("faults");
    for (int step = 0; step < 40; ++step) {
      w.scheduler().run_until(w.now() + std::chrono::milliseconds(faults.between(1, 60)));
      Host& h = *hs[faults.below(hs.size())];
      switch (faults.below(6)) {
        case 0: h.pause(std::chrono::milliseconds(faults.between(1, 200))); break;
        case 1: h.crash(); break;
        case 2: if (!h.up()) h.restart(); break;
        case 3: h.clock().step(std::chrono::milliseconds(faults.between(-500, 500))); break;
        case 4: w.network().delay_next(h.id(), hs[0]->id(), 100ms); break;
        default:
          if (faults.chance(1, 2)) w.network().partition({{h.id()}}, PartitionMode::Hold);
          else w.network().heal();
      }
    }
    w.network().heal();
    w.scheduler().run_until_idle();
    return w.trace().digest();
  }
};

}  // namespace

TEST_CASE("the same seed gives the same digest; different seeds differ", "[sim]") {
  const bool ok = rc::check("digest is a function of the seed", [](std::uint64_t seed) {
    const int hosts = *rc::gen::inRange(2, 5);
    const auto d1 = SmallWorld::run(seed, hosts);
    const auto d2 = SmallWorld::run(seed, hosts);
    RC_ASSERT(d1 == d2);
  });
  CHECK(ok);
  std::vector<std::uint64_t> digests;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) digests.push_back(SmallWorld::run(seed, 3));
  std::sort(digests.begin(), digests.end());
  CHECK(std::unique(digests.begin(), digests.end()) == digests.end());
}

TEST_CASE("a small world's digest is pinned across machines and builds", "[sim]") {
  // If this changes, determinism changed: same seed must mean same digest
  // everywhere. Update only for a deliberate kernel change, and say so.
  // Digest format 2 (lost waits cancelled, not popped): re-pinned on purpose.
  CHECK(Trace::hex(SmallWorld::run(12345, 3)) == "a69df9dfa8b0e8af");
}

TEST_CASE("trace records are kept only when recording is on", "[sim]") {
  World w(1);
  w.note(kNoHost, "fault", "pause A 35s");
  CHECK(w.trace().records().empty());
  const auto digest_without = w.trace().digest();
  World w2(1);
  w2.trace().set_recording(true);
  w2.note(kNoHost, "fault", "pause A 35s");
  REQUIRE(w2.trace().records().size() == 1);
  CHECK(w2.trace().records()[0].detail == "pause A 35s");
  CHECK(w2.trace().digest() == digest_without);  // recording does not change the digest
}
