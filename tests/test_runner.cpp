// The runner end to end on hand-built scenarios (no TOML): the canonical
// failure timelines of docs/redis-model.md reproduced in the simulator, and
// the checkers finding exactly what the mechanics produce; and the workload
// alone, in a scripted WorkloadWorld.
#include <catch2/catch.hpp>

#include <algorithm>

#include "scenarios/checkers.hpp"
#include "scenarios/inventory_workload.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/storage.hpp"
#include "scenarios/workload.hpp"
#include "scenarios/workload_world.hpp"
#include "tests/support/engine_runtime.hpp"

using namespace locksim;
using namespace locksim::scenarios;
using namespace std::chrono_literals;
using Kinds = std::set<std::string>;

namespace {

ClientSpec client(std::string name, locksim::Duration start, locksim::Duration work, int writes) {
  ClientSpec c;
  c.name = std::move(name);
  c.start = start;
  c.work = work;
  c.writes = writes;
  return c;
}

// Timeline a/b/g: A acquires at 0 (TTL 10 s) and GC-pauses right before its
// write, from ~1 s to ~16 s; B acquires when the lease runs out; A wakes,
// writes (stale) and releases; C, waiting since 12 s, acquires after A's
// release if A's release removed B's lock.
Scenario gc_pause(bool fencing) {
  Scenario s;
  s.name = "gc-pause-by-hand";
  s.duration = 60s;
  s.lock.key = "lock:report";
  s.lock.ttl = 10s;
  s.lock.retry = 100ms;
  s.lock.acquire_timeout = 60s;
  s.network.latency = {1ms, 1ms};
  s.fencing = fencing;
  s.clients = {client("A", 0s, 2s, 1), client("B", 500ms, 10s, 2), client("C", 12s, 1s, 1)};
  FaultSpec pause;
  pause.kind = FaultKind::Pause;
  pause.target = "A";
  pause.after = Trigger{"A", TriggerEvent::Write, 1};
  pause.duration = 15s;
  s.faults = {pause};
  return s;
}

RunResult run(const Scenario& s, const std::string& lock, std::uint64_t seed = 1) {
  RunOptions o;
  o.lock_kind = lock;
  o.seed = seed;
  auto r = run_scenario(s, o);
  REQUIRE(r.ok());
  return std::move(r.value());
}

}  // namespace

TEST_CASE("naive DEL after a pause past the TTL removes the next holder's lock", "[runner]") {
  const auto r = run(gc_pause(false), "naive-del");
  CHECK(r.violation_kinds() == Kinds{"mutual-exclusion", "wrong-owner-release", "stale-write"});
  bool b_and_c = false;
  for (const auto& v : r.violations)
    if (v.kind == "mutual-exclusion" && v.clients == std::vector<std::string>{"B", "C"}) b_and_c = true;
  CHECK(b_and_c);  // C got the lock B still held: A's DEL removed it
}

namespace {
// One client that is done within a second of a two-minute scenario.
Scenario short_story() {
  Scenario s;
  s.name = "short-story";
  s.duration = 120s;
  s.lock.key = "lock:report";
  s.lock.ttl = 10s;
  s.network.latency = {1ms, 1ms};
  s.clients = {client("A", 0s, 500ms, 1)};
  return s;
}
}  // namespace

TEST_CASE("a run stops once the story is over; its history still ends at the scenario's end", "[runner]") {
  const RunResult r = run(short_story(), "token");
  // Ticking to 120 s would take a Redis active-expiry cycle every 100 ms alone.
  CHECK(r.events < 100);
  CHECK(r.sim_time_ms == 120000);
  CHECK(r.history.end == true_epoch + 120s);
  CHECK(r.violations.empty());
}

