// `locksim check`: every fault schedule up to a bound (scenarios/check.hpp
// lays the bound out and walks it; docs/check.md says what it proves).
//
// Runs each explored schedule on --jobs threads (the work-list, worker and
// ordered-writer pieces sweep uses: cli/parallel.hpp), then prints the
// count explored and removed, the time, and either "no violation within
// this bound" with the bound spelled out or the violating schedules ranked
// smallest first (fewest faults, then shortest), the first few in full: a
// runnable scenario TOML, its repro command and its timeline. `--out`
// writes one run record per explored schedule in enumeration order;
// `--shard K/N` runs every N-th explored schedule, so shard files together
// hold exactly the unsharded file's lines. Exit 0 clean, 1 a violation, 2
// bad input, 3 internal error. A long check draws its progress on a
// terminal's stderr; Ctrl-C or SIGTERM ends the runs in flight, keeps every
// finished line of --out, prints the counts and the violating schedules
// found so far with "interrupted", and exits 130 (a second signal: at once).
// A shard's result says only what it covered; --out ends with a summary
// line, and `--merge FILES` reads the shards' summary lines back and states
// the bound's verdict (covered or not, violation or none).
//
// Failing examples (testing/example_db.hpp): before the walk, the examples
// kept for the lock (and --property) run first, and each that still fails is
// listed at once and makes the exit 1; every violating schedule is kept, one
// file per counted violation (--examples-dir, --no-examples). An --out
// record carries its schedule's scenario as TOML ("scenario_toml"): no file
// holds it, and `replay FILE --line N` runs it from there.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <climits>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output_files.hpp"
#include "cli/parallel.hpp"
#include "cli/process_locks.hpp"
#include "cli/saved_examples.hpp"
#include "cli/sweep.hpp"
#include "cli/terminal.hpp"
#include "cli/version.hpp"
#include "locks/registry.hpp"
#include "reports/run_output.hpp"
#include "reports/run_record.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/check.hpp"
#include "scenarios/input_file.hpp"
#include "scenarios/repro.hpp"
#include "scenarios/scenario_writer.hpp"
#include "sim/rng.hpp"
#include "sim/scheduler.hpp"
#include "vocab/joined.hpp"
#include "vocab/printable.hpp"

