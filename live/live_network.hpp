// The live network's fault routing: which proxy link a scenario's
// `delay from -> to` or `partition groups` acts on (RedisCluster's proxies,
// live/tcp_proxy.hpp). The storage is in-process; its links are emulated by
// the runner with the same rules (StorageLinks below).
//
// A link between two nodes of a shard is the replication connection: the
// shard's current master is the server side, the other node the source.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "live/redis_cluster.hpp"
#include "scenarios/host_names.hpp"

namespace locksim::live {

using scenarios::kStorageHost;  // scenarios/host_names.hpp

struct LinkRoute {
  std::size_t node = 0;  // whose proxy
  std::string source;    // which listener
  Flow flow = Flow::ToServer;
};

// The proxied link carrying bytes from -> to; nullopt if none does (client to
// client, nodes of different shards, the storage, unknown hosts).
std::optional<LinkRoute> route(const RedisCluster& cluster, const std::string& from, const std::string& to);

// Group index of each host in a partition (-1 = in no group: reaches all).
class PartitionMap {
 public:
  PartitionMap() = default;
  explicit PartitionMap(const std::vector<std::vector<std::string>>& groups) : groups_(groups) {}
  bool cut(const std::string& a, const std::string& b) const;

 private:
  int group_of(const std::string& host) const;
  std::vector<std::vector<std::string>> groups_;
};

// Cuts (mode) or heals (nullopt) every proxied link the map cuts; heals the rest.
void apply_partition(RedisCluster& cluster, const PartitionMap& map, std::optional<sim::PartitionMode> mode);

// The storage's links, one pair per client: the same FIFO + delay_next rule as
// sim/network (a message is due at max(now + pending delay, the last due)).
class StorageLinks {
 public:
  using Clock = std::chrono::steady_clock;
  explicit StorageLinks(std::size_t clients) : to_storage_(clients), from_storage_(clients) {}
  void delay_next(std::size_t client, bool to_storage, Clock::duration d);
  Clock::time_point due(std::size_t client, bool to_storage, Clock::time_point now);

 private:
  struct Direction {
    Clock::duration pending{0};
    Clock::time_point last_due{};
  };
  std::vector<Direction> to_storage_, from_storage_;
};

}  // namespace locksim::live
