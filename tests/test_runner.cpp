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
    loss.after = Trigger{"A", "acquired", 1};
    loss.at = 1s;
    loss.restart_after = 2s;
    FaultSpec pause;
    pause.kind = FaultKind::Pause;
    pause.target = m + "2";
    pause.after = Trigger{m + "1", "restart", 1};
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
