// The built-in catalog end to end: every scenario, with every lock kind it
// lists an expectation for, finds exactly the expected violations for
// several seeds, and the same seed gives the same digest. Golden files pin
// the CLI's text and JSON output for two scenarios (other tools parse it).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <new>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "scenarios/catalog.hpp"
#include "scenarios/runner.hpp"
#include "sim/task.hpp"
#include "sim/trace.hpp"
#include "tests/support/alloc_counter.hpp"
#include "tests/support/shell.hpp"

using namespace locksim;
using namespace locksim::scenarios;

namespace {

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
  return "{" + out + "}";
}

// Runs the locksim binary and returns its stdout and exit code.
std::pair<std::string, int> run_cli(const std::string& args) {
  return tests::run_shell(std::string(LOCKSIM_BINARY) + " " + args);
}

// Compares with tests/golden/<name>; LOCKSIM_UPDATE_GOLDEN=1 rewrites it.
void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(LOCKSIM_SOURCE_DIR) + "/tests/golden/" + name;
  if (std::getenv("LOCKSIM_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << actual;
  }
  std::ifstream in(path, std::ios::binary);
  INFO("golden file " << path << " (LOCKSIM_UPDATE_GOLDEN=1 rewrites it)");
  REQUIRE(in.good());
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK(actual == expected.str());
}

// The locks a catalog scenario lists; a scenario that expects the same of
// every lock (the lock-free flash-sale gate) is checked with its own [lock] kind.
std::map<std::string, std::set<std::string>> listed_locks(const Scenario& scenario) {
  auto listed = scenario.expect_by_lock;
  if (listed.empty() && scenario.expect_default) listed[scenario.lock_kind] = *scenario.expect_default;
  return listed;
}

}  // namespace

TEST_CASE("every catalog scenario finds exactly its expected violations for every listed lock", "[catalog]") {
  REQUIRE(catalog().size() >= 14);
  std::size_t runs = 0;
  for (const auto& entry : catalog()) {
    auto scenario = load_catalog_scenario(entry.name);
    REQUIRE(scenario.ok());
    const auto listed = listed_locks(*scenario);
    REQUIRE_FALSE(listed.empty());
    for (const auto& [lock, expected] : listed) {
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        RunOptions options;
        options.lock_kind = lock;
        options.seed = seed;
        auto run = run_scenario(*scenario, options);
        INFO(entry.name << " --lock " << lock << " --seed " << seed);
        REQUIRE(run.ok());
        INFO("expected " << join(expected) << ", found " << join(run->violation_kinds()));
        CHECK(run->matched);
        ++runs;
      }
    }
  }
  CHECK(runs > 100);
}

TEST_CASE("every catalog scenario gives the same digest twice for the same seed", "[catalog]") {
  for (const auto& entry : catalog()) {
    auto scenario = load_catalog_scenario(entry.name);
    REQUIRE(scenario.ok());
    RunOptions options;
    options.seed = 42;
    const auto first = run_scenario(*scenario, options);
    const auto second = run_scenario(*scenario, options);
    REQUIRE(first.ok());
    REQUIRE(second.ok());
    INFO(entry.name);
    CHECK(first->digest == second->digest);
    CHECK(first->events == second->events);
  }
}

TEST_CASE("the unsafe catalog scenarios really are seed-sensitive worlds", "[catalog]") {
  // Different seeds must explore different schedules (latency draws, tokens),
  // or a sweep over seeds would test one world many times.
  auto scenario = load_catalog_scenario("random-nemesis");
  REQUIRE(scenario.ok());
  std::set<std::uint64_t> digests;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    RunOptions options;
    options.seed = seed;
    digests.insert(run_scenario(*scenario, options)->digest);
  }
  CHECK(digests.size() == 5);
}

TEST_CASE("locksim run prints the golden text verdict for gc-pause with naive-del", "[catalog][golden]") {
  auto [out, code] = run_cli("run gc-pause --lock naive-del --seed 1");
  CHECK(code == 0);
  check_golden("run-gc-pause-naive-del.txt", out);
}

TEST_CASE("locksim run prints the golden JSON for replica-failover with token", "[catalog][golden]") {
  auto [out, code] = run_cli("run replica-failover --lock token --seed 1 --format json");
  CHECK(code == 0);
  check_golden("run-replica-failover-token.json", out);
}

TEST_CASE("locksim run exits 1 when a run does not match its expectation", "[catalog]") {
  // The baseline expects no violation; a scenario file that expects one the
  // run cannot produce must not match.
  const std::string path = "/tmp/locksim-test-unmatched.toml";
  std::ofstream(path) << "name = \"unmatched\"\nduration = \"5s\"\n[lock]\nkind = \"token\"\nttl = \"10s\"\n"
                         "[[client]]\nname = \"A\"\nwork = \"1s\"\n[expect]\nviolations = [\"stale-write\"]\n";
  auto [out, code] = run_cli("run " + path);
  CHECK(code == 1);
  CHECK(out.find("UNEXPECTED") != std::string::npos);
}

