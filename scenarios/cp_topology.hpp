// CP topologies: a scenario's [etcd] or [zookeeper] table instead of
// [redis] (docs/scenario-format.md, "CP topologies"). The members are
// ordinary simulated hosts etcd-1 … etcd-N or zk-1 … zk-N running
// sim/consensus/ (named by host_names.hpp); faults name them like any other
// host.
//
// Contract (other tools write these files):
//   [etcd]       members (1..7), election_timeout (default "1s"),
//                heartbeat (default "100ms"); etcd's own rule
//                (embed/config.go, Config.Validate): the election timeout
//                is at least 5 heartbeats and at most 50 s; both are whole
//                milliseconds (etcd takes them in ms).
//   [zookeeper]  members (1..7), tick (tickTime, default "2s", whole ms).
// The lock's ttl is the etcd session's lease TTL (whole seconds: LeaseGrant
// takes seconds) or the ZooKeeper session timeout (whole milliseconds). The
// service adjusts it as its server does, and the run says so
// (cp_ttl_adjustments): etcd raises a TTL below ceil(1.5 election timeouts)
// to that (lessor.go Grant, minLeaseTTL); ZooKeeper clamps the session
// timeout into 2..20 ticks (ZooKeeperServer.processConnectRequest with the
// default minSessionTimeout / maxSessionTimeout). A file with a CP table
// and no [lock] kind runs etcd-mutex or zk-lock by default.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "locks/registry.hpp"
#include "vocab/time.hpp"

namespace locksim::scenarios {

struct Scenario;

struct CpSpec {
  int members = 3;
  Duration election_timeout{std::chrono::seconds(1)};  // [etcd]
  Duration heartbeat{std::chrono::milliseconds(100)};  // [etcd]
  Duration tick{std::chrono::seconds(2)};              // [zookeeper] tickTime
};

inline constexpr std::int64_t kMaxCpMembers = 7;
// ZooKeeperServer's default minSessionTimeout = 2 × tickTime and
// maxSessionTimeout = 20 × tickTime (sim/consensus/zk_member.hpp ZkConfig).
inline constexpr std::int64_t kZkMinSessionTicks = 2;
inline constexpr std::int64_t kZkMaxSessionTicks = 20;

// What the service makes of the lock's ttl where it differs from the file's,
// one sentence each (empty: nothing): RunResult::adjusted, the run record's
// "adjusted", the text output's `adjusted` line.
std::vector<std::string> cp_ttl_adjustments(const Scenario& s);

// The [lock] kind a CP file without one runs: etcd-mutex or zk-lock.
std::string default_cp_lock(locks::Topology topology);

}  // namespace locksim::scenarios
