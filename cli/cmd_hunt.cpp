// `locksim hunt`: random search for a counterexample, then shrinking.
//
// Draws fault schedules (scenarios/schedule_gen.hpp) on a base scenario's
// topology and workload (--scenario) or on generated ones, runs each with
// the lock, and shrinks the first run that shows a violation to a minimal
// scenario. For a reproduction of a shipped bug (locks::LockInfo::
// reproduces) only the reported violation counts, in runs where the fixed
// lock does not show it, and jobs may outlive the TTL where the lock asks
// for it (long_jobs). --workload inventory makes the generated topologies
// sales (by the methods that take the lock, or those --method names).
// Prints that scenario as ready-to-run TOML (--out writes it), its
// `locksim run` command and the text verdict of the minimal run. Exit 1 when
// it found one, 0 when the budget ran out clean, 2 on bad input. For a given
// --seed and --budget the search and the result are the same on any machine
// (--time stops by the wall clock, so only the point it stops at varies).
// Progress (cases/s) is drawn on stderr when stderr is a terminal.
//
// Failing examples (testing/example_db.hpp): before searching, the
// examples kept for the lock (and --property) run first, and one that still
// fails is the result, with no search; what the search finds is kept
// (--examples-dir, --no-examples: cli/saved_examples.hpp).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>

#include "cli/commands.hpp"
#include "cli/vocabulary.hpp"
#include "cli/output_files.hpp"
#include "cli/parallel.hpp"
#include "cli/process_locks.hpp"
#include "cli/saved_examples.hpp"
#include "cli/sweep.hpp"
#include "cli/terminal.hpp"
#include "cli/version.hpp"
#include "locks/registry.hpp"
#include "reports/run_output.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/inventory_workload.hpp"
#include "scenarios/lock_assumptions.hpp"
#include "scenarios/repro.hpp"
#include "scenarios/scenario_writer.hpp"
#include "scenarios/schedule_gen.hpp"
#include "vocab/joined.hpp"
#include "vocab/printable.hpp"