namespace locksim::cli {

namespace {

using scenarios::FaultKind;

// Violating schedules shown in full (TOML, repro, timeline); the rest are
// listed one line each (and all are in --out).
constexpr std::size_t kShownInFull = 3;


struct CheckArgs {
  std::string scenario;
  std::string lock;
  std::string faults = "2";
  std::vector<std::string> kinds;
  std::string property;
  std::string jobs = "1";
  std::string shard = "1/1";
  std::string out;
  std::vector<std::string> merge;  // --merge: shard files to judge together (runs nothing)
  ExampleOptions examples;
};

struct Violating {
  std::uint64_t number = 0;  // 1-based among the explored schedules
  std::vector<std::size_t> schedule;
  std::vector<std::string> kinds;
  std::vector<std::string> kept;  // its files in the examples folder, one per kind
};

// --kinds, each kind once.
std::vector<FaultKind> kinds_of(const std::vector<std::string>& names) {
  std::vector<FaultKind> kinds;
  for (FaultKind kind : option_fault_kinds("check", "--kinds", names))
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  return kinds;
}

// One plan per pass (scenarios::check_passes): the workload as written,
// then, for a lock that implements extend, every client extending.
std::vector<scenarios::CheckPlan> make_plans(const CheckArgs& a) {
  auto base = scenarios::resolve_scenario(a.scenario);
  if (!base) throw InputError(base.error().to_string());
  scenarios::CheckOptions o;
  o.lock_kind = a.lock;
  o.max_faults = static_cast<int>(option_number("check", "--faults", a.faults, {1, scenarios::kMaxCheckFaults}));
  o.kinds = kinds_of(comma_list("check", "--kinds", a.kinds));
  o.property = a.property;
  std::vector<scenarios::CheckPlan> plans;
  for (const scenarios::CheckOptions& pass : scenarios::check_passes(*base, o)) {
    auto plan = scenarios::plan_check(*base, pass);
    if (!plan) throw InputError(plan.error());
    plans.push_back(std::move(*plan));
  }
  return plans;
}

// "bound" and, when there are two passes, which one this is.
void print_bound(const scenarios::CheckPlan& plan, std::size_t pass, std::size_t passes) {
  std::cout << (pass ? "\n" : "") << "bound";
  if (passes > 1)
    std::cout << " (pass " << pass + 1 << " of " << passes << ": "
              << (plan.extend_pass ? "every client extends its lock before each write" : "the workload as written")
              << ")";
  std::cout << "\n" << scenarios::bound_text(plan) << std::flush;
}

// "locksim check gc-pause --lock token --faults 2": what found a kept example.
std::string check_command(const CheckArgs& a) {
  std::string cmd = program_name() + " check " + scenarios::shell_quote(a.scenario) + " --lock " +
                    scenarios::shell_quote(a.lock) + " --faults " + a.faults;
  if (!a.kinds.empty()) cmd += " --kinds " + scenarios::shell_quote(joined(a.kinds, ","));
  if (!a.property.empty()) cmd += " --property " + scenarios::shell_quote(a.property);
  return cmd;
}

// Keeps a violating schedule in the examples folder, once per counted kind.
std::vector<std::string> keep(const CheckArgs& a, const std::optional<std::string>& folder,
                              const scenarios::Scenario& s, const std::vector<std::string>& kinds,
                              std::uint64_t number) {
  std::vector<std::string> kept;
  if (!folder) return kept;
  const std::string found_by = check_command(a) + " (schedule " + std::to_string(number) + ")";
  for (const std::string& kind : kinds)
    if (auto path = save_failure("check", *folder, {s, a.lock, 1, kind, {kind}, found_by, program_name()}))
      kept.push_back(*path);
  return kept;
}

// A schedule that does not run: for a library lock its process failed (the
// user's adapter or library: exit 2, as in `run`); for a C++ lock, a bug.
[[noreturn]] void schedule_failed(const scenarios::CheckPlan& plan, std::uint64_t number, const std::string& why) {
  const std::string what = "schedule " + std::to_string(number) + " does not run: " + why;
  if (const auto lock = locks::find_lock(plan.lock_kind); lock && !lock->library.empty())
    throw InputError("check: " + what);
  throw std::runtime_error(what);
}

scenarios::RunOptions schedule_run_options(const scenarios::Scenario& s, const std::string& lock) {
  scenarios::RunOptions options;
  options.lock_kind = lock;
  options.seed = 1;
  options.scenario_ref = s.name + ".toml";
  options.program = program_name();
  return options;
}

// Hands out explored schedules, numbered, to the workers, and takes their
// results back for the cursor (a larger size waits for the size below). A
// shard runs every schedule below --faults faults (the larger ones' removals
// read them all) but writes and reports only its own: every N-th.
class ShardCursor {
 public:
  ShardCursor(const scenarios::CheckPlan& plan, unsigned index, unsigned count)
      : cursor_(plan), max_faults_(static_cast<std::size_t>(plan.max_faults)), index_(index), count_(count) {}
  struct Work {
    bool mine;             // this shard's: written and reported
    std::size_t position;  // among this shard's schedules (the writer's order), when mine
    std::uint64_t number;  // among all explored schedules
    std::vector<std::size_t> schedule;
  };
  std::optional<Work> take() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (aborted_) return std::nullopt;
      auto next = cursor_.next();
      if (next.step == scenarios::ScheduleCursor::Step::End) {
        ended_ = true;
        return std::nullopt;
      }
      if (next.step == scenarios::ScheduleCursor::Step::Wait) {
        learned_.wait(lock);
        continue;
      }
      const std::uint64_t number = cursor_.explored();
      const bool mine = (number - 1) % count_ == index_ - 1;
      if (!mine && next.schedule.size() == max_faults_) continue;
      ++handed_;
      return Work{mine, mine ? taken_++ : 0, number, std::move(next.schedule)};
    }
  }
  void learn(const Work& work, scenarios::ScheduleOutcome summary) {
    std::lock_guard<std::mutex> lock(mutex_);
    cursor_.learn(work.schedule, std::move(summary));
    ++runs_learned_;
    learned_.notify_all();
  }
  // Every schedule walked and every one handed out learned.
  bool complete() const { return ended_ && runs_learned_ == handed_; }
  // The explored schedules that ran to the end (an interrupt drops those in flight).
  std::uint64_t explored_and_run() const { return cursor_.explored() - (handed_ - runs_learned_); }
  std::pair<std::uint64_t, std::uint64_t> walked_of_candidates() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {cursor_.walked(), cursor_.candidates()};
  }
  void abort() {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
    learned_.notify_all();
  }
  const scenarios::ScheduleCursor& walk() const { return cursor_; }
  std::size_t taken() const { return taken_; }

 private:
  scenarios::ScheduleCursor cursor_;
  std::size_t max_faults_;
  unsigned index_, count_;
  std::size_t taken_ = 0;
  std::uint64_t handed_ = 0, runs_learned_ = 0;
  bool aborted_ = false, ended_ = false;
  std::mutex mutex_;
  std::condition_variable learned_;
};

