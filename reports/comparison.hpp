// The comparison model behind `locksim report`: sweep results (JSONL, one
// `locksim run --format json` object per line) folded into one cell per
// (scenario, lock) — runs, how often each violation kind appeared, the
// expectation and whether runs matched it, the minimal failing run (fewest
// events, a proxy for the shortest counterexample; ties go to the lowest
// seed), and performance figures — plus a plain-words verdict per lock that
// is generated from which violation kinds appeared in which scenarios (never
// from a table keyed on lock names).
//
// Streaming: a run is folded into its cell and dropped. The aggregate grows
// with the number of cells, not runs. The one per-run cost is duplicate
// detection (merged shard files may repeat a run; it must count once, and a
// repeat with another digest means determinism broke): a seed index of 8
// bytes plus one bit per run, dense over each cell's seed range (a sparse
// map for outlying seeds). Medians come from a bounded sketch that keeps
// values to three significant digits. Measured on the 2-core dev machine:
// a 1,000,000-run sweep (650 MB of JSONL, 198 cells) reads in ~13 s with a
// peak RSS of ~20 MB (100,000 runs: ~8 MB).
//
// Live lines (`locksim live --format json` / `sweep --live`, marked by a
// "live" object; cli/live_result.hpp) may come in the same files. They are
// folded into LiveCells of their own and never count in the simulated
// rates, verdicts, run counts or exit code; they only answer, per cell,
// "confirmed on real Redis": yes when every live run's violation set is one
// the simulation found for that cell (with deterministic scenarios: the
// one set), differs otherwise, or not run live (with live mode's reason).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "locks/registry.hpp"
#include "reports/fault_class.hpp"
#include "scenarios/fault_mechanism.hpp"
#include "vocab/result.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::reports {

struct RunRecord;  // reports/run_record.hpp

// Quantiles of a stream of non-negative integers in bounded memory: each
// value is kept rounded to three significant digits (relative error under
// 0.5%), so at most ~900 buckets per decade exist whatever the run count.
class QuantileSketch {
 public:
  void add(std::int64_t value);
  void merge(const QuantileSketch& other);
  // Nearest-rank percentile p (0..100) of the rounded values; 0 when empty.
  std::int64_t percentile(int p) const;
  std::uint64_t count() const { return count_; }

 private:
  std::map<std::int64_t, std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
};

// A run kept to point at: the minimal failing run, or an unmatched example.
struct RunRef {
  std::uint64_t seed = 0;
  std::uint64_t events = 0;
  std::string digest;
  std::string repro;
  std::set<std::string> kinds;  // violation kinds found
  bool matched = true;
};

struct CellPerf {
  QuantileSketch acquire_p50_us;     // one value per run: that run's acquire p50
  std::int64_t acquire_p99_us_max = 0;
  std::uint64_t attempts = 0;
  std::uint64_t acquisitions = 0;
  std::uint64_t gave_up = 0;
  std::uint64_t round_trips = 0;
  std::int64_t sim_time_ms = 0;
  // A sale's runs (inventory, gate): the method, and the sums behind the
  // mean orders per simulated second and the mean time to sell out.
  std::string sale_method;
  std::uint64_t sale_runs = 0;
  double sale_orders_per_s_sum = 0;
  std::uint64_t sale_sold_out_runs = 0;
  std::int64_t sale_sold_out_ms_sum = 0;
  void merge(const CellPerf& other);
  double mean_orders_per_s() const { return sale_runs ? sale_orders_per_s_sum / static_cast<double>(sale_runs) : 0.0; }
  std::int64_t median_acquire_p50_us() const { return acquire_p50_us.percentile(50); }
  double round_trips_per_acquisition() const;  // 0 without acquisitions
  double acquisitions_per_sim_second() const;  // 0 without simulated time
};

struct Cell {
  static constexpr std::size_t kMaxUnmatchedExamples = 5;

  std::string scenario;
  std::string lock;
  std::string source;  // catalog name or scenario file (first seen)
  std::uint64_t runs = 0;
  std::uint64_t matched = 0;
  std::uint64_t unmatched = 0;
  std::uint64_t runs_violated = 0;                    // runs with any violation
  std::map<std::string, std::uint64_t> runs_with_kind;  // runs with >= 1 of that kind
  std::optional<std::set<std::string>> expected;      // as first seen; nullopt = none
  std::set<std::string> may;                          // allowed, not required ("may" in a run)
  bool expected_varies = false;                       // runs disagreed on the expectation
  std::map<std::set<std::string>, std::uint64_t> outcomes;  // violation set -> runs (at most 2^kinds)
  std::optional<RunRef> minimal_failing;              // fewest events, then lowest seed
  std::vector<RunRef> unmatched_examples;             // lowest seeds, at most kMax...
  CellPerf perf;

  double rate(const std::string& kind) const;  // runs with kind / runs
  bool violated() const { return runs_violated > 0; }
  bool all_matched() const { return unmatched == 0; }
};

