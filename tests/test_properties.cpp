// The property suite ([property]): safety properties of the locks under
// generated fault schedules (rapidcheck, testing/rapidcheck_generators.hpp),
// and the converse for unsafe locks: a counterexample must be FOUND and
// shrink to its canonical shape, so a regression that hides a bug (a checker
// that stops seeing it, a fault that stops firing) fails CI too.
//
// Cost and reproducibility: tests/main.cpp fixes rapidcheck's seed unless
// RC_PARAMS is set, and LOCKSIM_PROPERTY_CASES sets max_success (default
// 100 per property) for a nightly job. A failing property prints, on stdout
// and unwrapped (testing/rapidcheck_property.hpp), rapidcheck's
// counterexample, the minimal scenario as TOML written to a temp file with the
// `locksim run FILE.toml` command that reruns it, and the
// RC_PARAMS="reproduce=..." string that replays it (rapidcheck lists it at
// exit too). The safety properties are lock properties
// (testing/lock_property.hpp): with LOCKSIM_EXAMPLES_DIR set they keep the
// case they shrank to there and replay the kept ones first (tests/main.cpp
// keeps none by default, so one test's finds never change another's).
#include <catch2/catch.hpp>
#include <unistd.h>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/parallel.hpp"
#include "cli/sweep.hpp"
#include "locks/lock_base.hpp"
#include "locks/registry.hpp"
#include "reports/run_output.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/check.hpp"
#include "scenarios/inventory_workload.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/schedule_gen.hpp"
#include "scenarios/scenario_writer.hpp"
#include "testing/lock_property.hpp"
#include "testing/rapidcheck_generators.hpp"
#include "testing/rapidcheck_property.hpp"

namespace {

using namespace locksim;
using namespace locksim::scenarios;
namespace fs = std::filesystem;

// --- helpers -------------------------------------------------------------------

std::string temp_toml(const std::string& tag) {
  std::string name = "locksim-property-" + tag + ".toml";
  for (char& c : name)
    if (c == ' ' || c == '/') c = '-';
  return (fs::temp_directory_path() / name).string();
}

// Writes the scenario to a temp .toml; returns how to rerun it.
std::string repro_note(const Scenario& s, const std::string& lock, std::uint64_t seed, const std::string& tag) {
  const std::string path = temp_toml(tag);
  std::ofstream(path) << scenario_to_toml(s);
  const std::string cmd = "locksim run " + path + " --lock " + lock + " --seed " + std::to_string(seed);
  return "minimal scenario written to " + path + "\n  rerun:  " + cmd + "\n  replay: locksim replay \"" + cmd +
         "\"\n" + scenario_to_toml(s);
}

RunResult run_once(const Scenario& s, const std::string& lock, std::uint64_t seed) {
  RunOptions options;
  options.lock_kind = lock;
  options.seed = seed;
  auto run = run_scenario(s, options);
  if (!run) throw std::runtime_error("cannot run " + lock + ": " + run.error());
  return std::move(run.value());
}

std::uint64_t run_seed() { return *rc::gen::inRange<std::uint64_t>(1, 1000); }

// "`lock` never shows a `forbidden` kind (any kind when empty) on scenarios
// drawn within `limits`" (testing/lock_property.hpp).
void check_lock_safety(const std::string& name, const std::string& lock, const std::set<std::string>& forbidden,
                       const GenLimits& limits) {
  testing::check_lock_property({name, lock, forbidden}, [&] {
    return testing::LockCase{build_scenario(*testing::gen_scenario_draw(limits), lock, limits), run_seed()};
  });
}

// The Redis locks: every generated scenario is a Redis topology.
std::vector<std::string> lock_names() {
  std::vector<std::string> names;
  for (const auto& info : locks::all_locks())
    if (info.topology == locks::Topology::Redis) names.push_back(info.name);
  return names;
}

bool is_client(const Scenario& s, const std::string& host) {
  for (const auto& c : s.clients)
    if (c.name == host) return true;
  return false;
}

// --- counterexamples that must be found ------------------------------------------

class SilentListener final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

struct Counterexample {
  bool found = false;
  Scenario minimal;
  std::string how;  // rapidcheck's message or the hunt's figures
};

// rapidcheck checks "lock never shows `kind`" and must falsify it; the last
// failing case it ran is the one it shrank to. Run seed 1 throughout.
// `cases`: how many cases at least (rapidcheck's max_success, when RC_PARAMS
// does not ask for more).
Counterexample rc_counterexample(const std::string& lock, const GenLimits& limits, const std::string& kind,
                                 int cases = 3000) {
  std::optional<Scenario> last;
  const auto property = [&] {
    // Full size from the first case (rapidcheck otherwise starts near 0).
    const Scenario s = build_scenario(*rc::gen::resize(100, testing::gen_scenario_draw(limits)), lock, limits);
    const auto run = run_once(s, lock, 1);
    const bool shows = run.violation_kinds().count(kind) > 0;
    if (shows) last = s;
    RC_ASSERT(!shows);
  };
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = "expected counterexample: " + lock + " " + kind;
  SilentListener quiet;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = std::max(params.maxSuccess, cases);  // it stops at the first counterexample
  const auto result = rc::detail::checkProperty(rc::detail::toProperty(property), metadata, params, quiet);
  Counterexample out;
  out.found = result.is<rc::detail::FailureResult>() && last.has_value();
  if (last) out.minimal = *last;
  std::ostringstream msg;
  rc::detail::printResultMessage(result, msg);
  out.how = msg.str();
  return out;
}

Counterexample hunt_counterexample(const std::string& lock, const GenLimits& limits, const std::string& kind,
                                   std::uint64_t budget = 2000) {
  HuntOptions o;
  o.lock_kind = lock;
  o.limits = limits;
  o.violation = kind;
  o.budget = budget;
  const HuntResult r = hunt(o);
  return {r.found, r.minimal,
          "hunt: case " + std::to_string(r.case_index + 1) + ", shrunk in " + std::to_string(r.shrink.runs) + " runs"};
}

// Both searches find it. `shape(s, strict)` checks the minimal scenario:
// strictly for the hunt's shrinker (deterministic: its seed is fixed), more
// loosely for rapidcheck's, which cannot drop a fault that only shifts the
// timing and whose seed a nightly job changes.
template <class Shape>
void expect_counterexample(const std::string& lock, const GenLimits& limits, const std::string& kind, Shape shape) {
  for (const auto& [source, found] :
       {std::pair{"rapidcheck", rc_counterexample(lock, limits, kind)}, {"hunt", hunt_counterexample(lock, limits, kind)}}) {
    INFO(source << " for " << lock << " / " << kind << ": " << found.how);
    REQUIRE(found.found);
    INFO(repro_note(found.minimal, lock, 1, std::string("found-") + source + "-" + lock));
    const RunResult run = run_once(found.minimal, lock, 1);
    CHECK(run.violation_kinds().count(kind) == 1);
    shape(found.minimal, std::string(source) == "hunt");
  }
}

// At most one fault (strict) or two, all of `kind`.
void check_faults_of(const Scenario& s, FaultKind kind, bool strict) {
  REQUIRE(!s.faults.empty());
  CHECK(s.faults.size() <= (strict ? 1U : 2U));
  for (const FaultSpec& f : s.faults) CHECK(f.kind == kind);
}

GenLimits limits_of(std::vector<FaultKind> kinds, int max_clients = 3, int max_faults = 2) {
  GenLimits l;
  l.kinds = std::move(kinds);
  l.max_clients = max_clients;
  l.max_faults = max_faults;
  return l;
}

}  // namespace

