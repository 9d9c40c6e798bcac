// Failure evidence for a lock's own CI test: when a run shows a violation the
// lock does not allow, write what a person needs to see and reproduce it —
// the scenario as TOML, the run's SVG timeline — and return the text to
// print: the verdict with every violation's evidence, the repro command (for
// the user's own tool, e.g. `my-locksim run FILE.toml --lock my-lock --seed 7`)
// and where the files are. examples/custom-lock uses it.
#pragma once

#include <cstdint>
#include <string>

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

}  // namespace locksim::testing
