// Host names (host_names.hpp): the one place that spells them.
#include "scenarios/host_names.hpp"

#include <cassert>

#include "scenarios/services.hpp"

namespace locksim::scenarios {

namespace {

// The Redis row's member prefix (services.hpp): redis-1, redis-2, ...
std::string_view redis_prefix() { return service_row(locks::Topology::Redis).member_prefix; }
constexpr std::string_view kReplicaInfix = "-replica-";

}  // namespace

std::string redis_host_name(int master, int replica) {
  assert(master >= 1 && replica >= 0);
  std::string name = std::string(redis_prefix()) + std::to_string(master);
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
  assert(service_row(topology).cp && member >= 1);
  return std::string(service_row(topology).member_prefix) + std::to_string(member);
}

std::vector<std::string> cp_member_hosts(locks::Topology topology, int members) {
  std::vector<std::string> names;
  if (!service_row(topology).cp) return names;
  for (int m = 1; m <= members; ++m) names.push_back(cp_member_host_name(topology, m));
  return names;
}

bool is_redis_host_name(std::string_view host) { return host.starts_with(redis_prefix()); }

std::string_view redis_master_of(std::string_view host) { return host.substr(0, host.find(kReplicaInfix)); }

bool is_reserved_host_name(std::string_view name) {
  return name == kStorageHost || name == kSentinelHost || is_redis_host_name(name);
}

std::string generated_client_name(int index) {
  assert(index >= 0 && index < 26);
  return std::string(1, static_cast<char>('A' + index));
}

}  // namespace locksim::scenarios
