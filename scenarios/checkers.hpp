// Checkers: the properties of docs/architecture.md, judged in true time from a
// run's History: four of a lock, three of a sale (oversell, double-purchase,
// lost-order: only when the run sells a stock, History::sale). Each violation names its kind (part of the CLI contract),
// the true time, the clients involved, a one-line explanation and the
// events that prove it, so a report can draw it.
#pragma once

#include <string>
#include <vector>

#include "scenarios/history.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::scenarios {

struct Violation {
  std::string kind;  // a ViolationKind's name (vocab/violation_kinds.hpp)
  TrueInstant at;
  std::vector<std::string> clients;
  std::string detail;                 // "A's DEL removed B's lock"
  std::vector<std::string> evidence;  // the events that prove it, in time order
};

std::vector<Violation> check_mutual_exclusion(const History& h);
std::vector<Violation> check_wrong_owner_release(const History& h);
std::vector<Violation> check_stale_write(const History& h);
std::vector<Violation> check_lock_unavailable(const History& h, Duration liveness);
// More orders stored than items in stock (the first order past it).
std::vector<Violation> check_oversell(const History& h);
// A buyer holds more orders than the sale's per_buyer.
std::vector<Violation> check_double_purchase(const History& h);
// A buyer was told it bought (or won) more often than it has orders stored.
std::vector<Violation> check_lost_order(const History& h);

// The violations only a sale has (judged when History::sale is set).
bool is_sale_violation(const std::string& kind);

// All of them, sorted by time then kind.
std::vector<Violation> check_all(const History& h, Duration liveness);

}  // namespace locksim::scenarios
