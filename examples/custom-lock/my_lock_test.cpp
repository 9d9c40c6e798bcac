// The CI test for my-lock: every built-in scenario and generated fault
// schedules, judged by locksim's checkers. Run it with
// `--reporter junit --out FILE.xml` for the CI's test report.
//
// What my-lock claims decides what is asserted: a token lock never removes
// another client's lock (under any faults) and is safe when nothing goes
// wrong. It does NOT claim mutual exclusion under GC pauses or failovers (no
// lock with a TTL can), so those violations are not asserted away. A failing
// generated case is shrunk to a minimal scenario and printed as TOML.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "scenarios/catalog.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/schedule_gen.hpp"
#include "scenarios/scenario_writer.hpp"

bool register_my_lock();  // my_lock.cpp

namespace {

using namespace locksim::scenarios;

const bool registered = register_my_lock();
const std::string kLock = "my-lock";

std::set<std::string> kinds_of(const Scenario& s, std::uint64_t seed) {
  RunOptions options;
  options.lock_kind = kLock;
  options.seed = seed;
  auto run = run_scenario(s, options);
  REQUIRE(run);
  return run->violation_kinds();
}

// Shrinks a failing generated case to a minimal scenario, as TOML.
std::string minimal_toml(const Scenario& s, std::uint64_t seed, const std::string& kind) {
  return scenario_to_toml(shrink_scenario(s, shows_violation(kLock, seed, kind)));
}

}  // namespace

TEST_CASE("my-lock is registered") { REQUIRE(registered); }

TEST_CASE("my-lock never releases another client's lock in any built-in scenario") {
  for (const auto& entry : catalog()) {
    const auto s = load_catalog_scenario(entry.name);
    REQUIRE(s);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      INFO(entry.name << " seed " << seed);
      CHECK(kinds_of(*s, seed).count("wrong-owner-release") == 0);
    }
  }
}

TEST_CASE("my-lock is safe with no faults and work shorter than the TTL") {
  const GenLimits no_faults;
  for (std::uint64_t i = 1; i <= 200; ++i) {
    const Scenario s = generate_scenario(i, kLock, no_faults);
    const auto kinds = kinds_of(s, i);
    INFO("generated case " << i << "\n" << scenario_to_toml(s));
    CHECK(kinds.empty());
  }
}

TEST_CASE("my-lock never releases another client's lock under generated fault schedules") {
  GenLimits limits;
  limits.kinds = default_hunt_kinds();
  for (std::uint64_t i = 1; i <= 500; ++i) {
    const Scenario s = generate_scenario(i, kLock, limits);
    if (kinds_of(s, i).count("wrong-owner-release") == 0) continue;
    FAIL("generated case " << i << " (seed " << i << "), minimal scenario:\n"
                           << minimal_toml(s, i, "wrong-owner-release"));
  }
}
