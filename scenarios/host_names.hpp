// Host names of a scenario's world, built and recognised in one place.
//
// Redis nodes are "redis-<master>" (1-based) and
// "redis-<master>-replica-<replica>", the members of a CP topology "etcd-<n>"
// or "zk-<n>" (1-based), the protected storage is "storage", the failover
// controller "sentinel"; clients are named by the file, except the
// ones the hunt generates ("A", "B", ...). The parser, the runner, the
// nemesis, the hunt, the reports and live mode all build and match host names
// with these, so a name in a file, a trace and a live cluster agree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "locks/registry.hpp"

namespace locksim::scenarios {

inline constexpr const char* kStorageHost = "storage";
inline constexpr const char* kSentinelHost = "sentinel";

// replica 0 = the master itself.
std::string redis_host_name(int master, int replica = 0);

struct RedisHosts {
  std::vector<std::string> masters;   // redis-1 .. redis-N
  std::vector<std::string> replicas;  // every master's replicas, master by master
  std::vector<std::string> by_shard;  // each master followed by its replicas
};
RedisHosts redis_hosts(int masters, int replicas_per_master);
// Master `master` (1-based) followed by its replicas: one shard of by_shard.
std::vector<std::string> shard_hosts(int master, int replicas_per_master);

// The member-th (1-based) member of an [etcd] or [zookeeper] topology:
// "etcd-2", "zk-1".
std::string cp_member_host_name(locks::Topology topology, int member);
// etcd-1 .. etcd-N (or zk-1 ..); empty for the Redis topology.
std::vector<std::string> cp_member_hosts(locks::Topology topology, int members);

// A name redis_host_name builds (a master or a replica).
bool is_redis_host_name(std::string_view host);
// The master a Redis host belongs to: "redis-2-replica-1" -> "redis-2";
// a master is its own.
std::string_view redis_master_of(std::string_view host);
// What a client may not be called: a Redis node's name, "storage" or "sentinel".
bool is_reserved_host_name(std::string_view name);

// The i-th (0-based) client of a generated scenario: "A", "B", ... (i < 26).
std::string generated_client_name(int index);

}  // namespace locksim::scenarios
