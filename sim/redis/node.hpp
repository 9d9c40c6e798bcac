// RedisNode: one simulated redis-server process on a host.
//
// Wraps an Engine (keyspace, commands, Lua) with what a real server adds
// around it, as redis-server 7.0 does:
//  - the network: commands arrive as requests and are answered in order;
//  - the AOF: effects go to an AOF buffer, written (write(2)) before the
//    reply and fsynced per `appendfsync` (always | everysec | no), everysec
//    on Redis 7.0's schedule (src/aof.c flushAppendOnlyFile; see node.cpp):
//    a background fsync on the first write of each wall-clock second,
//    postponed writes while one is in flight (a process crash loses those),
//    a catch-up at the next second. A process crash keeps what was written
//    (the OS page cache survives); a power loss keeps only what was fsynced.
//    Restart replays the AOF; without it the node restarts empty;
//  - asynchronous replication: effects wait `replication_lag` in the
//    master's buffer, then stream to replicas, which apply them and ack. A
//    master that crashes loses what it had not sent. WAIT counts acks;
//    min-replicas-to-write refuses writes with -NOREPLICAS;
//  - REPLICAOF (replicaof()) as replication.c does it: a PSYNC first, with
//    the replication ids and backlog (replid/replid2 shifted on promotion),
//    a full resync after repl-diskless-sync-delay when it cannot continue;
//  - active expiry every 100 ms on masters, on the node's own wall clock.
// Observers see every command with its reply and keyspace effects; checkers
// build their history from that (they never look inside lock algorithms).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/redis/engine.hpp"

namespace locksim::sim::redis {

enum class Fsync : std::uint8_t { Always, Everysec, No };

struct NodeConfig {
  bool appendonly = true;
  Fsync appendfsync = Fsync::Everysec;
  // How long one background fsync (fdatasync of the AOF) takes on the disk.
  Duration fsync_duration = std::chrono::milliseconds(3);
  // Writes per second of unrelated keys from other clients (a busy server):
  // they keep the first-write-of-the-second fsync early in each second, so
  // later writes wait up to a second to become durable.
  std::uint32_t background_writes_per_second = 0;
  Duration replication_lag = std::chrono::milliseconds(5);
  int min_replicas_to_write = 0;
  Duration min_replicas_max_lag = std::chrono::seconds(10);  // whole seconds count (Redis' unit)
  // A full resync waits repl-diskless-sync-delay (5 s, Redis 7.0's default
  // with repl-diskless-sync yes) before the RDB goes out; the transfer and
  // load then take no time here.
  Duration full_sync_delay = std::chrono::seconds(5);
  // repl-backlog-size (1 MB): how much history a PSYNC can continue from,
  // counted as the effects' argument bytes.
  std::size_t repl_backlog_size = 1024 * 1024;
  Duration active_expire_interval = std::chrono::milliseconds(100);
  EngineOptions engine;
};

// One command as a node saw it, for checkers and timelines.
struct CommandSeen {
  TrueInstant at;
  HostId node;
  HostId client;   // for a replicated effect: the client whose command caused it
  bool replicated; // applied from the master's stream, not a client command
  const Argv& argv;
  const Reply& reply;
  const std::vector<KeyEvent>& key_events;
};

class NodeObserver {
 public:
  virtual ~NodeObserver() = default;
  virtual void on_command(const CommandSeen& seen) = 0;
};

class RedisNode : public Service {
 public:
  RedisNode(Host& host, NodeConfig config);
  RedisNode(const RedisNode&) = delete;
  RedisNode& operator=(const RedisNode&) = delete;

  Host& host() { return host_; }
  HostId id() const { return host_.id(); }
  Engine& engine() { return engine_; }
  const NodeConfig& config() const { return config_; }
  Role role() const { return engine_.role(); }
  std::uint64_t offset() const { return offset_; }  // replication offset (effects applied)

  void add_observer(NodeObserver* observer) { observers_.push_back(observer); }
  // Data that exists before the run (an inventory's stock, SET before the
  // sale opened): applied when the process first starts, before any client
  // command, as if loaded from a dump; with appendonly it is in the AOF,
  // written and fsynced, so a restart replays it. Call before the host starts.
  void preload(std::vector<Argv> commands) { preload_ = std::move(commands); }