// --- the TOML writer -------------------------------------------------------------

TEST_CASE("every catalog scenario written as TOML loads back equal", "[property][writer]") {
  for (const auto& entry : catalog()) {
    const auto s = load_catalog_scenario(entry.name);
    REQUIRE(s);
    const std::string text = scenario_to_toml(*s);
    const auto back = load_scenario_text(text, entry.file);
    INFO(entry.name << "\n" << text);
    REQUIRE(back);
    CHECK(scenario_difference(*s, *back) == "");
  }
}

TEST_CASE("every generated scenario written as TOML loads back equal", "[property][writer]") {
  testing::check_property("build_scenario output round-trips through the writer and the loader", [] {
    const auto draw = *rc::gen::arbitrary<ScenarioDraw>();
    const std::string lock = *rc::gen::elementOf(lock_names());
    GenLimits limits;
    limits.kinds = default_hunt_kinds();
    const Scenario s = build_scenario(draw, lock, limits);
    const std::string text = scenario_to_toml(s);
    const auto back = load_scenario_text(text, "generated.toml");
    RC_LOG() << text;
    RC_ASSERT(back.ok());
    RC_ASSERT(scenario_difference(s, *back) == "");
  });
}

TEST_CASE("every generated sale written as TOML loads back equal", "[property][writer]") {
  GenLimits limits;
  limits.kinds = default_hunt_kinds();
  for (const std::string& name : inventory_method_names()) limits.inventory_methods.push_back(*inventory_method_of(name));
  testing::check_property("build_scenario of a drawn sale round-trips through the writer and the loader", [&] {
    const Scenario s = build_scenario(*testing::gen_scenario_draw(limits), *rc::gen::elementOf(lock_names()), limits);
    const auto back = load_scenario_text(scenario_to_toml(s), "sale.toml");
    RC_LOG() << scenario_to_toml(s);
    RC_ASSERT(s.workload == WorkloadKind::Inventory);
    RC_ASSERT(back.ok());
    RC_ASSERT(scenario_difference(s, *back) == "");
  });
}

// --- safety properties ---------------------------------------------------------------

TEST_CASE("fenced storage never accepts a stale write from a lock that passes a fencing token, under any schedule",
          "[property]") {
  GenLimits limits;
  limits.kinds = default_hunt_kinds();
  limits.spare_counter_node = true;  // the token counter's node never crashes or fails over
  for (const auto& info : locks::all_locks()) {
    if (!info.fencing || info.topology != locks::Topology::Redis) continue;
    const std::string name = info.name + " never gets a stale write past fencing storage";
    testing::check_lock_property({name, info.name, {"stale-write"}}, [&] {
      const Scenario s = build_scenario(*testing::gen_scenario_draw(limits), info.name, limits);
      RC_ASSERT(s.fencing);  // the generator gives a fenced lock what it assumes
      return testing::LockCase{s, run_seed()};
    });
  }
}

TEST_CASE("the token lock never releases another client's lock, under any schedule", "[property]") {
  GenLimits limits;
  limits.kinds = default_hunt_kinds();
  check_lock_safety("token shows no wrong-owner-release", "token", {"wrong-owner-release"}, limits);
}