struct Outcome {
  std::vector<Violating> violating;
  bool interrupted = false;  // stopped by a signal before the bound was covered
  std::uint64_t walked = 0, candidates = 0;  // candidate schedules walked (explored or removed), of all
  std::size_t ran = 0;
  std::uint64_t explored_total = 0;
  std::map<scenarios::RemovalReason, std::uint64_t> removed;
};

// "check: walked 34% of 1902225 candidate schedules, ran 81234 (2704/s), 12
// violating", redrawn on a terminal's stderr at most every 200 ms; off a
// terminal, in a long check, progress lines of candidates walked.
class Progress {
 public:
  explicit Progress(ProgressMode mode) : mode_(mode), started_(Clock::now()), pacer_(started_) {}
  ~Progress() {
    if (drawn_) std::cerr << "\n";
  }
  void ran(ShardCursor& cursor, bool violating) {
    if (mode_ == ProgressMode::Off) return;
    std::lock_guard<std::mutex> lock(mutex_);
    ++ran_;
    violating_ += violating ? 1 : 0;
    const auto now = Clock::now();
    const auto [walked, candidates] = cursor.walked_of_candidates();
    const double secs = std::chrono::duration<double>(now - started_).count();
    if (mode_ == ProgressMode::Lines) {  // off a terminal: the share of the walk (cli/terminal.hpp)
      if (pacer_.due(walked, candidates, now))
        std::cerr << progress_line("check", walked, candidates, secs) << std::endl;
      return;
    }
    if (drawn_ && now - last_ < std::chrono::milliseconds(200)) return;
    drawn_ = true;
    last_ = now;
    char line[200];
    std::snprintf(line, sizeof line, "\rcheck: walked %.0f%% of %llu candidate schedules, ran %llu (%.0f/s), %llu violating ",
                  candidates ? 100.0 * static_cast<double>(walked) / static_cast<double>(candidates) : 100.0,
                  static_cast<unsigned long long>(candidates), static_cast<unsigned long long>(ran_),
                  secs > 0 ? static_cast<double>(ran_) / secs : 0.0, static_cast<unsigned long long>(violating_));
    std::cerr << line << std::flush;
  }

 private:
  using Clock = std::chrono::steady_clock;
  ProgressMode mode_;
  Clock::time_point started_, last_{};
  ProgressPacer pacer_;
  bool drawn_ = false;
  std::uint64_t ran_ = 0, violating_ = 0;
  std::mutex mutex_;
};

