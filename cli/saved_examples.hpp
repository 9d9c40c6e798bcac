// The failing-example database on the command line (testing/example_db.hpp):
// the options hunt and check share, the replay-first both run before they
// search, and the saving of what they find.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "testing/example_db.hpp"

namespace locksim::cli {

struct ExampleOptions {
  std::string dir;   // --examples-dir; empty: $LOCKSIM_EXAMPLES_DIR or .locksim/examples
  bool off = false;  // --no-examples
  // The folder in use, or nullopt when keeping is off (testing::examples_dir).
  std::optional<std::string> folder() const { return testing::examples_dir(dir, off); }
};

// --examples-dir DIR and --no-examples on `cmd`.
void add_example_options(CLI::App& cmd, ExampleOptions& options);

// A saved example run again.
struct ReplayedExample {
  testing::SavedExample example;
  std::optional<scenarios::RunResult> run;  // nullopt: it no longer loads or runs
  std::string error;                        // why, then
  std::string description;
  bool fails() const { return run && !run->matched; }
};

// Runs every saved example of `lock` (of `property` when not empty).
std::vector<ReplayedExample> replay_saved(const std::string& folder, const std::string& lock,
                                          const std::string& property);

// One line per replayed example ("  fails   PATH: kinds", "  passes  PATH",
// "  error   PATH: why") under a "saved     N example(s) ..." head line;
// nothing when there are none. Returns how many still fail.
std::size_t print_replayed(const std::string& folder, const std::vector<ReplayedExample>& replayed);

// Saves a failure (testing::save_example) and returns its path; a folder
// that cannot be written is a warning on stderr (the search's result still
// stands) and nullopt.
std::optional<std::string> save_failure(const std::string& command, const std::string& folder,
                                        const testing::FailingExample& failure);

}  // namespace locksim::cli
