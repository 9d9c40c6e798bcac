// The live runner: `locksim live`. It runs a scenario against real
// redis-server processes (RedisCluster) — or, for an [etcd] / [zookeeper]
// scenario, a real etcd cluster or ZooKeeper ensemble (CpCluster: one
// process per member on free loopback ports, clients through a proxy per
// member, etcd-mutex / zk-lock ... through live/live_cp_conns.hpp) — one
// thread per client with a LiveRuntime, real faults, and judges the
// recorded History with the same checkers as the simulator, producing the
// same RunResult as `run`. On a CP topology the History has no entry
// events (the simulator records none there either).
//
// Time: every scenario duration d (duration, ttl, retry, acquire_timeout,
// timeouts, starts, work, fault times, liveness) becomes d·F in real time,
// with F = time_scale_ppm / 10^6 (integer math). History times are measured
// on one steady_clock origin and mapped back (divided by F), so violations
// read in scenario time as `run`'s do. The client command timeout is
// floored at 50 ms real time (loopback scheduling noise), and a TTL at 1 ms
// (PX is in milliseconds). The members' election timeout, heartbeat and
// tick scale too (etcd's floored at 50 ms / 500 ms real); an etcd TTL must
// stay whole seconds (LeaseGrant).
//
// Not deterministic: thread scheduling and the kernel decide interleavings;
// the digest is a hash of this run's history, not a trace digest, and the
// same command may give a different one next time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "live/redis_cluster.hpp"
#include "locks/registry.hpp"
#include "scenarios/fault_mechanism.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "vocab/result.hpp"

namespace locksim::live {

struct LiveOptions {
  std::string lock_kind;                // empty = the scenario's [lock] kind
  std::uint64_t seed = 1;               // recorded only: live runs are not replayable
  std::int64_t time_scale_ppm = 10'000; // F = 0.01
  std::string time_scale_text = "0.01"; // as the user wrote it, for the repro line
  std::filesystem::path redis_server;   // empty = search PATH
  std::string scenario_ref;             // how the user named the scenario
  // Existing servers instead of started ones (live/existing_servers.hpp).
  std::vector<std::string> redis_endpoints;  // "host:port", one per master
  std::string key_prefix;                    // empty: none for started servers, random for existing ones
  bool allow_remote = false;
};

struct LiveRun {
  scenarios::RunResult run;
  std::vector<std::string> notes;  // what the digest means, what a power loss cut, ...
  std::vector<scenarios::FaultMechanism> fault_mechanisms;  // how each fault was produced
  std::string key_prefix;          // what every key of the run started with
};

inline constexpr std::int64_t kMinTimeScalePpm = 1'000;       // F >= 0.001
inline constexpr std::int64_t kMaxTimeScalePpm = 10'000'000;  // F <= 10

// Why a scenario cannot run live (exit 2), or nullopt: a lock it cannot
// run, a fault live mode cannot produce (live_faults.hpp).
std::optional<std::string> live_unsupported(const scenarios::Scenario& s, const locks::LockInfo& lock);

// The scenario with every duration multiplied by F (see above).
scenarios::Scenario scale_scenario(const scenarios::Scenario& s, std::int64_t ppm);

// Runs it. Errors: exit 2 (bad input, unsupported) or 3 (a server failed,
// interrupted by SIGINT/SIGTERM). Every process started is stopped first.
Result<LiveRun, LiveError> run_live(const scenarios::Scenario& scenario, const LiveOptions& options);

}  // namespace locksim::live
