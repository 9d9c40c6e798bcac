// Sentinel: the failover controller and the clients' view of who is master.
//
// Like Redis Sentinel, it runs on a host of its own (so a partition can cut
// it off from a master) and checks every master each 100 ms. A master it
// cannot reach (down, or across a partition) for `failover_after` is
// replaced: the most up-to-date replica is promoted and clients are
// redirected to it. An old master that comes back (restarted, or reachable
// again) is demoted to a replica of the new one, and the writes it accepted
// while isolated are lost — "last failover wins" (docs/redis-model.md).
// failover_after = 0 disables automatic failover; `failover(shard)` forces
// one (the `failover` fault).
#pragma once

#include <cstddef>
#include <vector>

#include "sim/host.hpp"
#include "sim/redis/node.hpp"

namespace locksim::sim::redis {

class Sentinel {
 public:
  struct Shard {
    RedisNode* master;
    std::vector<RedisNode*> replicas;
  };

  Sentinel(Host& host, std::vector<Shard> shards, Duration failover_after);

  std::size_t shard_count() const { return shards_.size(); }
  RedisNode& master_of(std::size_t shard) { return *shards_[shard].master; }
  // The shard whose current or former nodes include this one.
  std::size_t shard_of(const RedisNode& node) const;
  // Promote the best replica of the shard now; false if it has none.
  bool failover(std::size_t shard);
  std::size_t failovers() const { return failovers_; }

 private:
  Task<void> main();
  bool reachable(RedisNode& node);
  void check(std::size_t shard);

  Host& host_;
  std::vector<Shard> shards_;
  std::vector<TrueInstant> unreachable_since_;
  std::vector<bool> unreachable_;
  Duration failover_after_;
  std::size_t failovers_ = 0;
};

}  // namespace locksim::sim::redis
