// Tests of scenario files: the TOML schema and its validation
// (scenarios/scenario.hpp), durations, the embedded catalog and scenario
// resolution (scenarios/catalog.hpp).
//
// Every validation rule has a test that pins the whole user-facing line
// `file:line: field: message`. Property tests feed the loader truncated and
// byte-mutated catalog files and random documents built from the real field
// names with values of every type: it must never throw, and must answer a
// scenario or a located error.
#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <toml++/toml.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "vocab/partition_mode.hpp"
#include "vocab/violation_kinds.hpp"
#include "scenarios/checkers.hpp"
#include "scenarios/fault_timeline.hpp"
#include "scenarios/keyspace_replay.hpp"
#include "locks/registry.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/check.hpp"
#include "scenarios/input_file.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/scenario_bounds.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario_writer.hpp"
#include "scenarios/schedule_gen.hpp"
#include "scenarios/host_names.hpp"
#include "scenarios/services.hpp"
#include "scenarios/scenario_writer.hpp"

namespace {

using namespace locksim;
using namespace locksim::scenarios;
using namespace std::chrono_literals;

const std::string kFile = "t.toml";

// A minimal valid scenario, so each test adds only what it is about.
const std::string kHead = "name = \"t\"\n[[client]]\nname = \"A\"\nwrites = 2\n";  // lines 1-4

Result<Scenario, ScenarioError> load(const std::string& text) { return load_scenario_text(text, kFile); }

// "OK" or the error line, for exact comparisons.
std::string outcome(const std::string& text) {
  auto r = load(text);
  return r.ok() ? "OK" : r.error().to_string();
}

Duration dur(std::string_view s) { return parse_duration(s).value_or(Duration{-424242}); }

// The scenario writer's text loads back as the same scenario.
void check_written_loads_back(const Scenario& first) {
  const std::string text = scenario_to_toml(first);
  INFO(text);
  auto again = load(text);
  REQUIRE(again.ok());
  CHECK(scenario_difference(first, *again).empty());
}

}  // namespace

// --- durations --------------------------------------------------------------

// The fault timeline both worlds share, over a world that only records.
struct RecordingTimelineWorld final : FaultTimeline::World {
  Duration clock{0};
  std::vector<std::pair<Duration, std::size_t>> events;  // scheduled: when, which
  std::vector<std::string> applied;
  Duration now() const override { return clock; }
  void schedule(Duration at, std::size_t event) override { events.emplace_back(at, event); }
  void apply(const FaultSpec& f) override { applied.push_back(std::string(fault_kind_name(f.kind)) + " " + f.target); }
};

FaultSpec timeline_fault(FaultKind kind, std::string target, Duration at, std::optional<Trigger> after = {}) {
  FaultSpec f;
  f.kind = kind;
  f.target = std::move(target);
  f.at = at;
  f.after = std::move(after);
  return f;
}

TEST_CASE("the fault timeline: absolute times, typed triggers that fire once, follow-ups, pending", "[scenarios]") {
  RecordingTimelineWorld world;
  FaultTimeline timeline(world);
  const std::vector<FaultSpec> faults = {
      timeline_fault(FaultKind::Pause, "A", 5s),
      timeline_fault(FaultKind::Crash, "B", 100ms, Trigger{"A", TriggerEvent::Write, 2}),
      timeline_fault(FaultKind::ClockJump, "A", Duration{0}, Trigger{"A", TriggerEvent::Acquired, 1}),
  };
  timeline.start(faults);
  REQUIRE(world.events.size() == 1);  // only the absolute one
  CHECK(world.events[0] == std::pair<Duration, std::size_t>{5s, 0});
  CHECK(timeline.pending() == 1);

  world.clock = 2s;
  CHECK(timeline.reach("A", TriggerEvent::Write, 1).empty());  // write #1 is not write #2
  CHECK(timeline.reach("B", TriggerEvent::Acquired).empty());  // another client's point
  CHECK(timeline.reach("A", TriggerEvent::Write, 2) == std::vector<std::size_t>{1});
  CHECK(world.events.back() == std::pair<Duration, std::size_t>{2s + 100ms, 1});
  CHECK(timeline.reach("A", TriggerEvent::Write, 2).empty());  // a trigger fires once
  CHECK(timeline.reach("A", TriggerEvent::Acquired, 0) == std::vector<std::size_t>{2});
  CHECK(timeline.pending() == 3);

  timeline.act(1);
  CHECK(timeline.applied(1));
  CHECK_FALSE(timeline.applied(0));
  world.clock = 3s;
  timeline.follow_up(FaultKind::Restart, "B", 1s);
  CHECK(world.events.back() == std::pair<Duration, std::size_t>{4s, 3});
  for (std::size_t e : {0, 2, 3}) timeline.act(e);
  CHECK(timeline.pending() == 0);
  CHECK(world.applied == std::vector<std::string>{"crash B", "pause A", "clock-jump A", "restart B"});
}

TEST_CASE("keyspace replay: a server's commands run again give the lock entries' effects and who caused them",
          "[scenarios]") {
  using Kind = sim::redis::KeyEvent::Kind;
  KeyspaceReplay replay([](const std::string& key) { return key == "lock"; });
  const std::int64_t t0 = 1'796'563'529'000'000;
  auto created = replay.run({t0, 0, false, {"SET", "lock", "a", "NX", "PX", "1000"}});
  REQUIRE(created.size() == 1);
  CHECK(created[0].kind == Kind::Created);
  CHECK(created[0].client == std::optional<std::size_t>(0));
  CHECK(replay.run({t0 + 1, 1, false, {"SET", "lock", "b", "NX", "PX", "1000"}}).empty());  // NX: held
  CHECK(replay.run({t0 + 2, 1, false, {"SET", "other", "x"}}).empty());                     // not a lock key
  // Past the TTL on the server's clock: the next command finds it expired.
  auto expired = replay.run({t0 + 1'500'000, 1, false, {"SET", "lock", "b", "NX", "PX", "1000"}});
  REQUIRE(expired.size() == 2);
  CHECK(expired[0].kind == Kind::Expired);
  CHECK(expired[1].kind == Kind::Created);
  auto replicated = replay.run({t0 + 1'600'000, std::nullopt, true, {"DEL", "lock"}});
  REQUIRE(replicated.size() == 1);
  CHECK(replicated[0].replicated);
  CHECK(replicated[0].kind == Kind::Deleted);
  // A restart: the AOF kept an entry, then lost one.
  CHECK_FALSE(replay.resync("lock", std::string("c"), 800));
  const auto lost = replay.resync("lock", std::nullopt, -2);
  REQUIRE(lost);
  CHECK(lost->kind == Kind::Expired);
  CHECK_FALSE(replay.resync("lock", std::nullopt, -2));  // nothing left to lose
  CHECK(replay.lock_keys() == std::set<std::string>{"lock"});
}

TEST_CASE("trigger events: the scenario format's words, both ways", "[scenarios]") {
  for (TriggerEvent e : kTriggerEvents) CHECK(trigger_event_named(trigger_event_name(e)) == e);
  CHECK_FALSE(trigger_event_named("write#2"));
  CHECK(Trigger{"A", TriggerEvent::Write, 1}.fired_by("A", TriggerEvent::Write, 0));  // "A:write" is write #1
  CHECK(Trigger{"A", TriggerEvent::Write, 3}.text() == "A:write#3");
  CHECK(Trigger{"redis-1", TriggerEvent::Restart, 1}.text() == "redis-1:restart");
}

TEST_CASE("durations read a number and a unit exactly in nanoseconds", "[scenarios]") {
  CHECK(dur("30s") == 30s);
  CHECK(dur("150ms") == 150ms);
  CHECK(dur("2m") == 2min);
  CHECK(dur("1h") == 1h);
  CHECK(dur("500us") == 500us);
  CHECK(dur("500\xC2\xB5s") == 500us);
  CHECK(dur("7ns") == 7ns);
  CHECK(dur("1.5s") == 1500ms);
  CHECK(dur("0.001s") == 1ms);
  CHECK(dur("2.25m") == 135s);
  CHECK(dur("5.0015s") == 5001500us);
  CHECK(dur("1m30s") == 90s);
  CHECK(dur("0") == 0s);
  CHECK(dur(" 30s ") == 30s);
}

TEST_CASE("durations may carry a sign", "[scenarios]") {
  CHECK(dur("-5s") == -5s);
  CHECK(dur("+20s") == 20s);
  CHECK(dur("-0") == 0s);
}

TEST_CASE("malformed durations are refused", "[scenarios]") {
  for (const char* bad : {"", "30", "s", "1.s", ".5s", "1.5ns", "1.0005us", "10x", "1e3s", "30 s", "1,5s", "--5s",
                          "+", "5s-", "9999999999999h", "99999999999999999999ns", "1ms..2ms", "nan"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(parse_duration(bad).has_value());
  }
}

TEST_CASE("a duration range is MIN..MAX with MIN <= MAX, or one duration", "[scenarios]") {
  auto r = parse_duration_range("1ms..5ms");
  REQUIRE(r);
  CHECK(r->min == 1ms);
  CHECK(r->max == 5ms);
  auto one = parse_duration_range("3ms");
  REQUIRE(one);
  CHECK(one->min == 3ms);
  CHECK(one->max == 3ms);
  auto spaced = parse_duration_range("1.5ms .. 2ms");
  REQUIRE(spaced);
  CHECK(spaced->min == 1500us);
  for (const char* bad : {"5ms..1ms", "1ms..", "..1ms", "1ms...2ms", "a..b", ""}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(parse_duration_range(bad).has_value());
  }
}

// --- a full file --------------------------------------------------------------

TEST_CASE("every field of the docs/architecture.md example is read with its type and unit", "[scenarios]") {
  const std::string text = R"(name = "gc-pause"
description = "A pauses 35 s holding a 30 s lock"
duration = "120s"

[workload]
kind = "gate"
key = "lock:job:daily-report"

[lock]
# no kind: the options of every lock may be set
ttl = "30s"
retry = "15ms"
acquire_timeout = "60s"
track_validity = true
node_timeout = "20ms"
clock = "wall"
check_validity_after_acquire = false
retry_jitter = "100ms"
counter_node = "redis-2"
counter_key = "fence:x"
thread_id = "thread-9"
thread_name = "7"
renew_interval = "5s"

[redis]
masters = 3
replicas = 1
replication_lag = "7ms"
appendonly = false
appendfsync = "always"
failover_after = "2s"
redis84 = true
min_replicas_to_write = 1
fsync_duration = "8ms"
background_writes_per_second = 40

[network]
latency = "1ms..3ms"
timeout = "2s"
tail_per_mille = 10
tail_max_shift = 4

[storage]
fencing = true

[check]
liveness = "45s"

[[client]]
name = "A"
start = "1.5s"
work = "10s"
writes = 2
iterations = 3
clock_drift_ppm = -200

[[client]]
name = "B"

[[fault]]
kind = "pause"
target = "A"
after = "A:write#2"
at = "100ms"
duration = "35s"

[[fault]]
kind = "clock-jump"
target = "redis-3"
by = "-5s"

[[fault]]
kind = "partition"
groups = [["A", "redis-1"], ["B", "redis-2-replica-1"]]
mode = "drop"
duration = "10s"

[[fault]]
kind = "crash"
target = "redis-1"
after = "redis-2:restart"
restart_after = "1s"

[nemesis]
kinds = ["pause", "clock-jump", "delay", "power-loss", "failover"]
mean_interval = "4s"
max_duration = "30s"
targets = ["A", "redis-1"]

[expect]
violations = ["mutual-exclusion", "stale-write"]

[expect.by_lock]
token = []
naive-del = ["wrong-owner-release"]
)";
  auto r = load(text);
  INFO((r.ok() ? "" : r.error().to_string()));
  REQUIRE(r.ok());
  const Scenario& s = r.value();
  CHECK(s.name == "gc-pause");
  CHECK(s.description == "A pauses 35 s holding a 30 s lock");
  CHECK(s.source == kFile);
  CHECK(s.duration == 120s);
  CHECK(s.workload == WorkloadKind::Gate);
  CHECK(s.lock.key == "lock:job:daily-report");
  CHECK(s.lock_kind == "token");  // no kind: every lock's options may be set (scenario_bounds.hpp)
  CHECK(s.lock.ttl == 30s);
  CHECK(s.lock.retry == 15ms);
  CHECK(s.lock.acquire_timeout == 60s);
  CHECK(s.lock.track_validity);
  CHECK(s.lock.node_timeout == 20ms);
  CHECK(s.lock.clock == locks::RedlockClock::Wall);
  CHECK_FALSE(s.lock.check_validity_after_acquire);
  CHECK(s.lock.retry_jitter == 100ms);
  CHECK(s.lock.counter_node == 1);
  CHECK(s.lock.counter_key == "fence:x");
  CHECK(s.lock.thread_id == "thread-9");
  CHECK(s.lock.thread_name == "7");
  CHECK(s.lock.renew_interval == 5s);
  CHECK(s.redis.masters == 3);
  CHECK(s.redis.replicas == 1);
  CHECK(s.redis.replication_lag == 7ms);
  CHECK_FALSE(s.redis.appendonly);
  CHECK(s.redis.appendfsync == sim::redis::Fsync::Always);
  CHECK(s.redis.failover_after == 2s);
  CHECK(s.redis.redis84);
  CHECK(s.redis.min_replicas_to_write == 1);
  CHECK(s.redis.fsync_duration == 8ms);
  CHECK(s.redis.background_writes_per_second == 40);
  CHECK(s.network.latency.min == 1ms);
  CHECK(s.network.latency.max == 3ms);
  CHECK(s.network.timeout == 2s);
  CHECK(s.network.tail_per_mille == 10);
  CHECK(s.network.tail_max_shift == 4);
  CHECK(s.fencing);
  CHECK(s.liveness == 45s);
  CHECK(s.liveness_bound() == 45s);
  REQUIRE(s.clients.size() == 2);
  CHECK(s.clients[0].name == "A");
  CHECK(s.clients[0].start == 1500ms);
  CHECK(s.clients[0].work == 10s);
  CHECK(s.clients[0].writes == 2);
  CHECK(s.clients[0].iterations == 3);
  CHECK(s.clients[0].clock_drift_ppm == -200);
  CHECK(s.clients[1].name == "B");  // defaults
  CHECK(s.clients[1].work == 1s);
  CHECK(s.clients[1].writes == 1);
  REQUIRE(s.faults.size() == 4);
  CHECK(s.faults[0].kind == FaultKind::Pause);
  CHECK(s.faults[0].target == "A");
  REQUIRE(s.faults[0].after);
  CHECK(s.faults[0].after->host == "A");
  CHECK(s.faults[0].after->event == TriggerEvent::Write);
  CHECK(s.faults[0].after->write_index == 2);
  CHECK(s.faults[0].after->text() == "A:write#2");
  CHECK(s.faults[0].at == 100ms);
  CHECK(s.faults[0].duration == 35s);
  CHECK(s.faults[0].line == 60);
  CHECK(s.faults[1].kind == FaultKind::ClockJump);
  CHECK(s.faults[1].by == -5s);
  CHECK_FALSE(s.faults[1].after);
  CHECK(s.faults[2].kind == FaultKind::Partition);
  CHECK(s.faults[2].groups == std::vector<std::vector<std::string>>{{"A", "redis-1"}, {"B", "redis-2-replica-1"}});
  CHECK(s.faults[2].mode == locksim::PartitionMode::Drop);
  CHECK(s.faults[3].kind == FaultKind::Crash);
  CHECK(s.faults[3].after->text() == "redis-2:restart");
  CHECK(s.faults[3].restart_after == 1s);
  REQUIRE(s.nemesis);
  CHECK(s.nemesis->kinds.size() == 5);
  CHECK(s.nemesis->kinds[4] == FaultKind::Failover);
  CHECK(s.nemesis->mean_interval == 4s);
  CHECK(s.nemesis->max_duration == 30s);
  CHECK(s.nemesis->targets == std::vector<std::string>{"A", "redis-1"});
  CHECK(s.expected_for("token") == std::set<std::string>{});
  CHECK(s.expected_for("naive-del") == std::set<std::string>{"wrong-owner-release"});
  CHECK(s.expected_for("fenced") == std::set<std::string>{"mutual-exclusion", "stale-write"});
}