  // Topology. attach_replica makes `replica` follow this node (full sync now).
  void attach_replica(RedisNode& replica);
  // Failover: REPLICAOF NO ONE — this replica becomes a master (starts
  // expiring on its own clock) with a new replication id, keeping the old
  // one as replid2 (replication.c shiftReplicationId).
  void promote();
  // REPLICAOF <master> (replication.c replicationSetMaster): follow `master`
  // from now on. The sync starts with a PSYNC of this node's replication id
  // and offset + 1 (masterTryPartialResynchronization on the master): it
  // continues at once from the master's backlog when the id is its replid,
  // or its replid2 up to the offset it had when promoted; otherwise a full
  // resync replaces this node's data after `full_sync_delay` (writes only
  // this node had are lost). Until the sync is done the link is not online:
  // no stream, no ACK, not a good replica. The sim has no chained
  // replication: this node's own replicas follow `master` too.
  void replicaof(RedisNode& master);
  RedisNode* master() const { return master_; }
  // A replica whose link to its master is online (synced, streaming):
  // INFO's master_link_status:up.
  bool link_up() const;
  std::uint64_t replid() const { return replid_; }
  std::uint64_t partial_syncs() const { return partial_syncs_; }
  std::uint64_t full_syncs() const { return full_syncs_; }

  // A machine crash: only fsynced AOF data survives. (Host::crash() alone is a
  // process crash: written data survives.)
  void power_loss();

  // A slow disk: every fsync that runs before now + d ends no earlier than
  // then (one in flight is held too). With everysec, writes meanwhile are
  // postponed up to 2 s, then written without waiting (Redis's
  // aof_delayed_fsync); with always, the fsync is the main thread's own, so
  // the node stops — no command, reply, cron tick or replication — until
  // the stall ends.
  void stall_fsync(Duration d);
  // appendfsync always, an fsync held by a stall: the event loop waits in it.
  bool blocked_in_fsync() const { return main_fsync_target_.has_value(); }

  // AOF state, for tests and timelines: effects acknowledged but still in
  // aof_buf, written with write(2), made durable by a completed fsync.
  std::size_t aof_buffered() const { return aof_buf_.size(); }
  std::size_t aof_written() const { return aof_.size(); }
  std::size_t aof_fsynced() const { return aof_fsynced_; }
  std::uint64_t aof_delayed_fsyncs() const { return delayed_fsyncs_; }

  std::optional<Reply> on_request(const Request& request) override;
  void on_message(HostId from, const Argv& message) override;

 private:
  struct ReplicaLink {
    RedisNode* node;
    std::uint64_t acked = 0;
    std::int64_t ack_second = 0;  // repl_ack_time: the master's wall second of the last ACK
    bool online = true;           // SLAVE_STATE_ONLINE: synced, streamed to
  };
  struct PendingWait {
    Request request;
    std::uint64_t target;
    std::int64_t needed;
    std::uint64_t id;
  };

  Task<void> main();
  void active_expiry_cycle();
  Task<void> os_flush_loop();
  Task<void> aof_cron_loop();
  Task<void> background_write_loop();
  std::int64_t wall_second() const;
  void flush_aof();
  void try_fsync(bool sync_in_progress);
  void start_background_fsync();
  static void on_fsync_done(void* ctx, std::uint64_t generation);
  void fsync_in_main_thread();
  void wait_out_stall();
  static void on_main_fsync_done(void* ctx, std::uint64_t unused);
  bool aof_catch_up_pending() const;
  void ensure_aof_cron();
  Task<void> replica_ack_loop();
  void on_crash();
  void apply_preload();
  std::int64_t now_ms() const { return to_ms(host_.wall_now()); }
  Reply execute(const Request& request);
  ClientSession& session_for(const Request& request);
  std::optional<Reply> wait_command(const Request& request);
  struct Batch {
    std::vector<Argv> effects;
    HostId origin;               // the client whose command caused them
    std::uint64_t first_offset;  // replication offset after the first effect
  };
  void record_effects(HostId origin);
  void replicate(Batch batch);
  static void on_replication_due(void* ctx, std::uint64_t batch);
  void apply_stream(const Argv& message);
  void on_ack(HostId from, std::uint64_t offset);
  int good_replicas() const;
  std::int64_t acked_replicas(std::uint64_t target) const;
  void answer_waits();
  static void on_wait_timeout(void* ctx, std::uint64_t wait_id);
  void full_sync_from(const RedisNode& master);
  bool can_continue(std::uint64_t replid, std::uint64_t psync_offset) const;
  void to_backlog(const Argv& effect, std::uint64_t at);
  void sync_with_master();
  void continue_from(RedisNode& master);
  static void on_sync_due(void* ctx, std::uint64_t generation);
  static void on_full_sync_due(void* ctx, std::uint64_t generation);
  void link_online(RedisNode& replica);
  void new_replid() { replid_ = (std::uint64_t{host_.id()} << 32) | ++replids_; }
  void annotate_refusal(HostId client, const Argv& argv, const Reply& reply);
  void notify(HostId client, bool replicated, const Argv& argv, const Reply& reply);
  void annotate_command(HostId client, const Argv& argv, const Reply& reply);