TEST_CASE("a packet in transit, a due fault or a client that never finishes keeps the story going", "[runner]") {
  SECTION("the storage write held 90 s still lands and is judged") {
    Scenario s = short_story();
    FaultSpec delay;
    delay.kind = FaultKind::Delay;
    delay.from = "A";
    delay.to = "storage";
    delay.after = Trigger{"A", TriggerEvent::Write, 1};
    delay.duration = 90s;
    s.faults = {delay};
    const RunResult r = run(s, "token");
    REQUIRE(r.history.writes.size() == 1);
    CHECK(r.history.writes[0].at > true_epoch + 90s);
  }
  SECTION("a fault due at 100 s fires") {
    Scenario s = short_story();
    FaultSpec crash;
    crash.kind = FaultKind::Crash;
    crash.target = "redis-1";
    crash.at = 100s;
    s.faults = {crash};
    const RunResult r = run(s, "token");
    REQUIRE(r.history.faults.size() == 1);
    CHECK(r.history.faults[0].at == true_epoch + 100s);
  }
  SECTION("a holder crashed for good never finishes: its key's expiry is in the history") {
    Scenario s = short_story();
    FaultSpec crash;
    crash.kind = FaultKind::Crash;
    crash.target = "A";
    crash.after = Trigger{"A", TriggerEvent::Acquired, 1};
    s.faults = {crash};
    const RunResult r = run(s, "token");
    REQUIRE(!r.history.entries.empty());
    CHECK(r.history.entries.back().kind == sim::redis::KeyEvent::Kind::Expired);
    CHECK(r.history.entries.back().at >= true_epoch + 10s);
  }
}

TEST_CASE("a recorded trace stops the run at its cap instead of growing without end (issue 35)", "[runner]") {
  // A long valid run: B retries every 1 ms for 9000 h behind A's 9000 h section (and TTL).
  Scenario s;
  s.name = "long";
  s.duration = std::chrono::hours(9000);
  s.lock.key = "lock:long";
  s.lock.ttl = std::chrono::hours(9000);
  s.lock.retry = 1ms;
  s.lock.acquire_timeout = std::chrono::hours(9000);
  s.network.latency = {1ms, 1ms};
  s.clients = {client("A", 0s, std::chrono::hours(9000), 1), client("B", 1ms, 1s, 1)};
  RunOptions o;
  o.lock_kind = "token";
  o.record_trace = true;
  o.trace_limit = 1000;
  auto r = run_scenario(s, o);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error(), Catch::StartsWith("the run's trace reached 1000 records at ") &&
                            Catch::Contains(" of 32400000s simulated (the cap on a trace kept in memory"));
  // The same story over 2 s stays under a larger cap and keeps its whole trace.
  s.duration = 2s;
  s.lock.ttl = 1s;
  s.lock.acquire_timeout = 2s;
  o.trace_limit = 1'000'000;
  auto short_run = run_scenario(s, o);
  REQUIRE(short_run.ok());
  CHECK_FALSE(short_run->trace.empty());
  CHECK(short_run->trace.size() <= 1'000'000);
}

TEST_CASE("a run records each fault with its typed kind and its table words", "[runner]") {
  const auto r = run(gc_pause(false), "naive-del");
  REQUIRE(r.history.faults.size() == 1);
  const FaultRecord& f = r.history.faults.front();
  CHECK(f.kind == FaultKind::Pause);
  CHECK(f.description == "pause A 15s");
  CHECK(f.target == "A");
  REQUIRE(f.until.has_value());
  CHECK(*f.until - f.at == 15s);
}

TEST_CASE("token unlock refuses the wrong-owner delete but not the stale write", "[runner]") {
  const auto r = run(gc_pause(false), "token");
  CHECK(r.violation_kinds() == Kinds{"mutual-exclusion", "stale-write"});
}

TEST_CASE("fencing storage rejects the paused holder's stale write", "[runner]") {
  const auto r = run(gc_pause(true), "fenced");
  CHECK(r.violation_kinds() == Kinds{"mutual-exclusion"});
  bool rejected = false;
  for (const auto& w : r.history.writes) rejected |= !w.accepted;
  CHECK(rejected);
}

TEST_CASE("without faults and with work shorter than the TTL the token lock is safe", "[runner]") {
  Scenario s = gc_pause(false);
  s.faults.clear();
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto r = run(s, "token", seed);
    CHECK(r.violations.empty());
    CHECK(r.summary.acquisitions == 3);
  }
}

TEST_CASE("the same seed gives the same digest and different seeds differ", "[runner]") {
  Scenario s = gc_pause(false);
  s.network.latency = {1ms, 5ms};
  const auto a = run(s, "naive-del", 7);
  const auto b = run(s, "naive-del", 7);
  const auto c = run(s, "naive-del", 8);
  CHECK(a.digest == b.digest);
  CHECK(a.events == b.events);
  CHECK(a.digest != c.digest);
}

