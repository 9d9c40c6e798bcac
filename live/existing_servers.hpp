// `locksim live --redis HOST:PORT[,...]`: a scenario against Redis servers
// someone else runs. Live mode then must not harm them:
//  - only loopback addresses unless --allow-remote (a typo must not point a
//    fault injector at production);
//  - every key it touches carries a prefix (default `locksim:<random>:`):
//    the lock key (one per segment of a segmented sale), each one's fencing
//    counter, a sale's stock and buyers, the probes' order counter; none of
//    them may exist before the run (exit 2), and exactly those are deleted
//    at the end — never a SCAN-and-delete of what others wrote;
//  - faults that need process control of a server (pause, crash,
//    power-loss, restart, failover, replicas, min_replicas_to_write) are
//    refused before anything is sent (live_refusals.cpp, with the
//    endpoints' checks). Network faults still run: the proxy is in-process.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "live/redis_cluster.hpp"
#include "scenarios/scenario.hpp"

namespace locksim::live {

// "locksim:<16 hex>:" from the OS's randomness.
std::string random_key_prefix();

// A run's keys: under the prefix (existing servers: a random one unless
// given), with the probes' order counter last (touched_keys).
struct RunKeys {
  std::string prefix, order_key;
  std::vector<std::string> touched;
};
RunKeys run_keys(scenarios::Scenario& scaled, bool existing, const std::string& given_prefix);

// The scenario with its keys under `prefix`, and the keys a run touches.
void prefix_keys(scenarios::Scenario& s, const std::string& prefix);
std::vector<std::string> touched_keys(const scenarios::Scenario& prefixed, const std::string& order_key);

// A killed run (SIGKILL) leaves its order key (touched_keys' last, the INCR
// counter that orders commands) with no TTL: when every other touched key is
// gone from every node, no run with this prefix holds anything, so the order
// key is deleted. 3 if a node cannot be reached.
Result<bool, LiveError> drop_stale_order_key(const RedisCluster& cluster, const std::vector<std::string>& keys);
// Exit 2 if a key already exists on a node (not ours to touch), 3 if a
// node cannot be reached.
Result<bool, LiveError> check_keys_absent(const RedisCluster& cluster, const std::vector<std::string>& keys);
// Data that exists before the run (an inventory's stock counter,
// scenarios::redis_stock_preload): executed on every master, then WAIT for
// `replicas` so the replicas hold it too at time 0. 3 if a node refuses.
Result<bool, LiveError> preload_data(const RedisCluster& cluster, const std::vector<std::vector<std::string>>& commands,
                                     int replicas);
// Deletes exactly these keys on every node; why not, if it failed somewhere.
std::optional<std::string> delete_keys(const RedisCluster& cluster, const std::vector<std::string>& keys);

}  // namespace locksim::live
