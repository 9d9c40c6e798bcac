// What a user expects of their own lock, in their own file: an expectations
// TOML passed to `run`, `sweep` (and so the report) with --expect, so a
// user's lock is judged beside the built-ins without editing the catalog.
//
//   [my-lock]
//   like = "token"          # on every scenario, what the catalog expects of token
//   violations = []         # else (no `like`, or `like` states nothing there)
//   may = []
//   [my-lock.scenarios]     # per scenario, before all of the above
//   gc-pause = ["mutual-exclusion", "stale-write"]
//   clock-jump-forward = { violations = ["mutual-exclusion"], may = ["stale-write"] }
//
// An expectation given here replaces the scenario's own [expect] for that
// lock: the file on the command line is the more specific statement.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"
#include "scenarios/toml_section.hpp"
#include "vocab/result.hpp"

namespace locksim::scenarios {

struct Expectation {
  std::set<std::string> violations;
  std::set<std::string> may;
};

struct LockExpectation {
  std::optional<std::string> like;                  // a lock whose expectations this one shares
  std::optional<Expectation> otherwise;             // `violations` / `may`
  std::map<std::string, Expectation> by_scenario;   // [LOCK.scenarios]
};

// Lock name -> what the user expects of it.
using LockExpectations = std::map<std::string, LockExpectation>;

// Reads an expectations file. Lock names must be registered locks and
// scenario names one of `known_scenarios`; errors name the file, line and
// field ("exp.toml:4: my-lock.scenarios.gc-pase: unknown scenario ...").
Result<LockExpectations, ScenarioError> load_lock_expectations(const std::string& path,
                                                               const std::vector<std::string>& known_scenarios);

// Every file in turn (--expect may repeat); a lock in two files is the
// later file's. The first error stops.
Result<LockExpectations, ScenarioError> load_lock_expectations(const std::vector<std::string>& paths,
                                                               const std::vector<std::string>& known_scenarios);

// Loads `paths` and applies them to each of `scenarios`: what `run` and
// `sweep` do with --expect. Scenario names in the files may be the
// catalog's or those of `scenarios`. The first error, or nullopt.
std::optional<ScenarioError> apply_expectation_files(const std::vector<std::string>& paths,
                                                     std::span<Scenario> scenarios);

// Sets scenario.expect_by_lock / expect_may_by_lock for each lock the
// expectations state something about on this scenario.
void apply_lock_expectations(Scenario& scenario, const LockExpectations& expectations);

// A TOML array of violation names as a set; the first bad element is an
// error at its line (`field` names the array). Shared with the scenario
// parser's [expect].
std::optional<std::set<std::string>> read_violation_names(TomlErrors& errors, const toml::node& n,
                                                          const std::string& field);

}  // namespace locksim::scenarios
