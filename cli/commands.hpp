// The locksim subcommands. Each adds itself to the CLI11 app and returns the
// process exit code from its handler (0 = every run matched its
// expectation, 1 = a run did not, 2 = bad input or usage, 3 = internal error).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/numbers.hpp"
#include "scenarios/fault_kinds.hpp"

namespace locksim::cli {

// kInterrupted: stopped by Ctrl-C or SIGTERM (128 + SIGINT, as a shell reports it).
enum ExitCode : int { kMatched = 0, kUnmatched = 1, kBadInput = 2, kInternal = 3, kInterrupted = 130 };

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

// An integer option read as text and checked by the one number layer
// (reports/numbers.hpp): "-1", "" or "1.5" for --seed is an InputError
// "run: --seed: expected an integer from 0 to ..., got \"-1\"", never a wrap.
inline std::uint64_t option_number(const std::string& command, const std::string& option, const std::string& text,
                                   reports::Bounds bounds = {}) {
  auto n = reports::parse_unsigned(text, option, bounds);
  if (!n) throw InputError(command + ": " + n.error());
  return *n;
}

// Fault kinds named on the command line (`hunt --faults`, `check --kinds`),
// in the order given, repeats kept; an unknown name is an InputError
// "hunt: --faults: unknown fault kind \"x\" (known: pause, ...)".
inline std::vector<scenarios::FaultKind> option_fault_kinds(const std::string& command, const std::string& option,
                                                            const std::vector<std::string>& names) {
  std::vector<scenarios::FaultKind> kinds;
  for (const auto& name : names) {
    const auto kind = scenarios::fault_kind_from_name(name);
    if (!kind) {
      std::string known;
      for (const auto& k : scenarios::fault_kind_names()) known += (known.empty() ? "" : ", ") + k;
      throw InputError(command + ": " + option + ": unknown fault kind \"" + name + "\" (known: " + known + ")");
    }
    kinds.push_back(*kind);
  }
  return kinds;
}

Handler add_list_command(CLI::App& app);
Handler add_run_command(CLI::App& app);
Handler add_replay_command(CLI::App& app);
Handler add_sweep_command(CLI::App& app);
Handler add_hunt_command(CLI::App& app);
Handler add_check_command(CLI::App& app);
Handler add_report_command(CLI::App& app);
Handler add_live_command(CLI::App& app);

// The words of `text` as a POSIX shell splits them, without running
// anything (wordexp(3) with WRDE_NOCMD) or expanding unset variables; an
// InputError "<what>: it holds ..." otherwise.
std::vector<std::string> shell_words(const std::string& text, const std::string& what);

}  // namespace locksim::cli