// The live runs of one (scenario, lock): what they found, or why live mode
// could not run it.
struct LiveCell {
  std::string scenario;
  std::string lock;
  std::uint64_t runs = 0;
  std::map<std::set<std::string>, std::uint64_t> outcomes;  // violation set -> live runs
  std::set<double> time_scales;                            // of the runs
  std::optional<std::string> skipped;                      // live mode's reason (exit 2)
  // How live mode produced the faults, merged over the runs (the run
  // record's "fault_mechanisms"); runs whose lines predate the field are counted.
  std::vector<scenarios::FaultMechanism> fault_mechanisms;
  std::uint64_t runs_without_mechanisms = 0;
};

// A no-lock method's row in the tables: "no lock (read-check-write)",
// "SET NX gate", "DECR", "Lua"; "no lock (<method>)" for another.
std::string no_lock_row_name(const std::string& method);
// Whether a sale method ("read-check-write", "lock", "decr", "lua",
// "segmented", "gate") takes no lock.
bool method_takes_no_lock(const std::string& method);

// "confirmed on real Redis" for one (scenario, lock).
struct Agreement {
  enum class Status { Yes, Differs, NotRunLive, NotSimulated };
  Status status = Status::NotRunLive;
  std::string reason;  // NotRunLive: why
};
std::string_view agreement_status_name(Agreement::Status status);  // "yes", "differs", "not run live", ...

struct LockVerdict {
  enum class Level { Safe, FencingOnly, EfficiencyOnly, Unsafe };
  Level level = Level::Safe;
  std::string text;  // "safe for efficiency, not correctness: stale writes (gc-pause, delayed-packet)"
};
std::string_view verdict_level_name(LockVerdict::Level level);  // "safe", "unsafe", ...

// Where a report comes from, for its header ("when, which version, which
// command, which inputs"): set by `locksim report`, empty when not said.
// The renderers stay pure functions of the comparison: the same comparison,
// provenance included, renders to the same bytes.
struct Provenance {
  std::string generated_at;  // "2026-12-04 16:58 UTC"
  std::string version;       // "locksim 0.1.0 (git a1b2c3d4e5f6)"
  std::string command;       // the command line, shell-quoted
};

// One input file and what it contributed.
struct InputFile {
  std::string name;
  std::uint64_t runs = 0;        // simulated runs counted from it
  std::uint64_t duplicates = 0;  // its runs already counted from an earlier line or file
  std::uint64_t live_lines = 0;  // live runs and skip lines
};

struct ReportError {
  enum class Kind { BadInput, Nondeterminism };
  Kind kind = Kind::BadInput;
  std::string message;  // "file:line: field: message" for bad input
};

// Remembers which seeds a cell has seen and their digests (see the top).
class SeedIndex {
 public:
  // nullopt: a new seed (now recorded); otherwise the digest recorded before.
  std::optional<std::uint64_t> insert(std::uint64_t seed, std::uint64_t digest);
  bool contains(std::uint64_t seed) const;

 private:
  std::uint64_t base_ = 0;
  std::vector<std::uint64_t> digests_;
  std::vector<bool> present_;
  std::map<std::uint64_t, std::uint64_t> sparse_;
  std::uint64_t count_ = 0;
};

class Comparison {
 public:
  using Key = std::pair<std::string, std::string>;  // (scenario, lock)

  // Folds in one run object. true = counted, false = a duplicate of a run
  // already counted (same digest). Errors name the field; the caller adds
  // file:line.
  Result<bool, ReportError> add_run(const nlohmann::json& run);

  const std::map<Key, Cell>& cells() const { return cells_; }
  const Cell* cell(const std::string& scenario, const std::string& lock) const;
  std::vector<std::string> scenarios() const;  // sorted
  std::vector<std::string> locks() const;      // by family (lock_family), then name; reproductions last

  std::uint64_t runs() const { return runs_; }
  std::uint64_t unmatched_runs() const { return unmatched_runs_; }
  std::uint64_t duplicates() const { return duplicates_; }
  std::uint64_t skipped_lines() const { return skipped_lines_; }
  void count_skipped_line() { ++skipped_lines_; }
  std::string sources_label() const;  // the input files, for titles

  // Live lines (see the top): none read = has_live() false, and the
  // renderers leave "confirmed on real Redis" out.
  bool has_live() const { return live_lines_ > 0; }
  std::uint64_t live_runs() const;
  const std::map<Key, LiveCell>& live_cells() const { return live_cells_; }
  const LiveCell* live_cell(const std::string& scenario, const std::string& lock) const;
  Agreement agreement(const std::string& scenario, const std::string& lock) const;
  // Every (scenario, lock) with simulated or live results, sorted.
  std::vector<Key> agreement_keys() const;
  void add_input(const std::string& name) {
    inputs_.push_back(name);
    input_files_.push_back(InputFile{name});
  }
  const std::vector<std::string>& inputs() const { return inputs_; }
  // The inputs with what each contributed (counted by add_run into the last added).
  const std::vector<InputFile>& input_files() const { return input_files_; }
  Provenance provenance;