// A schedule's --out line: its run record with the scenario inline, since
// no file holds it (`replay FILE --line N` runs it from the record).
std::string schedule_line(const scenarios::RunResult& run, const scenarios::Scenario& s) {
  reports::RunRecord record = reports::record_of(run);
  record.scenario_toml = scenarios::scenario_to_toml(s);
  return reports::to_line(record);
}

Outcome run_schedules(const scenarios::CheckPlan& plan, const CheckArgs& a, std::ostream* out) {
  const auto [shard_index, shard_count] = parse_shard("check", a.shard);
  const auto jobs = static_cast<unsigned>(option_number("check", "--jobs", a.jobs, {1, kMaxJobs}));
  ShardCursor cursor(plan, shard_index, shard_count);
  std::ostringstream discard;
  OrderedWriter writer(out ? *out : discard, 0, ProgressMode::Off, std::cerr);
  Outcome outcome;
  std::mutex mutex;
  Progress progress(progress_mode(false));
  const auto folder = a.examples.folder();
  auto step = [&]() -> WorkerPool::Next {
    auto work = cursor.take();
    if (!work) return WorkerPool::Next::Done;
    const scenarios::Scenario s = scenarios::schedule_scenario(plan, work->schedule, work->number);
    // The runs that larger schedules read (a single fault's) record where their events went.
    sim::Activity activity;
    auto options = schedule_run_options(s, plan.lock_kind);
    options.stop = &stop_flag();  // a signal ends even a run in flight (it throws sim::Scheduler::Stopped)
    if (work->schedule.size() == 1 && plan.max_faults > 1) options.activity = &activity;
    auto run = scenarios::run_scenario(s, options);
    if (!run) schedule_failed(plan, work->number, run.error());
    cursor.learn(*work, scenarios::summarize(plan, *run, options.activity));
    auto kinds = work->mine ? scenarios::counted_violations(plan, *run) : std::vector<std::string>{};
    progress.ran(cursor, !kinds.empty());
    if (!work->mine) return WorkerPool::Next::More;
    if (out) writer.deliver(work->position, schedule_line(*run, s), kinds.empty());
    if (kinds.empty()) return WorkerPool::Next::More;
    auto kept = keep(a, folder, s, kinds, work->number);
    std::lock_guard<std::mutex> lock(mutex);
    outcome.violating.push_back({work->number, std::move(work->schedule), std::move(kinds), std::move(kept)});
    return WorkerPool::Next::More;
  };
  // A worker waiting for a stopped one's run would wait for ever.
  auto on_leave = [&cursor] {
    if (stop_flag().load()) cursor.abort();
  };
  WorkerPool("check", std::cerr).run(jobs, step, on_leave);
  if (out && writer.failed()) throw InputError(a.out + ": write failed (disk full?)");
  outcome.interrupted = !cursor.complete();
  std::tie(outcome.walked, outcome.candidates) = cursor.walked_of_candidates();
  outcome.ran = cursor.taken();
  outcome.explored_total = cursor.explored_and_run();
  outcome.removed = cursor.walk().removed();
  return outcome;
}

void rank(const scenarios::CheckPlan& plan, std::vector<Violating>& violating) {
  std::sort(violating.begin(), violating.end(), [&plan](const Violating& x, const Violating& y) {
    const auto rx = scenarios::schedule_rank(plan, x.schedule);
    const auto ry = scenarios::schedule_rank(plan, y.schedule);
    return rx != ry ? rx < ry : x.number < y.number;
  });
}

std::string faults_text(const scenarios::CheckPlan& plan, const std::vector<std::size_t>& schedule) {
  std::string s;
  for (std::size_t i : schedule) s += (s.empty() ? "" : "; ") + plan.singles[i].text();
  return s;
}

