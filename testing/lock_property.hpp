// A lock's safety property over generated scenarios, with the failing-example
// database (testing/example_db.hpp), as Hypothesis runs a test: the
// examples kept for the lock and property run first, and one that still
// fails fails the test at once, before any case is generated; then
// rapidcheck draws cases (check_property's reproduce string included), and
// the case it shrank to is kept, its verdict printed with a repro command
// that runs the kept file. locksim's property suite and a user's own lock
// test (examples/custom-lock) use it; installed with the headers,
// header-only (the compiled half is testing/failure_evidence.hpp).
//
//   locksim::testing::check_lock_property({"token shows no wrong-owner-release", "token",
//                                          {"wrong-owner-release"}}, [&] {
//     return locksim::testing::LockCase{build_scenario(*gen_scenario_draw(limits), "token", limits),
//                                       *rc::gen::inRange<std::uint64_t>(1, 1000)};
//   });
#pragma once

#include <optional>
#include <set>
#include <string>

#include "testing/example_db.hpp"
#include "scenarios/runner.hpp"
#include "testing/failure_evidence.hpp"
#include "testing/rapidcheck_property.hpp"

namespace locksim::testing {

// One generated case: a scenario and the seed it runs with.
struct LockCase {
  scenarios::Scenario scenario;
  std::uint64_t seed = 1;
};

struct LockProperty {
  std::string name;                 // the property's name: in the report, and its examples folder
  std::string lock;
  std::set<std::string> forbidden;  // the violation kinds that fail it (empty: every kind)
  std::string program = "locksim";  // the CLI its repro commands name
  int min_cases = 0;                // cases to try at least (RC_PARAMS' max_success may ask for more)
  // The examples folder: $LOCKSIM_EXAMPLES_DIR or .locksim/examples; nullopt
  // (LOCKSIM_NO_EXAMPLES set): none kept, none replayed.
  std::optional<std::string> examples = examples_dir();
};

// "" when the property holds, else what to print: a kept example's verdict,
// or rapidcheck's message, the minimal case's verdict and where it was kept.
template <typename Draw>
std::string lock_property_failure(const LockProperty& p, Draw draw) {
  if (p.examples)
    if (std::string kept = replay_kept_examples(*p.examples, p.lock, p.name, p.program); !kept.empty()) return kept;
  std::optional<LockCase> last;  // the last failing case rapidcheck ran: the one it shrank to
  const auto failure = property_failure(p.name, p.min_cases, [&] {
    LockCase c = draw();
    scenarios::RunOptions options;
    options.lock_kind = p.lock;
    options.seed = c.seed;
    const auto run = scenarios::run_scenario(c.scenario, options);
    RC_ASSERT(run.ok());
    for (const std::string& kind : run->violation_kinds())
      if (p.forbidden.empty() || p.forbidden.count(kind)) {
        last = std::move(c);
        RC_FAIL(p.lock + " showed " + kind);
      }
  });
  if (!failure) return "";
  if (!last || !p.examples) return *failure;
  const FailingExample example{last->scenario, p.lock, last->seed, p.name, p.forbidden,
                                          "the property \"" + p.name + "\"", p.program};
  return *failure + keep_failing_example(*p.examples, example);
}

// lock_property_failure, failing the test case with the text printed whole.
template <typename Draw>
void check_lock_property(const LockProperty& p, Draw draw) {
  if (const std::string failure = lock_property_failure(p, draw); !failure.empty())
    fail_printed("property \"" + p.name + "\"", failure);
  else
    SUCCEED(p.name);
}

}  // namespace locksim::testing
