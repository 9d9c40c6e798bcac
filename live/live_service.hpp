// What differs per service in a live session: the servers of one service
// (redis-server processes, or an etcd cluster / ZooKeeper ensemble), how a
// client incarnation connects to them, and what a fault does to them that
// no other service's servers do. The session (live_session.hpp) and its
// parts hold a LiveService and never ask which one it is.
//
// Faults a service's servers cannot take are refused before the run
// (live_faults.cpp): the actions of such a fault are never called on it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "live/live_options.hpp"
#include "live/live_recorder.hpp"
#include "live/live_runtime.hpp"
#include "live/live_servers.hpp"
#include "locks/registry.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/workload_world.hpp"

namespace locksim::live {

// One incarnation of a client, to run to its end (or ClientCrashed).
struct ClientRun {
  scenarios::WorkloadWorld& workload;
  LiveWorld& world;
  LateReplies& late;
  std::size_t client;
  const ClientClock& clock;
};

class LiveService {
 public:
  virtual ~LiveService() = default;
  virtual LiveServers& servers() = 0;

  // --- before the run's origin: what exists before the story (Redis: the
  // stock, the replication lag, the background load; etcd: its floors).
  virtual Result<bool, LiveError> prepare(const scenarios::Scenario& scaled, LiveRecorder& recorder) = 0;
  // "a real etcd cluster (3 etcd processes; ...)": the run's first note.
  virtual std::string what_ran(const locks::LockInfo& lock) const = 0;

  // --- the clients
  // Client c's own links on the proxies: the addresses its adapter is told.
  virtual std::vector<std::string> client_endpoints(std::size_t c) const = 0;
  // Where a Sentinel-aware adapter asks for the master (nullopt: no Sentinel).
  virtual std::optional<SentinelDiscovery> sentinel_discovery(std::size_t c) const = 0;
  virtual void run_client(const ClientRun& run) = 0;
  // Whether a client's own links on every proxy follow its pause (held) and
  // its crash (dropped): a CP client library's own threads (ZooKeeper's
  // pings) stop with it.
  virtual bool links_follow_clients() const = 0;

  // --- faults on a server of this service
  virtual void crash(std::size_t node, bool power_loss, LiveRecorder& recorder) = 0;
  virtual void promote(std::size_t node, LiveRecorder& recorder) = 0;  // SENTINEL FAILOVER
  virtual void clock_step(std::size_t node, Duration by) = 0;
  virtual void clock_drift(std::size_t node, std::int64_t ppm) = 0;
  virtual void stall_fsync(std::size_t node, Duration d) = 0;
  // How far a clock fault moved the node's wall clock (its TIME replies).
  virtual std::chrono::nanoseconds wall_offset(std::size_t node) const = 0;
  // Each round of the main loop: what the servers did on their own
  // (Sentinel's failover), followed and recorded.
  virtual void follow_servers(LiveRecorder& recorder) = 0;

  // --- the end
  // After the clients ended: the lock-entry events the servers were seen to
  // run that no probe recorded (a client library's own commands), into the
  // History.
  virtual void collect_observed(LiveRecorder& recorder) = 0;
  virtual std::string stopped_text() const = 0;  // for an interrupted run's message
  // Every process started is stopped, its data discarded (existing
  // servers: the run's keys deleted); why the clean-up failed, if it did.
  virtual std::optional<std::string> stop() = 0;
};

}  // namespace locksim::live
