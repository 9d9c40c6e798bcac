// Failover as Redis 7.0 src/sentinel.c runs it: detection, promotion,
// reconfiguration of the other replicas, the old master's conversion.
//
// Simplifications (docs/redis-model.md, "Sentinel and replication"):
//  - one Sentinel stands for the quorum: ODOWN and the leader election
//    (sentinelGetLeader) are immediate, and failover_start_time has no
//    random desync (SENTINEL_MAX_DESYNC);
//  - the promoted replica is taken as seen promoted at once (real Sentinel
//    confirms it with the next INFO, within a second);
//  - a node is "disconnected" while it is down or cut off from the
//    Sentinel, and SDOWN after down-after (failover_after, else 30 s) of
//    that.
#include "sim/redis/sentinel.hpp"

#include <algorithm>

#include "sim/world.hpp"

namespace locksim::sim::redis {

namespace {
// sentinel.c: the timer's period (server.hz 10), INFO periods, waits.
constexpr Duration kTick = std::chrono::milliseconds(100);
constexpr Duration kInfoPeriod = std::chrono::seconds(10);          // sentinel_info_period
constexpr Duration kFailoverInfoPeriod = std::chrono::seconds(1);   // slaves of a master in failover
constexpr Duration kConvertWait = std::chrono::seconds(8);          // sentinel_publish_period * 4
constexpr Duration kSlaveReconfTimeout = std::chrono::seconds(10);  // sentinel_slave_reconf_timeout
constexpr Duration kDefaultDownAfter = std::chrono::seconds(30);    // sentinel_default_down_after
}  // namespace

Sentinel::Sentinel(Host& host, std::vector<Shard> shards, SentinelConfig config)
    : host_(host), shards_(std::move(shards)), state_(shards_.size()), config_(config) {
  host_.set_main([this](Host&) { return main(); });
}

Task<void> Sentinel::main() {
  host_.every(kTick, [this] {
    for (std::size_t s = 0; s < shards_.size(); ++s) check(s);
  });
  co_return;
}

bool Sentinel::reachable(RedisNode& node) {
  return node.host().up() && !host_.world().network().cut(host_.id(), node.id());
}

Duration Sentinel::down_after() const {
  return config_.failover_after > Duration::zero() ? config_.failover_after : kDefaultDownAfter;
}

void Sentinel::event(std::string_view what, RedisNode& node) {
  World& w = host_.world();
  w.trace().annotate(w.now(), w.scheduler().current_seq(), host_.id(), "sentinel",
                     std::string(what) + " " + node.host().name());
}

// sentinelCheckSubjectivelyDown, for one node.
void Sentinel::watch(RedisNode& node) {
  Instance& in = instances_[&node];
  const TrueInstant now = host_.world().now();
  if (reachable(node)) {
    in.unreachable_since.reset();
    in.s_down = false;  // s_down_since_time stays: sentinelRedisInstanceNoDownFor reads it
    return;
  }
  if (!in.unreachable_since) in.unreachable_since = now;
  if (!in.s_down && now - *in.unreachable_since >= down_after()) {
    in.s_down = true;
    in.s_down_since = now;
  }
}

bool Sentinel::no_down_for(const Instance& in, Duration d) const {
  return !in.s_down_since || host_.world().now() - *in.s_down_since > d;
}

// sentinelMasterLooksSane: the master is up, reachable and says master.
bool Sentinel::master_looks_sane(std::size_t s) {
  RedisNode& m = *shards_[s].master;
  return reachable(m) && m.role() == Role::Master && !instances_[&m].s_down;
}

void Sentinel::check(std::size_t s) {
  Shard& shard = shards_[s];
  ShardState& st = state_[s];
  watch(*shard.master);
  for (RedisNode* r : shard.replicas) watch(*r);
  if (st.in_failover) reconf_next(s);
  for (RedisNode* r : shard.replicas)
    if (r != shard.master && reachable(*r) && host_.world().now() >= instances_[r].next_info) refresh_info(s, *r);
  if (config_.failover_after <= Duration::zero() || st.in_failover) return;
  const TrueInstant now = host_.world().now();
  if (reachable(*shard.master)) {
    st.unreachable_since.reset();
    return;
  }
  if (!st.unreachable_since) st.unreachable_since = now;
  if (now - *st.unreachable_since < config_.failover_after) return;
  // sentinelStartFailoverIfNeeded: not again within 2 x failover_timeout of
  // an attempt that was aborted.
  if (st.aborted_start && now - *st.aborted_start < 2 * config_.failover_timeout) return;
  if (start_failover(s, false)) st.unreachable_since.reset();
}

bool Sentinel::failover(std::size_t s) { return start_failover(s, true); }

// sentinelStartFailover + sentinelFailoverSelectSlave + SendSlaveOfNoOne.
bool Sentinel::start_failover(std::size_t s, bool forced) {
  Shard& shard = shards_[s];
  ShardState& st = state_[s];
  if (st.in_failover) return false;  // -INPROG
  RedisNode* best = nullptr;
  for (RedisNode* r : shard.replicas) {
    if (r == shard.master || !reachable(*r) || r->role() != Role::Replica) continue;
    if (!best || r->offset() > best->offset()) best = r;  // compareSlavesForPromotion; ties: the first listed
  }
  const TrueInstant now = host_.world().now();
  const std::uint64_t failover_epoch = ++current_epoch_;
  if (!best) {
    // SENTINEL FAILOVER answers -NOGOODSLAVE without starting; an automatic
    // attempt is aborted (-failover-abort-no-good-slave) and its start time
    // holds the next one back.
    if (!forced) st.aborted_start = now;
    return false;
  }
  RedisNode* old = shard.master;
  best->promote();
  shard.master = best;
  st.config_epoch = failover_epoch;  // set when the promotion is seen (+promoted-slave)
  st.in_failover = true;
  st.state_change = now;
  st.aborted_start.reset();
  for (RedisNode* r : shard.replicas) {
    Instance& in = instances_[r];
    in.reconf_sent = in.reconf_done = false;
    in.next_info = now;  // INFO every second from now on
  }
  // The old master joins the replica list; it is converted once seen again.
  if (std::find(shard.replicas.begin(), shard.replicas.end(), old) == shard.replicas.end())
    shard.replicas.push_back(old);
  instances_[old].reconf_done = true;  // not one of the old master's replicas
  ++failovers_;
  host_.world().note(host_.id(), "failover", old->host().name() + " -> " + best->host().name());
  return true;
}

// sentinelFailoverReconfNextSlave: REPLICAOF the new master to at most
// parallel_syncs replicas at a time.
void Sentinel::reconf_next(std::size_t s) {
  Shard& shard = shards_[s];
  const TrueInstant now = host_.world().now();
  int in_progress = 0;
  for (RedisNode* r : shard.replicas) {
    const Instance& in = instances_[r];
    in_progress += (in.reconf_sent && !in.reconf_done) ? 1 : 0;
  }
  for (RedisNode* r : shard.replicas) {
    if (in_progress >= config_.parallel_syncs) break;
    Instance& in = instances_[r];
    if (r == shard.master || in.reconf_done) continue;
    if (in.reconf_sent && now - in.reconf_sent_time > kSlaveReconfTimeout) {
      in.reconf_done = true;  // -slave-reconf-sent-timeout: fixed later if need be
      event("-slave-reconf-sent-timeout", *r);
    }
    if (in.reconf_sent || in.reconf_done || !reachable(*r)) continue;
    r->replicaof(*shard.master);
    in.reconf_sent = true;
    in.reconf_sent_time = now;
    event("+slave-reconf-sent", *r);
    ++in_progress;
  }
  detect_end(s);
}

// sentinelFailoverDetectEnd.
void Sentinel::detect_end(std::size_t s) {
  Shard& shard = shards_[s];
  ShardState& st = state_[s];
  if (instances_[shard.master].s_down) return;  // the promoted replica must be reachable
  int not_reconfigured = 0;
  for (RedisNode* r : shard.replicas) {
    const Instance& in = instances_[r];
    if (r != shard.master && !in.reconf_done && !in.s_down) ++not_reconfigured;
  }
  const bool timeout = host_.world().now() - st.state_change > config_.failover_timeout;
  if (timeout) {
    event("+failover-end-for-timeout", *shard.master);
    // Best effort: REPLICAOF to every reachable replica not yet sent one.
    for (RedisNode* r : shard.replicas) {
      Instance& in = instances_[r];
      if (r == shard.master || in.reconf_done || in.reconf_sent || !reachable(*r)) continue;
      r->replicaof(*shard.master);
      event("+slave-reconf-sent-be", *r);
    }
  }
  if (not_reconfigured == 0 || timeout) end_failover(s);
}

// +failover-end, then sentinelFailoverSwitchToPromotedSlave ->
// sentinelResetMasterAndChangeAddress: every replica and the old master are
// new instances of the new master (role reported as slave, no SDOWN yet).
void Sentinel::end_failover(std::size_t s) {
  ShardState& st = state_[s];
  st.in_failover = false;
  const TrueInstant now = host_.world().now();
  for (RedisNode* r : shards_[s].replicas) {
    Instance& in = instances_[r];
    in = Instance{};
    in.role_reported_time = now;
    in.slave_conf_change_time = now;
    in.next_info = now;
    if (!reachable(*r)) in.unreachable_since = now;
  }
  event("+switch-master", *shards_[s].master);
}

// An INFO reply from a replica (or old master): sentinelRefreshInstanceInfo.
void Sentinel::refresh_info(std::size_t s, RedisNode& node) {
  Instance& in = instances_[&node];
  const ShardState& st = state_[s];
  const TrueInstant now = host_.world().now();
  const bool link_down = node.role() == Role::Replica && !node.link_up();
  in.next_info = now + ((st.in_failover || link_down) ? kFailoverInfoPeriod : kInfoPeriod);
  if (node.role() != in.role_reported) {
    in.role_reported = node.role();
    in.role_reported_time = now;
    if (node.role() == Role::Replica) in.slave_conf_change_time = now;
  }
  if (st.in_failover) {
    // RECONF_SENT -> INPROG -> DONE once its link to the new master is up.
    if (in.reconf_sent && node.master() == shards_[s].master && node.link_up()) in.reconf_done = true;
    return;
  }
  if (node.role() == Role::Master) {
    convert_if_due(s, node, in);
  } else if (node.master() != shards_[s].master && master_looks_sane(s) &&
             no_down_for(in, config_.failover_timeout) && now - in.slave_conf_change_time > config_.failover_timeout) {
    node.replicaof(*shards_[s].master);
    event("+fix-slave-config", node);
  }
}

// A replica (an old master) reporting itself master is made a replica again
// once it has said so for publish_period * 4 and had no SDOWN for as long.
void Sentinel::convert_if_due(std::size_t s, RedisNode& node, Instance& in) {
  const TrueInstant now = host_.world().now();
  if (!master_looks_sane(s) || !no_down_for(in, kConvertWait) || now - in.role_reported_time <= kConvertWait) return;
  node.replicaof(*shards_[s].master);
  event("+convert-to-slave", node);
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
