// The failing-example database (Hypothesis's idea): every failure `hunt`,
// `check` and the property suite find is kept in the working tree, and the
// next run replays the kept ones first, so a bug once found is never lost
// to a changed seed or a shorter budget.
//
//   DIR/<lock>/<property>/<hash>-seed<N>.toml
//
// DIR is --examples-dir, else $LOCKSIM_EXAMPLES_DIR, else .locksim/examples;
// <property> a violation kind (hunt, check) or a property suite's name made
// a file name; <hash> the scenario text's FNV-1a (the same failure saved
// twice is one file); N the run's seed. Each file is a runnable scenario
// (scenario_to_toml) whose first lines are comments: what failed, who found
// it, and its repro command. Its [expect] says the property: no violation
// expected, every kind but the failing ones allowed (`may`), so `locksim run
// FILE --lock L --seed N` exits 1 exactly while the example still fails;
// that run is the one judge of `examples replay`, `prune` and the
// replay-first of hunt, check and the property suite.
//
// Files are written to a temporary name and linked into place, so an
// interrupt never leaves half a file, and a file already there (the same
// failure, or a file a user edited) is never overwritten.
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "vocab/result.hpp"

namespace locksim::testing {

inline constexpr const char* kDefaultExamplesDir = ".locksim/examples";

// The examples folder: `option` (--examples-dir) when not empty, else
// $LOCKSIM_EXAMPLES_DIR when set and not empty, else kDefaultExamplesDir.
std::string examples_folder(const std::string& option = "");

// Where hunt, check and the property suite keep examples, or nullopt when
// keeping is off: examples_folder(option) for an `option` given; else off
// when `disabled` (--no-examples) or $LOCKSIM_NO_EXAMPLES is set and not
// empty; else examples_folder().
std::optional<std::string> examples_dir(const std::string& option = "", bool disabled = false);

// `name` as one path component: every character but [A-Za-z0-9._@+:-]
// becomes '-', and a leading '.' too ("no wrong-owner-release" ->
// "no-wrong-owner-release").
std::string example_key(const std::string& name);

// A failure to keep: the scenario, lock and seed that show it, the property
// it fails and the violation kinds that fail it (empty: every kind).
struct FailingExample {
  scenarios::Scenario scenario;
  std::string lock;
  std::uint64_t seed = 1;
  std::string property;
  std::set<std::string> failing;
  std::string found_by;              // the command or test that found it
  std::string program = "locksim";   // the tool its repro command runs
};

struct SavedExample {
  std::string path;
  std::string lock;      // as its folder names it (example_key); the file's [lock] kind is the lock
  std::string property;  // as its folder names it
  std::uint64_t seed = 0;
  std::time_t when = 0;  // last written
};

// Saves `f` under `dir`; `added` is false when the file was there already
// (left as it is). Throws std::runtime_error "<path>: cannot write ..." when
// the directory or the file cannot be written.
struct Saved {
  SavedExample example;
  bool added = false;
};
Saved save_example(const std::string& dir, const FailingExample& f);

// The saved examples under `dir`, of `lock` and `property` when not empty,
// sorted by path. A file not named <hash>-seed<N>.toml is not one (skipped);
// a missing `dir` holds none.
std::vector<SavedExample> list_examples(const std::string& dir, const std::string& lock = "",
                                        const std::string& property = "");

// Runs a saved example as `locksim run FILE --seed N` does, with the lock its
// [lock] kind names (save_example writes the exact name there): the
// run, or the one-line error of a file that no longer loads or runs.
// `description` (optional) receives the scenario's description.
Result<scenarios::RunResult, std::string> replay_example(const SavedExample& e,
                                                         const std::string& program = "locksim",
                                                         std::string* description = nullptr);

// "2026-12-06 18:30:00 UTC": when an example was last written.
std::string example_time(std::time_t when);

}  // namespace locksim::testing
