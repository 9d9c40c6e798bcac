// The recorder of a live session: the run's History (beliefs, attempts,
// writes through the workload's Ledger; lock-entry events from the probes;
// faults as they take effect), its counters and its notes, all under the
// core's mutex. Lock-entry events arrive in reply order, not execution
// order: they are kept with the server's stamp and put in order at the end
// (finish).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "live/live_core.hpp"
#include "live/live_runtime.hpp"
#include "scenarios/keyspace_replay.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/workload_world.hpp"

namespace locksim::live {

class LiveRecorder {
 public:
  explicit LiveRecorder(LiveCore& core) : core_(core) {}

  // Before the run: the hosts the History names (servers, then clients).
  void start(const scenarios::Scenario& s, const LiveServers& servers);
  // What client c's probed command did to the lock entry on a node whose
  // wall clock a clock fault moved by `server_wall_offset`.
  void record_entry(const ProbedCommand& probe, std::optional<sim::redis::KeyEvent::Kind> kind, bool present_before,
                    ServerStamp stamp, std::chrono::nanoseconds server_wall_offset);
  // What a command seen on node's MONITOR stream did to a lock entry (a
  // client library's command, which locksim did not send: monitor_replay.hpp),
  // at `real_time_us` on the real wall clock.
  void record_observed(std::size_t node, const scenarios::KeyspaceReplay::Effect& e, std::int64_t real_time_us);
  // A fault as it takes effect; `until` (real time) is how long it holds.
  void note_fault(const scenarios::FaultSpec& f, std::optional<Duration> until);
  // A fault locksim saw the servers make (Sentinel's failover).
  void fault_seen(scenarios::FaultKind kind, std::string description, std::string target);
  void note(std::string text);
  // What a client library said: one note each, then a count.
  void adapter_note(const std::string& text);
  // The workload's door to the History; requires mutex.
  scenarios::Ledger ledger(scenarios::ClientProgress& progress) {
    return {history_, stats_, progress, core_.now_true(), core_.stop.load()};
  }
  scenarios::History& history() { return history_; }  // requires mutex, or after the run
  scenarios::RunSummary& stats() { return stats_; }
  std::vector<std::string>& notes() { return notes_; }
  // After the run (no thread left): the History ends at `end`, its entry
  // events in execution order.
  void finish(Duration end);

 private:
  LiveCore& core_;
  scenarios::History history_;
  scenarios::RunSummary stats_;
  std::vector<std::string> notes_;
  std::size_t adapter_notes_ = 0;   // adapter_note calls so far
  std::vector<bool> entry_before_;  // per history_.entries slot: entry present before the command
  std::uint64_t observed_ = 0;      // record_observed calls so far: their order among equal times
};

}  // namespace locksim::live