void print_counts(const Outcome& o, const CheckArgs& a, double seconds) {
  std::uint64_t removed = 0;
  std::string reasons;
  for (const auto& [reason, n] : o.removed) {
    removed += n;
    reasons += (reasons.empty() ? "" : "; ") + std::string(scenarios::removal_reason_text(reason)) + ": " + std::to_string(n);
  }
  std::cout << "explored  " << o.explored_total << " schedules, " << removed << " removed as equivalent";
  if (!reasons.empty()) std::cout << " (" << reasons << ")";
  std::cout << "\n";
  if (a.shard != "1/1") std::cout << "shard     " << a.shard << ": ran " << o.ran << " of them\n";
  char time[32];
  std::snprintf(time, sizeof time, "%.2fs", seconds);
  std::cout << "time      " << time << "\n";
}

void print_in_full(const scenarios::CheckPlan& plan, const Violating& v) {
  const scenarios::Scenario s = scenarios::schedule_scenario(plan, v.schedule, v.number);
  std::cout << "\n# schedule " << v.number << " ("
            << (v.kept.empty() ? "save as " + printable(s.name) + ".toml" : "kept as " + printable(v.kept.front()))
            << ")\n" << scenarios::scenario_to_toml(s) << "\n";
  auto options = schedule_run_options(s, plan.lock_kind);
  if (!v.kept.empty()) options.scenario_ref = v.kept.front();  // a repro line that runs as printed
  const auto run = scenarios::run_scenario(s, options);
  if (!run) schedule_failed(plan, v.number, run.error());
  std::cout << reports::run_to_text(*run, s.description, stdout_style());
}

// 272728 -> "272,728": the counts a shard's summary compares.
std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n);
  for (std::size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, ",");
  return digits;
}

// The clean verdict: the bound's, or only this shard's share of it (a shard
// proves nothing about the schedules the other shards run).
std::string clean_result(const Outcome& o, const std::string& shard) {
  if (parse_shard("check", shard).second == 1) return "no violation within this bound";
  return "no violation in shard " + shard + ": " + grouped(o.ran) + " of " + grouped(o.explored_total) +
         " schedules; the bound is covered only when every shard has run";
}

// ---- The summary line (last line of --out) and --merge ----
//
// A shard proves nothing alone; its --out file ends with one summary line
// saying what it covered, and `check ... --merge FILES` reads those lines
// back and states the bound's verdict:
//   {"check":{"scenario","lock","bound" (16 hex digits: the base scenario,
//    lock and bound, so files of another check are refused),"shard":"K/N",
//    "schedules" (explored in the whole bound),"ran" (this shard's),
//    "complete" (false: interrupted),"violating":[{"schedule","faults",
//    "violations"}],"result" (the text line)}}

std::string bound_id(const scenarios::CheckPlan& plan) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(sim::fnv1a64(scenarios::scenario_to_toml(plan.base) + "\n--lock " +
                                                             plan.lock_kind + "\n" + scenarios::bound_text(plan))));
  return hex;
}

nlohmann::json summary_line(const scenarios::CheckPlan& plan, const Outcome& o, const std::string& shard,
                            const std::string& result) {
  nlohmann::json violating = nlohmann::json::array();
  for (const Violating& v : o.violating)
    violating.push_back({{"schedule", v.number}, {"faults", faults_text(plan, v.schedule)}, {"violations", v.kinds}});
  return {{"check",
           {{"scenario", plan.base.name},
            {"lock", plan.lock_kind},
            {"bound", bound_id(plan)},
            {"shard", shard},
            {"schedules", o.explored_total},
            {"ran", o.ran},
            {"complete", !o.interrupted},
            {"violating", violating},
            {"result", result}}}};
}

// The result line's text (after "result    "); a violation's lists the schedules after it.
std::string result_text(const Outcome& o, const std::string& shard) {
  if (o.interrupted)
    return "interrupted after walking " + std::to_string(o.walked) + " of " + std::to_string(o.candidates) +
           " candidate schedules: the bound is not covered";
  if (o.violating.empty()) return clean_result(o, shard);
  return std::to_string(o.violating.size()) + " violating schedule(s)" +
         (parse_shard("check", shard).second == 1 ? "" : " in shard " + shard);
}

