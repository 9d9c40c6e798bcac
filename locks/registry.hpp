// The lock registry: name → factory, with what `locksim list` shows (a
// one-line description, the algorithm's source) and what a scenario must
// provide (minimum nodes, Redis 8.4 IFEQ) or may rely on (a fencing token,
// a validity deadline).
//
// A runtime table, not only a compile-time list: users add their own lock
// with `register_lock(...)` before running scenarios. Iteration is sorted by
// name so listings and sweeps are deterministic.
//
// Adding a built-in lock = one file plus one registry line:
//   1. locks/my_lock.cpp defines the class (anonymous namespace) and
//        LockInfo lock_info_my_lock() { return {"my-lock", ..., factory}; }
//      (the file opens with the algorithm's source, claims and assumptions);
//   2. add `X(my_lock)` to LOCKSIM_BUILTIN_LOCKS in locks/registry.cpp.
// The CMake glob picks the file up. A lock may derive from LockBase
// (locks/lock_base.hpp: retry loop, round-trip count, validity deadline) or
// implement Lock directly; a user's lock registers the same way at run time.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "locks/lock.hpp"

namespace locksim::locks {

using LockFactory = std::function<std::unique_ptr<Lock>(Runtime&, const LockConfig&)>;

// A lock that reproduces a safety bug a shipped client library had
// (docs/reproductions.md): which library, version and report, the lock that
// behaves as the fix does, and the violation the report is about. Listings
// mark these locks and reports sort them apart from the recommended ones;
// `locksim hunt` counts only runs where the fixed lock does not show it.
struct Reproduction {
  std::string library;   // "redlock-py"
  std::string version;   // "1.0.x at 8b5989d (before PR #3)"
  std::string report;    // "PR #3"
  std::string fixed_by;  // a registered lock with the fix
  std::string violation; // what the report is about, e.g. "mutual-exclusion"
};

struct LockInfo {
  std::string name;              // CLI name, e.g. "naive-del"
  std::string description;       // one line for `locksim list`
  std::string source;            // where the algorithm comes from
  std::size_t min_nodes = 1;     // Redis masters the lock needs
  bool needs_redis84 = false;    // uses DELEX / SET IFEQ
  bool fencing = false;          // leases carry a fencing token
  bool tracks_validity = false;  // leases carry valid_until by default
  LockFactory factory;
  std::optional<Reproduction> reproduces = std::nullopt;  // set for reproductions of shipped bugs
  // Generated hunts draw jobs longer than the TTL (up to 3 TTLs) for this
  // lock: it renews its lease in the background or trusts a validity
  // deadline, and its bug only shows on a job that outlives one TTL.
  bool long_jobs = false;
  // Measures a grant's validity on the wall clock: generated hunts aim clock
  // steps inside its acquires (scenarios::GenLimits::acquiring_trigger).
  bool wall_clock_validity = false;
};

// "redlock-py 1.0.x at 8b5989d, PR #3; fixed: redlock-py": the line
// `locksim list` and reports print for a reproduction.
std::string reproduction_label(const Reproduction& r);

// Adds or replaces (same name) a lock. False if the info is unusable
// (empty name or no factory).
bool register_lock(LockInfo info);

// Every registered lock, sorted by name (built-ins registered on first use).
std::vector<LockInfo> all_locks();
std::optional<LockInfo> find_lock(const std::string& name);

// Builds the lock or nullptr if no lock of that name is registered.
std::unique_ptr<Lock> make_lock(const std::string& name, Runtime& rt, const LockConfig& config);

}  // namespace locksim::locks