TEST_CASE("a minimal file gets the documented defaults", "[scenarios]") {
  auto r = load(kHead);
  REQUIRE(r.ok());
  const Scenario& s = r.value();
  CHECK(s.duration == 60s);
  CHECK(s.workload == WorkloadKind::Lock);
  CHECK(s.lock_kind == "token");
  CHECK(s.lock.ttl == 30s);
  CHECK(s.redis.masters == 1);
  CHECK(s.network.latency.min == 1ms);
  CHECK(s.network.latency.max == 3ms);
  CHECK(s.liveness_bound() == 60s);
  CHECK_FALSE(s.fencing);
  CHECK_FALSE(s.nemesis);
  CHECK_FALSE(s.expected_for("token"));  // no [expect]: the runner expects no violation
}

TEST_CASE("an [expect] with only by_lock leaves other locks without an expectation", "[scenarios]") {
  auto r = load(kHead + "[expect.by_lock]\ntoken = [\"stale-write\"]\n");
  REQUIRE(r.ok());
  CHECK(r->expected_for("token") == std::set<std::string>{"stale-write"});
  CHECK_FALSE(r->expected_for("naive-del"));
}

TEST_CASE("host names follow docs/architecture.md", "[scenarios]") {
  auto r = load("name = \"t\"\n[redis]\nmasters = 2\nreplicas = 1\n[[client]]\nname = \"A\"\n");
  REQUIRE(r.ok());
  CHECK(host_names(r.value()) ==
        std::vector<std::string>{"A", "redis-1", "redis-2", "redis-1-replica-1", "redis-2-replica-1", "storage"});
}

// Services as rows (scenarios/services.hpp): every enumerator of
// locks::Topology has its row (service_row is a switch: a missing one does
// not compile; services() walks the enumerators by topology_name), each CP
// row is complete, and a row is found by its scenario-file table.
TEST_CASE("every service has a row of the service table, found by its table name", "[scenarios]") {
  const auto rows = services();
  REQUIRE(rows.size() == 3);
  std::set<std::string_view> tables, prefixes;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ServiceRow& row = *rows[i];
    INFO(row.table);
    CHECK(static_cast<std::size_t>(row.topology) == i);
    CHECK(&service_row(row.topology) == &row);
    CHECK(row.table == locks::topology_name(row.topology));
    CHECK(tables.insert(row.table).second);
    CHECK(prefixes.insert(row.member_prefix).second);
    CHECK_FALSE(row.what.empty());
    CHECK_FALSE(row.report_family.empty());
    const auto lock = locks::find_lock(std::string(row.default_lock));
    REQUIRE(lock);
    CHECK(lock->topology == row.topology);
    auto found = service_by_table(row.table);
    REQUIRE(found.ok());
    CHECK(*found == &row);
    if (!row.cp) continue;
    const CpServiceOps& cp = *row.cp;
    CHECK((cp.read && cp.write && cp.ttl_problem && cp.ttl_adjustment && cp.derived_overflow && cp.generated_ttl &&
           cp.member && cp.client));
    CHECK(cp_member_host_name(row.topology, 2) == std::string(row.member_prefix) + "2");
  }
  CHECK(service_row(locks::Topology::Redis).default_lock == Scenario{}.lock_kind);
  CHECK_FALSE(service_row(locks::Topology::Redis).cp);
  auto unknown = service_by_table("consul");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error() == "no service has a [consul] table (known: [redis], [etcd], [zookeeper])");
}

TEST_CASE("a CP topology replaces [redis]: members are hosts, the lock defaults to the topology's", "[scenarios]") {
  auto etcd = load(kHead + "[etcd]\nmembers = 5\nelection_timeout = \"2s\"\nheartbeat = \"200ms\"\n");
  REQUIRE(etcd.ok());
  CHECK(etcd->topology == locks::Topology::Etcd);
  CHECK(etcd->cp.members == 5);
  CHECK(etcd->cp.election_timeout == 2s);
  CHECK(etcd->cp.heartbeat == 200ms);
  CHECK(etcd->lock_kind == "etcd-mutex");
  CHECK(host_names(*etcd) == std::vector<std::string>{"A", "etcd-1", "etcd-2", "etcd-3", "etcd-4", "etcd-5", "storage"});
  auto zk = load(kHead + "[zookeeper]\n");
  REQUIRE(zk.ok());
  CHECK(zk->topology == locks::Topology::ZooKeeper);
  CHECK(zk->cp.members == 3);
  CHECK(zk->cp.tick == 2s);
  CHECK(zk->lock_kind == "zk-lock");
  CHECK(host_names(*zk) == std::vector<std::string>{"A", "zk-1", "zk-2", "zk-3", "storage"});
  // Members pause, crash, lose power and restart by name, and trigger faults.
  CHECK(outcome(kHead + "[etcd]\n[[fault]]\nkind = \"power-loss\"\ntarget = \"etcd-2\"\nrestart_after = \"1s\"\n"
                        "[[fault]]\nkind = \"pause\"\ntarget = \"etcd-1\"\nduration = \"1s\"\nafter = \"etcd-2:restart\"\n") == "OK");
}

TEST_CASE("a CP scenario file written by the scenario writer loads back equal", "[scenarios]") {
  for (const std::string table : {"[etcd]\nmembers = 5\nelection_timeout = \"1500ms\"\nheartbeat = \"300ms\"\n",
                                  "[zookeeper]\nmembers = 1\ntick = \"500ms\"\n[lock]\nkind = \"zk-fenced\"\nttl = \"3s\"\n"}) {
    auto first = load(kHead + table);
    REQUIRE(first.ok());
    check_written_loads_back(*first);
  }
}

TEST_CASE("a CP topology's bad fields and mismatched locks are located errors", "[scenarios]") {
  CHECK(outcome(kHead + "[etcd]\nmembers = 0\n") == "t.toml:6: etcd.members: must be between 1 and 7 (got 0)");
  CHECK(outcome(kHead + "[zookeeper]\nmembers = 8\n") == "t.toml:6: zookeeper.members: must be between 1 and 7 (got 8)");
  CHECK(outcome(kHead + "[etcd]\nmember = 3\n") == "t.toml:6: etcd.member: unknown key (did you mean \"members\"?)");
  CHECK(outcome(kHead + "[zookeeper]\nheartbeat = \"1s\"\n") ==
        "t.toml:6: zookeeper.heartbeat: unknown key (known keys: members, tick)");
  CHECK(outcome(kHead + "[etcd]\nheartbeat = \"1.5ms\"\n") ==
        "t.toml:6: etcd.heartbeat: must be whole milliseconds (etcd takes milliseconds)");
  CHECK(outcome(kHead + "[etcd]\nelection_timeout = \"400ms\"\n") ==
        "t.toml:6: etcd.election_timeout: must be at least 5 heartbeats (500ms), as etcd requires");
  // Read with the Section readers: user text is quoted one-line, a key's
  // error is at the key's line.
  CHECK(outcome(kHead + "[etcd]\nheartbeat = \"1s\\nx\"\n") ==
        "t.toml:6: etcd.heartbeat: bad duration \"1s\\nx\": expected e.g. \"100ms\" or \"1s\"");
  CHECK(outcome(kHead + "[etcd]\n\"a.b\" = 1\n") ==
        "t.toml:6: etcd.a.b: unknown key (known keys: members, election_timeout, heartbeat)");
  CHECK(outcome("name = \"t\"\netcd = 3\n") == "t.toml:2: etcd: expected a table ([etcd])");
  CHECK(outcome("name = \"t\"\netcd.heartbeat = \"300ms\"\n") ==
        "t.toml:2: etcd.election_timeout: must be at least 5 heartbeats (1.5s), as etcd requires");
  CHECK(outcome(kHead + "[etcd]\n[zookeeper]\n") ==
        "t.toml:6: zookeeper: a scenario has one topology: [etcd] or [zookeeper], not both");
  CHECK(outcome(kHead + "[redis]\n[etcd]\n") == "t.toml:6: etcd: a scenario has one topology: [redis] or [etcd], not both");
  // The lock must be of the file's topology, both ways.
  CHECK(outcome(kHead + "[etcd]\n[lock]\nkind = \"zk-lock\"\n") ==
        "t.toml:7: lock.kind: lock zk-lock needs a CP topology ([zookeeper]); the scenario has [etcd]");
  CHECK(outcome(kHead + "[zookeeper]\n[lock]\nkind = \"token\"\n") ==
        "t.toml:7: lock.kind: lock token needs a Redis topology ([redis]); the scenario has [zookeeper]");
  CHECK(outcome(kHead + "[lock]\nkind = \"etcd-mutex\"\n") ==
        "t.toml:6: lock.kind: lock etcd-mutex needs a CP topology ([etcd]); the scenario has [redis]");
  CHECK(outcome(kHead + "[etcd]\n[expect.by_lock]\ntoken = []\n") ==
        "t.toml:7: expect.by_lock.token: lock token needs a Redis topology ([redis]); the scenario has [etcd]");
  // The TTL rules of each service.
  CHECK(outcome(kHead + "[etcd]\n[lock]\nttl = \"1500ms\"\n") ==
        "t.toml:7: lock.ttl: is the etcd lease TTL: whole seconds (LeaseGrant takes seconds), got 1.5s");
  // A session timeout outside 2..20 ticks is the server's to clamp (the
  // run says so: cp_ttl_adjustments); a fraction of a millisecond is not
  // something a client can ask for.
  CHECK(outcome(kHead + "[zookeeper]\n[lock]\nttl = \"3s\"\n") == "OK");
  CHECK(outcome(kHead + "[zookeeper]\ntick = \"1s\"\n[lock]\nttl = \"21s\"\n") == "OK");
  CHECK(outcome(kHead + "[zookeeper]\n[lock]\nttl = \"1500us\"\n") ==
        "t.toml:7: lock.ttl: is the ZooKeeper session timeout: whole milliseconds (the client sends milliseconds), "
        "got 1.5ms");
  // Redis faults and names on a CP topology.
  CHECK(outcome(kHead + "[zookeeper]\n[[fault]]\nkind = \"failover\"\ntarget = \"zk-1\"\n") ==
        "t.toml:8: fault[1].target: failover is a Redis fault: this scenario has no Redis master");
  CHECK(outcome(kHead + "[etcd]\n[[fault]]\nkind = \"fsync-stall\"\ntarget = \"etcd-1\"\nduration = \"1s\"\n") ==
        "t.toml:8: fault[1].target: \"etcd-1\" has no AOF to stall: expected a Redis node");
  CHECK(outcome(kHead + "[etcd]\n[nemesis]\nkinds = [\"pause\", \"fsync-stall\"]\n") ==
        "t.toml:7: nemesis.kinds: \"fsync-stall\" is a Redis fault: this scenario has no Redis node");
  CHECK(outcome(kHead + "[etcd]\n[[fault]]\nkind = \"crash\"\ntarget = \"redis-1\"\n")
            .starts_with("t.toml:8: fault[1].target: unknown host \"redis-1\""));
  CHECK(outcome("name = \"t\"\n[etcd]\n[[client]]\nname = \"etcd-1\"\n") ==
        "t.toml:4: client[1].name: \"etcd-1\" is reserved for a member of the CP topology");
  CHECK(outcome("name = \"t\"\n[zookeeper]\n[[client]]\nname = \"A\"\n[[fault]]\nkind = \"restart\"\ntarget = \"storage\"\n") ==
        "t.toml:7: fault[1].target: \"storage\" cannot crash or restart: expected a client or a CP member");
}

// --- validation: one test per rule, the whole line pinned ----------------------

TEST_CASE("a TOML syntax error gives the file and line from toml++", "[scenarios]") {
  // The message after "syntax: " is toml++'s own (3.3 here).
  CHECK(outcome("name = \"t\"\n[lock]\nttl = \"30s\n") ==
        "t.toml:3: syntax: Error while parsing string: unescaped control characters other than TAB (U+0009) are "
        "explicitly prohibited");
  CHECK(outcome("name = \"t\"\nname = \"u\"\n") ==
        "t.toml:2: syntax: Error while parsing key-value pair: cannot redefine existing string 'name'");
}

TEST_CASE("absurdly deep keys and values are refused instead of overflowing the stack", "[scenarios]") {
  auto chain = [](int n) {
    std::string k = "a";
    for (int i = 0; i < n; ++i) k += ".a";
    return k;
  };
  CHECK(outcome("name = \"t\"\n" + chain(100000) + " = 1\n") ==
        "t.toml:2: syntax: a key nested more than 32 levels deep");
  CHECK(outcome("[" + chain(100000) + "]\n") == "t.toml:1: syntax: a key nested more than 32 levels deep");
  CHECK(outcome("x = \"" + chain(100) + "\"\n# " + chain(100) + "\n") == "t.toml:1: x: unknown key (known keys: "
        "name, description, duration, workload, lock, redis, etcd, zookeeper, network, storage, check, client, fault, nemesis, "
        "expect, live)");
  CHECK(outcome(chain(32) + " = 1\n") == "t.toml:1: a: unknown key (known keys: name, description, duration, "
        "workload, lock, redis, etcd, zookeeper, network, storage, check, client, fault, nemesis, expect, live)");
  CHECK(outcome("x = " + std::string(100000, '[')).rfind("t.toml:1: syntax: ", 0) == 0);
  std::string worst = "x = ";  // the deepest mix the guards allow
  for (int i = 0; i < 250; ++i) worst += "{" + chain(32) + " = ";
  worst += "1" + std::string(250, '}') + "\n";
  CHECK(outcome(worst).rfind("t.toml:1: x: unknown key", 0) == 0);
}

TEST_CASE("an unknown key anywhere is an error that suggests the close one", "[scenarios]") {
  CHECK(outcome("nmae = \"t\"\n") == "t.toml:1: nmae: unknown key (did you mean \"name\"?)");
  CHECK(outcome(kHead + "[lock]\ntll = \"30s\"\n") == "t.toml:6: lock.tll: unknown key (did you mean \"ttl\"?)");
  CHECK(outcome("name = \"t\"\n[[client]]\nname = \"A\"\nwrk = \"1s\"\n") ==
        "t.toml:4: client[1].wrk: unknown key (did you mean \"work\"?)");
  CHECK(outcome(kHead + "[storage]\nzzz = true\n") == "t.toml:6: storage.zzz: unknown key (known keys: fencing, unique)");
  CHECK(outcome(kHead + "[expect]\nviolation = []\n") ==
        "t.toml:6: expect.violation: unknown key (did you mean \"violations\"?)");
  CHECK(outcome(kHead + "[[fault]]\nkind = \"heal\"\nwhen = \"1s\"\n") ==
        "t.toml:7: fault[1].when: unknown key (known keys: kind, target, from, to, at, after, duration, by, ppm, "
        "restart_after, groups, mode)");
}