  Host& host_;
  NodeConfig config_;
  Engine engine_;
  // A log whose replay rebuilds the current dataset: what a full sync (RDB
  // transfer) hands a new replica.
  std::vector<Argv> dataset_log_;
  // The AOF, after Redis's names (server.h): aof_buf, the written file, the
  // durable prefix; aof_last_fsync (a wall second), the size the last
  // fsync covers (aof_last_incr_fsync_offset), aof_flush_postponed_start.
  std::vector<Argv> aof_buf_;
  std::vector<Argv> aof_;
  std::size_t aof_fsynced_ = 0;
  std::int64_t aof_last_fsync_ = 0;
  std::size_t aof_fsync_offset_ = 0;
  std::optional<std::int64_t> aof_flush_postponed_start_;
  std::uint64_t delayed_fsyncs_ = 0;
  // The bio thread's fsync job: in flight, what it covers, when a stall ends.
  bool fsync_in_flight_ = false;
  std::size_t fsync_target_ = 0;
  std::uint64_t fsync_generation_ = 0;
  TrueInstant fsync_stall_until_{};
  // appendfsync always: the main thread's fsync held by a stall (what it
  // covers), and what the event loop owes once it returns — replies to the
  // commands it ran, a replica's ACK.
  std::optional<std::size_t> main_fsync_target_;
  std::vector<std::pair<Request, Reply>> held_replies_;
  bool held_ack_ = false;
  bool aof_cron_running_ = false;
  LocalInstant boot_monotonic_{};
  std::uint64_t background_writes_ = 0;
  std::uint64_t offset_ = 0;
  bool running_ = false;  // main() has run since the last start/crash
  bool acking_ = false;   // replica_ack_loop is alive
  RedisNode* master_ = nullptr;
  std::vector<ReplicaLink> replicas_;
  // Replication ids (server.replid, replid2, second_replid_offset): unique
  // per node and history; 0 = none. The backlog holds the effects at
  // offsets backlog_offset_ .. offset_ (repl_backlog).
  std::uint64_t replid_ = 0;
  std::uint64_t replid2_ = 0;
  std::uint64_t second_replid_offset_ = 0;
  std::uint64_t replids_ = 0;
  bool has_backlog_ = false;  // kept from the first replica on (repl-backlog-ttl not modelled)
  std::deque<Argv> backlog_;
  std::uint64_t backlog_offset_ = 1;
  std::size_t backlog_bytes_ = 0;
  std::uint64_t sync_generation_ = 0;  // a REPLICAOF, promotion or sync ends the pending one
  std::uint64_t partial_syncs_ = 0;
  std::uint64_t full_syncs_ = 0;
  // Effects waiting `replication_lag` before they are sent, by batch id.
  std::map<std::uint64_t, Batch> outbox_;
  std::uint64_t next_batch_ = 0;
  std::vector<PendingWait> waits_;
  std::uint64_t next_wait_ = 0;
  std::vector<NodeObserver*> observers_;
  std::vector<Argv> preload_;
  // Connection state by Request::conn (dense ids), and the last CLIENT ID given.
  struct Session {
    bool open = false;
    std::uint32_t client_incarnation = 0;
    ClientSession state;
  };
  std::vector<Session> sessions_;
  std::uint64_t next_client_id_ = 0;
  bool booted_ = false;  // main() has run once (the preload is applied then)
};

}  // namespace locksim::sim::redis