TEST_CASE("a lock that needs more masters than the scenario has is an input error", "[runner]") {
  RunOptions o;
  o.lock_kind = "redlock";
  auto r = run_scenario(gc_pause(false), o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().find("needs at least") != std::string::npos);
  o.lock_kind = "no-such-lock";
  CHECK_FALSE(run_scenario(gc_pause(false), o).ok());
}

TEST_CASE("a lock of another topology is an input error: Redis on etcd, etcd on Redis, ZooKeeper on etcd", "[runner]") {
  Scenario s = gc_pause(false);
  RunOptions o;
  o.lock_kind = "etcd-mutex";
  auto r = run_scenario(s, o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == "lock etcd-mutex needs a CP topology ([etcd]); the scenario has [redis]");
  s.topology = locks::Topology::Etcd;
  o.lock_kind = "token";
  r = run_scenario(s, o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == "lock token needs a Redis topology ([redis]); the scenario has [etcd]");
  o.lock_kind = "zk-lock";
  CHECK_FALSE(run_scenario(s, o).ok());
  o.lock_kind = "etcd-mutex";
  CHECK(run_scenario(s, o).ok());
}

// Every member of a CP topology takes faults by host name; a power loss and
// a restart reach the consensus member, and the majority keeps the lock safe.
TEST_CASE("CP members crash, lose power, restart and pause like any host", "[runner]") {
  for (const auto topology : {locks::Topology::Etcd, locks::Topology::ZooKeeper}) {
    const bool etcd = topology == locks::Topology::Etcd;
    Scenario s;
    s.name = "cp-member-faults";
    s.topology = topology;
    s.duration = 120s;
    s.lock.key = "lock:report";
    s.lock.ttl = 10s;
    s.lock.retry = 100ms;
    s.lock.acquire_timeout = 100s;
    const Duration first = etcd ? 3s : 25s;  // after the first election
    s.clients = {client("A", first, 20s, 2), client("B", first + 1s, 2s, 1)};
    const std::string m = etcd ? "etcd-" : "zk-";
    FaultSpec loss;
    loss.kind = FaultKind::PowerLoss;
    loss.target = m + "1";
    loss.after = Trigger{"A", TriggerEvent::Acquired, 1};
    loss.at = 1s;
    loss.restart_after = 2s;
    FaultSpec pause;
    pause.kind = FaultKind::Pause;
    pause.target = m + "2";
    pause.after = Trigger{m + "1", TriggerEvent::Restart, 1};
    pause.at = 8s;
    pause.duration = 1s;
    s.faults = {loss, pause};
    INFO(locks::topology_name(topology));
    const RunResult r = run(s, etcd ? "etcd-fenced" : "zk-fenced");
    std::vector<std::string> faults;
    for (const auto& f : r.history.faults) faults.push_back(f.description);
    CHECK(faults == std::vector<std::string>{"power-loss " + m + "1", "restart " + m + "1", "pause " + m + "2 1s"});
    CHECK(r.violations.empty());
    CHECK(r.summary.acquisitions == 2);
    CHECK(std::find(r.host_names.begin(), r.host_names.end(), m + "3") != r.host_names.end());
  }
}

TEST_CASE("a run matches when it shows every expected violation and nothing outside expected or may", "[runner]") {
  Scenario s;
  s.expect_by_lock["no-ttl"] = {};
  s.expect_may_by_lock["no-ttl"] = {"lock-unavailable"};
  s.expect_by_lock["naive-del"] = {"mutual-exclusion"};
  CHECK(s.matches("no-ttl", {}));
  CHECK(s.matches("no-ttl", {"lock-unavailable"}));
  CHECK_FALSE(s.matches("no-ttl", {"lock-unavailable", "stale-write"}));
  CHECK(s.matches("naive-del", {"mutual-exclusion"}));
  CHECK_FALSE(s.matches("naive-del", {}));
  CHECK_FALSE(s.matches("naive-del", {"mutual-exclusion", "stale-write"}));
  CHECK(s.matches("token", {}));  // no expectation: must be safe
  CHECK_FALSE(s.matches("token", {"stale-write"}));
}

