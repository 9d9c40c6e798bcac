// The decision the report opens with: which lock survives which fault.
//
// Every (lock, fault class) pair folds the cells of the scenarios of that
// class (a scenario with several kinds of fault counts under each). Its
// runs are split by severity, worst first: data corruption (a stale write
// the storage accepted, a release of another client's lock), belief overlap
// without corruption (two holders at once, nothing corrupted), unavailability
// (nobody got the lock within the liveness bound), safe. A story that takes
// no lock (a sale by read-check-write, DECR or Lua, a SET NX gate) never
// counts against a lock: its runs form a row of their own, named by the
// method, so a reader still sees those workloads oversell.
//
// Each lock gets one judgement of what it does to data (DataSafety), and
// its plain sentence and the recommendation above the table are both
// written from that judgement, so they cannot disagree with each other or
// with the table: "safe for your data with a checking storage" is said
// only when no run whose storage checked tokens was corrupted and every
// class where data was corrupted without the check was also tried with it.
// Nothing is keyed on lock names. Whether runs matched their expectation is
// reported beside it, as what it is: the catalog expecting a violation does
// not make it safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/comparison.hpp"
#include "reports/fault_class.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::reports {

// Severity (worst last, so std::max picks the worst) is the violation-kind
// table's (vocab/violation_kinds.hpp).
using Severity = locksim::Severity;
inline constexpr std::array<Severity, 4> kSeveritiesWorstFirst{Severity::Corruption, Severity::Overlap,
                                                               Severity::Unavailable, Severity::Safe};
std::string_view severity_id(Severity severity);     // "corruption", "overlap", "unavailable", "safe"
std::string_view severity_words(Severity severity);  // "corrupts data", "two holders", "unavailable", "survives"
// The worst severity among a run's violation kinds (Safe for none).
Severity severity_of(const std::set<std::string>& kinds);

struct DecisionCell {
  std::uint64_t runs = 0;
  // The run to look at (the minimal failing run of the cell's worst
  // severity, fewest events): a timeline of this very cell.
  std::optional<std::pair<std::string, std::string>> worst_example;  // (scenario, lock) of the matrix cell
  Severity worst_example_severity = Severity::Safe;
  std::uint64_t worst_example_events = 0;
  std::map<Severity, std::uint64_t> runs_by_severity;   // each run once, by its worst violation
  std::map<std::string, std::uint64_t> runs_with_kind;  // as in Cell
  std::uint64_t unmatched = 0;                          // runs not as their scenario expected
  std::vector<std::string> scenarios;                   // sorted

  Severity severity() const;  // the worst that any run showed
  double share(Severity severity) const;
};

// What a lock did to data over every scenario that takes it, best first.
enum class DataSafety : std::uint8_t {
  Held,          // no two holders, no data corrupted (unavailability aside)
  NoCorruption,  // two holders at once somewhere, but no data corrupted
  WithFencing,   // two holders or corruption only where the storage did not check tokens; held where it did
  Corrupts,      // corrupted data even with a checking storage, or where one was not tried
};
std::string_view data_safety_id(DataSafety safety);  // "held", "no-corruption", "with-fencing", "corrupts"

// The evidence behind a lock's judgement, by fault class.
struct LockJudgement {
  DataSafety safety = DataSafety::Held;
  std::set<FaultClass> corrupt;            // data corrupted in some run (storage checking or not)
  std::set<FaultClass> corrupt_checked;    // ... where the storage checked fencing tokens
  std::set<FaultClass> corrupt_unchecked;  // ... where it did not
  std::set<FaultClass> checked;            // tried with a checking storage
  std::set<FaultClass> overlap_checked;    // two holders, no corruption, where the storage checked tokens
  std::set<FaultClass> overlap_unchecked;  // ... where it did not (data intact by luck of timing)
  std::set<FaultClass> overlap;            // two holders at once, no data corrupted (the class's worst)
  std::set<FaultClass> unavailable;        // the lock left unavailable (the class's worst)
  std::uint64_t runs = 0;
  std::uint64_t scenarios = 0;
  bool tried_with_faults = false;  // some scenario with a fault took the lock
  bool gives_tokens = true;        // its leases carry a fencing token (LockInfo::fencing; unknown locks: true)
};

struct Decision {
  using Key = std::pair<std::string, FaultClass>;  // (lock or no-lock row, class)
  std::vector<FaultClass> classes;  // the columns: classes some scenario has, in all_fault_classes() order
  std::vector<std::string> locks;   // the rows: Comparison::locks()
  std::map<Key, DecisionCell> cells;
  std::map<std::string, std::string> sentences;  // lock -> "fenced: safe for your data when ..."
  std::map<std::string, LockJudgement> judgements;  // lock -> its judgement (the sentence's source)
  // The stories that take no lock, a row per method ("SET NX gate", "DECR",
  // ...: no_lock_row_name), in name order, their cells and sentences apart
  // from the locks'.
  std::vector<std::string> no_lock_rows;
  std::map<std::string, std::string> no_lock_methods;  // row -> method ("gate", "decr", ...)
  std::map<Key, DecisionCell> no_lock_cells;
  std::map<std::string, std::string> no_lock_sentences;  // row -> "DECR: oversold under failover ..."
  // Above the table: what the table decides, a line per kind of lock
  // (recommend(): from the judgements, never hard-coded).
  std::vector<std::string> recommendation;

  const DecisionCell* cell(const std::string& lock, FaultClass fault) const;
  const DecisionCell* no_lock_cell(const std::string& row, FaultClass fault) const;
};

// The classes of a scenario: Comparison::scenario_faults (annotate_faults),
// {Unclassified} when it was not loaded.
std::set<FaultClass> classes_of(const Comparison& comparison, const std::string& scenario);

Decision decide(const Comparison& comparison);
// The lines above the table, from the judgements (reproductions of shipped
// bugs and locks tried under no fault left out) and the no-lock rows.
std::vector<std::string> recommend(const Decision& decision);
// A lock's sentence from its judgement alone.
std::string sentence_for(const std::string& lock, const LockJudgement& judgement);
// The decision for machines: the report JSON's "decision" object (classes,
// one entry per (lock, class) with its runs by severity, the sentences).
nlohmann::ordered_json decision_to_json(const Decision& decision);

// "stale writes 100%, two holders 50%": a decision cell's kinds, worst first.
std::string decision_cell_text(const DecisionCell& cell);
// "SW 100%" style for one kind in plain words: "stale writes", "another's lock released", ...
std::string_view kind_plain_words(const std::string& kind);

}  // namespace locksim::reports
