// The decision the report opens with: which lock survives which fault.
//
// Every (lock, fault class) pair folds the cells of the scenarios of that
// class (a scenario with several kinds of fault counts under each). Its
// runs are split by severity, worst first: data corruption (a stale write
// the storage accepted, a release of another client's lock), belief overlap
// without corruption (two holders at once, nothing corrupted), unavailability
// (nobody got the lock within the liveness bound), safe. A lock's plain
// sentence is generated from those splits and from whether the storage
// checked fencing tokens where it overlapped; nothing is keyed on lock
// names. Whether runs matched their expectation is reported beside it, as
// what it is: the catalog expecting a violation does not make it safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/comparison.hpp"
#include "reports/fault_class.hpp"

namespace locksim::reports {

// Worst last, so std::max picks the worst.
enum class Severity : std::uint8_t { Safe, Unavailable, Overlap, Corruption };
inline constexpr std::array<Severity, 4> kSeveritiesWorstFirst{Severity::Corruption, Severity::Overlap,
                                                               Severity::Unavailable, Severity::Safe};
std::string_view severity_id(Severity severity);     // "corruption", "overlap", "unavailable", "safe"
std::string_view severity_words(Severity severity);  // "corrupts data", "two holders", "unavailable", "survives"
// The worst severity among a run's violation kinds (Safe for none).
Severity severity_of(const std::set<std::string>& kinds);

struct DecisionCell {
  std::uint64_t runs = 0;
  std::map<Severity, std::uint64_t> runs_by_severity;   // each run once, by its worst violation
  std::map<std::string, std::uint64_t> runs_with_kind;  // as in Cell
  std::uint64_t unmatched = 0;                          // runs not as their scenario expected
  std::vector<std::string> scenarios;                   // sorted

  Severity severity() const;  // the worst that any run showed
  double share(Severity severity) const;
};

struct Decision {
  using Key = std::pair<std::string, FaultClass>;  // (lock, class)
  std::vector<FaultClass> classes;  // the columns: classes some scenario has, in all_fault_classes() order
  std::vector<std::string> locks;   // the rows: Comparison::locks()
  std::map<Key, DecisionCell> cells;
  std::map<std::string, std::string> sentences;  // lock -> "fenced: safe for your data when ..."

  const DecisionCell* cell(const std::string& lock, FaultClass fault) const;
};

// The classes of a scenario: Comparison::scenario_faults (annotate_faults),
// {Unclassified} when it was not loaded.
std::set<FaultClass> classes_of(const Comparison& comparison, const std::string& scenario);

Decision decide(const Comparison& comparison);
// The decision for machines: the report JSON's "decision" object (classes,
// one entry per (lock, class) with its runs by severity, the sentences).
nlohmann::ordered_json decision_to_json(const Decision& decision);

// "stale writes 100%, two holders 50%": a decision cell's kinds, worst first.
std::string decision_cell_text(const DecisionCell& cell);
// "SW 100%" style for one kind in plain words: "stale writes", "another's lock released", ...
std::string_view kind_plain_words(const std::string& kind);

}  // namespace locksim::reports