TEST_CASE("recording the trace shows every command and never changes the digest", "[runner]") {
  const Scenario s = gc_pause(false);
  RunOptions quiet;
  quiet.lock_kind = "naive-del";
  RunOptions traced = quiet;
  traced.record_trace = true;
  const auto a = run_scenario(s, quiet);
  const auto b = run_scenario(s, traced);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->digest == b->digest);
  CHECK(a->trace.empty());
  const auto commands = std::count_if(b->trace.begin(), b->trace.end(), [](const auto& r) {
    return r.kind == "command" && r.detail.find("SET lock:report") != std::string::npos;
  });
  CHECK(commands > 10);  // B's retries while A holds the lock
}

// ---------------------------------------------------------------- the workload's world

namespace {

// A lock that grants at once with the fencing tokens it is given, and says
// its lease is valid while `valid` holds: the workload's own decisions, with
// no lock algorithm in the way.
class ScriptedLock final : public locks::Lock {
 public:
  ScriptedLock(std::vector<std::int64_t> tokens, const bool& valid) : tokens_(std::move(tokens)), valid_(valid) {}
  locksim::Task<std::optional<locks::Lease>> try_acquire() override {
    ++trips_;
    if (next_ >= tokens_.size()) co_return std::nullopt;
    locks::Lease lease;
    lease.fencing_token = tokens_[next_++];
    co_return lease;
  }
  locksim::Task<bool> release(locks::Lease&) override {
    ++trips_;
    co_return true;
  }
  locksim::Task<bool> extend(locks::Lease&) override { co_return true; }
  bool still_valid(const locks::Lease&) override { return valid_; }
  std::uint64_t round_trips() const override { return trips_; }

 private:
  std::vector<std::int64_t> tokens_;
  const bool& valid_;
  std::size_t next_ = 0;
  std::uint64_t trips_ = 0;
};

// A third world besides the simulator and live mode: a clock that jumps to
// every sleep's end, the storage applied on the spot, and every trigger
// point and note written down. It proves the workload needs nothing but
// WorkloadWorld.
class ScriptedWorld final : public WorkloadWorld {
 public:
  ScriptedWorld(Scenario s, std::vector<std::int64_t> tokens) : scenario_(std::move(s)), storage_(scenario_) {
    lock_.name = "scripted";
    lock_.factory = [this, tokens](locks::Runtime&, const locks::LockConfig&) {
      return std::make_unique<ScriptedLock>(tokens, valid);
    };
    for (const auto& c : scenario_.clients) history.clients.push_back({c.name, 0, {}, std::nullopt});
    progress_.resize(scenario_.clients.size());
  }

  const Scenario& scenario() const override { return scenario_; }
  const locks::LockInfo& lock() const override { return lock_; }
  const std::string& client_name(std::size_t c) const override { return scenario_.clients[c].name; }
  std::uint64_t incarnation(std::size_t) const override { return 0; }
  locksim::LocalInstant monotonic_now(std::size_t) override { return locksim::LocalInstant{now_}; }
  locksim::Task<void> sleep_until(std::size_t, locksim::LocalInstant target) override {
    now_ = std::max(now_, target.time_since_epoch());
    co_return;
  }
  locksim::Task<void> await_start(std::size_t, locksim::Duration start) override {
    now_ = std::max(now_, start);
    co_return;
  }
  TrueInstant true_when_monotonic(std::size_t, locksim::LocalInstant local) override {
    return TrueInstant{local.time_since_epoch()};
  }
  std::int64_t latency_us(locksim::Duration d) const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
  }
  locksim::Task<locksim::Reply> send_write(std::size_t, WriteRequest w) override {
    co_return locksim::Reply::integer_of(storage_.serve(history, TrueInstant{now_}, w));
  }
  locksim::Task<void> reach(std::size_t c, TriggerEvent event, int write_index) override {
    reached.push_back(scenario_.clients[c].name + ":" + std::string(locksim::scenarios::trigger_event_name(event)) +
                      (write_index ? "#" + std::to_string(write_index) : ""));
    co_return;
  }
  bool ended() const override { return false; }
  ClientProgress& progress(std::size_t c) override { return progress_[c]; }
  void note(std::size_t, std::string_view kind, std::string_view detail) override {
    notes.push_back(std::string(kind) + " " + std::string(detail));
  }

  History history;
  RunSummary stats;
  std::vector<std::string> reached, notes;
  bool valid = true;

 protected:
  void record_with(std::size_t c, void (*call)(void*, const Ledger&), void* fn) override {
    call(fn, Ledger{history, stats, progress_[c], TrueInstant{now_}, false});
  }

