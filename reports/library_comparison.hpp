// A client library run live (lib:*, locks/library_locks.cpp) beside the C++
// lock that ports its algorithm (LockInfo::port): per scenario, what the
// real library did and what the port did, and whether they differ. A
// difference is the library's own behaviour (or a live-only effect): the
// report lists it, docs/external-clients.md explains the measured ones.
#pragma once

#include <string>
#include <vector>

#include "reports/comparison.hpp"

namespace locksim::reports {

struct LibraryRow {
  std::string scenario;
  std::string library;  // the library lock, e.g. "lib:redis-py"
  std::string port;     // its C++ port, e.g. "token"
  std::string library_live;    // the library's live outcomes ("mutual-exclusion 2/2"), or "—"
  std::string port_simulated;  // the port's simulated outcomes, or "—"
  std::string port_live;       // the port's live outcomes, or "—"
  bool differs = false;  // a live outcome of the library the port's simulation never showed
  // The client library whose bug the story reproduces (its [lock] kind's
  // LockInfo::reproduces), when that is neither this library nor its port's:
  // another library's story, never marked differs. Empty otherwise.
  std::string story_of;
};

// What the last column says: "**differs**", "not this library's story (X)" or "".
std::string library_row_mark(const LibraryRow& row, bool markdown);

// Every (scenario, library lock) with live runs, sorted; empty without any.
std::vector<LibraryRow> library_rows(const Comparison& comparison);

// What the section says, for people.
std::string library_legend();

}  // namespace locksim::reports
