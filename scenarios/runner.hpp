// The runner: builds a world from a scenario and a lock kind, runs it for
// the scenario's duration, and judges the history with the checkers.
// Everything is a function of (scenario, lock, seed): same inputs, same
// digest, on any machine and any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "locks/registry.hpp"
#include "scenarios/checkers.hpp"
#include "scenarios/history.hpp"
#include "scenarios/scenario.hpp"
#include "sim/activity.hpp"
#include "sim/trace.hpp"
#include "vocab/result.hpp"

namespace locksim::scenarios {

class ProcessLocks;

struct RunOptions {
  std::string lock_kind;        // empty = the scenario's [lock] kind
  std::uint64_t seed = 1;
  bool record_trace = false;    // keep printable trace records (--trace, timelines)
  // At most this many records are kept; a run whose trace would pass it is
  // stopped there and run_scenario fails naming the cap (tests lower it).
  std::size_t trace_limit = sim::Trace::kDefaultRecordLimit;
  std::string scenario_ref;     // how the user named it, for the repro command
  std::string program = "locksim";  // the tool the repro command runs (locksim_add_cli names its own)
  // Set from outside (a sweep's signal handler) to end the run early:
  // run_scenario then throws sim::Scheduler::Stopped (sim/scheduler.hpp).
  const std::atomic<bool>* stop = nullptr;
  // When set, the run records where its events and packets went into it
  // (sim/activity.hpp): `locksim check` reads it to remove equivalent schedules.
  sim::Activity* activity = nullptr;
  // Runs a library lock's client processes in simulated time
  // (scenarios/process_locks.hpp); null: the installed factory makes the
  // run's own, and without one a library lock is refused.
  ProcessLocks* process_locks = nullptr;
  // The determinism self-check (--verify): run it twice, each in a fresh
  // world (a library lock with fresh processes), and throw
  // NondeterministicRun unless both give the same digest.
  bool verify = false;
};

// Two runs of one (scenario, lock, seed) differed (RunOptions::verify): the
// message names scenario, lock, seed and both digests. The CLI exits
// kNondeterministic (vocab/exit_code.hpp).
struct NondeterministicRun : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A sale's throughput, measured in simulated time (issue 17 item 4): the
// orders stored per simulated second over the selling period (from the
// sale's opening at true 0 to the sell-out, else to the last stored order),
// and when the stock ran out. Integers: orders_per_s_milli is the rate × 1000.
struct SaleSummary {
  std::string method;  // "read-check-write" ... "segmented", or "gate"
  std::uint64_t orders = 0;
  std::uint64_t refused = 0;
  std::optional<std::int64_t> sold_out_ms;
  std::int64_t orders_per_s_milli = 0;
};

struct RunSummary {
  std::uint64_t attempts = 0;
  std::uint64_t acquisitions = 0;
  std::uint64_t gave_up = 0;
  std::uint64_t round_trips = 0;
  std::vector<std::int64_t> acquire_latency_us;
  std::optional<SaleSummary> sale;  // runs that sell a stock (judged_run fills it)
};

struct RunResult {
  std::string scenario;
  std::string lock;
  std::uint64_t seed = 0;
  std::uint64_t digest = 0;
  std::uint64_t events = 0;
  std::int64_t sim_time_ms = 0;
  std::vector<Violation> violations;
  std::optional<std::set<std::string>> expected;
  std::set<std::string> may;  // violations allowed but not required (Scenario::may_for)
  bool matched = false;
  std::vector<std::string> outside_assumptions;  // unmet_assumptions (lock_assumptions.hpp)
  std::vector<std::string> adjusted;  // what the service made of the lock's ttl (cp_ttl_adjustments)
  std::string repro;
  std::string source;  // how to find the scenario again: a catalog name or a file path
  RunSummary summary;
  History history;                        // for timelines and reports
  std::vector<sim::TraceRecord> trace;    // when record_trace
  std::vector<std::string> host_names;    // by HostId, to print the trace
  // A library lock's run: which process ran which client, under which
  // mechanism (ProcessLocks::mechanism); not in the digest nor the record.
  std::vector<std::string> mechanism;

  std::set<std::string> violation_kinds() const;
};

// A run's History judged, as `run` and `live` both report it: the scenario,
// lock and seed, the checkers' violations against the scenario's
// expectations (`may` counts), its source and summary. The caller adds how
// the run is identified and replayed (digest, events, time, repro, hosts).
RunResult judged_run(const Scenario& scenario, const std::string& lock_kind, std::uint64_t seed, std::string source,
                     History history, RunSummary summary);

// A digest of the History alone, and how many records it holds: live mode's
// digest and event count, having no trace (not replayable).
std::uint64_t history_digest(const History& h);
std::uint64_t history_record_count(const History& h);

// Why the scenario's topology cannot serve the lock (a CP lock on Redis,
// fewer masters than it needs), or nullopt: for `run` and `live` alike.
std::optional<std::string> unsupported_lock(const Scenario& s, const locks::LockInfo& lock);

// A run that cannot start (unknown lock, a lock the topology cannot serve)
// is an input error, not a crash.
Result<RunResult, std::string> run_scenario(const Scenario& scenario, const RunOptions& options);

// The concrete faults the scenario's [nemesis] draws for `seed` (nothing
// without one), in time order, `at` in true time: what run_scenario
// schedules, so `locksim live` can run the same ones.
std::vector<FaultSpec> nemesis_faults(const Scenario& scenario, std::uint64_t seed);

}  // namespace locksim::scenarios