TEST_CASE("with no faults and work shorter than the TTL every lock kind is safe", "[property]") {
  GenLimits limits;  // no fault kinds: no faults; generated work is at most 80% of the TTL
  for (const std::string& lock : lock_names())
    check_lock_safety(lock + " shows no violation without faults", lock, {}, limits);
}

TEST_CASE("Redlock stays safe when only a minority of its nodes crash or are cut off and restarts wait out the TTL",
          "[property]") {
  GenLimits limits;
  limits.kinds = {FaultKind::Crash, FaultKind::PowerLoss, FaultKind::Partition};
  limits.minority_nodes_only = true;  // no pauses, no clock steps, no client faults
  limits.restart_after_ttl = true;
  limits.allow_replicas = false;
  // Safety only: a node that stays down with a slow network may keep a
  // client from ever reaching a quorum (lock-unavailable is liveness).
  check_lock_safety("redlock shows no mutual-exclusion, wrong-owner-release or stale-write", "redlock",
                    {"mutual-exclusion", "wrong-owner-release", "stale-write"}, limits);
}

// --- determinism -------------------------------------------------------------------------

TEST_CASE("any generated scenario gives the same digest when it runs twice", "[property]") {
  testing::check_property("two runs of one scenario, lock and seed have one digest", [] {
    const std::string lock = *rc::gen::elementOf(lock_names());
    const Scenario s = build_scenario(*rc::gen::arbitrary<ScenarioDraw>(), lock,
                                      limits_of(default_hunt_kinds(), 4, 3));
    const std::uint64_t seed = run_seed();
    const RunResult a = run_once(s, lock, seed), b = run_once(s, lock, seed);
    RC_LOG() << repro_note(s, lock, seed, "determinism");
    RC_ASSERT(a.digest == b.digest);
    RC_ASSERT(a.events == b.events);
  });
}

namespace {

std::vector<std::string> digests_of(const std::string& jsonl) {
  std::vector<std::string> out;
  std::ifstream in(jsonl);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line).value("digest", std::string()));
  return out;
}

}  // namespace

TEST_CASE("generated scenarios give the same digests under sweep --jobs 1 and --jobs 2 as a single run",
          "[property]") {
  const GenLimits limits = limits_of(default_hunt_kinds(), 4, 3);
  for (std::uint64_t i = 0; i < 6; ++i) {
    const std::string lock = lock_names()[i * 5 % lock_names().size()];
    const Scenario s = generate_scenario(i + 100, lock, limits);
    const std::string path = temp_toml("sweep-" + std::to_string(i));
    std::ofstream(path) << scenario_to_toml(s);
    std::vector<std::string> by_jobs[2];
    for (unsigned jobs : {1U, 2U}) {
      cli::SweepOptions o;
      o.scenarios = {path};
      o.locks = {lock};
      o.seeds = 4;
      o.jobs = jobs;
      o.out = path + ".jobs" + std::to_string(jobs) + ".jsonl";
      std::ostringstream log;
      cli::run_sweep(o, log);
      by_jobs[jobs - 1] = digests_of(o.out);
      fs::remove(o.out);
    }
    INFO(repro_note(s, lock, 1, "sweep-" + std::to_string(i)));
    REQUIRE(by_jobs[0].size() == 4);
    CHECK(by_jobs[0] == by_jobs[1]);
    CHECK(by_jobs[0].front() == sim::Trace::hex(run_once(s, lock, 1).digest));
  }
}

// --- unsafe locks: the counterexample is found and shrinks to its canonical shape ----------

TEST_CASE("naive-del loses mutual exclusion under a pause, and it shrinks to one pause and two or three clients",
          "[property]") {
  expect_counterexample("naive-del", limits_of({FaultKind::Pause}), "mutual-exclusion", [](const Scenario& s,
                                                                                       bool strict) {
    check_faults_of(s, FaultKind::Pause, strict);
    CHECK(s.clients.size() >= 2);
    CHECK(s.clients.size() <= 3);
    if (!strict) return;
    // The pause outlasts what is left of the lease: longer than the TTL less
    // the paused client's work (a pause before the acquire reply is handled
    // stretches the section from its start).
    const FaultSpec& pause = s.faults.front();
    REQUIRE(is_client(s, pause.target));
    const auto& work = std::find_if(s.clients.begin(), s.clients.end(),
                                    [&](const ClientSpec& c) { return c.name == pause.target; })->work;
    CHECK(pause.duration + work > s.lock.ttl);
  });
}

TEST_CASE("the token lock lets a stale write through under a pause, and it shrinks to one pause",
          "[property]") {
  expect_counterexample("token", limits_of({FaultKind::Pause}), "stale-write", [](const Scenario& s, bool strict) {
    check_faults_of(s, FaultKind::Pause, strict);
    CHECK(s.clients.size() <= 3);
  });
}

// A crash strands a no-ttl entry: the holder's crash, or a Redis node's
// restart that replays the entry from its AOF. Both searches find it.
TEST_CASE("no-ttl stays locked after a crash, and it shrinks to one crash", "[property]") {
  expect_counterexample("no-ttl", limits_of({FaultKind::Crash}), "lock-unavailable", [](const Scenario& s, bool strict) {
    check_faults_of(s, FaultKind::Crash, strict);
  });
}

