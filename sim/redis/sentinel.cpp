// Failover: detection, promotion of the most up-to-date replica, demotion.
#include "sim/redis/sentinel.hpp"

#include <algorithm>

#include "sim/world.hpp"

namespace locksim::sim::redis {

Sentinel::Sentinel(Host& host, std::vector<Shard> shards, Duration failover_after)
    : host_(host),
      shards_(std::move(shards)),
      unreachable_since_(shards_.size()),
      unreachable_(shards_.size(), false),
      failover_after_(failover_after) {
  host_.set_main([this](Host&) { return main(); });
}

Task<void> Sentinel::main() {
  host_.every(std::chrono::milliseconds(100), [this] {
    for (std::size_t s = 0; s < shards_.size(); ++s) check(s);
  });
  co_return;
}

bool Sentinel::reachable(RedisNode& node) {
  return node.host().up() && !host_.world().network().cut(host_.id(), node.id());
}

void Sentinel::check(std::size_t s) {
  Shard& shard = shards_[s];
  // An old master that is back is demoted (its isolated writes are lost).
  for (RedisNode* r : shard.replicas) {
    if (r->role() == Role::Master && r != shard.master && reachable(*r)) r->demote_to_replica_of(*shard.master);
  }
  if (failover_after_ <= Duration::zero()) return;
  const TrueInstant now = host_.world().now();
  if (reachable(*shard.master)) {
    unreachable_[s] = false;
    return;
  }
  if (!unreachable_[s]) {
    unreachable_[s] = true;
    unreachable_since_[s] = now;
  }
  if (now - unreachable_since_[s] >= failover_after_ && failover(s)) unreachable_[s] = false;
}

bool Sentinel::failover(std::size_t s) {
  Shard& shard = shards_[s];
  RedisNode* best = nullptr;
  for (RedisNode* r : shard.replicas) {
    if (r == shard.master || !reachable(*r) || r->role() != Role::Replica) continue;
    if (!best || r->offset() > best->offset()) best = r;  // ties: the first listed
  }
  if (!best) return false;
  RedisNode* old = shard.master;
  best->promote();
  shard.master = best;
  // The old master joins the replica list; it is demoted once reachable.
  if (std::find(shard.replicas.begin(), shard.replicas.end(), old) == shard.replicas.end())
    shard.replicas.push_back(old);
  ++failovers_;
  host_.world().note(host_.id(), "failover", old->host().name() + " -> " + best->host().name());
  return true;
}

std::size_t Sentinel::shard_of(const RedisNode& node) const {
  for (std::size_t s = 0; s < shards_.size(); ++s) {
    if (shards_[s].master == &node) return s;
    for (const RedisNode* r : shards_[s].replicas)
      if (r == &node) return s;
  }
  return shards_.size();
}

}  // namespace locksim::sim::redis