// "kept      51 file(s) in DIR": the violating schedules kept as examples.
void print_kept(const Outcome& o) {
  std::size_t files = 0;
  std::string folder;
  for (const Violating& v : o.violating) {
    files += v.kept.size();
    if (folder.empty() && !v.kept.empty()) folder = std::filesystem::path(v.kept.front()).parent_path().parent_path();
  }
  if (files == 0) return;
  std::cout << "kept      " << files << " example file(s) under " << printable(folder)
            << ", one per violation; the next check or hunt of this lock replays them first\n";
}

int report(const scenarios::CheckPlan& plan, Outcome& o, const std::string& shard) {
  if (o.interrupted)
    std::cout << "result    " << result_text(o, shard) << "\n";
  else if (o.violating.empty()) {
    std::cout << "result    " << result_text(o, shard) << "\n";
    return kMatched;
  }
  if (!o.violating.empty()) {
    rank(plan, o.violating);
    std::cout << (o.interrupted ? "so far    " : "result    ") << o.violating.size()
              << " violating schedule(s), smallest first:\n";
    for (const Violating& v : o.violating)
      std::cout << "  " << v.number << ". " << printable(faults_text(plan, v.schedule)) << " -> " << joined(v.kinds) << "\n";
    print_kept(o);
    for (std::size_t i = 0; i < o.violating.size() && i < kShownInFull; ++i) print_in_full(plan, o.violating[i]);
    if (o.violating.size() > kShownInFull)
      std::cout << "\n(" << o.violating.size() - kShownInFull << " more listed above; --out has every run record)\n";
  }
  return o.interrupted ? kInterrupted : kUnmatched;
}

// Hypothesis's order: the examples kept for this lock (and --property) run
// before the walk, each that still fails listed at once. How many still fail.
std::size_t replay_first(const CheckArgs& a) {
  const auto folder = a.examples.folder();
  return folder ? print_replayed(*folder, replay_saved(*folder, a.lock, a.property)) : 0;
}