TEST_CASE("a value of the wrong type names the expected type", "[scenarios]") {
  CHECK(outcome(kHead + "[lock]\nttl = 30000\n") ==
        "t.toml:6: lock.ttl: expected a duration string like \"30s\", got integer");
  CHECK(outcome(kHead + "[redis]\nmasters = \"5\"\n") == "t.toml:6: redis.masters: expected an integer, got string");
  CHECK(outcome(kHead + "[storage]\nfencing = \"yes\"\n") ==
        "t.toml:6: storage.fencing: expected a boolean (true or false), got string");
  CHECK(outcome("name = 5\n") == "t.toml:1: name: expected a string, got integer");
  CHECK(outcome("name = \"t\"\nlock = 3\n[[client]]\nname = \"A\"\n") ==
        "t.toml:2: lock: expected a table ([lock]), got integer");
  CHECK(outcome("name = \"t\"\n[client]\nname = \"A\"\n") ==
        "t.toml:2: client: expected an array of tables ([[client]]), got table ([client])");
  CHECK(outcome("name = \"t\"\nclient = [1]\n") == "t.toml:2: client[1]: expected a table, got integer");
  CHECK(outcome(kHead + "[network]\nlatency = 2.5\n") ==
        "t.toml:6: network.latency: expected a duration or range string like \"1ms..3ms\", got float");
}

TEST_CASE("user text in a message stays on one line and is cut when long", "[scenarios]") {
  CHECK(outcome(kHead + "[workload]\nkind = \"a\\nb\\u0001\"\n") ==
        "t.toml:6: workload.kind: unknown value \"a\\nb\\x01\" (expected \"lock\" or \"gate\" or \"inventory\")");
  CHECK(outcome(kHead + "[workload]\n\"zz\\nzz\" = 1\n") ==
        "t.toml:6: workload.zz\\nzz: unknown key (known keys: kind, key, stock, method, segments, per_buyer)");
  CHECK(outcome(kHead + "[workload]\nkind = \"" + std::string(200, 'q') + "\"\n") ==
        "t.toml:6: workload.kind: unknown value \"" + std::string(80, 'q') +
            "...\" (expected \"lock\" or \"gate\" or \"inventory\")");
}

TEST_CASE("a bad duration says what a duration looks like", "[scenarios]") {
  CHECK(outcome(kHead + "[lock]\nttl = \"30 seconds\"\n") ==
        "t.toml:6: lock.ttl: bad duration \"30 seconds\": expected a number with a unit (ns, us, ms, s, m, h), "
        "e.g. \"30s\", \"1.5s\", \"150ms\"");
  CHECK(outcome(kHead + "[network]\nlatency = \"5ms..1ms\"\n") ==
        "t.toml:6: network.latency: bad duration range \"5ms..1ms\": expected \"MIN..MAX\" with MIN <= MAX, or one "
        "duration, e.g. \"1ms..3ms\"");
}

TEST_CASE("negative and zero values are refused where they make no sense", "[scenarios]") {
  CHECK(outcome("name = \"t\"\n[[client]]\nname = \"A\"\nstart = \"-1s\"\n") ==
        "t.toml:4: client[1].start: must not be negative");
  CHECK(outcome(kHead + "[redis]\nreplicas = -1\n") == "t.toml:6: redis.replicas: must not be negative (got -1)");
  CHECK(outcome(kHead + "[lock]\nttl = \"0s\"\n") == "t.toml:6: lock.ttl: must be positive");
  CHECK(outcome(kHead + "[lock]\nttl = \"500us\"\n") == "t.toml:6: lock.ttl: must be at least 1ms (PX takes milliseconds)");
  CHECK(outcome(kHead + "[network]\nlatency = \"-1ms..1ms\"\n") == "t.toml:6: network.latency: must not be negative");
  CHECK(outcome(kHead + "[redis]\nmasters = 0\n") == "t.toml:6: redis.masters: must be between 1 and 99 (got 0)");
  CHECK(outcome("name = \"t\"\n[[client]]\nname = \"A\"\niterations = 0\n") ==
        "t.toml:4: client[1].iterations: must be between 1 and 1000000 (got 0)");
  CHECK(outcome(kHead + "[redis]\nbackground_writes_per_second = 1001\n") ==
        "t.toml:6: redis.background_writes_per_second: must be between 0 and 1000 (got 1001)");
  CHECK(outcome(kHead + "[redis]\nfsync_duration = \"-1ms\"\n") == "t.toml:6: redis.fsync_duration: must not be negative");
  CHECK(outcome(kHead + "[redis]\nfsync_duration = 3\n").rfind("t.toml:6: redis.fsync_duration: ", 0) == 0);
  CHECK(outcome(kHead + "[redis]\nfsync_stall_per_mille = 5\n").rfind("t.toml:6: redis.fsync_stall_per_mille: ", 0) == 0);
  CHECK(outcome(kHead + "[redis]\nmin_replicas_to_write = 1\n") ==
        "t.toml:6: redis.min_replicas_to_write: is 1 but each master has only 0 replicas: every write would fail");
}