TEST_CASE("locksim run exits 2 with a located message for a bad scenario file", "[catalog]") {
  const std::string path = "/tmp/locksim-test-bad.toml";
  std::ofstream(path) << "name = \"bad\"\n[lock]\nkind = \"token\"\nttl = \"ten seconds\"\n[[client]]\nname = \"A\"\n";
  const auto [out, code] = run_cli("run " + path + " 2>&1");
  CHECK(code == 2);
  CHECK(out.find(path + ":4: lock.ttl:") != std::string::npos);
  CHECK(std::count(out.begin(), out.end(), '\n') == 1);  // one line
}

TEST_CASE("run, replay and report refuse devices and FIFOs, naming why (issue 15)", "[catalog]") {
  const auto [run_out, run_code] = run_cli("run /dev/zero 2>&1");
  CHECK(run_code == 2);
  CHECK(run_out.find("/dev/zero:0: file: is not a regular file (a device, FIFO or socket); give a regular file\n") !=
        std::string::npos);
  const std::string fifo = "/tmp/locksim-test-replay.fifo";
  std::remove(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto [replay_out, replay_code] = run_cli("replay " + fifo + " 2>&1");  // used to block forever in open()
  std::remove(fifo.c_str());
  CHECK(replay_code == 2);
  CHECK(replay_out.find(fifo + ":0: file: is not a regular file") != std::string::npos);
  const auto [report_out, report_code] = run_cli("report /dev/zero --out /tmp/locksim-test-report 2>&1");
  CHECK(report_code == 2);
  CHECK(report_out.find("/dev/zero:0: is not a regular file") != std::string::npos);
}

namespace {
void* volatile g_allocation_sink = nullptr;
}  // namespace

TEST_CASE("every form of operator new is counted and paired with its delete", "[perf]") {
  // tests/support/alloc_counter.cpp replaces them all (an ASan build checks
  // the pairing); each form must count one allocation.
  struct alignas(64) Wide {
    char bytes[64];
  };
  // Through a volatile pointer, so the compiler cannot elide a new/delete pair.
  auto kept = [](auto* p) {
    g_allocation_sink = p;
    return p;
  };
  const auto before = test::allocations_on_this_thread();
  delete kept(new int(1));
  delete[] kept(new int[3]);
  delete kept(new (std::nothrow) int(2));
  delete[] kept(new (std::nothrow) int[4]);
  delete kept(new Wide);
  delete[] kept(new Wide[2]);
  delete kept(new (std::nothrow) Wide);
  CHECK(test::allocations_on_this_thread() - before == 7);
}

// The performance guard and the digest pin, in one golden table
// (tests/golden/perf-budget.json): for every catalog scenario x listed lock
// at seed 1, the digest and event count must be exactly as recorded (a
// speed-up must not change a single schedule), and the coroutine frames
// and heap allocations of the run must stay within 10 % of the recorded
// figures. These counters are deterministic, unlike a timing. Each run is
// measured the second time it runs, so frame-pool warmth cannot vary them.
// LOCKSIM_UPDATE_GOLDEN=1 re-records — only on purpose, saying why.
TEST_CASE("catalog runs keep their pinned digests and stay within their recorded work budget", "[perf]") {
  nlohmann::ordered_json actual = nlohmann::ordered_json::object();
  for (const auto& entry : catalog()) {
    auto scenario = load_catalog_scenario(entry.name);
    REQUIRE(scenario.ok());
    for (const auto& [lock, expected] : listed_locks(*scenario)) {
      RunOptions options;
      options.lock_kind = lock;
      REQUIRE(run_scenario(*scenario, options).ok());  // warms the frame pool
      const auto allocations_before = test::allocations_on_this_thread();
      const auto frames_before = sim::created_task_frames();
      const auto run = run_scenario(*scenario, options);
      REQUIRE(run.ok());
      actual[entry.name + " --lock " + lock] = {
          {"digest", sim::Trace::hex(run->digest)},
          {"events", run->events},
          {"frames", sim::created_task_frames() - frames_before},
          {"allocations", test::allocations_on_this_thread() - allocations_before}};
    }
  }
  const std::string path = std::string(LOCKSIM_SOURCE_DIR) + "/tests/golden/perf-budget.json";
  if (std::getenv("LOCKSIM_UPDATE_GOLDEN")) std::ofstream(path) << actual.dump(1) << "\n";
  std::ifstream in(path);
  INFO("golden file " << path << " (LOCKSIM_UPDATE_GOLDEN=1 rewrites it)");
  REQUIRE(in.good());
  const auto recorded = nlohmann::json::parse(in);
  CHECK(recorded.size() == actual.size());
  for (const auto& [run, now] : actual.items()) {
    INFO(run << ": now " << now.dump());
    REQUIRE(recorded.contains(run));
    const auto& then = recorded[run];
    INFO("recorded " << then.dump());
    CHECK(now["digest"] == then["digest"]);
    CHECK(now["events"] == then["events"]);
    for (const char* counter : {"frames", "allocations"}) {
      const auto limit = then[counter].get<std::uint64_t>() * 11 / 10;
      CHECK(now[counter].get<std::uint64_t>() <= limit);
    }
  }
}