// setnx-expire strands its entry only when the holder dies in the one round
// trip between SETNX's reply and EXPIRE: random search needs a few thousand
// cases to land there, so the guard is the deterministic hunt (fixed seed)
// with a larger budget; it must still find it and shrink it to one crash.
TEST_CASE("setnx-expire stays locked after a crash between SETNX and EXPIRE, found by hunt", "[property]") {
  const Counterexample found =
      hunt_counterexample("setnx-expire", limits_of({FaultKind::Crash}), "lock-unavailable", 20000);
  INFO(found.how);
  REQUIRE(found.found);
  INFO(repro_note(found.minimal, "setnx-expire", 1, "found-hunt-setnx-expire"));
  CHECK(run_once(found.minimal, "setnx-expire", 1).violation_kinds().count("lock-unavailable") == 1);
  check_faults_of(found.minimal, FaultKind::Crash, true);
}

TEST_CASE("Redlock loses mutual exclusion to clock jumps on its nodes, and it shrinks to forward jumps on nodes",
          "[property]") {
  GenLimits limits = limits_of({FaultKind::ClockJump}, 2, 3);
  limits.nodes_only = true;
  expect_counterexample("redlock", limits, "mutual-exclusion", [](const Scenario& s, bool) {
    REQUIRE(!s.faults.empty());
    for (const FaultSpec& f : s.faults) {
      CHECK(f.kind == FaultKind::ClockJump);
      CHECK(f.target.rfind("redis-", 0) == 0);
      CHECK(f.by > Duration::zero());
    }
  });
}

TEST_CASE("the shrinker reduces gc-pause for naive-del to its pause and fewer clients", "[property]") {
  const auto gc = load_catalog_scenario("gc-pause");
  REQUIRE(gc);
  ShrinkStats stats;
  const Scenario minimal =
      shrink_scenario(*gc, shows_violation("naive-del", 1, "mutual-exclusion"), 1500, &stats);
  INFO(scenario_to_toml(minimal) << "runs " << stats.runs);
  REQUIRE(minimal.faults.size() == 1);
  CHECK(minimal.faults.front().kind == FaultKind::Pause);
  CHECK(minimal.faults.front().duration > minimal.lock.ttl - minimal.clients.front().work);
  CHECK(minimal.clients.size() == 2);
  CHECK(minimal.duration < gc->duration);
  CHECK(shows_violation("naive-del", 1, "mutual-exclusion")(minimal));
  // Runs are counted, not timed: 33 since a value that cannot be lowered
  // costs two runs and a last numbers pass only follows a structural change
  // (64 before).
  CHECK(stats.runs <= 36);
}

namespace {

// A 10 s scenario of one client, A, with this [redis] table and one fault.
Scenario one_client_scenario(const std::string& redis, const std::string& fault) {
  const auto loaded = load_scenario_text("name = \"inline\"\nduration = \"10s\"\n[lock]\nttl = \"1s\"\n[redis]\n" +
                                             redis + "\n[[client]]\nname = \"A\"\n[[fault]]\n" + fault,
                                         "inline");
  REQUIRE(loaded.ok());
  return loaded.value();
}

}  // namespace

TEST_CASE("a shrunk scenario always survives its TOML round trip", "[property]") {
  // Dropping the replica keeps the predicate true but leaves a failover
  // fault the file format refuses (it needs replicas >= 1): the shrink that
  // checks the round trip only on its result must notice and shrink again.
  const Scenario subject = one_client_scenario("replicas = 1", "kind = \"failover\"\ntarget = \"redis-1\"\nat = \"2s\"");
  const ScenarioPredicate has_failover = [](const Scenario& s) {
    return std::any_of(s.faults.begin(), s.faults.end(),
                       [](const FaultSpec& f) { return f.kind == FaultKind::Failover; });
  };
  ShrinkStats stats;
  const Scenario minimal = shrink_scenario(subject, has_failover, 1500, &stats);
  INFO(scenario_to_toml(minimal) << "runs " << stats.runs);
  CHECK(load_scenario_text(scenario_to_toml(minimal), "round trip").ok());
  CHECK(minimal.redis.replicas == 1);
  CHECK(has_failover(minimal));
  CHECK(minimal.duration < subject.duration);  // the steps that keep the round trip still happen
}

TEST_CASE("the shrinker drops the replicas and masters that a partition names", "[property]") {
  // A dropped node leaves the partition's groups with it; left there, the
  // file format refuses its name and the smaller topology is never taken.
  const Scenario subject = one_client_scenario(
      "masters = 2\nreplicas = 1",
      "kind = \"partition\"\ngroups = [[\"A\"], [\"redis-1\", \"redis-1-replica-1\", \"redis-2\", \"redis-2-replica-1\"]]\n"
      "at = \"2s\"\nduration = \"1s\"");
  const ScenarioPredicate has_partition = [](const Scenario& s) {
    return !s.faults.empty() && s.faults.front().kind == FaultKind::Partition;
  };
  const Scenario minimal = shrink_scenario(subject, has_partition);
  INFO(scenario_to_toml(minimal));
  CHECK(minimal.redis.replicas == 0);
  CHECK(minimal.redis.masters == 1);
  REQUIRE(has_partition(minimal));
  CHECK(minimal.faults.front().groups == std::vector<std::vector<std::string>>{{"A"}, {"redis-1"}});
}