TEST_CASE("[live] time_scale sets the live time scale of a scenario and is checked like any field", "[scenarios]") {
  auto s = load(kHead + "[live]\ntime_scale = 0.3\n");
  REQUIRE(s);
  CHECK(s->live_time_scale_ppm == 300'000);
  s = load(kHead + "[live]\ntime_scale = 1\n");
  REQUIRE(s);
  CHECK(s->live_time_scale_ppm == 1'000'000);
  CHECK_FALSE(load(kHead)->live_time_scale_ppm);
  CHECK(outcome(kHead + "[live]\ntime_scale = \"0.3\"\n") == "t.toml:6: live.time_scale: expected a number, got string");
  CHECK(outcome(kHead + "[live]\ntime_scale = 0.0001\n") == "t.toml:6: live.time_scale: must be between 0.001 and 10");
  CHECK(outcome(kHead + "[live]\ntime_scale = 11.0\n") == "t.toml:6: live.time_scale: must be between 0.001 and 10");
  CHECK(outcome(kHead + "[live]\ntime_scale = nan\n") == "t.toml:6: live.time_scale: must be between 0.001 and 10");
  CHECK(outcome(kHead + "[live]\ntimescale = 0.3\n") == "t.toml:6: live.timescale: unknown key (did you mean \"time_scale\"?)");
}

TEST_CASE("a choice outside its options lists them", "[scenarios]") {
  CHECK(outcome(kHead + "[redis]\nappendfsync = \"sometimes\"\n") ==
        "t.toml:6: redis.appendfsync: unknown value \"sometimes\" (expected \"always\" or \"everysec\" or \"no\")");
  CHECK(outcome(kHead + "[workload]\nkind = \"queue\"\n") ==
        "t.toml:6: workload.kind: unknown value \"queue\" (expected \"lock\" or \"gate\" or \"inventory\")");
  CHECK(outcome(kHead + "[lock]\nclock = \"atomic\"\n") ==
        "t.toml:6: lock.clock: unknown value \"atomic\" (expected \"monotonic\" or \"wall\")");
}

TEST_CASE("an unknown lock kind lists the known ones", "[scenarios]") {
  std::string known;
  for (const auto& info : locks::all_locks()) known += (known.empty() ? "" : ", ") + info.name;
  CHECK(outcome(kHead + "[lock]\nkind = \"spinlock\"\n") ==
        "t.toml:6: lock.kind: unknown lock kind \"spinlock\" (known: " + known + ")");
  CHECK(outcome(kHead + "[expect.by_lock]\nnaive = []\n") ==
        "t.toml:6: expect.by_lock.naive: unknown lock kind \"naive\" (known: " + known + ")");
}

TEST_CASE("a lock needing more Redis masters than the topology has is refused", "[scenarios]") {
  CHECK(outcome(kHead + "[lock]\nkind = \"redlock\"\n") ==
        "t.toml:6: lock.kind: \"redlock\" needs at least 3 Redis masters; [redis] masters = 1");
  CHECK(outcome(kHead + "[expect.by_lock]\nredlock-fenced = []\n") ==
        "t.toml:6: expect.by_lock.redlock-fenced: \"redlock-fenced\" needs at least 4 Redis masters; [redis] "
        "masters = 1");
}

TEST_CASE("counter_node takes a master name or a 0-based index", "[scenarios]") {
  const std::string five = "name = \"t\"\n[redis]\nmasters = 5\n[[client]]\nname = \"A\"\n";  // lines 1-5
  auto by_name = load(five + "[lock]\ncounter_node = \"redis-5\"\n");
  REQUIRE(by_name.ok());
  CHECK(by_name->lock.counter_node == 4);
  auto by_index = load(five + "[lock]\ncounter_node = -1\n");
  REQUIRE(by_index.ok());
  CHECK(by_index->lock.counter_node == -1);
  CHECK(outcome(five + "[lock]\ncounter_node = \"redis-6\"\n") ==
        "t.toml:7: lock.counter_node: \"redis-6\" is not a Redis master (redis-1 .. redis-5)");
  CHECK(outcome(five + "[lock]\ncounter_node = 5\n") == "t.toml:7: lock.counter_node: must be between -1 and 4 (got 5)");
}

TEST_CASE("required fields are reported missing at their table", "[scenarios]") {
  CHECK(outcome("[[client]]\nname = \"A\"\n") == "t.toml:1: name: missing (every scenario needs a name)");
  CHECK(outcome("name = \"\"\n[[client]]\nname = \"A\"\n") == "t.toml:1: name: must not be empty");
  CHECK(outcome("name = \"t\"\n") == "t.toml:1: client: at least one [[client]] is required");
  CHECK(outcome("name = \"t\"\nclient = []\n") == "t.toml:2: client: at least one [[client]] is required");
  CHECK(outcome("name = \"t\"\n[[client]]\nwork = \"1s\"\n") ==
        "t.toml:2: client[1].name: missing (every client needs a name)");
  CHECK(outcome(kHead + "[[fault]]\ntarget = \"A\"\n") == "t.toml:5: fault[1].kind: missing (e.g. kind = \"pause\")");
  CHECK(outcome(kHead + "[nemesis]\nmean_interval = \"1s\"\n") ==
        "t.toml:5: nemesis.kinds: missing (e.g. kinds = [\"pause\", \"clock-jump\"])");
}

TEST_CASE("a nemesis cannot be so dense that the run drowns in faults", "[scenarios]") {
  CHECK(outcome("name = \"t\"\nduration = \"1000h\"\n[[client]]\nname = \"A\"\n[nemesis]\nkinds = [\"pause\"]\n"
                "mean_interval = \"1ms\"\n") ==
        "t.toml:7: nemesis.mean_interval: would inject about 3600000000 faults in 3600000s (at most 100000): use a "
        "longer interval");
}

TEST_CASE("client names are unique, usable in triggers and not host names", "[scenarios]") {
  CHECK(outcome(kHead + "[[client]]\nname = \"A\"\n") == "t.toml:6: client[2].name: duplicate client name \"A\"");
  CHECK(outcome("name = \"t\"\n[[client]]\nname = \"A:B\"\n") ==
        "t.toml:3: client[1].name: bad client name \"A:B\": use letters, digits, '_', '-' and '.'");
  CHECK(outcome("name = \"t\"\n[[client]]\nname = \"redis-1\"\n") ==
        "t.toml:3: client[1].name: \"redis-1\" is reserved for a Redis node, the storage or the sentinel host");
}

TEST_CASE("something scheduled after the run ends is an error, not silence", "[scenarios]") {
  CHECK(outcome("name = \"t\"\nduration = \"10s\"\n[[client]]\nname = \"A\"\nstart = \"10s\"\n") ==
        "t.toml:5: client[1].start: the run ends at 10s, before this client starts");
  CHECK(outcome("name = \"t\"\nduration = \"10s\"\n[[client]]\nname = \"A\"\n[[fault]]\nkind = \"heal\"\nat = "
                "\"11s\"\n") == "t.toml:7: fault[1].at: the run ends at 10s, before this fault");
}

TEST_CASE("an unknown fault kind lists the known ones", "[scenarios]") {
  CHECK(outcome(kHead + "[[fault]]\nkind = \"meteor\"\n") ==
        "t.toml:6: fault[1].kind: unknown fault kind \"meteor\" (known: pause, clock-jump, clock-drift, delay, "
        "crash, power-loss, restart, failover, partition, heal, fsync-stall)");
  CHECK(outcome(kHead + "[nemesis]\nkinds = [\"pause\", \"meteor\"]\n") ==
        "t.toml:6: nemesis.kinds: unknown fault kind \"meteor\" (known: pause, clock-jump, clock-drift, delay, "
        "crash, power-loss, restart, failover, partition, heal, fsync-stall)");
}

TEST_CASE("each fault kind needs its fields and refuses the others", "[scenarios]") {
  const std::string f = kHead + "[[fault]]\n";  // the fault table starts on line 5
  CHECK(outcome(f + "kind = \"pause\"\ntarget = \"A\"\n") ==
        "t.toml:5: fault[1].duration: missing (a \"pause\" fault needs target and duration)");
  CHECK(outcome(f + "kind = \"clock-jump\"\ntarget = \"redis-1\"\n") ==
        "t.toml:5: fault[1].by: missing (a \"clock-jump\" fault needs target and by)");
  CHECK(outcome(f + "kind = \"clock-jump\"\ntarget = \"redis-1\"\nby = \"20s\"\n") ==
        "t.toml:8: fault[1].by: needs a sign: \"+20s\" (forward) or \"-20s\" (backward)");
  CHECK(outcome(f + "kind = \"clock-jump\"\ntarget = \"redis-1\"\nby = \" 20s\t\"\n") ==
        "t.toml:8: fault[1].by: needs a sign: \"+20s\" (forward) or \"-20s\" (backward)");  // quoted as read
  CHECK(outcome(f + "kind = \"clock-jump\"\ntarget = \"redis-1\"\nby = 20\n") ==
        "t.toml:8: fault[1].by: expected a signed duration string like \"+20s\" or \"-5s\", got integer");
  CHECK(outcome(f + "kind = \"clock-jump\"\ntarget = \"redis-1\"\nby = \"+0s\"\n") ==
        "t.toml:8: fault[1].by: must not be zero");
  CHECK(outcome(f + "kind = \"clock-drift\"\ntarget = \"A\"\n") ==
        "t.toml:5: fault[1].ppm: missing (a \"clock-drift\" fault needs target and ppm)");
  CHECK(outcome(f + "kind = \"delay\"\nfrom = \"A\"\nduration = \"90s\"\n") ==
        "t.toml:5: fault[1].to: missing (a \"delay\" fault needs from and to and duration)");
  CHECK(outcome(f + "kind = \"delay\"\nfrom = \"A\"\nto = \"A\"\nduration = \"90s\"\n") ==
        "t.toml:8: fault[1].to: from and to are the same host");
  CHECK(outcome(f + "kind = \"partition\"\nduration = \"1s\"\n") ==
        "t.toml:5: fault[1].groups: missing (a \"partition\" fault needs groups)");
  CHECK(outcome(f + "kind = \"crash\"\n") == "t.toml:5: fault[1].target: missing (a \"crash\" fault needs target)");
  CHECK(outcome(f + "kind = \"crash\"\ntarget = \"redis-1\"\nby = \"+1s\"\n") ==
        "t.toml:8: fault[1].by: a \"crash\" fault takes no \"by\" (it takes target, restart_after, at, after)");
  CHECK(outcome(f + "kind = \"pause\"\ntarget = \"A\"\nduration = \"0s\"\n") ==
        "t.toml:8: fault[1].duration: must be positive");
  CHECK(outcome(f + "kind = \"partition\"\ngroups = [[\"A\"], [\"redis-1\"]]\nmode = \"lose\"\n") ==
        "t.toml:8: fault[1].mode: unknown value \"lose\" (expected \"hold\" or \"drop\")");
  CHECK(outcome(f + "kind = \"failover\"\ntarget = \"redis-1\"\n") ==
        "t.toml:7: fault[1].target: failover promotes a replica, but [redis] replicas = 0");
  CHECK(outcome(f + "kind = \"power-loss\"\ntarget = \"redis-1\"\n") == "OK");  // restart_after is optional
  CHECK(outcome(f + "kind = \"heal\"\nat = \"5s\"\n") == "OK");
}

TEST_CASE("fault hosts must exist and fit the fault", "[scenarios]") {
  const std::string f = kHead + "[[fault]]\n";
  const std::string hosts = "(hosts: A, redis-1, storage)";
  CHECK(outcome(f + "kind = \"pause\"\ntarget = \"B\"\nduration = \"1s\"\n") ==
        "t.toml:7: fault[1].target: unknown host \"B\" " + hosts);
  CHECK(outcome(f + "kind = \"delay\"\nfrom = \"A\"\nto = \"redis-2\"\nduration = \"1s\"\n") ==
        "t.toml:8: fault[1].to: unknown host \"redis-2\" " + hosts);
  CHECK(outcome(f + "kind = \"partition\"\ngroups = [[\"A\"], [\"redis-1-replica-1\"]]\n") ==
        "t.toml:7: fault[1].groups: unknown host \"redis-1-replica-1\" " + hosts);
  CHECK(outcome(f + "kind = \"partition\"\ngroups = [[\"A\", \"redis-1\"]]\n") ==
        "t.toml:7: fault[1].groups: a partition needs at least two groups (hosts in no group reach everyone)");
  CHECK(outcome(f + "kind = \"partition\"\ngroups = [[\"A\"], [\"A\"]]\n") ==
        "t.toml:7: fault[1].groups: \"A\" is in more than one group");
  CHECK(outcome(f + "kind = \"partition\"\ngroups = [[\"A\"], []]\n") ==
        "t.toml:7: fault[1].groups: each group is a non-empty array of host names, got an empty array");
  CHECK(outcome(f + "kind = \"crash\"\ntarget = \"storage\"\n") ==
        "t.toml:7: fault[1].target: \"storage\" cannot crash or restart: expected a client or a Redis node");
  CHECK(outcome(f + "kind = \"failover\"\ntarget = \"A\"\n") ==
        "t.toml:7: fault[1].target: \"A\" is not a Redis master (redis-1 .. redis-1)");
  CHECK(outcome(f + "kind = \"fsync-stall\"\ntarget = \"A\"\nduration = \"3s\"\n") ==
        "t.toml:7: fault[1].target: \"A\" has no AOF to stall: expected a Redis node");
  CHECK(outcome(f + "kind = \"fsync-stall\"\ntarget = \"redis-1\"\n") ==
        "t.toml:5: fault[1].duration: missing (a \"fsync-stall\" fault needs target and duration)");
  CHECK(outcome(f + "kind = \"fsync-stall\"\ntarget = \"redis-1\"\nduration = \"0\"\n") ==
        "t.toml:8: fault[1].duration: must be positive");
  CHECK(outcome(f + "kind = \"fsync-stall\"\ntarget = \"redis-1\"\nduration = \"3s\"\n") == "OK");
  CHECK(outcome(kHead + "[nemesis]\nkinds = [\"pause\"]\ntargets = [\"A\", \"Z\"]\n") ==
        "t.toml:7: nemesis.targets: unknown host \"Z\" " + hosts);
  // With replicas there is a sentinel host, and replicas are hosts.
  CHECK(outcome("name = \"t\"\n[redis]\nreplicas = 1\n[[client]]\nname = \"A\"\n[[fault]]\nkind = \"partition\"\n"
                "groups = [[\"sentinel\"], [\"redis-1\"]]\n") == "OK");
}

TEST_CASE("triggers are HOST:EVENT with a known host and event", "[scenarios]") {
  const std::string f = kHead + "[[fault]]\nkind = \"heal\"\n";  // `after` lands on line 7
  CHECK(outcome(f + "after = \"A:acquired\"\n") == "OK");
  CHECK(outcome(f + "after = \"A:write#2\"\n") == "OK");
  CHECK(outcome(f + "after = \"A:released\"\n") == "OK");
  CHECK(outcome(f + "after = \"A:acquiring\"\n") == "OK");
  CHECK(outcome(f + "after = \"redis-1:crash\"\n") == "OK");
  CHECK(outcome(f + "after = \"redis-1:restart\"\n") == "OK");
  CHECK(outcome(f + "after = \"A:aquired\"\n") ==
        "t.toml:7: fault[1].after: bad trigger \"A:aquired\": unknown event \"aquired\" (expected acquiring, acquired, "
        "write, write#N, released, crash or restart)");
  CHECK(outcome(f + "after = \"A\"\n") ==
        "t.toml:7: fault[1].after: bad trigger \"A\": expected HOST:EVENT with EVENT acquired, write, write#N, "
        "released, crash or restart");
  CHECK(outcome(f + "after = \"A:write#0\"\n") == "t.toml:7: fault[1].after: bad trigger \"A:write#0\": write#N needs N >= 1");
  CHECK(outcome(f + "after = \"A:write#3\"\n") ==
        "t.toml:7: fault[1].after: bad trigger \"A:write#3\": \"A\" makes 2 write(s) per critical section");
  CHECK(outcome(f + "after = \"Q:acquired\"\n") ==
        "t.toml:7: fault[1].after: bad trigger \"Q:acquired\": unknown host \"Q\" (hosts: A, redis-1, storage)");
  CHECK(outcome(f + "after = \"redis-1:acquired\"\n") ==
        "t.toml:7: fault[1].after: bad trigger \"redis-1:acquired\": \"redis-1\" is not a client (only clients "
        "acquired)");
  CHECK(outcome(f + "after = \"storage:crash\"\n") ==
        "t.toml:7: fault[1].after: bad trigger \"storage:crash\": \"storage\" never crashes or restarts (only "
        "clients and Redis nodes do)");
}

TEST_CASE("every violation kind has one row: its name round-trips and the orders agree", "[scenarios]") {
  // A kind without a row does not compile (violation_kinds.cpp static_asserts
  // one row per enum value, in order, and a checker per kind in checkers.cpp);
  // this proves each row answers for its own kind, by name.
  std::set<std::string_view> names, abbreviations;
  std::set<int> ranks;
  for (std::size_t i = 0; i < kViolationKindCount; ++i) {
    const auto kind = static_cast<ViolationKind>(i);
    const ViolationKindInfo& row = violation_kind_info(kind);
    INFO(row.name);
    CHECK(row.kind == kind);
    CHECK(violation_kind_from_name(violation_kind_name(kind)) == kind);
    CHECK(violation_names().at(i) == row.name);
    CHECK(row.severity != Severity::Safe);
    CHECK(is_sale_violation(std::string(row.name)) == row.sale_only);
    CHECK_FALSE(row.checker.empty());
    CHECK_FALSE(row.short_words.empty());
    CHECK_FALSE(row.verdict_words.empty());
    names.insert(row.name);
    abbreviations.insert(row.abbreviation);
    ranks.insert(row.rank);
  }
  CHECK(names.size() == kViolationKindCount);
  CHECK(abbreviations.size() == kViolationKindCount);
  CHECK(ranks.size() == kViolationKindCount);
  CHECK_FALSE(violation_kind_from_name("mutex").has_value());
  // One "worst first" order for every report: corruption, then two holders, then unavailable.
  std::vector<std::string_view> worst_first;
  for (const ViolationKindInfo* row : violation_kinds_worst_first()) worst_first.push_back(row->name);
  CHECK(worst_first == std::vector<std::string_view>{"oversell", "lost-order", "double-purchase", "stale-write",
                                                     "wrong-owner-release", "mutual-exclusion", "lock-unavailable"});
}

TEST_CASE("expected violations must be the names of the CLI contract", "[scenarios]") {
  CHECK(violation_names() ==
        std::vector<std::string>{"mutual-exclusion", "wrong-owner-release", "stale-write", "lock-unavailable",
                                 "oversell", "double-purchase", "lost-order"});
  CHECK(outcome(kHead + "[expect]\nviolations = [\"mutex\"]\n") ==
        "t.toml:6: expect.violations: unknown violation \"mutex\" (known: mutual-exclusion, wrong-owner-release, "
        "stale-write, lock-unavailable, oversell, double-purchase, lost-order)");
  CHECK(outcome(kHead + "[expect.by_lock]\ntoken = [\"stale-write\", 3]\n") ==
        "t.toml:6: expect.by_lock.token: expected a violation name, got integer (known: mutual-exclusion, "
        "wrong-owner-release, stale-write, lock-unavailable, oversell, double-purchase, lost-order)");
  CHECK(outcome(kHead + "[expect.by_lock]\ntoken = \"stale-write\"\n") ==
        "t.toml:6: expect.by_lock.token: expected an array of violation names, got string");
}

TEST_CASE("a missing file is an error at line 0", "[scenarios]") {
  auto r = load_scenario_file("/nonexistent/dir/x.toml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().to_string() == "/nonexistent/dir/x.toml: file: no such file");
  auto dir = load_scenario_file(LOCKSIM_SOURCE_DIR);
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().line == 0);
  CHECK(dir.error().message == "is a directory, not a file");
}

TEST_CASE("a scenario file must be a regular file under the size cap (issue 15)", "[scenarios]") {
  // /dev/zero never ends; a FIFO would block open() forever. Neither is opened.
  auto zero = load_scenario_file("/dev/zero");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().to_string() ==
        "/dev/zero: file: is not a regular file (a device, FIFO or socket); give a regular file");
  const auto fifo = std::filesystem::temp_directory_path() / "locksim_test_fifo.toml";
  std::filesystem::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto from_fifo = load_scenario_file(fifo.string());
  std::filesystem::remove(fifo);
  REQUIRE_FALSE(from_fifo.ok());
  CHECK(from_fifo.error().message == "is not a regular file (a device, FIFO or socket); give a regular file");
  const auto big = std::filesystem::temp_directory_path() / "locksim_test_big.toml";
  {
    std::ofstream out(big);
    out << kHead << std::string(kMaxInputFileBytes, '#') << "\n";
  }
  auto too_big = load_scenario_file(big.string());
  std::filesystem::remove(big);
  REQUIRE_FALSE(too_big.ok());
  CHECK(too_big.error().message == "is " + std::to_string(kHead.size() + kMaxInputFileBytes + 1) +
                                       " bytes, over the cap of 1048576 bytes (1 MiB) for an input file");
}

TEST_CASE("durations are capped where later arithmetic could overflow (issue 15)", "[scenarios]") {
  // 2562047h is the largest whole number of hours in int64 nanoseconds: `2 * ttl` would overflow.
  const std::string cap = "is longer than the cap of 10000h (durations are added and doubled in 64-bit nanoseconds)";
  CHECK(outcome(kHead + "[lock]\nttl = \"2562047h\"\n") == "t.toml:6: lock.ttl: " + cap);
  CHECK(outcome(kHead + "[lock]\nttl = \"10001h\"\n") == "t.toml:6: lock.ttl: " + cap);
  CHECK(outcome(kHead + "[lock]\nttl = \"10000h\"\n") == "OK");
  CHECK(outcome(kHead + "[network]\nlatency = \"1ms..10001h\"\n") == "t.toml:6: network.latency: " + cap);
  // Lines 1-5: a run of `duration` with one client.
  auto head = [](const std::string& duration) {
    return "name = \"t\"\nduration = \"" + duration + "\"\n[[client]]\nname = \"A\"\nwrites = 2\n";
  };
  const std::string jump = "[[fault]]\nkind = \"clock-jump\"\ntarget = \"A\"\nat = \"1s\"\n";
  CHECK(outcome(head("10s") + jump + "by = \"+2562047h\"\n") == "t.toml:10: fault[1].by: " + cap);
  CHECK(outcome(head("10s") + jump + "by = \"-2562047h\"\n") == "t.toml:10: fault[1].by: " + cap);
  // Each jump under the cap, together over it: the wall clock offset is what overflows.
  CHECK(outcome(head("10s") + jump + "by = \"+6000h\"\n" + jump + "by = \"-6000h\"\n") ==
        "t.toml:11: fault[2].by: the clock jumps of A add up to more than 10000h (the cap: the host's wall clock "
        "must stay within 64-bit nanoseconds)");
  CHECK(outcome(head("1000h") + "[nemesis]\nkinds = [\"clock-jump\"]\nmean_interval = \"1h\"\nmax_duration = \"100h\"\n") ==
        "t.toml:9: nemesis.max_duration: clock jumps of up to 360000s every 3600s could move a clock by more than "
        "10000h in 3600000s (the cap): use a shorter max_duration or a longer mean_interval");
}

TEST_CASE("a derived duration (latency x 2^tail_max_shift and the rest) is bounded at parse time (issue 35)",
          "[scenarios]") {
  // Each field within its own bound; the product was past int64 and aborted every run ("cannot schedule in the past").
  const auto tail = [](const std::string& latency, int per_mille, int shift) {
    return kHead + "[network]\nlatency = \"" + latency + "\"\ntail_per_mille = " + std::to_string(per_mille) +
           "\ntail_max_shift = " + std::to_string(shift) + "\n";
  };
  CHECK(outcome(tail("30h", 1000, 20)) ==
        "t.toml:8: network.tail_max_shift: a tail packet's delay, the latency's maximum (30h) x 2^20, is over the cap "
        "of 100000h for a derived duration (it is added to the run's instants in 64-bit nanoseconds)");
  CHECK_THAT(outcome(tail("1ms..6m", 1, 20)), Catch::StartsWith("t.toml:8: network.tail_max_shift: ") &&
                                                 Catch::Contains("(6m) x 2^20"));
  CHECK(outcome(tail("1ms..5m", 1, 20)) == "OK");  // 5m x 2^20 = 87381h
  CHECK(outcome(tail("30h", 0, 20)) == "OK");      // no packet is ever slowed
  CHECK(outcome(tail("30h", 1000, 0)) == "OK");
  // At the bound, every packet slowed the most: runs, never aborts.
  auto at_bound = load(tail("5m", 1000, 20));
  REQUIRE(at_bound);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    RunOptions o;
    o.lock_kind = "token";
    o.seed = seed;
    CHECK(run_scenario(*at_bound, o).ok());
  }
  // The sums hold by the field caps: every field at its cap still loads.
  CHECK(outcome("name = \"t\"\nduration = \"10000h\"\n[lock]\nttl = \"10000h\"\nacquire_timeout = \"10000h\"\n"
                "[[client]]\nname = \"A\"\nwork = \"10000h\"\n[[fault]]\nkind = \"crash\"\ntarget = \"A\"\n"
                "at = \"9999h\"\nrestart_after = \"10000h\"\n") == "OK");
}

