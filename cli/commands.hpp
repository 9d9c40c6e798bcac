// The locksim subcommands. Each adds itself to the CLI11 app and returns the
// process exit code from its handler (0 = every run matched its
// expectation, 1 = a run did not, 2 = bad input or usage, 3 = internal error,
// 4 = --verify found a run that is not deterministic).
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/numbers.hpp"
#include "scenarios/fault_kinds.hpp"
#include "vocab/exit_code.hpp"

namespace locksim::cli {

// vocab/exit_code.hpp, named here too (the CLI's names before live mode shared them).
using locksim::ExitCode;
using locksim::kBadInput;
using locksim::kInternal;
using locksim::kInterrupted;
using locksim::kMatched;
using locksim::kNondeterministic;
using locksim::kUnmatched;

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

// --verify (run, replay, sweep, hunt): the determinism self-check, as
// Hermit's `hermit run --verify`: each run twice in a fresh world (fresh
// processes for a library lock), the digests compared
// (scenarios::RunOptions::verify); a difference exits kNondeterministic.
inline void add_verify_flag(CLI::App& cmd, bool& verify) {
  cmd.add_flag("--verify", verify,
               "Run each run twice (fresh world, fresh processes) and compare the digests; exit 4 if they differ");
}

// The items of a comma-separated option (`--lock token,fenced`, given once
// or repeated), in order. An empty item ("token,", ",token", "a,,b") is an
// InputError "sweep: --lock: an empty item in \"token,\"": CLI11's own
// splitting drops it, which would run fewer things than the user typed.
inline std::vector<std::string> comma_list(const std::string& command, const std::string& option,
                                           const std::vector<std::string>& values) {
  std::vector<std::string> items;
  for (const auto& value : values) {
    std::size_t start = 0;
    for (std::size_t end; start <= value.size(); start = end + 1) {
      end = std::min(value.find(',', start), value.size());
      if (end == start) throw InputError(command + ": " + option + ": an empty item in \"" + value + "\"");
      items.push_back(value.substr(start, end - start));
    }
  }
  return items;
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
Handler add_examples_command(CLI::App& app);

// The words of `text` as a POSIX shell splits them, without running
// anything (wordexp(3) with WRDE_NOCMD) or expanding unset variables; an
// InputError "<what>: it holds ..." otherwise.
std::vector<std::string> shell_words(const std::string& text, const std::string& what);

}  // namespace locksim::cli
