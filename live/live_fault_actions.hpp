// What the fault appliers (live_fault_appliers.hpp) act through in a live
// session: each action is handed to the part it concerns — the servers
// (LiveServers, and the service for what only its servers do), the clients,
// the storage link, the network — and a fault that is a trigger point (a
// crash, a restart) reaches the run's fault timeline, which also takes the
// follow-up a fault asks for (a restart after a crash), as the simulator's
// appliers do (scenarios/faults.cpp).
//
// Called on the main thread, without the core's mutex.
#pragma once

#include "live/live_clients.hpp"
#include "live/live_core.hpp"
#include "live/live_fault_appliers.hpp"
#include "live/live_recorder.hpp"
#include "live/live_service.hpp"
#include "live/live_storage_link.hpp"
#include "scenarios/fault_timeline.hpp"

namespace locksim::live {

// The parts a session's fault actions reach.
struct FaultTargets {
  LiveCore& core;
  LiveEvents& events;
  scenarios::FaultTimeline& timeline;  // requires the core's mutex
  LiveRecorder& recorder;
  LiveService& service;
  LiveClients& clients;
  LiveStorageLink& storage;
};

class SessionFaultActions final : public LiveFaultActions {
 public:
  explicit SessionFaultActions(FaultTargets parts) : p_(parts), servers_(parts.service.servers()) {}

  void note_fault(const scenarios::FaultSpec& f, std::optional<Duration> until) override {
    p_.recorder.note_fault(f, until);
  }
  void after(Duration after, std::function<void()> then) override;

  std::optional<std::size_t> find_server(const std::string& host) override { return servers_.find(host); }
  bool server_down(std::size_t node) override { return !servers_.server_up(node); }
  void server_pause(std::size_t node, Duration d) override;
  void server_crash(const scenarios::FaultSpec& f, std::size_t node, bool power_loss) override;
  void server_restart(std::size_t node) override;
  void server_promote(std::size_t node) override { p_.service.promote(node, p_.recorder); }
  void server_clock_step(std::size_t node, Duration by) override { p_.service.clock_step(node, by); }
  void server_clock_drift(std::size_t node, std::int64_t ppm) override { p_.service.clock_drift(node, ppm); }
  void server_stall_fsync(std::size_t node, Duration d) override { p_.service.stall_fsync(node, d); }

  void client_pause(const std::string& client, Duration d) override { p_.clients.pause(p_.clients.index(client), d); }
  void client_crash(const scenarios::FaultSpec& f) override;
  void client_restart(const std::string& client) override;
  void client_clock_step(const std::string& client, Duration by) override {
    p_.clients.clock(p_.clients.index(client)).step(by);
  }
  void client_clock_drift(const std::string& client, std::int64_t ppm) override {
    p_.clients.clock(p_.clients.index(client)).set_drift(ppm);
  }

  void network_delay(const scenarios::FaultSpec& f) override;
  void network_partition(const std::vector<std::vector<std::string>>& groups, PartitionMode mode) override {
    partition(PartitionMap(groups), mode);
  }
  void network_heal() override { partition({}, std::nullopt); }

 private:
  void partition(const PartitionMap& map, std::optional<PartitionMode> mode);
  // The fault's trigger point, and the restart it asks for; requires mutex.
  void crashed(const scenarios::FaultSpec& f);

  FaultTargets p_;
  LiveServers& servers_;
};

}  // namespace locksim::live