TEST_CASE("a clock that barely runs puts a long wait after the run, never past 64-bit time (issue 35)", "[scenarios]") {
  // -999999 ppm: a 10 h wait is 10^7 h of true time (int64 nanoseconds end at 2562047 h).
  auto slow = load("name = \"t\"\nduration = \"60s\"\n[[client]]\nname = \"A\"\nclock_drift_ppm = -999999\n"
                   "work = \"10h\"\n[[client]]\nname = \"B\"\nstart = \"1s\"\n");
  REQUIRE(slow);
  RunOptions o;
  o.lock_kind = "token";
  auto run = run_scenario(*slow, o);
  REQUIRE(run);
  CHECK_FALSE(run->history.clients[0].finished);  // A's section never ends within the run
}

TEST_CASE("a generated fault that would pass a duration cap is dropped, never built (issue 35)", "[scenarios]") {
  ScenarioDraw draw;
  for (FaultKind kind : {FaultKind::ClockJump, FaultKind::Pause}) {
    FaultDraw f;
    f.kind = kind;
    f.length_pm = 1000;  // 3 x ttl + 1ms
    draw.faults.push_back(f);
  }
  GenLimits limits;
  limits.kinds = {FaultKind::ClockJump, FaultKind::Pause};
  auto base = load("name = \"t\"\nduration = \"10000h\"\n[lock]\nttl = \"10000h\"\n[[client]]\nname = \"A\"\n"
                   "[[client]]\nname = \"B\"\n");
  REQUIRE(base);
  const Scenario long_ttl = build_scenario(draw, "token", limits, &*base);
  CHECK(long_ttl.faults.empty());  // 30000h + 1ms: over the 10000h cap
  CHECK_FALSE(scenario_arithmetic_problem(long_ttl));
  base->lock.ttl = std::chrono::seconds(10);
  const Scenario short_ttl = build_scenario(draw, "token", limits, &*base);
  CHECK(short_ttl.faults.size() == 2);
  CHECK(load(scenario_to_toml(short_ttl)));
}

TEST_CASE("a sign is refused on every duration but a clock jump's by; an empty targets list is refused (issue 35)",
          "[scenarios]") {
  const std::string no_sign = "takes no sign (only a clock jump's \"by\" is signed): write ";
  CHECK(outcome("name = \"t\"\nduration = \"+20s\"\n[[client]]\nname = \"A\"\n") ==
        "t.toml:2: duration: " + no_sign + "\"20s\"");
  CHECK(outcome(kHead + "[lock]\nttl = \" +5s\"\n") == "t.toml:6: lock.ttl: " + no_sign + "\"5s\"");
  CHECK(outcome(kHead + "[lock]\nretry = \"-0s\"\n") == "t.toml:6: lock.retry: must be positive");
  CHECK(outcome(kHead + "[lock]\nacquire_timeout = \"-0s\"\n") == "t.toml:6: lock.acquire_timeout: " + no_sign + "\"0s\"");
  CHECK(outcome(kHead + "[network]\nlatency = \"+1ms..3ms\"\n") == "t.toml:6: network.latency: " + no_sign + "\"1ms\"");
  CHECK(outcome(kHead + "[network]\nlatency = \"1ms..+3ms\"\n") == "t.toml:6: network.latency: " + no_sign + "\"3ms\"");
  CHECK(outcome(kHead + "[[fault]]\nkind = \"pause\"\ntarget = \"A\"\nat = \"1s\"\nduration = \"+2s\"\n") ==
        "t.toml:9: fault[1].duration: " + no_sign + "\"2s\"");
  CHECK(outcome("name = \"t\"\n[etcd]\nelection_timeout = \"+1000ms\"\n[[client]]\nname = \"A\"\n") ==
        "t.toml:3: etcd.election_timeout: " + no_sign + "\"1000ms\"");
  CHECK(outcome(kHead + "[[fault]]\nkind = \"clock-jump\"\ntarget = \"A\"\nat = \"1s\"\nby = \"+20s\"\n") == "OK");
  CHECK(outcome(kHead + "[nemesis]\nkinds = [\"pause\"]\ntargets = []\n") ==
        "t.toml:7: nemesis.targets: lists no host: name at least one, or leave targets out for every client and node");
  CHECK(outcome(kHead + "[nemesis]\nkinds = [\"pause\"]\ntargets = [\"A\"]\n") == "OK");
  CHECK(outcome(kHead + "[nemesis]\nkinds = [\"pause\"]\n") == "OK");
}

TEST_CASE("every error in a damaged catalog file names a line, never line 0 (issue 35)", "[scenarios]") {
  // Each catalog file, each line: dropped, its value given the wrong type, a
  // signed duration, or the file cut in the line's middle. Whatever the
  // error, the line it names is a line of the file.
  std::size_t errors = 0;
  for (const EmbeddedCatalogFile& f : embedded_catalog_files()) {
    std::vector<std::string> lines;
    std::istringstream in{std::string(f.text)};
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::size_t eq = lines[i].find(" = ");
      std::vector<std::string> variants(4);
      for (std::size_t j = 0; j < lines.size(); ++j) {
        if (j != i) {
          for (auto& v : variants) v += lines[j] + "\n";
          continue;
        }
        if (eq != std::string::npos) {
          variants[1] += lines[j].substr(0, eq) + " = []\n";
          variants[2] += lines[j].substr(0, eq) + " = \"+1s\"\n";
        }
        variants[3] += lines[j].substr(0, lines[j].size() / 2);
        break;  // variant 3 ends here; 0..2 continue below
      }
      for (std::size_t j = i + 1; j < lines.size(); ++j)
        for (std::size_t v = 0; v < 3; ++v) variants[v] += lines[j] + "\n";
      for (const std::string& text : variants) {
        auto r = load_scenario_text(text, "damaged.toml");
        if (r) continue;
        ++errors;
        INFO(f.file << " line " << i + 1 << ":\n" << r.error().to_string());
        CHECK(r.error().line >= 1);
        CHECK(r.error().line <= static_cast<int>(lines.size()) + 1);
      }
    }
  }
  CHECK(errors > 1000);  // the damage was found
}

TEST_CASE("a run whose history would not fit is refused, naming the fields (issue 15)", "[scenarios]") {
  CHECK(outcome("name = \"t\"\n[[client]]\nname = \"A\"\nwrites = 10000\niterations = 1000000\n") ==
        "t.toml:5: client[1].iterations: writes × iterations: the clients up to client[1] (A, writes = 10000, "
        "iterations = 1000000) would record about 10002000000 history events (at most 5000000): the run would not "
        "fit in memory");
  std::string crowd = "name = \"t\"\n";
  for (int i = 0; i < 1001; ++i) crowd += "[[client]]\nname = \"c" + std::to_string(i) + "\"\n";
  CHECK(outcome(crowd) == "t.toml:2002: client: 1001 clients (at most 1000): the run would not fit in memory");
}

TEST_CASE("a lock option the named lock never reads is an error; without a kind any is allowed (issue 15)",
          "[scenarios]") {
  CHECK(outcome(kHead + "[lock]\nkind = \"token\"\nrenew_interval = \"5s\"\n") ==
        "t.toml:7: lock.renew_interval: has no effect for lock kind \"token\" (only redisson-watchdog-3194, watchdog, watchdog-fixed read it)");
  CHECK(outcome(kHead + "[lock]\nkind = \"naive-del\"\nretry_jitter = \"5ms\"\n") ==
        "t.toml:7: lock.retry_jitter: has no effect for lock kind \"naive-del\" (only node-redlock-169, "
        "node-redlock-fixed, redlock, redlock-fenced, redlock-net-48, redlock-net-fixed, redlock-py, redlock-py-pr3, "
        "redlock-rb-36 read it)");
  CHECK(outcome(kHead + "[lock]\nkind = \"watchdog\"\nrenew_interval = \"5s\"\n") == "OK");
  // Each lock says which options it reads (LockInfo::options): every Redlock-family lock reads node_timeout.
  for (const auto& lock : locks::all_locks()) {
    if (lock.min_nodes < 3 || lock.topology != locks::Topology::Redis) continue;
    INFO(lock.name);
    CHECK(outcome(kHead + "[redis]\nmasters = 5\n[lock]\nkind = \"" + lock.name + "\"\nnode_timeout = \"5ms\"\n") == "OK");
  }
  CHECK(outcome(kHead + "[lock]\nrenew_interval = \"5s\"\nthread_id = \"t\"\n") == "OK");
}

TEST_CASE("a field without effect on the topology is an error, at its line (issue 15)", "[scenarios]") {
  CHECK(outcome(kHead + "[redis]\nfailover_after = \"1s\"\n") ==
        "t.toml:6: redis.failover_after: has no effect: [redis] replicas = 0 (set replicas, or remove it)");
  CHECK(outcome(kHead + "[redis]\nreplication_lag = \"5ms\"\n") ==
        "t.toml:6: redis.replication_lag: has no effect: [redis] replicas = 0 (set replicas, or remove it)");
  CHECK(outcome(kHead + "[redis]\nreplicas = 1\nfailover_after = \"1s\"\nreplication_lag = \"5ms\"\n") == "OK");
}

// --- the inventory workload (issue 17) ---------------------------------------

namespace {
// An inventory head: lines 1-5, then the given [workload] lines, then a
// buyer A (two lines) and the rest.
const std::string kSale = "name = \"t\"\n[workload]\nkind = \"inventory\"\nstock = 10\nmethod = \"lock\"\n";
std::string sale_with(const std::string& workload_lines, const std::string& rest = "") {
  return kSale + workload_lines + "[[client]]\nname = \"A\"\n" + rest;
}
}  // namespace

TEST_CASE("an inventory reads stock, method, segments, per_buyer, buys and unique with their defaults",
          "[scenarios]") {
  auto r = load(sale_with("", "buys = 3\n[[client]]\nname = \"B\"\nwork = \"5ms\"\n"));
  REQUIRE(r.ok());
  CHECK(r->workload == WorkloadKind::Inventory);
  CHECK(r->inventory.stock == 10);
  CHECK(r->inventory.method == InventoryMethod::Lock);
  CHECK(r->inventory.segments == 1);
  CHECK(r->inventory.per_buyer == 1);
  CHECK(r->clients[0].buys == 3);
  CHECK(r->clients[0].work == 0s);  // a buyer's work defaults to 0
  CHECK(r->clients[1].buys == 1);
  CHECK(r->clients[1].work == 5ms);
  CHECK_FALSE(r->unique);
  auto seg = load("name = \"t\"\n[workload]\nkind = \"inventory\"\nstock = 100\nmethod = \"segmented\"\nsegments = 5\n"
                  "per_buyer = 2\n[storage]\nunique = false\n[[client]]\nname = \"A\"\n");
  REQUIRE(seg.ok());
  CHECK(seg->inventory.method == InventoryMethod::Segmented);
  CHECK(seg->inventory.segments == 5);
  CHECK(seg->inventory.per_buyer == 2);
  auto unique = load(sale_with("", "[storage]\nunique = true\n"));
  REQUIRE(unique.ok());
  CHECK(unique->unique);
}

TEST_CASE("an inventory's bad fields are located errors", "[scenarios]") {
  CHECK(outcome("name = \"t\"\n[workload]\nkind = \"inventory\"\nstock = 0\nmethod = \"lock\"\n[[client]]\nname = \"A\"\n") ==
        "t.toml:4: workload.stock: must be between 1 and 1000000 (got 0)");
  CHECK(outcome("name = \"t\"\n[workload]\nkind = \"inventory\"\nmethod = \"lock\"\n[[client]]\nname = \"A\"\n") ==
        "t.toml:2: workload.stock: missing (the items on sale, at least 1)");
  CHECK(outcome("name = \"t\"\n[workload]\nkind = \"inventory\"\nstock = 5\n[[client]]\nname = \"A\"\n") ==
        "t.toml:2: workload.method: missing (one of \"read-check-write\", \"lock\", \"decr\", \"lua\", \"segmented\")");
  CHECK(outcome("name = \"t\"\n[workload]\nkind = \"inventory\"\nstock = 5\nmethod = \"decrement\"\n[[client]]\nname = \"A\"\n") ==
        "t.toml:5: workload.method: unknown method \"decrement\" (did you mean \"decr\"?)");
  CHECK(outcome("name = \"t\"\n[workload]\nkind = \"inventory\"\nstock = 5\nmethod = \"mutex\"\n[[client]]\nname = \"A\"\n") ==
        "t.toml:5: workload.method: unknown method \"mutex\" (known: \"read-check-write\", \"lock\", \"decr\", \"lua\", "
        "\"segmented\")");
  CHECK(outcome("name = \"t\"\n[workload]\nkind = \"inventory\"\nstock = 4\nmethod = \"segmented\"\nsegments = 5\n"
                "[[client]]\nname = \"A\"\n") ==
        "t.toml:6: workload.segments: is 5 but the stock is 4 items: a segment would start empty");
  CHECK(outcome(sale_with("segments = 2\n")) == "t.toml:6: workload.segments: only for method = \"segmented\"");
  CHECK(outcome(sale_with("per_buyer = 0\n")) == "t.toml:6: workload.per_buyer: must be between 1 and 1000000 (got 0)");
  CHECK(outcome(sale_with("", "buys = 0\n")) == "t.toml:8: client[1].buys: must be between 1 and 1000000 (got 0)");
  CHECK(outcome(sale_with("", "writes = 2\n")) ==
        "t.toml:8: client[1].writes: has no effect in an inventory (a buyer makes `buys` purchases, one order each)");
  CHECK(outcome(sale_with("per_buyer = 2\n", "[storage]\nunique = true\n")) ==
        "t.toml:10: storage.unique: is one order per buyer: it needs [workload] per_buyer = 1 (got 2)");
  // Outside an inventory the fields have no effect: errors, at their lines.
  CHECK(outcome(kHead + "[workload]\nstock = 5\n") == "t.toml:6: workload.stock: only for [workload] kind = \"inventory\"");
  CHECK(outcome("name = \"t\"\n[[client]]\nname = \"A\"\nbuys = 2\n") ==
        "t.toml:4: client[1].buys: only for [workload] kind = \"inventory\"");
  CHECK(outcome(kHead + "[storage]\nunique = true\n") ==
        "t.toml:6: storage.unique: only for [workload] kind = \"inventory\" or \"gate\" (the orders table)");
  CHECK(outcome("name = \"t\"\n[workload]\nkind = \"gate\"\n[storage]\nunique = true\n[[client]]\nname = \"A\"\n") == "OK");
  CHECK(outcome(kHead + "[workload]\nkind = \"shop\"\n").starts_with("t.toml:6: workload.kind:"));
}

