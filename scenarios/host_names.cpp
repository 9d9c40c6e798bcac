// Host names (host_names.hpp): the one place that spells them.
#include "scenarios/host_names.hpp"

#include <cassert>

namespace locksim::scenarios {

namespace {

constexpr std::string_view kRedisHostPrefix = "redis-";
constexpr std::string_view kReplicaInfix = "-replica-";
constexpr std::string_view kEtcdMemberPrefix = "etcd-";
constexpr std::string_view kZkMemberPrefix = "zk-";

}  // namespace

std::string redis_host_name(int master, int replica) {
  assert(master >= 1 && replica >= 0);
  std::string name = std::string(kRedisHostPrefix) + std::to_string(master);
  if (replica > 0) name += std::string(kReplicaInfix) + std::to_string(replica);
  return name;
}

RedisHosts redis_hosts(int masters, int replicas_per_master) {
  RedisHosts h;
  for (int m = 1; m <= masters; ++m) h.masters.push_back(redis_host_name(m));
  for (int m = 1; m <= masters; ++m)
    for (int r = 1; r <= replicas_per_master; ++r) h.replicas.push_back(redis_host_name(m, r));
  for (int m = 1; m <= masters; ++m) {
    const auto shard = shard_hosts(m, replicas_per_master);
    h.by_shard.insert(h.by_shard.end(), shard.begin(), shard.end());
  }
  return h;
}

std::vector<std::string> shard_hosts(int master, int replicas_per_master) {
  std::vector<std::string> hosts;
  for (int r = 0; r <= replicas_per_master; ++r) hosts.push_back(redis_host_name(master, r));
  return hosts;
}

std::string cp_member_host_name(locks::Topology topology, int member) {
  assert(topology != locks::Topology::Redis && member >= 1);
  const std::string_view prefix = topology == locks::Topology::Etcd ? kEtcdMemberPrefix : kZkMemberPrefix;
  return std::string(prefix) + std::to_string(member);
}

std::vector<std::string> cp_member_hosts(locks::Topology topology, int members) {
  std::vector<std::string> names;
  if (topology == locks::Topology::Redis) return names;
  for (int m = 1; m <= members; ++m) names.push_back(cp_member_host_name(topology, m));
  return names;
}

bool is_redis_host_name(std::string_view host) { return host.substr(0, kRedisHostPrefix.size()) == kRedisHostPrefix; }

std::string_view redis_master_of(std::string_view host) { return host.substr(0, host.find(kReplicaInfix)); }

bool is_reserved_host_name(std::string_view name) {
  return name == kStorageHost || name == kSentinelHost || is_redis_host_name(name);
}

std::string generated_client_name(int index) {
  assert(index >= 0 && index < 26);
  return std::string(1, static_cast<char>('A' + index));
}

}  // namespace locksim::scenarios
