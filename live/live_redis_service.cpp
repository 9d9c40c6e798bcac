// The Redis topology's live service (live_service.hpp): redis-server
// processes started for the run (RedisCluster, with a Sentinel quorum when
// the scenario has replicas) or existing servers behind the proxies, the
// clients' probed connections (LiveRuntime), and what a fault does to a
// Redis node that no other service has: power loss cutting the AOF, a
// failover, the server's clock, a stalled fsync. A client library's own
// commands are watched on every server's MONITOR stream (MonitorReplay).
#include "live/live_redis_service.hpp"

#include <algorithm>

#include "live/existing_servers.hpp"
#include "live/monitor_replay.hpp"
#include "live/sentinel_quorum.hpp"
#include "scenarios/inventory_workload.hpp"
#include "scenarios/workload.hpp"

namespace locksim::live {

namespace {

using namespace std::chrono_literals;
using scenarios::Scenario;

class RedisService final : public LiveService {
 public:
  // observe_entries: the lock's commands are sent by a client library in its
  // own process, so no probe sees them: the servers' MONITOR streams do.
  RedisService(std::unique_ptr<RedisCluster> cluster, std::int64_t ppm, std::vector<std::string> clients,
               std::vector<std::string> keys, bool observe_entries)
      : cluster_(std::move(cluster)),
        ppm_(ppm),
        client_names_(std::move(clients)),
        keys_(std::move(keys)),
        observe_entries_(observe_entries) {}

  LiveServers& servers() override { return *cluster_; }
  Result<bool, LiveError> prepare(const Scenario& scaled, LiveRecorder& recorder) override;
  std::string what_ran(const locks::LockInfo&) const override { return "real redis-server processes"; }

  // Client c's links: one per shard (its master).
  std::vector<std::string> client_endpoints(std::size_t c) const override {
    std::vector<std::string> out;
    for (int shard = 0; shard < cluster_->shards(); ++shard)
      out.push_back(cluster_->client_endpoint(client_names_[c], shard));
    return out;
  }
  std::optional<SentinelDiscovery> sentinel_discovery(std::size_t c) const override {
    const SentinelQuorum* quorum = cluster_->sentinel();
    if (!quorum) return std::nullopt;
    SentinelDiscovery d;
    for (std::size_t i = 0; i < quorum->size(); ++i)
      d.sentinels.push_back("127.0.0.1:" + std::to_string(quorum->port(i)));
    for (int shard = 0; shard < cluster_->shards(); ++shard)
      d.master_names.push_back(SentinelQuorum::master_name(shard));
    d.source_address = client_source_address(c);
    return d;
  }
  void run_client(const ClientRun& run) override {
    const Scenario& s = run.workload.scenario();
    LiveRuntime rt(run.world, run.late, *cluster_, run.client, s.clients[run.client].name, scenarios::lock_keys(s),
                   run.clock);
    sync_wait(scenarios::client_main(run.workload, run.client, rt));
  }
  bool links_follow_clients() const override { return false; }

  void crash(std::size_t node, bool power_loss, LiveRecorder& recorder) override;
  void promote(std::size_t node, LiveRecorder& recorder) override;
  void clock_step(std::size_t node, Duration by) override { cluster_->step_clock(node, by); }
  void clock_drift(std::size_t node, std::int64_t ppm) override { cluster_->set_clock_drift(node, ppm); }
  void stall_fsync(std::size_t node, Duration d) override { cluster_->stall_fsync(node, d); }
  std::chrono::nanoseconds wall_offset(std::size_t node) const override { return cluster_->wall_offset(node); }
  void follow_servers(LiveRecorder& recorder) override;

  void collect_observed(LiveRecorder& recorder) override {
    if (!monitor_) return;
    for (const auto& seen : monitor_->stop()) recorder.record_observed(seen.node, seen.effect, seen.real_time_us);
    monitor_.reset();
  }
  // With --redis no server was started, so none was stopped.
  std::string stopped_text() const override {
    return cluster_->external() ? "this run's keys were deleted" : "every redis-server was stopped";
  }
  // Existing servers keep running: only this run's keys are deleted.
  std::optional<std::string> stop() override {
    cluster_->stop_all();
    return cluster_->external() ? delete_keys(*cluster_, keys_) : std::nullopt;
  }

 private:
  void emulate_replication_lag(Duration lag);
  void note_power_cut(const std::string& node, const std::vector<PowerCut>& cuts, LiveRecorder& recorder);
  Result<bool, LiveError> watch_entries(const Scenario& s);
  MonitorReplay::Node watched_node(std::size_t n) const;