TEST_CASE("a client's extends is a boolean for the lock workload, written back by the writer (issue 19)",
          "[scenarios]") {
  const auto s = load("name = \"t\"\n[[client]]\nname = \"A\"\nextends = true\n[[client]]\nname = \"B\"\n");
  REQUIRE(s);
  CHECK(s->clients[0].extends);
  CHECK_FALSE(s->clients[1].extends);
  CHECK(load(scenario_to_toml(*s))->clients[0].extends);
  CHECK(outcome("name = \"t\"\n[[client]]\nname = \"A\"\nextends = 1\n") ==
        "t.toml:4: client[1].extends: expected a boolean (true or false), got integer");
  CHECK(outcome("name = \"t\"\n[workload]\nkind = \"gate\"\n[[client]]\nname = \"A\"\nextends = true\n") ==
        "t.toml:6: client[1].extends: only for [workload] kind = \"lock\" (a client extends its lock before each write)");
}

TEST_CASE("an inventory scenario written by the scenario writer loads back equal", "[scenarios]") {
  auto first = load("name = \"t\"\n[workload]\nkind = \"inventory\"\nstock = 100\nmethod = \"segmented\"\n"
                    "segments = 5\nper_buyer = 2\n[[client]]\nname = \"A\"\nbuys = 4\n[[client]]\nname = \"B\"\n");
  REQUIRE(first.ok());
  check_written_loads_back(*first);
  CHECK(load(scenario_to_toml(*first))->clients[0].buys == 4);
  for (const auto& entry : catalog()) {
    if (!entry.name.starts_with("inventory-") && !entry.name.starts_with("flash-sale-gate")) continue;
    auto story = load_catalog_scenario(entry.name);
    REQUIRE(story.ok());
    INFO(entry.name);
    check_written_loads_back(*story);
  }
}

TEST_CASE("a scenario file is read from disk and named by its path", "[scenarios]") {
  const auto path = std::filesystem::temp_directory_path() / "locksim_test_scenario.toml";
  {
    std::ofstream out(path);
    out << kHead << "[lock]\nttl = \"1.5s\"\n";
  }
  auto r = load_scenario_file(path.string());
  REQUIRE(r.ok());
  CHECK(r->lock.ttl == 1500ms);
  CHECK(r->source == path.string());
  auto via_resolve = resolve_scenario(path.string());
  REQUIRE(via_resolve.ok());
  CHECK(via_resolve->name == "t");
  std::filesystem::remove(path);
}

// --- the catalog ---------------------------------------------------------------

TEST_CASE("every catalog scenario parses, is named after its file and tells its story", "[scenarios]") {
  REQUIRE(catalog().size() >= 16);
  for (const CatalogEntry& e : catalog()) {
    auto r = load_catalog_scenario(e.name);
    INFO(e.file << ": " << (r.ok() ? "" : r.error().to_string()));
    REQUIRE(r.ok());
    CHECK(r->name == e.name);
    CHECK(e.file == e.name + ".toml");
    CHECK(r->source == "catalog/" + e.file);
    CHECK_FALSE(r->description.empty());
    CHECK((r->expect_default.has_value() || !r->expect_by_lock.empty()));
  }
}

TEST_CASE("the catalog is sorted and holds the scenarios of the source articles", "[scenarios]") {
  std::vector<std::string> names;
  for (const auto& e : catalog()) names.push_back(e.name);
  CHECK(std::is_sorted(names.begin(), names.end()));
  for (const char* wanted :
       {"baseline", "daily-report-cron", "gc-pause", "delayed-packet", "redlock-clock-jump-bare-majority",
        "redlock-clock-jump-four-held", "aof-everysec-power-loss", "aof-everysec-process-crash",
        "aof-everysec-idle-power-loss", "aof-everysec-fsync-stall", "aof-always-fsync-stall", "replica-failover",
        "flash-sale-gate", "setnx-expire-crash", "get-then-del-pause", "thread-id-collision", "fencing-gc-pause",
        "redlock-pause-after-acquire", "random-nemesis", "inventory-race", "inventory-one-lock",
        "inventory-lock-gc-pause", "inventory-decr-failover", "inventory-lua-double-click", "inventory-segmented",
        "flash-sale-gate-unique", "flash-sale-gate-winner-crash"}) {
    INFO(wanted);
    CHECK(std::find(names.begin(), names.end(), wanted) != names.end());
  }
}

TEST_CASE("baseline expects every registered lock to be safe", "[scenarios]") {
  auto r = load_catalog_scenario("baseline");
  REQUIRE(r.ok());
  for (const auto& info : locks::all_locks()) {
    INFO(info.name);
    CHECK(r->expected_for(info.name) == std::set<std::string>{});
  }
}

TEST_CASE("the catalog pins the gc-pause outcomes of the articles", "[scenarios]") {
  auto gc = load_catalog_scenario("gc-pause");
  REQUIRE(gc.ok());
  using S = std::set<std::string>;
  CHECK(gc->expected_for("naive-del") == S{"mutual-exclusion", "wrong-owner-release", "stale-write"});
  CHECK(gc->expected_for("token") == S{"mutual-exclusion", "stale-write"});
  auto fenced = load_catalog_scenario("fencing-gc-pause");
  REQUIRE(fenced.ok());
  CHECK(fenced->fencing);
  CHECK(fenced->expected_for("fenced") == S{"mutual-exclusion"});
}

TEST_CASE("an unknown scenario name says so and lists close names", "[scenarios]") {
  auto r = resolve_scenario("gc-pase");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().to_string().rfind(
            "catalog: scenario: unknown scenario \"gc-pase\" (did you mean gc-pause", 0) == 0);
  auto far = load_catalog_scenario("zzzzzzzzzzzzzz");
  REQUIRE_FALSE(far.ok());
  CHECK(far.error().message ==
        "unknown scenario \"zzzzzzzzzzzzzz\"; `locksim list` shows the catalog, or pass a path to a .toml file");
  auto named = resolve_scenario("gc-pause");
  REQUIRE(named.ok());
  CHECK(named->name == "gc-pause");
}

// --- properties: whatever the input, a scenario or a located error -------------

namespace {

// What validation promises about a scenario that loaded: everything it
// names exists and every value is in its range.
bool consistent(const Scenario& s) {
  const auto hosts = host_names(s);
  auto known = [&](const std::string& h) { return std::find(hosts.begin(), hosts.end(), h) != hosts.end(); };
  auto known_or_empty = [&](const std::string& h) { return h.empty() || known(h); };
  bool ok = !s.name.empty() && !s.clients.empty() && s.source == kFile && s.duration > Duration{0} &&
            s.lock.ttl >= 1ms && s.lock.retry > Duration{0} && s.network.latency.min >= Duration{0} &&
            s.network.latency.min <= s.network.latency.max && s.network.timeout > Duration{0} &&
            s.redis.masters >= 1 && s.redis.replicas >= 0 && locks::find_lock(s.lock_kind).has_value();
  std::set<std::string> names;
  for (const auto& c : s.clients) ok = ok && names.insert(c.name).second && c.start < s.duration && c.writes >= 0;
  for (const auto& f : s.faults) {
    ok = ok && known_or_empty(f.target) && known_or_empty(f.from) && known_or_empty(f.to) && f.at >= Duration{0};
    if (f.after) ok = ok && known(f.after->host) && f.after->write_index >= 1;
    for (const auto& g : f.groups)
      for (const auto& h : g) ok = ok && known(h);
  }
  if (s.nemesis)
    for (const auto& t : s.nemesis->targets) ok = ok && known(t);
  const auto& v = violation_names();
  auto valid_set = [&](const std::set<std::string>& set) {
    return std::all_of(set.begin(), set.end(), [&](const auto& n) { return std::find(v.begin(), v.end(), n) != v.end(); });
  };
  if (s.expect_default) ok = ok && valid_set(*s.expect_default);
  for (const auto& [lock, set] : s.expect_by_lock) ok = ok && locks::find_lock(lock).has_value() && valid_set(set);
  return ok;
}

// Never throws; a scenario is consistent, a failure is located and non-empty.
bool well_formed_outcome(const std::string& text, int* loaded = nullptr) {
  try {
    auto r = load_scenario_text(text, kFile);
    if (loaded) *loaded += r.ok() ? 1 : 0;
    if (r.ok()) return consistent(r.value());
    const ScenarioError& e = r.error();
    return e.file == kFile && e.line >= 0 && !e.field.empty() && !e.message.empty() &&
           e.to_string().find('\n') == std::string::npos &&
           e.to_string().rfind(kFile + (e.line > 0 ? ":" + std::to_string(e.line) : std::string()) + ": ", 0) == 0;
  } catch (...) {
    return false;
  }
}

const std::map<std::string, std::vector<std::string>>& field_names() {
  static const std::map<std::string, std::vector<std::string>> fields = {
      {"", {"name", "description", "duration"}},
      {"workload", {"kind", "key"}},
      {"lock",
       {"kind", "ttl", "retry", "acquire_timeout", "track_validity", "node_timeout", "clock",
        "check_validity_after_acquire", "retry_jitter", "counter_node", "counter_key", "thread_id", "thread_name",
        "renew_interval"}},
      {"redis",
       {"masters", "replicas", "replication_lag", "appendonly", "appendfsync", "failover_after", "redis84",
        "min_replicas_to_write", "fsync_duration", "background_writes_per_second"}},
      {"network", {"latency", "timeout", "tail_per_mille", "tail_max_shift"}},
      {"storage", {"fencing"}},
      {"check", {"liveness"}},
      {"nemesis", {"kinds", "mean_interval", "max_duration", "targets"}},
      {"expect", {"violations", "by_lock"}},
      {"client", {"name", "start", "work", "writes", "iterations", "clock_drift_ppm"}},
      {"fault",
       {"kind", "target", "from", "to", "at", "after", "duration", "by", "ppm", "restart_after", "groups", "mode"}},
  };
  return fields;
}

const std::vector<std::string>& plausible_strings() {
  static const std::vector<std::string> words = {
      "30s", "1.5s", "-5s", "+20s", "0", "1ms..3ms", "5ms..1ms", "150ms", "2m", "abc", "", "1h", "9999999h",
      "A", "B", "redis-1", "redis-2", "redis-1-replica-1", "storage", "sentinel", "pause", "clock-jump", "delay",
      "partition", "failover", "crash", "heal", "token", "redlock", "naive-del", "hold", "drop", "gate", "lock",
      "wall", "always", "mutual-exclusion", "stale-write", "A:acquired", "A:write#2", "redis-1:crash", "A:", ":",
      "\xff\xfe", "\xC2\xB5s"};
  return words;
}

// One random TOML value of any type, built as a toml++ node.
void insert_random_value(toml::table& t, const std::string& key, int depth) {
  const auto& words = plausible_strings();
  switch (*rc::gen::inRange(0, depth > 0 ? 8 : 6)) {
    case 0: t.insert_or_assign(key, *rc::gen::elementOf(words)); break;
    case 1: t.insert_or_assign(key, *rc::gen::arbitrary<std::string>()); break;
    case 2: t.insert_or_assign(key, *rc::gen::arbitrary<std::int64_t>()); break;
    case 3: t.insert_or_assign(key, *rc::gen::inRange<std::int64_t>(-3, 12)); break;
    case 4: t.insert_or_assign(key, *rc::gen::arbitrary<bool>()); break;
    case 5: t.insert_or_assign(key, static_cast<double>(*rc::gen::inRange(-100, 100)) / 7.0); break;
    case 6: {
      toml::array a;
      const int n = *rc::gen::inRange(0, 4);
      for (int i = 0; i < n; ++i) {
        if (*rc::gen::arbitrary<bool>()) a.push_back(*rc::gen::elementOf(words));
        else a.push_back(toml::array{*rc::gen::elementOf(words), *rc::gen::elementOf(words)});
      }
      t.insert_or_assign(key, std::move(a));
      break;
    }
    default: {
      toml::table inner;
      const auto& all = field_names().at("fault");
      for (int i = *rc::gen::inRange(0, 3); i > 0; --i) insert_random_value(inner, *rc::gen::elementOf(all), depth - 1);
      t.insert_or_assign(key, std::move(inner));
      break;
    }
  }
}

bool one_of(const std::string& key, std::initializer_list<const char*> keys) {
  return std::any_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; });
}

template <class T>
T pick(std::initializer_list<T> values) {
  return *rc::gen::elementOf(std::vector<T>(values));
}

// A value of the type the field expects, mostly valid: documents made of
// these get past type checks and exercise the cross-field rules.
void insert_typed_value(toml::table& t, const std::string& key) {
  using S = std::string;
  if (one_of(key, {"duration", "ttl", "retry", "acquire_timeout", "node_timeout", "retry_jitter", "renew_interval",
                   "replication_lag", "failover_after", "timeout", "liveness", "mean_interval", "max_duration",
                   "start", "work", "at", "restart_after", "fsync_duration"}))
    t.insert_or_assign(key, pick<S>({"1s", "30s", "150ms", "0", "2m", "1.5s", "-1s", "500us"}));
  else if (key == "latency") t.insert_or_assign(key, pick<S>({"1ms..3ms", "2ms", "0..1ms"}));
  else if (key == "by") t.insert_or_assign(key, pick<S>({"+20s", "-5s", "5s"}));
  else if (one_of(key, {"masters", "replicas", "writes", "iterations", "tail_max_shift", "min_replicas_to_write"}))
    t.insert_or_assign(key, pick<std::int64_t>({0, 1, 2, 3, 5}));
  else if (one_of(key, {"ppm", "clock_drift_ppm", "tail_per_mille", "background_writes_per_second", "counter_node"}))
    t.insert_or_assign(key, pick<std::int64_t>({-1, 0, 10, 500}));
  else if (one_of(key, {"fencing", "appendonly", "redis84", "track_validity", "check_validity_after_acquire"}))
    t.insert_or_assign(key, *rc::gen::arbitrary<bool>());
  else if (key == "kind")
    t.insert_or_assign(key, pick<S>({"lock", "gate", "token", "naive-del", "redlock", "pause", "crash", "heal",
                                     "partition", "delay", "clock-jump"}));
  else if (one_of(key, {"appendfsync", "clock", "mode"}))
    t.insert_or_assign(key, pick<S>({"always", "everysec", "no", "monotonic", "wall", "hold", "drop"}));
  else if (one_of(key, {"target", "from", "to"})) t.insert_or_assign(key, pick<S>({"A", "B", "redis-1", "storage"}));
  else if (key == "after")
    t.insert_or_assign(key, pick<S>({"A:acquired", "A:write", "B:released", "redis-1:crash", "A:write#2"}));
  else if (key == "groups") t.insert_or_assign(key, toml::array{toml::array{"A"}, toml::array{"redis-1"}});
  else if (key == "kinds") t.insert_or_assign(key, toml::array{"pause", "crash"});
  else if (key == "targets") t.insert_or_assign(key, toml::array{"A", "redis-1"});
  else if (key == "violations") t.insert_or_assign(key, toml::array{"stale-write"});
  else if (key == "by_lock") t.insert_or_assign(key, toml::table{{"token", toml::array{}}});
  else t.insert_or_assign(key, pick<S>({"A", "B", "x", "lock:k"}));
}

