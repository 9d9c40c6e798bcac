// Failure evidence for a lock's own CI test: when a run shows a violation the
// lock does not allow, write what a person needs to see and reproduce it —
// the scenario as TOML, the run's SVG timeline — and return the text to
// print: the verdict with every violation's evidence, the repro command (for
// the user's own tool, e.g. `my-locksim run FILE.toml --lock my-lock --seed 7`)
// and where the files are. examples/custom-lock uses it.
#pragma once

#include <cstdint>
#include <string>

#include "testing/example_db.hpp"
#include "scenarios/scenario.hpp"

namespace locksim::testing {

struct FailureEvidence {
  std::string text;           // verdict, evidence, repro command, file paths
  std::string scenario_path;  // the scenario as TOML
  std::string timeline_path;  // the run's timeline (SVG)
};

// Re-runs (scenario, lock, seed) with the trace kept and writes
// DIR/NAME.toml and DIR/NAME.svg, NAME derived from the scenario, lock and
// seed. `program` is the CLI the repro command names.
FailureEvidence write_failure_evidence(const scenarios::Scenario& scenario, const std::string& lock_kind,
                                       std::uint64_t seed, const std::string& dir,
                                       const std::string& program = "locksim");

// The failing-example database in a lock's property test
// (testing/example_db.hpp; testing/lock_property.hpp uses both).
//
// Runs the examples kept in `folder` for `lock` and `property`: the verdict
// of each that still fails (or no longer loads), "" when none does.
std::string replay_kept_examples(const std::string& folder, const std::string& lock, const std::string& property,
                                 const std::string& program = "locksim");
// Keeps a failing case in `folder` and returns its verdict, whose repro
// command runs the kept file, and a "kept      PATH" line.
std::string keep_failing_example(const std::string& folder, const FailingExample& failure);

}  // namespace locksim::testing
