#include "vocab/violation_kinds.hpp"

#include <algorithm>
#include <cassert>

namespace locksim {

namespace {

using K = ViolationKind;
using S = Severity;

// Worst first (rank) follows severity: what corrupts data, then two holders
// at once, then a lock that stays unavailable. Among the corruptions, the
// sale's (a customer sees them) before the lock's own.
constexpr std::array<ViolationKindInfo, kViolationKindCount> kViolationKinds = {{
    {K::MutualExclusion, "mutual-exclusion", "check_mutual_exclusion", false, S::Overlap, 6, "ME", "two holders",
     "two holders at once"},
    {K::WrongOwnerRelease, "wrong-owner-release", "check_wrong_owner_release", false, S::Corruption, 5, "WOR",
     "another's lock released", "deletes of another client's lock"},
    {K::StaleWrite, "stale-write", "check_stale_write", false, S::Corruption, 4, "SW", "stale writes accepted",
     "stale writes"},
    {K::LockUnavailable, "lock-unavailable", "check_lock_unavailable", false, S::Unavailable, 7, "LU", "unavailable",
     "a lock stuck after its holder died"},
    {K::Oversell, "oversell", "check_oversell", true, S::Corruption, 1, "OS", "oversold",
     "more orders than items in stock"},
    {K::DoublePurchase, "double-purchase", "check_double_purchase", true, S::Corruption, 3, "DP", "bought twice",
     "buyers holding more orders than allowed"},
    {K::LostOrder, "lost-order", "check_lost_order", true, S::Corruption, 2, "LO", "orders lost",
     "purchases confirmed and then lost"},
}};

constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < kViolationKinds.size(); ++i)
    if (static_cast<std::size_t>(kViolationKinds[i].kind) != i || kViolationKinds[i].name.empty()) return false;
  return true;
}
static_assert(rows_in_enum_order(), "one row per ViolationKind, in enum order");

// Ranks 1..N, each once, and never a milder kind before a worse one.
constexpr bool ranks_follow_severity() {
  for (const auto& a : kViolationKinds) {
    if (a.rank < 1 || a.rank > static_cast<int>(kViolationKindCount)) return false;
    for (const auto& b : kViolationKinds) {
      if (&a != &b && a.rank == b.rank) return false;
      if (a.rank < b.rank && a.severity < b.severity) return false;
    }
  }
  return true;
}
static_assert(ranks_follow_severity(), "ranks: 1..N, each once, worse severity first");

}  // namespace

const std::array<ViolationKindInfo, kViolationKindCount>& violation_kind_table() { return kViolationKinds; }

const ViolationKindInfo& violation_kind_info(ViolationKind kind) {
  const auto i = static_cast<std::size_t>(kind);
  assert(i < kViolationKindCount);
  return kViolationKinds[i];
}

std::string_view violation_kind_name(ViolationKind kind) { return violation_kind_info(kind).name; }

std::optional<ViolationKind> violation_kind_from_name(std::string_view name) {
  for (const auto& row : kViolationKinds)
    if (row.name == name) return row.kind;
  return std::nullopt;
}

const std::vector<const ViolationKindInfo*>& violation_kinds_worst_first() {
  static const std::vector<const ViolationKindInfo*> order = [] {
    std::vector<const ViolationKindInfo*> rows;
    for (const auto& row : kViolationKinds) rows.push_back(&row);
    std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->rank < b->rank; });
    return rows;
  }();
  return order;
}

}  // namespace locksim