 private:
  Scenario scenario_;
  locks::LockInfo lock_;
  Storage storage_;
  std::vector<ClientProgress> progress_;
  locksim::Duration now_{0};
};

Scenario scripted_scenario(int iterations, int writes, bool fencing) {
  Scenario s;
  s.name = "scripted";
  s.lock.key = "lock:k";
  s.fencing = fencing;
  ClientSpec a = client("A", 1s, 3s, writes);
  a.iterations = iterations;
  s.clients = {a};
  return s;
}

}  // namespace

TEST_CASE("the workload runs in any WorkloadWorld: attempts, beliefs, fenced writes, trigger points", "[runner]") {
  ScriptedWorld world(scripted_scenario(2, 2, true), {5, 3});
  testing::EngineWorld engine(1);
  testing::EngineRuntime runtime(engine, "A");  // the scripted lock never uses it
  locksim::sync_wait(client_main(world, 0, runtime));

  const History& h = world.history;
  REQUIRE(h.attempts.size() == 2);
  CHECK(h.attempts[0].acquired);
  CHECK(h.attempts[0].start == TrueInstant{1s});  // after the client's start
  REQUIRE(h.beliefs.size() == 2);
  CHECK(h.beliefs[0].end_reason == "release");
  CHECK(h.beliefs[0].fencing_token == 5);
  CHECK(h.beliefs[1].grant == 1);
  CHECK(h.beliefs[1].end == TrueInstant{7s});  // two sections of 3 s from 1 s
  REQUIRE(h.writes.size() == 4);
  // Writes at work·i/(n+1) of each section; token 3 after 5 is stale.
  CHECK(h.writes[0].at == TrueInstant{2s});
  CHECK(h.writes[1].at == TrueInstant{3s});
  CHECK(h.writes[0].accepted);
  CHECK(h.writes[1].accepted);
  CHECK_FALSE(h.writes[2].accepted);
  CHECK_FALSE(h.writes[3].accepted);
  CHECK(world.reached == std::vector<std::string>{"A:acquiring", "A:acquired", "A:write#1", "A:write#2", "A:released",
                                                  "A:acquiring", "A:acquired", "A:write#1", "A:write#2", "A:released"});
  CHECK(world.notes.front() == "acquired grant 1 token 5");
  CHECK(world.notes.back() == "finished ");
  CHECK(h.clients[0].finished == TrueInstant{7s});
  CHECK(world.stats.attempts == 2);
  CHECK(world.stats.acquisitions == 2);
  CHECK(world.stats.round_trips == 4);  // two acquires, two releases
  CHECK(world.progress(0).iterations_done == 2);
}

TEST_CASE("the workload abandons a section its lock calls invalid, gives up, and a crash ends its belief",
          "[runner]") {
  ScriptedWorld world(scripted_scenario(2, 2, false), {7});
  world.valid = false;
  testing::EngineWorld engine(1);
  testing::EngineRuntime runtime(engine, "A");
  locksim::sync_wait(client_main(world, 0, runtime));
  const History& h = world.history;
  REQUIRE(h.beliefs.size() == 1);
  CHECK(h.beliefs[0].end_reason == "abandon");
  CHECK(h.writes.empty());
  REQUIRE(h.attempts.size() == 2);
  CHECK_FALSE(h.attempts[1].acquired);  // the scripted lock has no second token
  CHECK(world.stats.gave_up == 1);
  CHECK(std::find(world.notes.begin(), world.notes.end(), "gave-up lock:k") != world.notes.end());

  // A crash while a belief is open closes it as "crash" and notes it.
  ScriptedWorld crashing(scripted_scenario(1, 1, false), {1});
  crashing.history.beliefs.push_back({0, 0, TrueInstant{0s}, std::nullopt, std::nullopt, std::nullopt, ""});
  crashing.progress(0).open_belief = 0;
  on_client_crash(crashing, 0);
  CHECK(crashing.history.beliefs[0].end_reason == "crash");
  CHECK(crashing.history.clients[0].crashes.size() == 1);
  CHECK(crashing.notes == std::vector<std::string>{"crash grant 1"});
}

// --- the inventory workload (issue 17) ------------------------------------------

