// Violation kinds: the one table that says, for each kind, everything the
// project knows about it besides how it is judged. Its name (part of the CLI
// and JSON contract: names never change); the checker that finds it; whether
// only a sale can have it; its severity (the decision table's column); its
// rank in the one "worst first" order every report reads kinds in; its
// abbreviation (the comparison matrix); its plain words (the decision table
// and the comparison verdict). The checkers, the scenario parser (expect =
// [...]) and every report read this table and never spell a kind themselves.
//
// Adding a kind = one ViolationKind value, one row in violation_kinds.cpp and
// its checker (scenarios/checkers.cpp). A kind without a row fails to
// compile (the table's size is kViolationKindCount, and a static_assert
// ties that to the enum) and the [scenarios] tests check every row's order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

// In table order: the order of `locksim list` and of the JSON's per-kind counts.
enum class ViolationKind : std::uint8_t {
  MutualExclusion, WrongOwnerRelease, StaleWrite, LockUnavailable, Oversell, DoublePurchase,
  LostOrder  // keep last: kViolationKindCount counts up to it
};
inline constexpr std::size_t kViolationKindCount = static_cast<std::size_t>(ViolationKind::LostOrder) + 1;

// How bad a run is, by the worst kind it shows. Worst last, so std::max
// picks the worst; Safe: no violation.
enum class Severity : std::uint8_t { Safe, Unavailable, Overlap, Corruption };

struct ViolationKindInfo {
  ViolationKind kind;
  std::string_view name;           // "mutual-exclusion": the CLI/JSON contract
  std::string_view checker;        // the function of scenarios/checkers.hpp that finds it
  bool sale_only;                  // judged only when the run sells a stock (History::sale)
  Severity severity;               // the decision table's reading of a run with it
  int rank;                        // 1 = read first; one order for every report
  std::string_view abbreviation;   // "ME": the comparison matrix's cells
  std::string_view short_words;    // "two holders": the decision table's cells
  std::string_view verdict_words;  // "two holders at once": the comparison's verdict
};

// Every kind, in ViolationKind order.
const std::array<ViolationKindInfo, kViolationKindCount>& violation_kind_table();
const ViolationKindInfo& violation_kind_info(ViolationKind kind);
std::string_view violation_kind_name(ViolationKind kind);
std::optional<ViolationKind> violation_kind_from_name(std::string_view name);
// Every kind's row, worst first (by rank).
const std::vector<const ViolationKindInfo*>& violation_kinds_worst_first();

}  // namespace locksim