// ... for any number of search threads (hunt --jobs: cli/parallel.hpp's
// hunt_cases_on_threads): the cases are taken in index order, so the first
// failing one is the same.
TEST_CASE("the same hunt seed and budget find the same minimal scenario, with any --jobs", "[property]") {
  HuntOptions o;
  o.lock_kind = "naive-del";
  o.limits = limits_of(default_hunt_kinds(), 4, 3);
  o.seed = 7;
  o.budget = 500;
  const HuntResult a = hunt(o), b = hunt(o);
  REQUIRE(a.found);
  CHECK(a.case_index == b.case_index);
  CHECK(scenario_to_toml(a.minimal) == scenario_to_toml(b.minimal));
  o.case_source = locksim::cli::hunt_cases_on_threads(3);
  const HuntResult threaded = hunt(o);
  REQUIRE(threaded.found);
  CHECK(threaded.case_index == a.case_index);
  CHECK(threaded.cases == a.cases);
  CHECK(scenario_to_toml(threaded.minimal) == scenario_to_toml(a.minimal));
  if (a.case_index > 0) {  // a budget that stops short of it: none found, every case run
    o.budget = a.case_index;
    const HuntResult short_of_it = hunt(o);
    CHECK_FALSE(short_of_it.found);
    CHECK(short_of_it.cases == a.case_index);
  }
}

// --- reproductions of shipped client bugs (docs/reproductions.md) ----------------

// `locksim hunt --lock X` with its defaults finds each reproduced bug without
// being given its catalog scenario, and the minimal scenario breaks the
// shipped version while the fix holds, each within the default 1000 cases
// (docs/reproductions.md has the figures).
TEST_CASE("locksim hunt finds each reproduced client bug blind, in a run its fix survives", "[property][hunt]") {
  const std::map<std::string, std::uint64_t> budget = {
      {"shedlock-redis", 1000}, {"redlock-py-pr3", 1000}, {"redisson-watchdog-3194", 1000},
      {"node-redlock-169", 1000}, {"redlock-net-48", 1000}, {"redlock-py", 1000},
      {"etcd-mutex-11456", 1000}, {"redlock-rb-36", 1000}};
  std::size_t hunted = 0;
  for (const auto& info : locks::all_locks()) {
    if (!info.reproduces) continue;
    INFO(info.name);
    REQUIRE(budget.count(info.name) == 1);  // a new reproduction states the budget its hunt needs
    HuntOptions options = default_hunt_options(info);
    options.budget = budget.at(info.name);
    const HuntResult r = hunt(options);
    REQUIRE(r.found);
    CHECK(r.violation == info.reproduces->violation);
    INFO(repro_note(r.minimal, info.name, 1, "reproduction-" + info.name));
    CHECK(run_once(r.minimal, info.name, 1).violation_kinds().count(r.violation) == 1);
    CHECK(run_once(r.minimal, info.reproduces->fixed_by, 1).violation_kinds().count(r.violation) == 0);
    ++hunted;
  }
  CHECK(hunted == budget.size());
}

// --- every operation a lock implements is exercised (issue 35) ---------------------

namespace {

// A user's token lock whose extend() renews with a bare PEXPIRE, without
// checking the token: after its holder paused past the TTL, it renews the
// next holder's entry. Every test passed it while generated clients never
// extended (issue 35).
class BarePexpireTokenLock final : public locks::LockBase {
 public:
  using LockBase::LockBase;
  Task<bool> release(locks::Lease& lease) override {
    Reply r = co_await cmd(0, "EVAL", locks::kCompareAndDeleteScript, "1", lease.key, lease.token);
    co_return r.is_integer(1);
  }
  Task<bool> extend(locks::Lease& lease) override {
    Reply r = co_await cmd(0, "PEXPIRE", lease.key, locks::ms_arg(config_.ttl));
    co_return r.is_integer(1);
  }

 protected:
  Task<std::optional<locks::Lease>> attempt() override { return set_nx_px(fresh_token()); }
};

const locks::LockInfo& bare_pexpire_lock() {
  static const locks::LockInfo info = [] {
    locks::LockInfo i;
    i.name = "test-token-bare-pexpire";
    i.description = "token lock whose extend sends a bare PEXPIRE (a user's bug)";
    i.source = "tests/test_properties.cpp";
    i.factory = [](locks::Runtime& rt, const locks::LockConfig& c) {
      return std::make_unique<BarePexpireTokenLock>(rt, c);
    };
    REQUIRE(locks::register_lock(i));
    return i;
  }();
  return info;
}

bool any_extends(const Scenario& s) {
  return std::any_of(s.clients.begin(), s.clients.end(), [](const ClientSpec& c) { return c.extends; });
}

}  // namespace

TEST_CASE("hunt with default options finds a token lock whose extend does not check the token", "[property][hunt]") {
  const locks::LockInfo& info = bare_pexpire_lock();
  // `locksim hunt --lock L --property wrong-owner-release`, every other option its default.
  HuntOptions o = default_hunt_options(info);
  o.violation = "wrong-owner-release";
  const HuntResult r = hunt(o);
  INFO("cases " << r.cases);
  REQUIRE(r.found);
  INFO(repro_note(r.minimal, info.name, 1, "bare-pexpire"));
  CHECK(r.violation == "wrong-owner-release");
  CHECK(run_once(r.minimal, info.name, 1).violation_kinds().count("wrong-owner-release") == 1);
  // The minimal case is about extend: a client extends, and the token lock
  // (compare-and-pexpire) shows no wrong-owner-release on it.
  CHECK(any_extends(r.minimal));
  CHECK(run_once(r.minimal, "token", 1).violation_kinds().count("wrong-owner-release") == 0);
  Scenario plain = r.minimal;
  for (ClientSpec& c : plain.clients) c.extends = false;
  CHECK(run_once(plain, info.name, 1).violation_kinds().count("wrong-owner-release") == 0);
  // And `locksim hunt --lock L` with no option at all finds a violation too.
  CHECK(hunt(default_hunt_options(info)).found);
}