  // The method of a story that takes no lock ("read-check-write", "decr",
  // "lua", "gate"; ScenarioFaults::no_lock_method), "" for one that takes
  // the lock. From the loaded scenario (annotate_faults), else from its
  // runs' sale method.
  std::string no_lock_method(const std::string& scenario) const;

  // What each scenario injects ("process pauses", "delayed packets"), used
  // to say under which conditions a lock fails. Filled by annotate_faults.
  std::map<std::string, std::vector<std::string>> scenario_conditions;
  // The same, typed, for the decision table (reports/decision.hpp): each
  // scenario's fault classes and whether its storage checks fencing tokens.
  // Filled by annotate_faults; a scenario missing here is "unclassified".
  std::map<std::string, ScenarioFaults> scenario_faults;

  // Every cell of one lock merged (perf over all its runs), stories that
  // take no lock left out.
  CellPerf lock_perf(const std::string& lock) const;
  LockVerdict verdict(const std::string& lock) const;

 private:
  std::string conditions_text(const std::vector<std::string>& scenarios) const;
  Result<bool, ReportError> add_live_run(const RunRecord& run);

  std::map<Key, Cell> cells_;
  std::map<Key, LiveCell> live_cells_;
  std::uint64_t live_lines_ = 0;
  Result<bool, ReportError> check_one_format(const RunRecord& r, const std::map<std::uint64_t, SeedIndex>& by_format);

  // The seeds seen per cell, by digest format: digests of two formats are
  // never compared (a run recorded in both is an input error, not a
  // determinism failure).
  std::map<Key, std::map<std::uint64_t, SeedIndex>> seen_;
  std::map<std::uint64_t, std::string> format_input_;  // the first input holding each digest format
  std::vector<std::string> inputs_;
  std::vector<InputFile> input_files_;
  std::uint64_t runs_ = 0;
  std::uint64_t unmatched_runs_ = 0;
  std::uint64_t duplicates_ = 0;
  std::uint64_t skipped_lines_ = 0;
};

// The family a lock belongs to, so tables answer "Redis lock or
// etcd/ZooKeeper, and do I need fencing?": one Redis master, several Redis
// masters (Redlock and kin), an etcd cluster, a ZooKeeper ensemble. From the
// registry (LockInfo::topology, min_nodes); an unknown lock counts as
// single Redis. Families sort by service (the service table's order), one
// Redis master before several.
struct LockFamily {
  locks::Topology service = locks::Topology::Redis;
  bool multi_node = false;  // Redis only
  auto operator<=>(const LockFamily&) const = default;
};
LockFamily lock_family(const std::string& lock);
// The service row's report_family ("single Redis", "etcd", "ZooKeeper"),
// or "Redis multi-node".
std::string_view lock_family_name(LockFamily family);
// The group a lock's row is under in the tables: its family's name, or
// "reproductions: single Redis" for a reproduction of a shipped bug.
std::string lock_group_label(const std::string& lock);

// Reads JSONL into the comparison. Blank lines are ignored; a torn last line
// (a sweep killed mid-write: the start of an object, with no newline after
// it; reports/run_record.hpp classify_bad_line) is skipped with a warning
// written to `warnings`; any other bad line — garbage at the end included —
// is a BadInput error "name:line: ...".
Result<bool, ReportError> read_jsonl(std::istream& in, const std::string& name, Comparison& into,
                                     std::ostream& warnings);
Result<bool, ReportError> read_jsonl_file(const std::string& path, Comparison& into, std::ostream& warnings);

// Looks each scenario up by its source (catalog name or file) and records
// the kinds of fault it injects, for the verdicts and (typed, as fault
// classes) for the decision table. Scenarios that cannot be
// loaded any more are left out (their verdict just names them).
void annotate_faults(Comparison& comparison);

// Short names of the violation kinds for narrow tables: ME, WOR, SW, LU
// (vocab/violation_kinds.hpp); a kind the table does not know (a run file
// of another version), itself.
std::string violation_abbrev(const std::string& kind);
// "ME mutual-exclusion, WOR wrong-owner-release, ...": the abbreviations' legend.
std::string violation_abbrev_legend();
// The kinds counted in `runs_with_kind` (n > 0), worst first: the table's
// rank, then any kind the table does not know, by name.
std::vector<std::string> kinds_worst_first(const std::map<std::string, std::uint64_t>& runs_with_kind);
// A violation set for people: "mutual-exclusion, stale-write", or "none".
std::string kinds_text(const std::set<std::string>& kinds);
// Several outcomes: "none (3 runs) | stale-write (1 run)"; one: just its kinds.
std::string outcomes_text(const std::map<std::set<std::string>, std::uint64_t>& outcomes);

// "12.35" (fixed digits); latency for people: "4.8 ms", "25.02 s".
std::string format_fixed(double value, int digits);
std::string format_latency_us(std::int64_t us);

// "100%", "3.4%", "<0.1%" (never "0%" for a non-zero rate).
std::string format_rate(double rate);

}  // namespace locksim::reports
