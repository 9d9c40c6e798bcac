// The live network's fault routing: which proxy link a scenario's
// `delay from -> to` or `partition groups` acts on (the servers' proxies,
// live/tcp_proxy.hpp: a RedisCluster's or a CpCluster's). The storage is
// in-process; its links are emulated by the runner with the same rules
// (StorageLinks below).
//
// A link between two servers is whatever LiveServers::server_link says: for
// Redis the replication connection of a shard, for etcd / ZooKeeper members
// none (their peer links are direct; live_faults.cpp refuses such faults).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "live/live_servers.hpp"
#include "scenarios/host_names.hpp"
#include "vocab/partition_mode.hpp"

namespace locksim::live {

using scenarios::kStorageHost;  // scenarios/host_names.hpp

// The proxied link carrying bytes from -> to; nullopt if none does (client to
// client, servers no proxied connection joins, the storage, unknown hosts).
std::optional<LinkRoute> route(const LiveServers& servers, const std::string& from, const std::string& to);

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
void apply_partition(LiveServers& servers, const PartitionMap& map, std::optional<PartitionMode> mode);

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