  std::unique_ptr<RedisCluster> cluster_;
  std::int64_t ppm_;
  std::vector<std::string> client_names_;
  std::vector<std::string> keys_;  // every key the run touches
  bool observe_entries_;
  std::unique_ptr<MonitorReplay> monitor_;  // while the run lasts, when observe_entries_
};

Result<bool, LiveError> RedisService::prepare(const Scenario& s, LiveRecorder&) {
  // The stock, as if set before the sale opened (before the lag is emulated).
  if (auto preloaded = preload_data(*cluster_, scenarios::redis_stock_preload(s), s.redis.replicas); !preloaded)
    return failure(preloaded.error());
  emulate_replication_lag(s.redis.replication_lag);
  if (s.redis.background_writes_per_second > 0)
    cluster_->start_background_load(scale(Duration{1s}, ppm_) / s.redis.background_writes_per_second);
  return observe_entries_ ? watch_entries(s) : Result<bool, LiveError>(true);
}

// MONITOR on every node from before the clients start: each command on a
// lock key is attributed to the client whose proxy link carried it.
Result<bool, LiveError> RedisService::watch_entries(const Scenario& s) {
  const std::vector<std::string> lock_keys = scenarios::lock_keys(s);
  std::vector<MonitorReplay::Node> nodes;
  for (std::size_t n = 0; n < cluster_->node_count(); ++n) nodes.push_back(watched_node(n));
  monitor_ = std::make_unique<MonitorReplay>(std::move(nodes), [lock_keys](const std::string& key) {
    return std::find(lock_keys.begin(), lock_keys.end(), key) != lock_keys.end();
  });
  if (auto failed = monitor_->start())
    return failure(LiveError{kInternal, "cannot watch the servers' command streams (MONITOR): " + *failed});
  return true;
}

// Node n as MonitorReplay watches it. A command's source port is the
// upstream side of a proxy link: the client's own (client_of_port), or
// another node's link to it, which on n is n's link to its master.
MonitorReplay::Node RedisService::watched_node(std::size_t n) const {
  const RedisNodeProcess& node = cluster_->node(n);
  MonitorReplay::Node watched{node.host, node.port, {}, {}, {}};
  watched.client_of_port = [this, n](int port) -> std::optional<std::size_t> {
    const std::string source = cluster_->proxy(n).source_of_upstream_port(port);
    const auto it = std::find(client_names_.begin(), client_names_.end(), source);
    if (it == client_names_.end()) return std::nullopt;
    return static_cast<std::size_t>(it - client_names_.begin());
  };
  watched.is_master_link = [this, n](int port) {
    for (std::size_t m = 0; m < cluster_->node_count(); ++m) {
      const TcpProxy& other = cluster_->proxy(m);
      if (m != n && (other.port(cluster_->node(n).name) == port || other.shared_port() == port)) return true;
    }
    return false;
  };
  watched.wall_offset = [this, n] { return cluster_->wall_offset(n); };
  return watched;
}

// The scenario's replication_lag as a constant delay on every master ->
// replica link (a real master on loopback replicates in microseconds).
void RedisService::emulate_replication_lag(Duration lag) {
  for (std::size_t n = 0; n < cluster_->node_count(); ++n) {
    const auto& node = cluster_->node(n);
    if (node.replica == 0) continue;
    const std::size_t master = cluster_->master_of(node.shard);
    cluster_->proxy(master).set_latency(node.name, Flow::ToSource, lag);
  }
}

// SIGKILL, or a power loss observed from the server's own fsyncs.
void RedisService::crash(std::size_t node, bool power_loss, LiveRecorder& recorder) {
  // What the master had not replicated yet dies with it (the simulator's
  // replication buffer): its replicas' links lose the bytes still lagging.
  // First, before the kill and its reaping: the lag may be under a ms.
  for (const auto& source : cluster_->proxy(node).sources())
    if (cluster_->find(source)) cluster_->proxy(node).reset(source);
  if (power_loss) note_power_cut(cluster_->node(node).name, cluster_->power_loss(node), recorder);
  else cluster_->kill9(node);
}

void RedisService::note_power_cut(const std::string& node, const std::vector<PowerCut>& cuts, LiveRecorder& recorder) {
  std::string text = "power-loss " + node + " observed: ";
  if (cuts.empty()) text += "every AOF byte was fsynced, nothing lost";
  for (std::size_t i = 0; i < cuts.size(); ++i)
    text += (i ? ", " : "") + cuts[i].file + " cut from " + std::to_string(cuts[i].written) + " to " +
            std::to_string(cuts[i].kept) + " bytes";
  recorder.note(text);
}

// The `failover` fault: what Sentinel does when asked (SENTINEL FAILOVER);
// follow_servers records what it then did. A refusal (-NOGOODSLAVE,
// -INPROG) changes nothing, as the simulated Sentinel's.
void RedisService::promote(std::size_t node, LiveRecorder& recorder) {
  const int shard = cluster_->node(node).shard;
  SentinelQuorum* quorum = cluster_->sentinel();
  if (!quorum) return;  // no replica: nothing to promote (the simulated Sentinel watches none either)
  if (auto asked = quorum->failover(shard); !asked)
    recorder.note("SENTINEL FAILOVER " + SentinelQuorum::master_name(shard) + " refused: " + asked.error());
}

// Clients follow the master the Sentinel quorum names (SENTINEL MASTER, the
// answer with the newest configuration epoch), as a Sentinel-aware client
// asks get-master-addr-by-name: from the moment the leader has seen its
// replica promoted (sentinelGetCurrentMasterAddress). The fault record
// says which replica Sentinel promoted, when locksim saw it.
void RedisService::follow_servers(LiveRecorder& recorder) {
  SentinelQuorum* quorum = cluster_->sentinel();
  if (!quorum) return;
  for (int shard = 0; shard < cluster_->shards(); ++shard) {
    const auto view = quorum->master(shard);
    const auto node = view ? cluster_->node_announcing(view->port) : std::nullopt;
    if (!node || *node == cluster_->master_of(shard)) continue;
    cluster_->redirect(shard, *node);
    const std::string& name = cluster_->node(*node).name;
    recorder.fault_seen(scenarios::FaultKind::Failover,
                        "failover to " + name + " (Sentinel, epoch " + std::to_string(view->config_epoch) + ")", name);
  }
}

// min-replicas-max-lag: the simulated node's 10 s scaled, in whole seconds,
// at least 1 (replicas ACK once a real second, whatever the time scale).
int min_replicas_max_lag_s(std::int64_t ppm) {
  const auto lag = scale(sim::redis::NodeConfig{}.min_replicas_max_lag, ppm);
  return static_cast<int>(std::max<std::int64_t>(1, std::chrono::ceil<std::chrono::seconds>(lag).count()));
}

// The Sentinel quorum's settings, scaled: down-after-milliseconds is
// failover_after (0, no automatic failover: longer than the whole run).
SentinelSpec sentinel_spec(const Scenario& scenario, std::int64_t ppm) {
  const auto real_ms = [ppm](Duration d) {
    return std::max(1ms, std::chrono::ceil<std::chrono::milliseconds>(scale(d, ppm)));
  };
  SentinelSpec spec;
  spec.down_after = scenario.redis.failover_after > Duration{0} ? real_ms(scenario.redis.failover_after)
                                                                : real_ms(scenario.duration) + 1h;
  spec.failover_timeout = real_ms(scenario.redis.failover_timeout);
  spec.parallel_syncs = scenario.redis.parallel_syncs;
  spec.time_scale_ppm = ppm;
  return spec;
}

// The started servers' settings (before the binaries are found).
ClusterSpec cluster_spec(const Scenario& scenario, std::int64_t ppm) {
  ClusterSpec spec{{},
                   {},
                   scenario.redis.masters,
                   scenario.redis.replicas,
                   scenario.redis.appendonly,
                   scenario.redis.appendfsync == sim::redis::Fsync::Always ? "always"
                   : scenario.redis.appendfsync == sim::redis::Fsync::No   ? "no"
                                                                           : "everysec"};
  for (const auto& c : scenario.clients) spec.clients.push_back(c.name);
  spec.min_replicas_to_write = scenario.redis.min_replicas_to_write;
  spec.min_replicas_max_lag_s = min_replicas_max_lag_s(ppm);
  if (scenario.redis.replicas > 0) spec.sentinel = sentinel_spec(scenario, ppm);
  return spec;
}

Result<std::unique_ptr<RedisCluster>, LiveError> start_cluster(ClusterSpec spec, const std::filesystem::path& binary) {
  auto found = locate_redis_server(binary);
  if (!found) return failure(found.error());
  auto preload = locate_preload_library({});
  if (!preload) return failure(preload.error());
  spec.binary = *found;
  spec.preload = *preload;
  return RedisCluster::start(spec);
}

// Existing servers: proxies in front of them, after checking that none of
// the run's keys is there already (they would not be ours to delete).
Result<std::unique_ptr<RedisCluster>, LiveError> attach_existing(const std::vector<std::string>& endpoints,
                                                                 const ClusterSpec& spec,
                                                                 const std::vector<std::string>& keys) {
  auto cluster = RedisCluster::attach(endpoints, spec.clients);
  if (!cluster) return failure(cluster.error());
  // The order key is locksim's own counter: one left by a killed run would
  // only make this run refuse (touched_keys: the last key).
  if (auto dropped = drop_stale_order_key(**cluster, keys); !dropped) return failure(dropped.error());
  if (auto absent = check_keys_absent(**cluster, keys); !absent) return failure(absent.error());
  return cluster;
}

}  // namespace

Result<std::unique_ptr<LiveService>, LiveError> start_redis_service(const Scenario& scenario,
                                                                    const LiveOptions& options,
                                                                    const std::vector<std::string>& keys,
                                                                    const std::atomic<int>* interrupted) {
  ClusterSpec spec = cluster_spec(scenario, options.time_scale_ppm);
  spec.interrupted = interrupted;
  const bool existing = !options.redis_endpoints.empty();
  auto cluster = existing ? attach_existing(options.redis_endpoints, spec, keys)
                          : start_cluster(spec, options.redis_server);
  if (!cluster) return failure(cluster.error());
  const auto lock = locks::find_lock(options.lock_kind.empty() ? scenario.lock_kind : options.lock_kind);
  const bool library = lock && !lock->library.empty();
  return std::unique_ptr<LiveService>(
      std::make_unique<RedisService>(std::move(*cluster), options.time_scale_ppm, spec.clients, keys, library));
}

}  // namespace locksim::live