namespace locksim::cli {

namespace {

using scenarios::FaultKind;
using SteadyClock = std::chrono::steady_clock;

struct HuntArgs {
  std::string lock;
  std::string scenario;
  std::vector<std::string> faults;
  std::string budget;  // read by option_number; empty = not given
  std::string time;
  std::string seed = "1";
  std::string out;
  std::string violation;
  std::string workload;              // empty: the lock workload
  std::vector<std::string> methods;  // an inventory's methods; empty: those that take the lock
  bool verify = false;               // --verify: every run of the search and the shrink twice
  std::string jobs;                  // --jobs: threads for the search (default: the cores)
  ExampleOptions examples;
};

std::optional<SteadyClock::duration> time_limit(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto d = scenarios::parse_duration(text);
  if (!d || *d <= Duration::zero() || scenarios::unwanted_sign(text))
    throw InputError("hunt: --time: bad duration \"" + text + "\" (e.g. \"30s\", \"2m\"; no sign)");
  return std::chrono::duration_cast<SteadyClock::duration>(*d);
}



std::vector<scenarios::InventoryMethod> option_methods(const std::vector<std::string>& names) {
  std::vector<scenarios::InventoryMethod> methods;
  for (const auto& name : names) {
    const auto method = scenarios::inventory_method_of(name);
    if (!method)
      throw InputError("hunt: --method: unknown method \"" + name + "\" (known: " +
                       joined(scenarios::inventory_method_names(), ", ") + ")");
    methods.push_back(*method);
  }
  return methods;
}

// --workload inventory: generated topologies sell a stock, by the named
// methods or by those that take the hunted lock (GenLimits::inventory_methods).
std::vector<scenarios::InventoryMethod> sale_methods(const HuntArgs& a, const locks::LockInfo& lock) {
  if (a.workload.empty() || a.workload == "lock") {
    if (!a.methods.empty()) throw InputError("hunt: --method: only with --workload inventory");
    return {};
  }
  if (a.workload != "inventory")
    throw InputError("hunt: --workload: unknown workload \"" + a.workload + "\" (known: lock, inventory)");
  if (!a.scenario.empty())
    throw InputError("hunt: --workload: not with --scenario (the base scenario's workload is searched)");
  const auto methods = a.methods.empty() ? scenarios::hunted_inventory_methods() : option_methods(a.methods);
  // decr and lua are Redis commands: an etcd topology has no Redis node.
  for (const auto m : methods)
    if (lock.topology != locks::Topology::Redis && !scenarios::method_takes_lock(m))
      throw InputError("hunt: --method: " + std::string(scenarios::inventory_method_name(m)) + " needs Redis; " +
                       lock.name + " hunts etcd topologies");
  return methods;
}

scenarios::HuntOptions hunt_options(const HuntArgs& a, bool budget_given) {
  const auto lock = locks::find_lock(a.lock);
  if (!lock) throw InputError("hunt: --lock: " + locks::unknown_lock_message(a.lock));
  scenarios::HuntOptions o = scenarios::default_hunt_options(*lock);
  o.seed = option_number("hunt", "--seed", a.seed);
  o.verify = a.verify;
  o.case_source = hunt_cases_on_threads(static_cast<unsigned>(option_number("hunt", "--jobs", a.jobs, {1, kMaxJobs})));
  if (!a.faults.empty()) o.limits.kinds = option_fault_kinds("hunt", "--kinds", a.faults);
  o.limits.inventory_methods = sale_methods(a, *lock);
  if (budget_given) o.budget = option_number("hunt", "--budget", a.budget, {1, reports::Bounds{}.max});
  else if (!a.time.empty()) o.budget = std::numeric_limits<std::uint64_t>::max();
  if (!a.violation.empty()) {
    const auto& names = scenarios::violation_names();
    if (std::find(names.begin(), names.end(), a.violation) == names.end())
      throw InputError("hunt: --property: unknown violation \"" + a.violation + "\"");
    o.violation = a.violation;
  }
  if (!a.scenario.empty()) {
    auto base = scenarios::resolve_scenario(a.scenario);
    if (!base) throw InputError(base.error().to_string());
    if (auto why = locks::topology_mismatch(*lock, base->topology))
      throw InputError("hunt: --scenario: " + base->name + ": " + *why);
    o.base = std::move(base.value());
  }
  return o;
}

// The progress on stderr (cli/terminal.hpp): on a terminal a line redrawn
// at most ten times a second; off one, in a long search, lines of cases
// done of the budget (with --time: seconds of the time).
class Progress {
 public:
  Progress(std::optional<SteadyClock::duration> limit, std::uint64_t budget)
      : mode_(progress_mode(false)), limit_(limit), budget_(budget), start_(SteadyClock::now()), last_(start_),
        pacer_(start_) {}

  bool update(std::uint64_t cases, bool found) {
    const auto now = SteadyClock::now();
    const double secs = std::chrono::duration<double>(now - start_).count();
    if (mode_ == ProgressMode::Redraw && (found || now - last_ >= std::chrono::milliseconds(100))) {
      last_ = now;
      std::fprintf(stderr, "\rhunt: %llu cases, %.0f cases/s, %s", static_cast<unsigned long long>(cases),
                   secs > 0 ? static_cast<double>(cases) / secs : 0.0, found ? "found one, shrinking...\n" : "none yet");
      std::fflush(stderr);
    }
    if (mode_ == ProgressMode::Lines) line(cases, now, secs);
    return !limit_ || now - start_ < *limit_;
  }
  void finish() const {
    if (mode_ == ProgressMode::Redraw) std::fprintf(stderr, "\r\033[K");
  }