int run_check(const CheckArgs& a) {
  const auto started = std::chrono::steady_clock::now();
  if (a.out == "-")  // sweep's "-" is stdout; here stdout carries the report
    throw InputError("check: --out -: stdout carries check's report; name a file for the run records");
  // From here on, even while planning, a signal ends the walk.
  handle_stop_signals("\ncheck: second signal: stopped at once\n");
  const std::vector<scenarios::CheckPlan> plans = make_plans(a);
  refuse_output_over_input("check", "--out", a.out, {a.scenario});
  const OutputLock out_lock("check", "--out", a.out);  // before the truncation: a second check's file is kept
  std::ofstream file;
  if (!a.out.empty()) {
    file.open(a.out, std::ios::binary | std::ios::trunc);
    if (!file) throw InputError(a.out + ": cannot write");
  }
  std::cout << "check     " << printable(plans.front().base.name) << " --lock " << plans.front().lock_kind << "\n";
  if (const std::string line = process_locks_line(plans.front().lock_kind); !line.empty())
    std::cout << "check     " << line << "\n";
  const std::size_t saved_failing = replay_first(a);
  int code = kMatched;
  for (std::size_t pass = 0; pass < plans.size() && code != kInterrupted; ++pass) {
    const scenarios::CheckPlan& plan = plans[pass];
    print_bound(plan, pass, plans.size());
    Outcome outcome = run_schedules(plan, a, a.out.empty() ? nullptr : &file);
    print_counts(outcome, a, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    const int pass_code = report(plan, outcome, a.shard);
    if (pass_code != kMatched) code = pass_code;  // interrupted ends the check; a violation stays
    if (!a.out.empty()) {
      const auto [index, count] = parse_shard("check", a.shard);
      const std::string shard = std::to_string(index) + "/" + std::to_string(count);
      file << summary_line(plan, outcome, shard, result_text(outcome, a.shard)).dump() << "\n";
      if (!file.flush()) throw InputError(a.out + ": write failed (disk full?)");
    }
  }
  if (saved_failing == 0 || code == kInterrupted) return code;
  std::cout << "saved     " << saved_failing << " kept example(s) still fail (listed first; locksim examples list)\n";
  return kUnmatched;
}

// --- --merge ---

struct ShardSummary {
  std::string file;
  bool complete = false;
  std::uint64_t schedules = 0, ran = 0;
  std::vector<nlohmann::json> violating;
};

// file:line: what is wrong with a summary line.
[[noreturn]] void bad_summary(const std::string& file, std::size_t line, const std::string& what) {
  throw InputError(file + ":" + std::to_string(line) + ": " + what);
}

// The summary lines of `files` (run records are skipped) of `bound`, by
// shard index; every line must be of one of this check's `bounds` (its
// passes) and every line of `bound` say the same N.
std::map<unsigned, ShardSummary> read_summaries(const std::vector<std::string>& files, const std::string& bound,
                                                const std::vector<std::string>& bounds, unsigned& count) {
  std::map<unsigned, ShardSummary> shards;
  count = 0;
  for (const std::string& file : files) {
    // Regular files only (a FIFO would block, /dev/zero never ends), as `report` reads them.
    if (auto problem = scenarios::input_file_problem(file, std::numeric_limits<std::uintmax_t>::max()))
      throw InputError(file + ": " + *problem);
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file + ": cannot read");
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      if (line.rfind("{\"check\":", 0) != 0) continue;  // a run record
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j["check"].is_object()) bad_summary(file, n, "check: not a JSON object");
      const nlohmann::json& c = j["check"];
      if (!c.contains("bound") || !c["bound"].is_string() ||
          std::find(bounds.begin(), bounds.end(), c["bound"].get<std::string>()) == bounds.end())
        bad_summary(file, n, "check.bound: the summary of another check (scenario, lock or bound differ)");
      if (c["bound"] != bound) continue;  // another pass's
      if (!c.contains("shard") || !c["shard"].is_string()) bad_summary(file, n, "check.shard: expected \"K/N\"");
      const auto [index, of] = parse_shard("check", c["shard"].get<std::string>());
      if (count != 0 && of != count)
        bad_summary(file, n, "check.shard: " + std::to_string(of) + " shards here, " + std::to_string(count) + " before");
      count = of;
      if (shards.count(index)) bad_summary(file, n, "check.shard: shard " + std::to_string(index) + " read twice");
      ShardSummary& s = shards[index];
      s.file = file;
      s.complete = c.value("complete", false);
      s.schedules = c.value("schedules", std::uint64_t{0});
      s.ran = c.value("ran", std::uint64_t{0});
      if (c.contains("violating") && c["violating"].is_array())
        for (const auto& v : c["violating"]) s.violating.push_back(v);
    }
  }
  if (shards.empty()) throw InputError(files.front() + ": no check summary line (written at the end of `check --out`)");
  return shards;
}

// Shard numbers as text: "2, 5, 7" (at most 20, then "...").
std::string shard_list(const std::vector<unsigned>& shards) {
  std::string s;
  for (std::size_t i = 0; i < shards.size() && i < 20; ++i) s += (i ? ", " : "") + std::to_string(shards[i]);
  if (shards.size() > 20) s += ", ... (" + std::to_string(shards.size()) + " in all)";
  return s;
}