namespace {

// The single-pause schedules of one check pass (`locksim check gc-pause
// --lock L --faults 1 --kinds pause`) that show wrong-owner-release.
std::size_t wrong_owner_releases(const Scenario& base, const CheckOptions& pass) {
  auto plan = plan_check(base, pass);
  REQUIRE(plan);
  std::size_t found = 0;
  for (std::size_t i = 0; i < plan->singles.size(); ++i) {
    const Scenario s = schedule_scenario(*plan, {i}, i + 1);
    RunOptions o;
    o.lock_kind = plan->lock_kind;
    o.seed = 1;
    const auto run = run_scenario(s, o);
    REQUIRE(run);
    const auto kinds = counted_violations(*plan, *run);
    found += static_cast<std::size_t>(std::count(kinds.begin(), kinds.end(), "wrong-owner-release"));
  }
  return found;
}

}  // namespace

TEST_CASE("check runs an extend pass for a lock that implements extend, and it catches a bare-PEXPIRE extend",
          "[property][check]") {
  const locks::LockInfo& info = bare_pexpire_lock();
  const auto base = load_catalog_scenario("gc-pause");
  REQUIRE(base);
  REQUIRE_FALSE(any_extends(*base));
  CheckOptions o;
  o.lock_kind = info.name;
  o.max_faults = 1;
  o.kinds = {FaultKind::Pause};
  o.property = "wrong-owner-release";
  const auto passes = check_passes(*base, o);
  REQUIRE(passes.size() == 2);
  CHECK_FALSE(passes[0].every_client_extends);
  CHECK(passes[1].every_client_extends);
  CHECK(wrong_owner_releases(*base, passes[0]) == 0);  // as written, nobody extends: a false green
  CHECK(wrong_owner_releases(*base, passes[1]) > 0);   // the extend pass finds the bug
  // The token lock's compare-and-pexpire passes both.
  o.lock_kind = "token";
  for (const CheckOptions& pass : check_passes(*base, o)) CHECK(wrong_owner_releases(*base, pass) == 0);
  // Nothing to renew: one pass.
  o.lock_kind = "no-ttl";
  CHECK(check_passes(*base, o).size() == 1);
}

// What the example's property test (examples/custom-lock/my_lock_test.cpp)
// runs, on this lock: rapidcheck with the lock's own limits must falsify
// "never releases another client's lock" within the example's case count.
TEST_CASE("the example's generated-schedule property catches a token lock whose extend does not check the token",
          "[property]") {
  const locks::LockInfo& info = bare_pexpire_lock();
  GenLimits limits = default_hunt_options(info).limits;
  const Counterexample found = rc_counterexample(info.name, limits, "wrong-owner-release", 1000);
  INFO(found.how);
  REQUIRE(found.found);
  CHECK(any_extends(found.minimal));
}

TEST_CASE("generated clients extend as drawn where the lock implements extend, never where it does not",
          "[property][hunt]") {
  const GenLimits limits = limits_of(default_hunt_kinds(), 4, 3);
  std::size_t extending = 0, plain = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    for (const Scenario& s : {generate_scenario(seed, "token", limits), generate_scenario(seed, "naive-del", limits)}) {
      for (const ClientSpec& c : s.clients) (c.extends ? extending : plain) += 1;
    }
    CHECK_FALSE(any_extends(generate_scenario(seed, "no-ttl", limits)));  // nothing to renew
    CHECK_FALSE(any_extends(generate_scenario(seed, "zk-lock", limits)));  // Curator has no extend
    GenLimits sale = limits;
    sale.inventory_methods = hunted_inventory_methods();
    CHECK_FALSE(any_extends(generate_scenario(seed, "token", sale)));  // a buyer does not extend
    GenLimits all = limits;
    all.extending_clients = true;  // LockInfo::extends_before_writes
    for (const ClientSpec& c : generate_scenario(seed, "token", all).clients) CHECK(c.extends);
  }
  CHECK(extending > 40);  // both paths are drawn
  CHECK(plain > 40);
  CHECK_FALSE(locks::find_lock("no-ttl")->implements_extend);
  CHECK_FALSE(locks::find_lock("zk-lock")->implements_extend);
  CHECK_FALSE(locks::find_lock("zk-fenced")->implements_extend);
  CHECK(locks::find_lock("token")->implements_extend);
}

TEST_CASE("the shrinker stops a client extending when the violation does not need it", "[hunt][property]") {
  const auto base = load_catalog_scenario("gc-pause");
  REQUIRE(base);
  Scenario s = *base;
  for (ClientSpec& c : s.clients) c.extends = true;
  s.expect_default.reset();
  s.expect_by_lock.clear();
  // naive-del's DEL removes the next holder's lock whether or not anyone extends.
  const Scenario minimal = shrink_scenario(s, shows_violation("naive-del", 1, "wrong-owner-release"), 400);
  CHECK(run_once(minimal, "naive-del", 1).violation_kinds().count("wrong-owner-release") == 1);
  CHECK_FALSE(any_extends(minimal));
}

// --- hunting a sale (`hunt --workload inventory`, issue 17) ----------------------