 private:
  void line(std::uint64_t cases, SteadyClock::time_point now, double secs) {
    const auto whole = static_cast<std::uint64_t>(secs);
    const std::uint64_t done = limit_ ? whole : cases;
    using std::chrono::duration_cast, std::chrono::seconds;
    const std::uint64_t total = limit_ ? static_cast<std::uint64_t>(duration_cast<seconds>(*limit_).count()) : budget_;
    if (pacer_.due(done, total, now))
      std::fprintf(stderr, "%s\n", progress_line(limit_ ? "hunt (seconds)" : "hunt", done, total, secs).c_str());
  }
  ProgressMode mode_;
  std::optional<SteadyClock::duration> limit_;
  std::uint64_t budget_;
  SteadyClock::time_point start_, last_;
  ProgressPacer pacer_;
};

std::string hunt_command(const HuntArgs& a) {
  std::string cmd = "locksim hunt --lock " + a.lock;
  if (!a.scenario.empty()) cmd += " --scenario " + scenarios::shell_quote(a.scenario);
  if (!a.faults.empty()) cmd += " --kinds " + joined(a.faults, ",");
  if (!a.violation.empty()) cmd += " --property " + a.violation;
  if (!a.workload.empty()) cmd += " --workload " + a.workload;  // a known name: checked by sale_methods
  if (!a.methods.empty()) cmd += " --method " + joined(a.methods, ",");
  return cmd + " --seed " + a.seed;  // digits only: option_number checked it
}

scenarios::Scenario named_minimal(const HuntArgs& a, const scenarios::HuntResult& r) {
  scenarios::Scenario s = r.minimal;
  s.name = "hunt-" + a.lock;
  s.description = "Found by `" + hunt_command(a) + "` (case " + std::to_string(r.case_index + 1) + ", " +
                  std::to_string(r.original.faults.size()) + " faults and " + std::to_string(r.original.clients.size()) +
                  " clients before shrinking): " + a.lock + " shows " + r.violation + ".";
  if (const auto lock = locks::find_lock(a.lock); lock && lock->reproduces)
    s.description += " " + lock->reproduces->fixed_by + " (the fix) does not: this is " +
                     locks::reproduction_label(*lock->reproduces) + ".";
  return s;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text) || !out.flush()) throw InputError(path + ": cannot write the scenario");
}

// Keeps the minimal scenario in the examples folder; its path, or nullopt.
std::optional<std::string> keep(const HuntArgs& a, const scenarios::HuntResult& r, const scenarios::Scenario& minimal) {
  const auto folder = a.examples.folder();
  if (!folder) return std::nullopt;
  return save_failure("hunt", *folder, {minimal, a.lock, r.run_seed, r.violation, {r.violation}, hunt_command(a),
                                        program_name()});
}

int report_found(const HuntArgs& a, const scenarios::HuntResult& r) {
  const scenarios::Scenario minimal = named_minimal(a, r);
  const std::string toml = scenarios::scenario_to_toml(minimal);
  if (!a.out.empty()) write_file(a.out, toml);
  const auto kept = keep(a, r, minimal);
  const std::string file = !a.out.empty() ? a.out : kept ? *kept : "FILE.toml";
  std::cout << "hunt      " << a.lock << ": " << r.violation << " after " << r.cases << " case(s) (seed " << a.seed
            << "); shrunk in " << r.shrink.runs << " runs (" << r.shrink.steps << " steps)\n";
  if (kept) std::cout << "kept      " << printable(*kept) << " (replayed first by the next hunt or check)\n";
  std::cout << "\n# minimal counterexample"
            << (a.out.empty() ? " (save as FILE.toml, or use --out)" : ": " + printable(a.out)) << "\n"
            << toml << "\n";
  scenarios::RunOptions options;
  options.lock_kind = a.lock;
  options.seed = r.run_seed;
  options.scenario_ref = file;
  options.program = program_name();
  options.verify = a.verify;
  const auto run = scenarios::run_scenario(minimal, options);
  if (!run) throw std::runtime_error("the minimal scenario does not run: " + run.error());
  print_mechanism(run->mechanism, std::cout);
  std::cout << reports::run_to_text(*run, minimal.description, stdout_style());
  return kUnmatched;
}

// The environment every case gives the lock, as its file states it needs
// (scenarios/lock_assumptions.hpp): a finding is then the lock's own. On a
// --scenario base, what the base had where it fell short.
void print_assumptions(const scenarios::HuntOptions& options) {
  const auto lock = locks::find_lock(options.lock_kind);
  if (!lock) return;
  if (options.base) {
    for (const auto& assumption : scenarios::assumptions_given_to(*options.base, *lock))
      std::cout << "assumes   " << lock->name << ": " << assumption << "\n";
    return;
  }
  for (const auto& assumption : scenarios::stated_assumptions(*lock))
    std::cout << "assumes   " << lock->name << ": " << assumption << " (given to every case)\n";
}

