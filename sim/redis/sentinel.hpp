// Sentinel: the failover controller and the clients' view of who is master.
//
// Like Redis Sentinel (src/sentinel.c), it runs on a host of its own (so a
// partition can cut it off from a master) and runs its timer every 100 ms.
// A master it cannot reach for `failover_after` (down-after-milliseconds,
// with the quorum's agreement taken as immediate) is failed over, and
// `failover(shard)` forces one (SENTINEL FAILOVER, the `failover` fault):
//  - sentinelFailoverSelectSlave / SendSlaveOfNoOne: the reachable replica
//    with the largest offset (ties: the first listed) is promoted at once,
//    clients are redirected to it, and the shard's configuration epoch
//    takes the failover's epoch;
//  - sentinelFailoverReconfNextSlave: the other replicas are sent REPLICAOF
//    the new master, `parallel_syncs` at a time, each done once an INFO
//    (every second during a failover) shows its link up; the failover ends
//    when every reachable replica is done, or is forced to end after
//    `failover_timeout` (sentinelFailoverDetectEnd);
//  - an old master seen again reporting itself master is converted to a
//    replica of the new one (sentinelRefreshInstanceInfo, +convert-to-slave)
//    8 s after that report, at the next 10 s INFO; writes it accepted alone
//    are lost in the full resync;
//  - a replica still following another master is re-pointed after
//    failover_timeout (+fix-slave-config);
//  - after a failover that found no replica, the next automatic attempt
//    waits 2 x failover_timeout (sentinelStartFailoverIfNeeded).
// failover_after = 0 disables automatic failover.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "sim/host.hpp"
#include "sim/redis/node.hpp"

namespace locksim::sim::redis {

struct SentinelConfig {
  Duration failover_after{0};  // 0 = no automatic failover
  int parallel_syncs = 1;      // sentinel.c SENTINEL_DEFAULT_PARALLEL_SYNCS
  Duration failover_timeout = std::chrono::milliseconds(180000);  // sentinel_default_failover_timeout
};

class Sentinel {
 public:
  struct Shard {
    RedisNode* master;
    std::vector<RedisNode*> replicas;
  };

  Sentinel(Host& host, std::vector<Shard> shards, SentinelConfig config);
  Sentinel(Host& host, std::vector<Shard> shards, Duration failover_after)
      : Sentinel(host, std::move(shards), SentinelConfig{failover_after}) {}

  std::size_t shard_count() const { return shards_.size(); }
  RedisNode& master_of(std::size_t shard) { return *shards_[shard].master; }
  // The shard whose current or former nodes include this one.
  std::size_t shard_of(const RedisNode& node) const;
  // SENTINEL FAILOVER: promote the best replica now; false if it has none
  // or a failover of the shard is still in progress (-INPROG).
  bool failover(std::size_t shard);
  std::size_t failovers() const { return failovers_; }
  std::uint64_t config_epoch(std::size_t shard) const { return state_[shard].config_epoch; }
  bool failover_in_progress(std::size_t shard) const { return state_[shard].in_failover; }

 private:
  // What the Sentinel knows of one node (sentinelRedisInstance).
  struct Instance {
    std::optional<TrueInstant> unreachable_since;
    std::optional<TrueInstant> s_down_since;  // the last SDOWN's start
    bool s_down = false;
    Role role_reported = Role::Replica;
    TrueInstant role_reported_time{};
    TrueInstant slave_conf_change_time{};
    TrueInstant next_info{};
    bool reconf_sent = false;
    bool reconf_done = false;
    TrueInstant reconf_sent_time{};
  };
  struct ShardState {
    std::uint64_t config_epoch = 0;
    bool in_failover = false;
    TrueInstant state_change{};
    std::optional<TrueInstant> aborted_start;  // failover_start_time of an aborted attempt
    std::optional<TrueInstant> unreachable_since;
  };

  Task<void> main();
  bool reachable(RedisNode& node);
  void check(std::size_t shard);
  void watch(RedisNode& node);
  bool start_failover(std::size_t shard, bool forced);
  void reconf_next(std::size_t shard);
  void detect_end(std::size_t shard);
  void end_failover(std::size_t shard);
  void refresh_info(std::size_t shard, RedisNode& node);
  void convert_if_due(std::size_t shard, RedisNode& node, Instance& in);
  bool no_down_for(const Instance& in, Duration d) const;
  bool master_looks_sane(std::size_t shard);
  Duration down_after() const;
  void event(std::string_view what, RedisNode& node);

  Host& host_;
  std::vector<Shard> shards_;
  std::vector<ShardState> state_;
  std::map<const RedisNode*, Instance> instances_;
  SentinelConfig config_;
  std::uint64_t current_epoch_ = 0;
  std::size_t failovers_ = 0;
};

}  // namespace locksim::sim::redis