namespace {

GenLimits sale_limits(std::vector<InventoryMethod> methods, std::vector<FaultKind> kinds = {FaultKind::Pause}) {
  GenLimits l = limits_of(std::move(kinds));
  l.inventory_methods = std::move(methods);
  return l;
}

HuntOptions sale_hunt(const std::string& lock, std::vector<InventoryMethod> methods, const std::string& violation,
                      std::uint64_t budget) {
  HuntOptions o = default_hunt_options(*locks::find_lock(lock));
  o.limits.kinds = {FaultKind::Pause};
  o.limits.inventory_methods = std::move(methods);
  o.violation = violation;
  o.budget = budget;
  return o;
}

int total_buys(const Scenario& s) {
  int n = 0;
  for (const ClientSpec& c : s.clients) n += c.buys;
  return n;
}

}  // namespace

TEST_CASE("a drawn sale is a valid inventory scenario for every method and loads back equal", "[hunt][property]") {
  for (const std::string& name : inventory_method_names()) {
    const InventoryMethod method = *inventory_method_of(name);
    const GenLimits limits = sale_limits({method}, default_hunt_kinds());
    std::set<std::int64_t> stocks, segments;
    int most_buys = 0, unique = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      const Scenario s = generate_scenario(seed, "token", limits);
      INFO(name << ", seed " << seed << "\n" << scenario_to_toml(s));
      REQUIRE(s.workload == WorkloadKind::Inventory);
      CHECK(s.inventory.method == method);
      CHECK(s.inventory.segments <= s.inventory.stock);
      CHECK((!s.unique || s.inventory.per_buyer == 1));
      for (const ClientSpec& c : s.clients) {
        // A buyer keeps to the shop's rule where the method does not check it.
        if (method != InventoryMethod::Lua) CHECK(c.buys <= s.inventory.per_buyer);
        most_buys = std::max(most_buys, c.buys);
      }
      const auto back = load_scenario_text(scenario_to_toml(s), "sale.toml");
      REQUIRE(back.ok());
      CHECK(scenario_difference(s, *back) == "");
      stocks.insert(s.inventory.stock);
      segments.insert(s.inventory.segments);
      unique += s.unique ? 1 : 0;
      if (seed <= 3) CHECK(run_once(s, "token", 1).events > 0);  // it runs
    }
    CHECK(stocks.size() > 3);  // the sale is drawn, not fixed
    CHECK(most_buys > 1);
    CHECK(unique > 0);
    CHECK(segments.size() == (method == InventoryMethod::Segmented ? 4U : 1U));
  }
}

TEST_CASE("drawing a sale leaves the rest of a seed's draw as it was", "[hunt][property]") {
  const GenLimits plain = limits_of(default_hunt_kinds(), 4, 3);
  GenLimits with_sale = plain;
  with_sale.inventory_methods = hunted_inventory_methods();
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    sim::Rng a(seed), b(seed);
    const ScenarioDraw lock_draw = draw_scenario(a, plain);
    ScenarioDraw sale_draw = draw_scenario(b, with_sale);
    CHECK(a.next() == b.next());  // the same draws from the main stream
    CHECK(lock_draw.inventory.extra_buys.empty());
    sale_draw.inventory = {};
    std::ostringstream x, y;
    showValue(lock_draw, x);
    showValue(sale_draw, y);
    CHECK(x.str() == y.str());
  }
  CHECK(hunted_inventory_methods() == std::vector<InventoryMethod>{InventoryMethod::Lock, InventoryMethod::Segmented});
}

// The generator makes no violation by construction: without faults and with
// work shorter than the TTL, a sale through a lock (or decr, or lua) shows
// none. (read-check-write races without any fault: that is the method.)
TEST_CASE("a drawn sale without faults shows no violation by any method but read-check-write", "[hunt][property]") {
  HuntOptions o = sale_hunt("token", {InventoryMethod::Lock, InventoryMethod::Segmented, InventoryMethod::Decr,
                                      InventoryMethod::Lua},
                            "", 120);
  o.limits.kinds.clear();
  const HuntResult r = hunt(o);
  INFO((r.found ? repro_note(r.original, "token", 1, "sale-no-faults") : std::string()));
  CHECK_FALSE(r.found);
  CHECK(r.cases == 120);
}

TEST_CASE("a sale hunt finds naive-del's oversell under a pause and shrinks it to one pause, one item, two buys",
          "[hunt][property]") {
  const HuntOptions o = sale_hunt("naive-del", hunted_inventory_methods(), "oversell", 500);
  const HuntResult r = hunt(o);
  REQUIRE(r.found);
  INFO("case " << r.case_index + 1 << ", shrunk in " << r.shrink.runs << " runs\n"
               << repro_note(r.minimal, "naive-del", 1, "sale-naive-del"));
  CHECK(r.violation == "oversell");
  CHECK(run_once(r.minimal, "naive-del", 1).violation_kinds().count("oversell") == 1);
  REQUIRE(r.minimal.workload == WorkloadKind::Inventory);
  check_faults_of(r.minimal, FaultKind::Pause, true);
  CHECK(r.minimal.clients.size() == 2);
  CHECK(r.minimal.inventory.stock == 1);
  CHECK(r.minimal.inventory.segments == 1);
  CHECK(r.minimal.inventory.per_buyer == 1);
  CHECK(total_buys(r.minimal) == 2);
  CHECK_FALSE(r.minimal.unique);
  CHECK(r.minimal.inventory.stock <= r.original.inventory.stock);
  CHECK(total_buys(r.minimal) <= total_buys(r.original));
  // Same seed, same search: the same case and the same minimal sale.
  const HuntResult again = hunt(o);
  CHECK(again.case_index == r.case_index);
  CHECK(scenario_to_toml(again.minimal) == scenario_to_toml(r.minimal));
}

