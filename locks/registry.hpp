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
// The CP locks (etcd-*, zk-*) say so in `topology`: they need an etcd or
// ZooKeeper topology, and every Redis scenario refuses (run) or skips
// (sweep) them.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "locks/lock.hpp"

namespace locksim::locks {

using LockFactory = std::function<std::unique_ptr<Lock>(Runtime&, const LockConfig&)>;

// The service a lock is built on: Redis masters, an etcd cluster or a
// ZooKeeper ensemble. A lock runs only on a scenario of its topology.
// Enumerators count up from 0; each has a name (topology_name) and a row
// in the service table (scenarios/services.hpp), which says how to add one.
enum class Topology : std::uint8_t { Redis, Etcd, ZooKeeper };
const char* topology_name(Topology t);

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
  Topology topology = Topology::Redis;
  std::optional<Reproduction> reproduces = std::nullopt;  // set for reproductions of shipped bugs
  // Generated hunts draw jobs longer than the TTL (up to 3 TTLs) for this
  // lock: it renews its lease in the background or trusts a validity
  // deadline, and its bug only shows on a job that outlives one TTL.
  bool long_jobs = false;
  // Measures a grant's validity on the wall clock: generated hunts aim clock
  // steps inside its acquires (scenarios::GenLimits::acquiring_trigger).
  bool wall_clock_validity = false;
  // Whether extend() does something: renews the lease (or asks the
  // service to). False for a lock with nothing to renew, whose extend()
  // sends nothing (no-ttl: no TTL; zk-lock: the session is kept alive by
  // the client library, which offers no extend). Generated clients
  // (scenarios/schedule_gen.hpp: hunt, the property suite, a user's own
  // test) extend before their writes only for a lock that implements it:
  // each client as drawn, so both the extending and the plain paths run.
  bool implements_extend = true;
  // Its bug is in extend(): generated hunts make every client extend the
  // lock before each write (`[[client]] extends`), as its users do,
  // instead of as drawn.
  bool extends_before_writes = false;
  // The lock-specific [lock] options it reads (scenarios::kLockSpecificOptions:
  // node_timeout, renew_interval, ...): a scenario naming this kind and
  // setting another of them is an input error (the option would do nothing).
  std::vector<std::string> options = {};
  // A lock run by a client library in its own process (family "library",
  // live/external_lock.hpp): the package and version it runs, e.g.
  // "redis-py 4.3.4 (redis.lock.Lock)". Non-empty = only `locksim live`
  // can run it (the simulator refuses: real processes run in real time).
  std::string library = {};
  // For a shipped library lock: how live mode starts its adapter, the
  // program and its arguments around the adapter's script, a path under the
  // adapters directory (live/external_lock.hpp: adapters_dir()). Empty for
  // "external", whose command is the scenario's.
  struct Adapter {
    std::vector<std::string> interpreter;  // {"/usr/bin/python3"}
    std::string script;                    // "redis-py/adapter.py"
    std::vector<std::string> arguments;    // {"--fix=pr4315"}
    // Why live mode cannot step / drift the adapter process's clocks ("":
    // it can, through the client preload, live/preload/): its runtime
    // waits on deadlines the preload does not move (docs/external-clients.md).
    std::string no_clock_step = {};
    std::string no_clock_drift = {};
  };
  Adapter adapter = {};
  // The command that sets its TTL in whole seconds ("EXPIRE"; the simulated
  // lock rounds up), empty for a TTL in milliseconds: live mode refuses a
  // time scale at which the TTL is not whole seconds (it would not be the
  // scenario's TTL scaled).
  std::string whole_second_ttl = {};
  // For a library lock: the C++ lock that ports its algorithm ("token" for
  // redis-py's Lock), which reports set beside it (reports/library_comparison.hpp).
  std::string port = {};
};

// Why `lock` cannot run on a scenario of topology `scenario`, or nullopt.
std::optional<std::string> topology_mismatch(const LockInfo& lock, Topology scenario);

// "redlock-py 1.0.x at 8b5989d, PR #3; fixed: redlock-py": the line
// `locksim list` and reports print for a reproduction.
std::string reproduction_label(const Reproduction& r);

// Adds or replaces (same name) a lock. False if the info is unusable
// (empty name or no factory).
bool register_lock(LockInfo info);

// Every registered lock run by locksim itself, sorted by name (built-ins
// registered on first use): what sweeps, hunts and listings go over.
std::vector<LockInfo> all_locks();
// The registered locks run by a client library in its own process
// (LockInfo::library set; live/external_lock.hpp), sorted by name: only
// `locksim live` runs them, so they are not among all_locks().
std::vector<LockInfo> library_locks();
std::optional<LockInfo> find_lock(const std::string& name);
// "unknown lock kind 'naivedel'; did you mean 'naive-del'? (see `locksim list`)".
std::string unknown_lock_message(const std::string& name);

// Builds the lock or nullptr if no lock of that name is registered.
std::unique_ptr<Lock> make_lock(const std::string& name, Runtime& rt, const LockConfig& config);

}  // namespace locksim::locks

// Registers a lock when the program starts. In the lock's own .cpp, at
// namespace scope:
//   LockInfo my_lock_info() { ... }
//   LOCKSIM_REGISTER_LOCK(my_lock_info);
// and compile that file into the program (locksim_add_cli() does), so the
// static initializer is linked in. The registry table is a function-local
// static, so the order of static initialization does not matter.
#define LOCKSIM_REGISTER_LOCK(info_function)                 \
  [[maybe_unused]] static const bool locksim_registered_##info_function = \
      ::locksim::locks::register_lock(info_function())