toml::table random_fields(const std::string& section, bool with_typo, bool clean) {
  toml::table t;
  const auto& names = field_names().at(section);
  for (int i = *rc::gen::inRange(0, clean ? 3 : 5); i > 0; --i) {
    const std::string& key = *rc::gen::elementOf(names);
    if (clean || *rc::gen::inRange(0, 3) > 0) insert_typed_value(t, key);
    else insert_random_value(t, key, 1);
  }
  if (with_typo) insert_random_value(t, *rc::gen::elementOf(names) + "x", 0);
  return t;
}

// `clean`: only typed values and no misspelt keys, so that a fair share of
// documents loads and the consistency of loaded scenarios is checked too.
std::string random_document(bool clean) {
  toml::table root = random_fields("", false, clean);
  if (*rc::gen::inRange(0, 10) > 1) root.insert_or_assign("name", "t");
  for (const char* s : {"workload", "lock", "redis", "network", "storage", "check", "nemesis", "expect"})
    if (*rc::gen::inRange(0, 3) == 0)
      root.insert_or_assign(s, random_fields(s, !clean && *rc::gen::inRange(0, 10) == 0, clean));
  for (const char* s : {"client", "fault"}) {
    toml::array tables;
    for (int i = *rc::gen::inRange(0, 4); i > 0; --i) {
      toml::table t = random_fields(s, !clean && *rc::gen::inRange(0, 10) == 0, clean);
      if (std::string(s) == "client" && *rc::gen::inRange(0, 10) > 1)
        t.insert_or_assign("name", *rc::gen::elementOf(std::vector<std::string>{"A", "B", "C"}));
      if (std::string(s) == "fault" && *rc::gen::inRange(0, 10) > 1)
        t.insert_or_assign("kind", *rc::gen::elementOf(std::vector<std::string>{
                                       "pause", "clock-jump", "clock-drift", "delay", "crash", "power-loss", "restart",
                                       "failover", "partition", "heal"}));
      tables.push_back(std::move(t));
    }
    if (!tables.empty()) root.insert_or_assign(s, std::move(tables));
  }
  std::ostringstream out;
  out << root;
  return out.str();
}

}  // namespace

TEST_CASE("a truncated catalog file never crashes the loader", "[scenarios]") {
  const bool ok = rc::check("truncated catalog files give a scenario or a located error", [] {
    const CatalogEntry& e = *rc::gen::elementOf(catalog());
    const auto cut = *rc::gen::inRange<std::size_t>(0, e.text.size() + 1);
    int loaded = 0;
    RC_ASSERT(well_formed_outcome(std::string(e.text.substr(0, cut)), &loaded));
    RC_CLASSIFY(loaded > 0, "loaded");
  });
  CHECK(ok);
}

TEST_CASE("a catalog file with mutated bytes never crashes the loader", "[scenarios]") {
  const bool ok = rc::check("mutated catalog files give a scenario or a located error", [] {
    const CatalogEntry& e = *rc::gen::elementOf(catalog());
    std::string text(e.text);
    const int edits = *rc::gen::inRange(1, 8);
    for (int i = 0; i < edits && !text.empty(); ++i) {
      const auto pos = *rc::gen::inRange<std::size_t>(0, text.size());
      switch (*rc::gen::inRange(0, 3)) {
        case 0: text[pos] = *rc::gen::arbitrary<char>(); break;
        case 1: text.erase(pos, *rc::gen::inRange<std::size_t>(1, 16)); break;
        default: text.insert(pos, *rc::gen::elementOf(plausible_strings())); break;
      }
    }
    int loaded = 0;
    RC_ASSERT(well_formed_outcome(text, &loaded));
    RC_CLASSIFY(loaded > 0, "loaded");
  });
  CHECK(ok);
}

TEST_CASE("random documents of real field names with any value types never crash the loader", "[scenarios]") {
  const bool ok = rc::check("random documents give a scenario or a located error", [] {
    int loaded = 0;
    for (int i = 0; i < 10; ++i) RC_ASSERT(well_formed_outcome(random_document(i % 2 == 0), &loaded));
    RC_CLASSIFY(loaded > 0, "some of the ten loaded");
  });
  CHECK(ok);
}

TEST_CASE("arbitrary bytes never crash the loader", "[scenarios]") {
  const bool ok = rc::check("arbitrary text gives a scenario or a located error",
                            [](const std::string& text) { RC_ASSERT(well_formed_outcome(text)); });
  CHECK(ok);
}

// --- locksim check: the enumeration (scenarios/check.hpp) ---------------------

namespace {

// One client, no writes, a 1 s TTL: trigger points A:acquiring, A:acquired,
// A:released; targets of a pause A and redis-1; offsets 0 and 988 ms (TTL
// less the 12 ms validity margin); sizes 999 ms and 1001 ms.
constexpr const char* kTinyCheck = R"(
name = "tiny-check"
duration = "10s"
[lock]
ttl = "1s"
[[client]]
name = "A"
writes = 0
)";

CheckPlan tiny_plan(int faults, std::vector<FaultKind> kinds) {
  auto s = load_scenario_text(kTinyCheck, "tiny-check.toml");
  REQUIRE(s);
  CheckOptions o;
  o.lock_kind = "token";
  o.max_faults = faults;
  o.kinds = std::move(kinds);
  auto plan = plan_check(*s, o);
  REQUIRE(plan);
  return std::move(*plan);
}

RunResult run_schedule(const CheckPlan& plan, const std::vector<std::size_t>& schedule,
                       sim::Activity* activity = nullptr) {
  RunOptions o;
  o.lock_kind = plan.lock_kind;
  o.seed = 1;
  o.activity = activity;
  auto run = run_scenario(schedule_scenario(plan, schedule, 1), o);
  REQUIRE(run);
  return std::move(*run);
}

// A schedule's run summarized as `locksim check` learns it: with its
// activity when a larger schedule may read it.
ScheduleOutcome learned(const CheckPlan& plan, const std::vector<std::size_t>& schedule) {
  sim::Activity activity;
  const bool read_later = schedule.size() == 1 && plan.max_faults > 1;
  const RunResult run = run_schedule(plan, schedule, read_later ? &activity : nullptr);
  return summarize(plan, run, read_later ? &activity : nullptr);
}

// Walks the plan as `locksim check` does on one worker: each explored
// schedule run and learned, so a pair's removal reads its first fault's run.
std::pair<std::uint64_t, std::map<RemovalReason, std::uint64_t>> walk(const CheckPlan& plan) {
  ScheduleCursor cursor(plan);
  for (auto next = cursor.next(); next.step == ScheduleCursor::Step::Schedule; next = cursor.next())
    cursor.learn(next.schedule, learned(plan, next.schedule));
  return {cursor.explored(), cursor.removed()};
}

}  // namespace

TEST_CASE("check enumerates the tiny scenario's pause schedules as counted by hand", "[scenarios]") {
  const CheckPlan one = tiny_plan(1, {FaultKind::Pause});
  CHECK(one.points == std::vector<std::string>{"A:acquiring", "A:acquired", "A:released"});
  // 3 points x 2 offsets x 2 targets x 2 sizes.
  REQUIRE(one.singles.size() == 24);
  // At A:released (both offsets) every client's workload has ended: 8 after the last event.
  const auto [explored1, removed1] = walk(one);
  CHECK(explored1 == 16);
  CHECK(removed1 == std::map<RemovalReason, std::uint64_t>{{RemovalReason::AfterLastEvent, 8}});

  // Pairs: C(24,2) = 276. Two released faults: the earlier one fires first
  // on the fault-free run, so C(8,2) = 28 pairs go. A released fault after
  // a live one is judged on the live one's own run, where A's workload ends
  // at its release too: those 16 x 8 pairs go as well. Of the 120 left, 5
  // hold a pause whose host runs no event in its window in the other's run
  // (redis-1 paused inside its own longer pause, or after A's last command)
  // and whose trigger's instant holds no other event: they act on nothing
  // (the tests below run such pairs).
  const auto [explored2, removed2] = walk(tiny_plan(2, {FaultKind::Pause}));
  CHECK(explored2 == 16 + 120 - 5);
  CHECK(removed2 == std::map<RemovalReason, std::uint64_t>{{RemovalReason::AfterLastEvent, 8 + 28 + 128},
                                                           {RemovalReason::ActsOnNothing, 5}});
}

TEST_CASE("a pair removed on its first fault's run runs as that fault alone", "[scenarios]") {
  const CheckPlan plan = tiny_plan(2, {FaultKind::Pause, FaultKind::Partition});
  ScheduleCursor cursor(plan);
  std::set<std::vector<std::size_t>> explored;
  std::map<std::size_t, ScheduleOutcome> alone_runs;
  for (auto next = cursor.next(); next.step == ScheduleCursor::Step::Schedule; next = cursor.next()) {
    ScheduleOutcome outcome = learned(plan, next.schedule);
    if (next.schedule.size() == 1) alone_runs[next.schedule.front()] = outcome;
    cursor.learn(next.schedule, std::move(outcome));
    explored.insert(next.schedule);
  }
  std::size_t compared = 0;
  for (std::size_t i = 0; i < plan.singles.size(); ++i)
    for (std::size_t j = i + 1; j < plan.singles.size(); ++j) {
      // The first to fire explored alone, the second one that fires (on the
      // fault-free run), the pair removed: removed on the first's own run.
      const std::size_t first = plan.singles[i].due <= plan.singles[j].due ? i : j;
      const std::size_t later = first == i ? j : i;
      const auto& second = plan.singles[later].removed;
      if (!explored.count({first}) || explored.count({i, j})) continue;
      if (second == RemovalReason::PointNeverReached || second == RemovalReason::ClientPowerLoss) continue;
      // Removed because the first acts on nothing in the second's run: that
      // run it is (the next test compares those).
      if (alone_runs.count(later) && !acts_in_run(plan, plan.singles[first], alone_runs.at(later), {&plan.singles[later]}))
        continue;
      const RunResult pair = run_schedule(plan, {i, j});
      const RunResult alone = run_schedule(plan, {first});
      CHECK(pair.violation_kinds() == alone.violation_kinds());
      CHECK(pair.history.beliefs.size() == alone.history.beliefs.size());
      CHECK(pair.history.points.size() == alone.history.points.size());
      ++compared;
    }
  CHECK(compared > 100);
}

namespace {

// What the checkers judge in a run, times included (not the trace: the
// fault's own record differs).
std::vector<std::int64_t> judged_shape(const RunResult& run) {
  std::vector<std::int64_t> out;
  auto ns = [](TrueInstant t) { return (t - true_epoch).count(); };
  for (const auto& b : run.history.beliefs) out.insert(out.end(), {ns(b.start), b.end ? ns(*b.end) : -1});
  for (const auto& a : run.history.attempts) out.insert(out.end(), {ns(a.start), a.end ? ns(*a.end) : -1});
  for (const auto& e : run.history.entries) out.push_back(ns(e.at));
  for (const auto& w : run.history.writes) out.push_back(ns(w.at));
  for (const auto& p : run.history.points) out.push_back(ns(p.at));
  for (const auto& v : run.violations) out.push_back(ns(v.at));
  return out;
}

// Two runs' activity alike up to the earlier one's last event (a pending
// fault may keep a run going a few background ticks longer), instants
// compared as sets: the yield at a fault's trigger is one more event of
// its client at an instant where it has one already.
bool same_activity(const RunActivity& a, const RunActivity& b) {
  Duration end_a{0}, end_b{0};
  for (const auto& [host, times] : a.events) end_a = std::max(end_a, times.empty() ? end_a : times.back());
  for (const auto& [host, times] : b.events) end_b = std::max(end_b, times.empty() ? end_b : times.back());
  const Duration end = std::min(end_a, end_b);
  auto upto = [end](std::vector<Duration> v) {
    std::erase_if(v, [end](Duration t) { return t > end; });
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  auto same_lists = [&](const std::map<std::string, std::vector<Duration>>& x,
                        const std::map<std::string, std::vector<Duration>>& y) {
    std::set<std::string> hosts;
    for (const auto& [h, v] : x) hosts.insert(h);
    for (const auto& [h, v] : y) hosts.insert(h);
    for (const auto& h : hosts) {
      const auto xi = x.find(h), yi = y.find(h);
      if (upto(xi == x.end() ? std::vector<Duration>{} : xi->second) != upto(yi == y.end() ? std::vector<Duration>{} : yi->second))
        return false;
    }
    return true;
  };
  std::map<std::string, std::vector<Duration>> sends_a, sends_b;
  for (const auto& [ends, l] : a.links) sends_a[ends.first + ">" + ends.second] = l.sends;
  for (const auto& [ends, l] : b.links) sends_b[ends.first + ">" + ends.second] = l.sends;
  return same_lists(a.events, b.events) && same_lists(a.wall_reads, b.wall_reads) &&
         same_lists(a.disk_checks, b.disk_checks) && same_lists(sends_a, sends_b);
}

}  // namespace

TEST_CASE("a fault that acts on nothing in a run leaves that run as it was", "[scenarios]") {
  // Two clients, writes, an AOF, every kind acts_in_run judges (pause,
  // delay, partition, clock jump, fsync stall):
  // each fault that acts on nothing in a single's run is added to it and
  // run; the checkers must see the very same history. And the other way: a
  // fault said to act does change it, at least sometimes (the test can fail).
  auto s = load_scenario_text(R"(
name = "acts-on-nothing"
duration = "10s"
[lock]
ttl = "1s"
retry = "50ms"
[redis]
appendonly = true
appendfsync = "everysec"
[[client]]
name = "A"
work = "300ms"
writes = 1
[[client]]
name = "B"
start = "2s"
work = "300ms"
writes = 1
)",
                              "acts-on-nothing.toml");
  REQUIRE(s);
  CheckOptions o;
  o.lock_kind = "token";
  o.max_faults = 2;
  o.kinds = {FaultKind::Pause, FaultKind::Delay, FaultKind::Partition, FaultKind::ClockJump, FaultKind::FsyncStall};
  auto plan = plan_check(*s, o);
  REQUIRE(plan);
  std::size_t same = 0, changed = 0;
  std::set<FaultKind> kinds_seen;
  for (std::size_t g = 0; g < plan->singles.size(); g += 3) {  // a third of the singles as the run joined
    if (plan->singles[g].removed) continue;
    const RunResult alone = run_schedule(*plan, {g});
    sim::Activity activity;
    const ScheduleOutcome outcome = summarize(*plan, run_schedule(*plan, {g}, &activity), &activity);
    for (std::size_t f = 0; f < plan->singles.size(); ++f) {
      if (f == g || plan->singles[f].spec.kind == FaultKind::Partition) continue;  // partitions: below
      const RunResult pair = run_schedule(*plan, {std::min(f, g), std::max(f, g)});
      if (!acts_in_run(*plan, plan->singles[f], outcome, {&plan->singles[g]})) {
        INFO(plan->singles[f].text() << " joining " << plan->singles[g].text());
        CHECK(judged_shape(pair) == judged_shape(alone));
        CHECK(pair.violation_kinds() == alone.violation_kinds());
        // And below the history: every host's events, packets, wall
        // readings and fsyncs at the same instants.
        sim::Activity pair_activity;
        const RunResult recorded = run_schedule(*plan, {std::min(f, g), std::max(f, g)}, &pair_activity);
        CHECK(same_activity(summarize(*plan, recorded, &pair_activity).activity, outcome.activity));
        kinds_seen.insert(plan->singles[f].spec.kind);
        ++same;
      } else if (judged_shape(pair) != judged_shape(alone)) {
        ++changed;
      }
    }
  }
  // Two delays said to hold the same packet in a run, or two clock jumps
  // said to meet the same wall reading, give the same run.
  std::size_t twins_alike = 0, twins_apart = 0;
  std::set<FaultKind> twin_kinds;
  for (std::size_t g = 1; g < plan->singles.size(); g += 5) {
    if (plan->singles[g].removed) continue;
    sim::Activity activity;
    const ScheduleOutcome outcome = summarize(*plan, run_schedule(*plan, {g}, &activity), &activity);
    for (std::size_t f = 0; f < plan->singles.size(); ++f)
      for (std::size_t t : plan->singles[f].twins) {
        if (t == g || f == g) continue;
        const bool alike = same_effect(plan->singles[t], plan->singles[f], outcome, &plan->singles[g]);
        if (!alike && twins_apart > 20) continue;
        sim::Activity twin_activity, f_activity;
        const RunResult with_twin = run_schedule(*plan, {std::min(t, g), std::max(t, g)}, &twin_activity);
        const RunResult with_f = run_schedule(*plan, {std::min(f, g), std::max(f, g)}, &f_activity);
        if (!alike) {
          twins_apart += judged_shape(with_twin) != judged_shape(with_f);
          continue;
        }
        INFO(plan->singles[f].text() << " and " << plan->singles[t].text() << " joining " << plan->singles[g].text());
        CHECK(judged_shape(with_twin) == judged_shape(with_f));
        CHECK(same_activity(summarize(*plan, with_twin, &twin_activity).activity,
                            summarize(*plan, with_f, &f_activity).activity));
        twin_kinds.insert(plan->singles[f].spec.kind);
        ++twins_alike;
      }
  }
  CHECK(twin_kinds == std::set<FaultKind>{FaultKind::Delay, FaultKind::ClockJump});
  CHECK(twins_alike > 50);
  CHECK(twins_apart > 0);