TEST_CASE("the shrinker takes a hand-written sale to fewer buys, less stock and fewer buyers", "[hunt][property]") {
  const auto sale = load_catalog_scenario("inventory-lock-gc-pause");
  REQUIRE(sale);
  const auto oversells = shows_violation("token", 1, "oversell");
  REQUIRE(oversells(*sale));
  ShrinkStats stats;
  const Scenario minimal = shrink_scenario(*sale, oversells, 1500, &stats);
  INFO(scenario_to_toml(minimal) << "runs " << stats.runs);
  CHECK(oversells(minimal));
  CHECK(minimal.clients.size() == 2);
  CHECK(minimal.inventory.stock < sale->inventory.stock);
  CHECK(total_buys(minimal) < total_buys(*sale));
  CHECK(minimal.inventory.per_buyer < sale->inventory.per_buyer);
  REQUIRE(minimal.faults.size() == 1);
  CHECK(minimal.faults.front().kind == FaultKind::Pause);
}

// --- ZooKeeper topologies (issue 16) ------------------------------------------------

// `locksim hunt --lock zk-lock --kinds pause`: Jepsen's pause finds what a
// session-based lock cannot stop — a holder paused past its session timeout
// still believes it holds the lock — on a generated ensemble: three
// members, the TTL a session timeout of 2..20 ticks, clients from 3 s on.
TEST_CASE("hunt on ZooKeeper: zk-lock falls to a pause; zk-fenced with fencing storage lets no stale write through",
          "[property][hunt]") {
  HuntOptions o = default_hunt_options(*locks::find_lock("zk-lock"));
  o.limits.kinds = {FaultKind::Pause};
  o.budget = 200;
  const HuntResult r = hunt(o);
  INFO("case " << r.case_index + 1 << ", shrunk in " << r.shrink.runs << " runs");
  REQUIRE(r.found);
  CHECK((r.violation == "mutual-exclusion" || r.violation == "stale-write"));
  INFO(repro_note(r.minimal, "zk-lock", r.run_seed, "hunt-zk-lock"));
  for (const Scenario* s : {&r.original, &r.minimal}) {
    CHECK(s->topology == locks::Topology::ZooKeeper);
    CHECK(s->lock.ttl >= kZkMinSessionTicks * s->cp.tick);
    CHECK(s->lock.ttl <= kZkMaxSessionTicks * s->cp.tick);
    CHECK(load_scenario_text(scenario_to_toml(*s), "hunt").ok());
  }
  CHECK(r.original.cp.members == 3);
  check_faults_of(r.minimal, FaultKind::Pause, true);
  CHECK(run_once(r.minimal, "zk-lock", r.run_seed).violation_kinds().count(r.violation) == 1);

  const HuntResult again = hunt(o);  // deterministic: same case, same minimal scenario
  CHECK(again.case_index == r.case_index);
  CHECK(scenario_to_toml(again.minimal) == scenario_to_toml(r.minimal));

  HuntOptions fenced = default_hunt_options(*locks::find_lock("zk-fenced"));
  fenced.violation = "stale-write";
  fenced.budget = 60;
  const HuntResult none = hunt(fenced);
  INFO("zk-fenced: case " << none.case_index + 1);
  CHECK_FALSE(none.found);
  CHECK(none.cases == 60);
}


// --- the failing-example database in a property (testing/lock_property.hpp) -----------

TEST_CASE("a lock property keeps the case it fails on, and the next run replays it before drawing any case",
          "[property][examples]") {
  const fs::path dir = fs::temp_directory_path() / ("locksim-test-lock-property-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto gc = load_catalog_scenario("gc-pause");
  REQUIRE(gc);
  testing::LockProperty p{"naive-del shows no mutual-exclusion", "naive-del", {"mutual-exclusion"}};
  p.examples = dir.string();
  int draws = 0;
  const auto draw = [&] {
    ++draws;
    return testing::LockCase{*gc, 1};  // gc-pause: naive-del's two holders, on every case
  };
  const std::string first = testing::lock_property_failure(p, draw);
  INFO(first);
  CHECK(draws > 0);
  const auto kept = testing::list_examples(dir.string());
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].lock == "naive-del");
  CHECK(kept[0].property == "naive-del-shows-no-mutual-exclusion");
  CHECK_THAT(first, Catch::Contains("kept      " + kept[0].path + "\n"));
  CHECK_THAT(first, Catch::Contains("locksim run " + kept[0].path + " --lock naive-del --seed 1"));
  CHECK_THAT(first, Catch::Contains("RC_PARAMS=\"reproduce="));
  // Run again: the kept example fails first, no case is drawn.
  draws = 0;
  const std::string second = testing::lock_property_failure(p, draw);
  CHECK(draws == 0);
  CHECK_THAT(second, Catch::Contains("kept example " + kept[0].path + " still fails:"));
  // A property the case does not break (gc-pause sells nothing: no oversell) holds and keeps nothing.
  testing::LockProperty other{"naive-del shows no oversell", "naive-del", {"oversell"}};
  other.examples = dir.string();
  CHECK(testing::lock_property_failure(other, draw).empty());
  CHECK(testing::list_examples(dir.string()).size() == 1);
  fs::remove_all(dir);
}
