// Checkers: the four properties of docs/architecture.md, judged in true time from a
// run's History. Each violation names its kind (part of the CLI contract),
// the true time, the clients involved, a one-line explanation and the
// events that prove it, so a report can draw it.
#pragma once

#include <string>
#include <vector>

#include "scenarios/history.hpp"

namespace locksim::scenarios {

struct Violation {
  std::string kind;  // mutual-exclusion | wrong-owner-release | stale-write | lock-unavailable
  TrueInstant at;
  std::vector<std::string> clients;
  std::string detail;                 // "A's DEL removed B's lock"
  std::vector<std::string> evidence;  // the events that prove it, in time order
};

std::vector<Violation> check_mutual_exclusion(const History& h);
std::vector<Violation> check_wrong_owner_release(const History& h);
std::vector<Violation> check_stale_write(const History& h);
std::vector<Violation> check_lock_unavailable(const History& h, sim::Duration liveness);

// All four, sorted by time then kind.
std::vector<Violation> check_all(const History& h, sim::Duration liveness);

}  // namespace locksim::scenarios
