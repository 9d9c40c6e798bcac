// Live mode's fault appliers: how each fault kind of the fault kind table
// (scenarios/fault_kinds.hpp) acts on a real cluster, one applier per kind
// in FaultKind order (checked at compile time). The simulator's counterparts
// are in scenarios/faults.cpp; the kinds or faults live mode cannot run are
// refused before the run (live_faults.hpp), so an applier never fakes one.
//
// The appliers act through LiveFaultActions: the primitive operations a live
// session offers (stop or kill a server, pause a client thread, step a
// clock, hold a link). The session's SessionFaultActions (live_fault_actions.hpp)
// implements it; keeping
// the per-kind choices here leaves the session without any switch on a kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/fault_mechanism.hpp"
#include "scenarios/scenario.hpp"
#include "vocab/partition_mode.hpp"

namespace locksim::live {

class LiveFaultActions {
 public:
  virtual ~LiveFaultActions() = default;

  // Records the fault in the History as it takes effect; `until` (run time)
  // is how long it holds, for a fault with a window.
  virtual void note_fault(const scenarios::FaultSpec& f, std::optional<Duration> until) = 0;
  // Runs `then` on the main thread `after` from now (a pause's end, a heal).
  virtual void after(Duration after, std::function<void()> then) = 0;

  // Redis servers, by their index in the cluster.
  virtual std::optional<std::size_t> find_server(const std::string& host) = 0;
  virtual bool server_down(std::size_t node) = 0;
  virtual void server_pause(std::size_t node, Duration d) = 0;  // SIGSTOP, SIGCONT after d
  virtual void server_crash(const scenarios::FaultSpec& f, std::size_t node, bool power_loss) = 0;
  virtual void server_restart(std::size_t node) = 0;
  virtual void server_promote(std::size_t node) = 0;  // SENTINEL FAILOVER of node's shard
  virtual void server_clock_step(std::size_t node, Duration by) = 0;
  virtual void server_clock_drift(std::size_t node, std::int64_t ppm) = 0;
  virtual void server_stall_fsync(std::size_t node, Duration d) = 0;

  // Clients, by name. A client crash records the fault itself (not when the
  // client is down already).
  virtual void client_pause(const std::string& client, Duration d) = 0;
  virtual void client_crash(const scenarios::FaultSpec& f) = 0;
  virtual void client_restart(const std::string& client) = 0;
  virtual void client_clock_step(const std::string& client, Duration by) = 0;
  virtual void client_clock_drift(const std::string& client, std::int64_t ppm) = 0;

  // Links (live_network.hpp).
  virtual void network_delay(const scenarios::FaultSpec& f) = 0;
  virtual void network_partition(const std::vector<std::vector<std::string>>& groups, PartitionMode mode) = 0;
  virtual void network_heal() = 0;
};

// Applies `f` (already scaled to live time) through `actions`.
void apply_live_fault(LiveFaultActions& actions, const scenarios::FaultSpec& f);

// How live mode produces each fault of the scenario (a [nemesis] already
// expanded into faults), in the order of the scenario's faults, then the
// settings it produces as faults (replication lag, automatic failover, a
// client's drift, background writes); faults of one kind produced the same
// way share one entry with all their targets. Empty for a scenario without
// faults. Each applier's entry says how it produces its kind, in the words of
// docs/live.md's fault table.
std::vector<scenarios::FaultMechanism> live_fault_mechanisms(const scenarios::Scenario& scenario);

}  // namespace locksim::live
