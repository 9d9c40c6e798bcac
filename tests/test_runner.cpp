// The runner end to end on hand-built scenarios (no TOML): the canonical
// failure timelines of docs/redis-model.md reproduced in the simulator, and
// the checkers finding exactly what the mechanics produce.
#include <catch2/catch.hpp>

#include "scenarios/runner.hpp"

using namespace locksim;
using namespace locksim::scenarios;
using namespace std::chrono_literals;
using Kinds = std::set<std::string>;

namespace {

ClientSpec client(std::string name, sim::Duration start, sim::Duration work, int writes) {
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
  pause.after = Trigger{"A", "write", 1};
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
