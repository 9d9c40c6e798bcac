// The locksim subcommands. Each adds itself to the CLI11 app and returns the
// process exit code from its handler (DESIGN.md: 0 = every run matched its
// expectation, 1 = a run did not, 2 = bad input or usage, 3 = internal error).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>

namespace locksim::cli {

enum ExitCode : int { kMatched = 0, kUnmatched = 1, kBadInput = 2, kInternal = 3 };

// Bad input found while handling a command: printed as one line, exit 2.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The environment failed a command (a redis-server did not start or died):
// printed as one line, exit 3.
struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Handler = std::function<int()>;

Handler add_list_command(CLI::App& app);
Handler add_run_command(CLI::App& app);
Handler add_replay_command(CLI::App& app);
Handler add_sweep_command(CLI::App& app);
Handler add_hunt_command(CLI::App& app);
Handler add_report_command(CLI::App& app);
Handler add_live_command(CLI::App& app);

}  // namespace locksim::cli
