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

#include <string>
#include <vector>

#include "live/live_options.hpp"
#include "live/live_refusals.hpp"
#include "live/live_servers.hpp"
#include "scenarios/fault_mechanism.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "vocab/result.hpp"

namespace locksim::live {

struct LiveRun {
  scenarios::RunResult run;
  std::vector<std::string> notes;  // what the digest means, what a power loss cut, ...
  std::vector<scenarios::FaultMechanism> fault_mechanisms;  // how each fault was produced
  std::string key_prefix;          // what every key of the run started with
};

// The scenario with every duration multiplied by F (see above).
scenarios::Scenario scale_scenario(const scenarios::Scenario& s, std::int64_t ppm);

// Runs it (live_session.hpp). Errors: kBadInput (bad input, a refusal:
// live_refusals.hpp) or kInternal (a server failed, interrupted by
// SIGINT/SIGTERM). Every process started is stopped first.
Result<LiveRun, LiveError> run_live(const scenarios::Scenario& scenario, const LiveOptions& options);

}  // namespace locksim::live