namespace {

Scenario inventory(InventoryMethod method, std::int64_t stock, std::vector<int> buys, locksim::Duration work = 0s) {
  Scenario s;
  s.name = "inventory-by-hand";
  s.duration = 30s;
  s.workload = WorkloadKind::Inventory;
  s.lock.key = "sale:1";
  s.lock.ttl = 10s;
  s.network.latency = {1ms, 3ms};
  s.inventory.stock = stock;
  s.inventory.method = method;
  for (std::size_t i = 0; i < buys.size(); ++i) {
    ClientSpec c = client("buyer-" + std::to_string(i + 1), 0s, work, 1);
    c.buys = buys[i];
    s.clients.push_back(c);
  }
  return s;
}

std::size_t stored_orders(const History& h) {
  return static_cast<std::size_t>(std::count_if(h.orders.begin(), h.orders.end(), [](auto& o) { return o.accepted; }));
}

History sale_history(std::int64_t stock, int per_buyer, std::size_t buyers) {
  History h;
  h.sale = SaleTerms{stock, per_buyer};
  for (std::size_t c = 0; c < buyers; ++c) h.clients.push_back({"B" + std::to_string(c + 1), 0, {}, std::nullopt});
  return h;
}

void order(History& h, std::size_t c, locksim::Duration at, bool accepted, std::string refused = "") {
  h.orders.push_back({TrueInstant{at}, c, 0, accepted, std::move(refused), std::nullopt});
}

}  // namespace

TEST_CASE("oversell, double-purchase and lost-order judge the orders table against the sale", "[runner]") {
  History h = sale_history(2, 1, 3);
  h.purchases = {{0, TrueInstant{1s}}, {1, TrueInstant{2s}}, {2, TrueInstant{3s}}, {2, TrueInstant{4s}}};
  order(h, 0, 1s, true);
  order(h, 1, 2s, true);
  order(h, 2, 3s, false, "unique");
  order(h, 0, 5s, true);  // the third stored order of a stock of 2, B1's second
  const auto oversell = check_oversell(h);
  REQUIRE(oversell.size() == 1);
  CHECK(oversell[0].at == TrueInstant{5s});
  CHECK(oversell[0].detail == "storage accepted 3 orders for a stock of 2 items; B1's was order 3");
  CHECK(oversell[0].evidence.back() == "5.000s storage stored B1's order (order 3)");
  const auto twice = check_double_purchase(h);
  REQUIRE(twice.size() == 1);
  CHECK(twice[0].clients == std::vector<std::string>{"B1"});
  CHECK(twice[0].detail == "B1 holds 2 orders; the shop allows 1 per buyer");
  const auto lost = check_lost_order(h);
  REQUIRE(lost.size() == 1);  // B3 was told twice and has no order: its first was refused
  CHECK(lost[0].clients == std::vector<std::string>{"B3"});
  CHECK(lost[0].at == TrueInstant{3s});
  CHECK(std::find(lost[0].evidence.begin(), lost[0].evidence.end(), "3.000s storage refused B3's order (unique)") !=
        lost[0].evidence.end());
  // Without a sale (the lock workload) none of them applies.
  h.sale.reset();
  CHECK(check_oversell(h).empty());
  CHECK(check_double_purchase(h).empty());
  CHECK(check_lost_order(h).empty());
}

TEST_CASE("the lock checkers judge each lock key on its own", "[runner]") {
  History h = sale_history(10, 1, 2);
  h.sale.reset();
  h.end = TrueInstant{10s};
  h.beliefs.push_back({0, 0, TrueInstant{1s}, TrueInstant{5s}, std::nullopt, std::nullopt, "release", "k:1"});
  h.beliefs.push_back({1, 1, TrueInstant{2s}, TrueInstant{4s}, std::nullopt, std::nullopt, "release", "k:2"});
  h.writes.push_back({TrueInstant{3s}, 1, 1, std::nullopt, true, 1, "k:2"});
  h.writes.push_back({TrueInstant{4s}, 0, 0, std::nullopt, true, 1, "k:1"});  // an older grant, another key
  CHECK(check_mutual_exclusion(h).empty());
  CHECK(check_stale_write(h).empty());
  h.beliefs[1].key = "k:1";
  h.writes[0].key = "k:1";
  CHECK(check_mutual_exclusion(h).size() == 1);
  CHECK(check_stale_write(h).size() == 1);
}