// Hypothesis's order: the examples kept for this lock (and violation) run
// first; one that still fails is the result, and nothing is searched.
std::optional<int> replay_first(const HuntArgs& a, const scenarios::HuntOptions& options) {
  const auto folder = a.examples.folder();
  if (!folder) return std::nullopt;
  const auto replayed = replay_saved(*folder, a.lock, options.violation);
  if (print_replayed(*folder, replayed) == 0) return std::nullopt;
  for (const auto& r : replayed)
    if (r.fails()) {
      std::cout << "hunt      " << a.lock
                << ": a saved example still fails; no search (--no-examples searches anew)\n\n"
                << reports::run_to_text(*r.run, r.description, stdout_style());
      break;
    }
  return kUnmatched;
}

int run_hunt(const HuntArgs& a, bool budget_given) {
  refuse_output_over_input("hunt", "--out", a.out, {a.scenario});  // before the search, not after it
  scenarios::HuntOptions options = hunt_options(a, budget_given);
  print_assumptions(options);
  if (const std::string line = process_locks_line(a.lock); !line.empty()) std::cout << "hunt      " << line << "\n";
  if (const auto code = replay_first(a, options)) return *code;
  Progress progress(time_limit(a.time), options.budget);
  options.keep_going = [&progress](std::uint64_t cases, bool found) { return progress.update(cases, found); };
  const scenarios::HuntResult result = scenarios::hunt(options);
  progress.finish();
  if (!result.error.empty())
    throw InputError("hunt: case " + std::to_string(result.cases) + " did not run: " + result.error);
  if (result.found) return report_found(a, result);
  std::cout << "hunt      " << a.lock << ": no violation in " << result.cases << " case(s) (seed " << a.seed << ")";
  if (const auto lock = locks::find_lock(a.lock); lock && lock->reproduces)
    std::cout << " that " << lock->reproduces->fixed_by << " does not show too";
  std::cout << "\n";
  return kMatched;
}

}  // namespace

Handler add_hunt_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("hunt", "Search generated fault schedules for a violation; shrink it to a minimal scenario");
  auto args = std::make_shared<HuntArgs>();
  cmd->add_option("--lock", args->lock, "Lock kind to hunt (see `locksim list`)")->required();
  cmd->add_option("scenario,--scenario", args->scenario,
                  "Base scenario (catalog name or .toml): its topology and workload (default: generated)");
  cmd->add_option("--kinds", args->faults, "Fault kinds to draw, comma separated (default: all but heal)");
  add_alias(*cmd, "--faults", "--kinds", args->faults);
  auto* budget = cmd->add_option("--budget", args->budget, "Cases to try at most (at least 1; default 1000)");
  cmd->add_option("--time", args->time, "Search for this long instead (\"30s\", \"2m\")")->excludes(budget);
  cmd->add_option("--seed", args->seed, "Seed of the search")->capture_default_str();
  cmd->add_option("--out", args->out, "Write the minimal scenario to this .toml file");
  cmd->add_option("--property", args->violation, "Only this violation counts (default: any)");
  add_alias(*cmd, "--violation", "--property", args->violation);
  cmd->add_option("--workload", args->workload,
                  "What generated clients do: lock (default) or inventory (a sale of a drawn stock)");
  cmd->add_option("--method", args->methods,
                  "Inventory methods to draw, comma separated (default: lock,segmented, the ones that take the lock)");
  args->jobs = std::to_string(default_jobs());
  cmd->add_option("--jobs", args->jobs,
                  "Threads that run the search's cases (1.." + std::to_string(kMaxJobs) +
                      "; default: the cores); the result is the same for any number")
      ->capture_default_str();
  add_verify_flag(*cmd, args->verify);
  add_example_options(*cmd, args->examples);
  add_color_option(*cmd);
  return [args, budget] {
    args->faults = comma_list("hunt", "--kinds", args->faults);
    args->methods = comma_list("hunt", "--method", args->methods);
    return run_hunt(*args, budget->count() > 0);
  };
}

}  // namespace locksim::cli