// The verdict of one pass from its shards' summary lines.
int merge_pass(const CheckArgs& a, const scenarios::CheckPlan& plan, const std::vector<std::string>& bounds) {
  unsigned count = 0;
  const auto shards = read_summaries(a.merge, bound_id(plan), bounds, count);
  std::vector<unsigned> missing, interrupted;
  std::uint64_t ran = 0, schedules = 0;
  std::vector<nlohmann::json> violating;
  for (unsigned k = 1; k <= count; ++k) {
    const auto it = shards.find(k);
    if (it == shards.end()) {
      missing.push_back(k);
      continue;
    }
    if (!it->second.complete) interrupted.push_back(k);
    ran += it->second.ran;
    schedules = std::max(schedules, it->second.schedules);
    violating.insert(violating.end(), it->second.violating.begin(), it->second.violating.end());
  }
  std::cout << "merged    " << shards.size() << " of " << count << " shard(s): " << grouped(ran) << " of "
            << grouped(schedules) << " schedules ran\n";
  const bool covered = missing.empty() && interrupted.empty();
  if (!violating.empty()) {
    std::sort(violating.begin(), violating.end(),
              [](const nlohmann::json& x, const nlohmann::json& y) { return x.value("schedule", 0) < y.value("schedule", 0); });
    std::cout << "result    violation: " << violating.size() << " violating schedule(s)"
              << (covered ? "" : " in the shards that ran (the bound is not covered)") << ":\n";
    for (const auto& v : violating)
      std::cout << "  " << v.value("schedule", 0) << ". " << v.value("faults", std::string()) << " -> "
                << joined(v.value("violations", std::vector<std::string>{})) << "\n";
    return kUnmatched;
  }
  if (covered) {
    std::cout << "result    no violation within this bound (every shard ran)\n";
    return kMatched;
  }
  std::cout << "result    not covered: no violation in the shards that ran, but";
  if (!missing.empty()) std::cout << " shard(s) " << shard_list(missing) << " of " << count << " are missing";
  if (!missing.empty() && !interrupted.empty()) std::cout << " and";
  if (!interrupted.empty()) std::cout << " shard(s) " << shard_list(interrupted) << " were interrupted";
  std::cout << "\n";
  return kUnmatched;
}

int merge_check(const CheckArgs& a) {
  const std::vector<scenarios::CheckPlan> plans = make_plans(a);
  std::vector<std::string> bounds;
  for (const auto& plan : plans) bounds.push_back(bound_id(plan));
  std::cout << "check     " << printable(plans.front().base.name) << " --lock " << plans.front().lock_kind << "\n";
  int code = kMatched;
  for (std::size_t pass = 0; pass < plans.size(); ++pass) {
    print_bound(plans[pass], pass, plans.size());
    if (merge_pass(a, plans[pass], bounds) != kMatched) code = kUnmatched;
  }
  return code;
}

}  // namespace

Handler add_check_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("check", "Run every fault schedule up to a bound; a violation or \"none within this bound\"");
  auto args = std::make_shared<CheckArgs>();
  cmd->add_option("scenario,--scenario", args->scenario,
                  "Base scenario (catalog name or .toml): its topology and workload")
      ->required();
  cmd->add_option("--lock", args->lock, "Lock kind to check (see `locksim list`)")->required();
  cmd->add_option("--faults", args->faults,
                  "Faults per schedule at most (1.." + std::to_string(scenarios::kMaxCheckFaults) + ")")
      ->capture_default_str();
  cmd->add_option("--kinds", args->kinds, "Fault kinds, comma separated (default: every kind the topology allows)");
  cmd->add_option("--property", args->property, "Only this violation counts (default: any)");
  args->jobs = std::to_string(default_jobs());
  cmd->add_option("--jobs", args->jobs,
                  "Parallel worlds (threads, 1.." + std::to_string(kMaxJobs) + "; default: the cores)")
      ->capture_default_str();
  cmd->add_option("--shard", args->shard, "Run shard K of N of the explored schedules, e.g. 2/8")->capture_default_str();
  cmd->add_option("--out", args->out,
                  "Write one run record (JSON line) per explored schedule to this file, then a summary line");
  cmd->add_option("--merge", args->merge,
                  "Read the --out files of this check's shards (same scenario, lock and bound options) and state "
                  "the bound's verdict; runs no schedule")
      ->excludes("--out");
  add_example_options(*cmd, args->examples);
  add_color_option(*cmd);
  return [args] { return args->merge.empty() ? run_check(*args) : merge_check(*args); };
}

}  // namespace locksim::cli