TEST_CASE("the storage keeps stock rows and orders: fencing per lock key, the unique constraint", "[runner]") {
  Scenario s = inventory(InventoryMethod::Segmented, 7, {1, 1});
  s.inventory.segments = 3;
  s.fencing = true;
  s.unique = true;
  CHECK(storage_stock_rows(s) == std::vector<std::int64_t>{3, 2, 2});
  Storage storage(s);
  History h;
  WriteRequest read;
  read.op = StorageOp::ReadStock;
  read.segment = 1;
  CHECK(storage.serve(h, TrueInstant{0s}, read) == 2);
  WriteRequest o;
  o.op = StorageOp::Order;
  o.segment = 1;
  o.new_stock = 1;
  o.fencing_token = 5;
  o.lock_key = "sale:1:2";
  CHECK(storage.serve(h, TrueInstant{1s}, o) == 1);
  CHECK(storage.serve(h, TrueInstant{1s}, read) == 1);
  // The same buyer again: the unique constraint refuses it, the row stays.
  o.new_stock = 0;
  o.fencing_token = 6;
  CHECK(storage.serve(h, TrueInstant{2s}, o) == 0);
  CHECK(h.orders.back().refused == "unique");
  CHECK(storage.serve(h, TrueInstant{2s}, read) == 1);
  // Another buyer with an older token on another key: fencing is per key.
  o.client = 1;
  o.fencing_token = 1;
  o.lock_key = "sale:1:3";
  o.segment = 2;
  CHECK(storage.serve(h, TrueInstant{3s}, o) == 1);
  o.client = 2;
  o.fencing_token = 4;
  o.lock_key = "sale:1:2";
  CHECK(storage.serve(h, TrueInstant{4s}, o) == 0);
  CHECK(h.orders.back().refused == "fencing");
  CHECK(h.writes.size() == 4);  // every order under a lock is its holder's storage write
  // The wire format carries every field there and back.
  const auto back = parse_write(write_argv(o));
  REQUIRE(back);
  CHECK(back->op == StorageOp::Order);
  CHECK(back->lock_key == "sale:1:2");
  CHECK(back->new_stock == 0);
  CHECK(back->fencing_token == 4);
  CHECK(parse_write(write_argv(read))->segment == 1);
  CHECK_FALSE(parse_write({"ORDER", "x"}));
}

TEST_CASE("every inventory method sells exactly its stock when nothing goes wrong", "[runner]") {
  for (InventoryMethod m : {InventoryMethod::Lock, InventoryMethod::Decr, InventoryMethod::Lua,
                            InventoryMethod::Segmented}) {
    Scenario s = inventory(m, 6, {3, 3, 3}, 5ms);
    s.inventory.per_buyer = 3;
    if (m == InventoryMethod::Segmented) s.inventory.segments = 3;
    INFO(inventory_method_name(m));
    const RunResult r = run(s, "token");
    CHECK(r.violations.empty());
    CHECK(stored_orders(r.history) == 6);
    CHECK(r.history.purchases.size() == 6);
  }
  // Without a lock, five concurrent buyers oversell.
  const RunResult race = run(inventory(InventoryMethod::ReadCheckWrite, 4, {2, 2, 2, 2, 2}, 5ms), "token");
  CHECK(race.violation_kinds().count("oversell") == 1);
  CHECK(stored_orders(race.history) > 4);
}

TEST_CASE("lua enforces per_buyer; decr lets a double click buy twice; a sold-out DECR is refunded", "[runner]") {
  Scenario lua = inventory(InventoryMethod::Lua, 5, {2, 1});
  const RunResult by_script = run(lua, "token");
  CHECK(by_script.violations.empty());
  CHECK(stored_orders(by_script.history) == 2);
  Scenario decr = inventory(InventoryMethod::Decr, 5, {2, 1});
  CHECK(run(decr, "token").violation_kinds() == Kinds{"double-purchase"});
  // Sold out: the stock goes back to 0 with the refund, every buyer told once.
  ScriptedWorld world(inventory(InventoryMethod::Decr, 1, {2}), {});
  testing::EngineWorld engine(1);
  (void)engine.engine(0).execute({"SET", "sale:1:stock", "1"}, 0);
  testing::EngineRuntime runtime(engine, "buyer-1");
  engine.run(client_main(world, 0, runtime));
  CHECK(world.history.purchases.size() == 1);
  CHECK(engine.engine(0).execute({"GET", "sale:1:stock"}, 0).str == "0");
  CHECK(std::find(world.notes.begin(), world.notes.end(), "sold-out sale:1:stock") != world.notes.end());
  CHECK(world.reached == std::vector<std::string>{"buyer-1:acquiring", "buyer-1:acquired", "buyer-1:write#1",
                                                  "buyer-1:acquiring"});
}

