// RunContext: everything one scenario run builds — the world, its Redis
// nodes and Sentinel (or CP members), storage, clients — and the History it
// records. The workload's world (SimWorkloadWorld), the faults and the runner
// share it; nothing outlives a run.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "locks/registry.hpp"
#include "locks/sim_runtime.hpp"
#include "scenarios/fault_timeline.hpp"
#include "scenarios/history.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/workload_world.hpp"
#include "sim/consensus/member.hpp"
#include "sim/redis/node.hpp"
#include "sim/redis/sentinel.hpp"
#include "sim/world.hpp"

namespace locksim::scenarios {

struct ClientState {
  const ClientSpec* spec = nullptr;
  sim::Host* host = nullptr;
  std::unique_ptr<locks::SimRuntime> runtime;
  ClientProgress progress;  // the workload's, across restarts
  // On a CP topology, the process's client of the cluster, made by the
  // service's row (a new one per incarnation: a restarted process has a new
  // ZooKeeper session).
  std::unique_ptr<locks::ServiceConn> service;
};

struct RunContext {
  const Scenario& scenario;
  locks::LockInfo lock;
  sim::World world;
  History history;
  RunSummary stats;  // attempts, grants, Redis round trips, acquire latencies (true time)

  std::vector<std::unique_ptr<sim::redis::RedisNode>> nodes;  // masters first, then replicas
  std::vector<sim::redis::RedisNode*> masters;                // as configured: redis-1..N
  std::unique_ptr<sim::redis::Sentinel> sentinel;
  std::vector<std::unique_ptr<sim::consensus::ConsensusMember>> members;  // CP topology: etcd-N / zk-N
  sim::Host* storage = nullptr;
  std::vector<ClientState> clients;
  // The world the workload runs in (scenarios/sim_workload_world.hpp).
  std::unique_ptr<WorkloadWorld> workload_world;

  // The faults' timeline, over the simulator's scheduler (faults.cpp).
  std::unique_ptr<FaultTimeline::World> fault_world;
  std::unique_ptr<FaultTimeline> timeline;

  RunContext(const Scenario& s, locks::LockInfo info, std::uint64_t seed)
      : scenario(s), lock(std::move(info)), world(seed) {}
  // Frames first: a lock object living in a client's frame may still talk to
  // its runtime (e.g. cancel a watchdog) while it is destroyed.
  // The CP clients go before their hosts (SimZkConn cancels its pings).
  ~RunContext() {
    for (ClientState& c : clients) c.service.reset();
    world.destroy_hosts();
  }
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  sim::redis::RedisNode* node_by_name(std::string_view name);
  sim::consensus::ConsensusMember* member_by_name(std::string_view name);
  sim::Host* host_by_name(std::string_view name) { return world.find_host(name); }
};

// Faults (scenarios/faults.cpp).
void schedule_faults(RunContext& ctx);

}  // namespace locksim::scenarios