  // Partitions against the fault-free run (beside another partition they
  // are always taken to act).
  for (std::size_t f = 0; f < plan->singles.size(); ++f) {
    if (plan->singles[f].spec.kind != FaultKind::Partition) continue;
    if (acts_in_run(*plan, plan->singles[f], plan->baseline, {})) continue;
    const RunResult with = run_schedule(*plan, {f});
    CHECK(judged_shape(with) == judged_shape(run_schedule(*plan, {})));
    kinds_seen.insert(FaultKind::Partition);
    ++same;
  }
  CHECK(same > 50);
  CHECK(changed > 50);
  CHECK(kinds_seen == std::set<FaultKind>{FaultKind::Pause, FaultKind::Delay, FaultKind::Partition, FaultKind::ClockJump,
                                          FaultKind::FsyncStall});
}

TEST_CASE("a fault's trigger acts when its instant holds another event", "[scenarios]") {
  // A pause of A whose window holds none of A's events acts on nothing,
  // unless the yield at its trigger (sim_workload_world.cpp reach) could
  // let another event of that instant run first.
  const CheckPlan plan = tiny_plan(1, {FaultKind::Pause});
  const auto pause_a = std::find_if(plan.singles.begin(), plan.singles.end(), [](const CheckFault& f) {
    return f.spec.target == "A" && f.spec.at > Duration{0};  // fires 988 ms after its trigger
  });
  REQUIRE(pause_a != plan.singles.end());
  const Duration at = std::chrono::milliseconds(5);
  ScheduleOutcome run;
  run.reached.assign(plan.triggers.size(), std::nullopt);
  run.reached[pause_a->point] = at;
  run.activity.recorded = true;
  run.activity.events["A"] = {at};  // the event that reached the trigger, then nothing in the window
  CHECK_FALSE(acts_in_run(plan, *pause_a, run, {}));
  run.activity.unowned = {at};  // another event at the trigger's instant (of no host: a fault)
  CHECK(acts_in_run(plan, *pause_a, run, {}));
  const CheckFault same_trigger = *pause_a;  // another fault of the schedule yields there already
  CHECK_FALSE(acts_in_run(plan, *pause_a, run, {&same_trigger}));
  run.activity.events["A"] = {at, at + pause_a->spec.at + std::chrono::milliseconds(10)};  // one inside the window
  CHECK(acts_in_run(plan, *pause_a, run, {&same_trigger}));
}

TEST_CASE("recording a run's activity changes nothing in the run", "[scenarios]") {
  auto s = resolve_scenario("gc-pause");
  REQUIRE(s);
  RunOptions o;
  o.lock_kind = "token";
  const auto plain = run_scenario(*s, o);
  sim::Activity activity;
  o.activity = &activity;
  const auto recorded = run_scenario(*s, o);
  REQUIRE(plain);
  REQUIRE(recorded);
  CHECK(plain->digest == recorded->digest);
  CHECK(plain->events == recorded->events);
  std::size_t dispatched = 0;
  for (const auto& times : activity.dispatched) {
    dispatched += times.size();
    CHECK(std::is_sorted(times.begin(), times.end()));
  }
  CHECK(dispatched > 0);
  CHECK(dispatched <= recorded->events);
  CHECK(!activity.links.empty());
}

TEST_CASE("check explores no schedule that holds a smaller violating one", "[scenarios]") {
  // Two clients on a 1 s lock: a pause of A over the TTL lets B in while A
  // still believes (mutual-exclusion), so violating singles exist.
  auto s = load_scenario_text(R"(
name = "tiny-pair"
duration = "10s"
[lock]
ttl = "1s"
[[client]]
name = "A"
work = "500ms"
writes = 0
[[client]]
name = "B"
start = "100ms"
writes = 0
)",
                              "tiny-pair.toml");
  REQUIRE(s);
  CheckOptions o;
  o.lock_kind = "token";
  o.max_faults = 2;
  o.kinds = {FaultKind::Pause};
  auto plan = plan_check(*s, o);
  REQUIRE(plan);
  ScheduleCursor cursor(*plan);
  std::set<std::size_t> violating;
  std::size_t pairs = 0;
  for (auto next = cursor.next(); next.step == ScheduleCursor::Step::Schedule; next = cursor.next()) {
    const ScheduleOutcome outcome = learned(*plan, next.schedule);
    if (next.schedule.size() == 1 && outcome.violates) violating.insert(next.schedule.front());
    if (next.schedule.size() == 2) {
      ++pairs;
      CHECK(!violating.count(next.schedule[0]));
      CHECK(!violating.count(next.schedule[1]));
    }
    cursor.learn(next.schedule, outcome);
  }
  CHECK(!violating.empty());
  CHECK(pairs > 0);
  CHECK(cursor.removed().at(RemovalReason::HoldsViolating) > 0);
}

TEST_CASE("check removes a client's power loss as the crash it is, and that crash runs the same", "[scenarios]") {
  const CheckPlan plan = tiny_plan(1, {FaultKind::PowerLoss});
  REQUIRE(plan.singles.size() == 24);  // 3 points x 2 offsets x (A, redis-1) x 2 restart delays
  const auto [explored, removed] = walk(plan);
  CHECK(explored == 8);  // redis-1 at acquiring and acquired
  CHECK(removed == std::map<RemovalReason, std::uint64_t>{{RemovalReason::ClientPowerLoss, 12},
                                                          {RemovalReason::AfterLastEvent, 4}});
  // The removal is an equivalence: the client's power loss runs as its crash.
  std::size_t compared = 0;
  for (std::size_t i = 0; i < plan.singles.size(); ++i) {
    if (plan.singles[i].removed != RemovalReason::ClientPowerLoss) continue;
    Scenario power_loss = schedule_scenario(plan, {i}, 1);
    Scenario crash = power_loss;
    crash.faults[0].kind = FaultKind::Crash;
    RunOptions o;
    o.lock_kind = "token";
    const auto a = run_scenario(power_loss, o);
    const auto b = run_scenario(crash, o);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->events == b->events);
    CHECK(a->violation_kinds() == b->violation_kinds());
    CHECK(a->history.beliefs.size() == b->history.beliefs.size());
    ++compared;
  }
  CHECK(compared == 12);
}

TEST_CASE("check's schedules load back from their TOML and walk in the same order every time", "[scenarios]") {
  const CheckPlan plan = tiny_plan(2, {FaultKind::Pause, FaultKind::Partition});
  ScheduleCursor first(plan), second(plan);
  std::uint64_t n = 0;
  for (auto next = first.next(); next.step == ScheduleCursor::Step::Schedule; next = first.next()) {
    const auto again = second.next();
    REQUIRE(again.step == ScheduleCursor::Step::Schedule);
    REQUIRE(again.schedule == next.schedule);
    if (next.schedule.size() == 1) {
      const ScheduleOutcome summary = learned(plan, next.schedule);
      first.learn(next.schedule, summary);
      second.learn(next.schedule, summary);
    }
    if (++n % 37 != 1) continue;  // a sample: each is a full scenario round trip
    const Scenario s = schedule_scenario(plan, next.schedule, n);
    auto back = load_scenario_text(scenario_to_toml(s), s.name + ".toml");
    REQUIRE(back);
    CHECK(scenario_difference(s, *back).empty());
  }
  CHECK(second.next().step == ScheduleCursor::Step::End);
  CHECK(n > 0);
}

TEST_CASE("check refuses what it cannot enumerate, in one line", "[scenarios]") {
  auto s = load_scenario_text(kTinyCheck, "tiny-check.toml");
  REQUIRE(s);
  auto error_of = [&](CheckOptions o) {
    if (o.lock_kind.empty()) o.lock_kind = "token";
    auto plan = plan_check(*s, o);
    REQUIRE(!plan);
    return plan.error();
  };
  CHECK(error_of({"no-such-lock", 2, {}, ""}).find("no-such-lock") != std::string::npos);
  CHECK(error_of({"", 0, {}, ""}).find("--faults must be from 1 to 3") != std::string::npos);
  CHECK(error_of({"", kMaxCheckFaults + 1, {}, ""}).find("--faults must be from 1 to 3") != std::string::npos);
  CHECK(error_of({"", 2, {FaultKind::Failover}, ""}).find("needs replicas") != std::string::npos);
  CHECK(error_of({"", 2, {FaultKind::Heal}, ""}).find("not enumerated") != std::string::npos);
  CHECK(error_of({"", 2, {}, "two-holders"}).find("unknown violation") != std::string::npos);
  CHECK(error_of({"etcd-mutex", 2, {}, ""}).find("--lock") != std::string::npos);
}

// --- The fault kind table (scenarios/fault_kinds.hpp) -------------------------

TEST_CASE("the fault kind table has one entry per kind, in order, with a name that reads back", "[scenarios]") {
  const auto& table = fault_kind_table();
  REQUIRE(table.size() == all_fault_kinds().size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    const FaultKindInfo& info = table[i];
    INFO(info.name);
    CHECK(static_cast<std::size_t>(info.kind) == i);
    CHECK(fault_kind_from_name(info.name) == info.kind);
    CHECK(info.describe != nullptr);
    CHECK(info.acts_on != nullptr);
    CHECK(info.nemesis != nullptr);
    CHECK(info.hunt_candidates != nullptr);
    CHECK(info.hunt_fill != nullptr);
    CHECK(fault_takes_key(info.kind, "target") == (info.target != TargetRole::None));
  }
  CHECK_FALSE(fault_kind_from_name("fsync").has_value());
}

TEST_CASE("a fault's TOML keys, target role and words come from its table entry", "[scenarios]") {
  const auto with_fault = [](const std::string& body) { return kHead + "[[fault]]\n" + body; };
  CHECK(outcome(with_fault("kind = \"restart\"\ntarget = \"A\"\nduration = \"1s\"\n")) ==
        "t.toml:8: fault[1].duration: a \"restart\" fault takes no \"duration\" (it takes target, at, after)");
  const auto s = load(with_fault("kind = \"delay\"\nfrom = \"A\"\nto = \"storage\"\nduration = \"2s\"\n"));
  REQUIRE(s.ok());
  const FaultSpec& f = s.value().faults.at(0);
  CHECK(fault_kind_info(f.kind).describe(f) == "delay A->storage 2s");
  CHECK(fault_acts_on(f) == std::vector<std::string>{"A -> storage"});
  CHECK(fault_record_target(f) == "A");
  CHECK_FALSE(fault_is_timed(f));
}

TEST_CASE("fsync-stall's table entry: a Redis node for a duration, in the crash / power loss class", "[scenarios]") {
  const FaultKindInfo& info = fault_kind_info(FaultKind::FsyncStall);
  CHECK(info.name == "fsync-stall");
  CHECK(info.target == TargetRole::RedisNode);
  CHECK(info.report_class == FaultClass::CrashPowerLoss);
  CHECK_FALSE(info.hunted_by_default);
  CHECK_FALSE(fault_kind_info(FaultKind::Heal).report_class.has_value());
  const auto hunted = default_hunt_kinds();
  CHECK(std::find(hunted.begin(), hunted.end(), FaultKind::FsyncStall) == hunted.end());
  CHECK(std::find(hunted.begin(), hunted.end(), FaultKind::Pause) != hunted.end());
  FaultSpec f;
  f.kind = FaultKind::FsyncStall;
  f.target = "redis-1";
  f.duration = std::chrono::seconds(2);
  CHECK(info.describe(f) == "fsync-stall redis-1 2s");
  CHECK(fault_is_timed(f));
}

TEST_CASE("the duration printer and reader share one unit table", "[scenarios]") {
  CHECK(duration_unit_names() == "ns, us, ms, s, m, h");
  for (const char* text : {"7ns", "3us", "150ms", "45s", "2m", "5h", "-5s", "0"}) {
    INFO(text);
    const auto d = parse_duration(text);
    REQUIRE(d.has_value());
    CHECK(duration_text(*d) == text);
  }
  CHECK(duration_text(std::chrono::milliseconds(1500)) == "1500ms");
  CHECK(duration_text(std::chrono::seconds(20), true) == "+20s");
  CHECK(duration_range_text(*parse_duration_range("1ms..3ms")) == "1ms..3ms");
  CHECK(redis_hosts(2, 1).by_shard == std::vector<std::string>{"redis-1", "redis-1-replica-1", "redis-2", "redis-2-replica-1"});
}

TEST_CASE("host names are built and recognised in one place", "[scenarios]") {
  const RedisHosts h = redis_hosts(2, 1);
  CHECK(h.masters == std::vector<std::string>{"redis-1", "redis-2"});
  CHECK(h.replicas == std::vector<std::string>{"redis-1-replica-1", "redis-2-replica-1"});
  CHECK(redis_host_name(3, 2) == "redis-3-replica-2");
  CHECK(is_redis_host_name("redis-2-replica-1"));
  CHECK_FALSE(is_redis_host_name("storage"));
  CHECK(redis_master_of("redis-2-replica-1") == "redis-2");
  CHECK(redis_master_of("redis-2") == "redis-2");
  for (const char* name : {"storage", "sentinel", "redis-1", "redis-x"}) CHECK(is_reserved_host_name(name));
  CHECK_FALSE(is_reserved_host_name("A"));
  CHECK(generated_client_name(0) == "A");
  CHECK(generated_client_name(2) == "C");
  CHECK(duration_over_cap(kMaxDuration) == std::nullopt);
  CHECK(duration_over_cap(-kMaxDuration - 1ns).has_value());
}