TEST_CASE("segmented: one lock key per segment, a buyer moves on from an empty one", "[runner]") {
  Scenario s = inventory(InventoryMethod::Segmented, 4, {4}, 1ms);
  s.inventory.segments = 2;
  s.inventory.per_buyer = 4;
  CHECK(lock_keys(s) == std::vector<std::string>{"sale:1:1", "sale:1:2"});
  CHECK(is_lock_key(s, "sale:1:2"));
  CHECK_FALSE(is_lock_key(s, "sale:1:3"));
  CHECK_FALSE(is_lock_key(s, "sale:1"));
  const RunResult r = run(s, "token");
  CHECK(r.violations.empty());
  CHECK(stored_orders(r.history) == 4);
  std::set<std::string> keys;
  for (const Belief& b : r.history.beliefs) keys.insert(b.key);
  CHECK(keys == std::set<std::string>{"sale:1:1", "sale:1:2"});
  std::set<std::string> entry_keys;
  for (const EntryEvent& e : r.history.entries) entry_keys.insert(e.key);
  CHECK(entry_keys == keys);  // the observer keeps both segments' entries
}

TEST_CASE("the stock exists at time 0 on the master and its replica, and survives a failover", "[runner]") {
  Scenario s = inventory(InventoryMethod::Decr, 3, {1});
  s.redis.replicas = 1;
  s.redis.failover_after = 1s;
  s.clients[0].start = 5s;
  FaultSpec crash;
  crash.kind = FaultKind::Crash;
  crash.target = "redis-1";
  crash.at = 1ms;  // before any buyer: the replica must have had the stock all along
  s.faults = {crash};
  const RunResult r = run(s, "token");
  CHECK(r.violations.empty());
  CHECK(r.history.purchases.size() == 1);
  CHECK(sale_terms(s)->stock == 3);
  CHECK(redis_stock_preload(s) == std::vector<locksim::Argv>{{"SET", "sale:1:stock", "3"}});
}

TEST_CASE("a gate winner writes its order; the unique constraint stores one and the other winner's is lost",
          "[runner]") {
  Scenario s = inventory(InventoryMethod::Lock, 1, {1, 1});  // the buyers' fields are the gate's too
  s.workload = WorkloadKind::Gate;
  s.clients[1].start = 100ms;
  CHECK(sale_terms(s)->stock == 1);
  const RunResult one = run(s, "token");
  CHECK(one.violations.empty());
  REQUIRE(one.history.orders.size() == 1);  // only the winner orders
  CHECK(one.history.purchases.size() == 1);
  REQUIRE(one.summary.sale);
  CHECK(one.summary.sale->method == "gate");
  CHECK(one.summary.sale->orders == 1);
  CHECK(one.summary.sale->sold_out_ms == locksim::to_ms(one.history.orders[0].at));
  // Two winners: the storage's UNIQUE(sale) keeps the first order and
  // refuses the second.
  s.unique = true;
  Storage storage(s);
  History h;
  WriteRequest order;
  order.op = StorageOp::Order;
  order.locked = false;
  CHECK(storage.serve(h, TrueInstant{1s}, order) == 1);
  order.client = 1;
  CHECK(storage.serve(h, TrueInstant{2s}, order) == 0);
  CHECK(h.orders.back().refused == "unique");
}

TEST_CASE("a sale's summary: orders per simulated second over the selling period and the sell-out time", "[runner]") {
  Scenario s = inventory(InventoryMethod::Lock, 4, {4}, 0s);
  s.inventory.per_buyer = 4;
  History h = sale_history(4, 4, 1);
  for (int i = 1; i <= 5; ++i) order(h, 0, std::chrono::milliseconds(500 * i), i != 3);
  const auto sale = sale_summary(s, h);
  REQUIRE(sale);
  CHECK(sale->method == "lock");
  CHECK(sale->orders == 4);
  CHECK(sale->refused == 1);
  CHECK(sale->sold_out_ms == 2500);         // the fourth stored order
  CHECK(sale->orders_per_s_milli == 1600);  // 4 orders in 2.5 s
  h.sale.reset();
  CHECK_FALSE(sale_summary(s, h));
}
