// RedisCluster: the process manager of `locksim live`. It starts a
// scenario's Redis topology as real redis-server processes (masters
// redis-1..N, replicas redis-M-replica-R with `replicaof`, AOF per the
// scenario) on free loopback ports in one temporary directory, and it is
// the only code in live/ that forks, signals or reaps.
//
// Why its own file and not tests/support/redis_server: the product must not
// depend on test code, and live mode needs more than one server: process
// faults (SIGKILL, SIGSTOP/SIGCONT, restart on the same port and AOF),
// observed power loss, per-server wall clocks, and promotion of a replica.
//
// Every server it starts loads liblocksim_preload.so (LD_PRELOAD; see
// live/server_preload.hpp): its fsync log makes a power loss observed
// (SIGKILL, then each AOF file cut back to what the server's own fsyncs
// made durable, then a restart), and its control block gives each server a
// wall clock live mode steps and skews while it runs. A server that did not
// load it is refused (exit 2), never run without it.
//
// Robustness contract: every wait has a deadline; a server that does not
// come up, dies unexpectedly or loses a port race is an error value with one
// clear line (exit 3), a missing binary exit 2; the destructor stops every
// process it started (SIGCONT, SIGTERM, SIGKILL after a grace period,
// waitpid) and removes the directory. Each server runs in its own process
// group and is signalled as a group, so a --redis-server wrapper script
// cannot leave its redis-server behind. Children get PR_SET_PDEATHSIG, so
// even if locksim itself is SIGKILLed they die with the forking thread —
// create the cluster on the thread that outlives it (the main thread).
//
// The network: every node has a TcpProxy (live/tcp_proxy.hpp) with one
// listener per client and per other node of its shard. Clients reach a node
// through their listener (client_endpoint), a replica replicates through its
// own listener on its master's proxy, so delays, partitions and the
// replication lag act on real bytes. Proxies stop before the servers.
//
// Existing servers (`--redis HOST:PORT,...`, attach()): the same nodes and
// proxies without processes; the nodes are masters redis-1..N, and process
// faults are refused before the run (the runner checks `external()`).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "live/live_servers.hpp"
#include "live/sentinel_quorum.hpp"
#include "live/server_preload.hpp"
#include "live/tcp_proxy.hpp"
#include "vocab/result.hpp"

namespace locksim::live {

struct ClusterSpec {
  std::filesystem::path binary;      // redis-server
  std::filesystem::path preload;     // liblocksim_preload.so (locate_preload_library)
  int masters = 1;
  int replicas = 0;                  // per master
  bool appendonly = true;
  std::string appendfsync = "everysec";
  std::chrono::milliseconds start_deadline{10000};
  // Set (non-zero) by a signal handler: stop waiting for servers at once.
  const std::atomic<int>* interrupted = nullptr;
  std::vector<std::string> clients{};  // a proxy listener for each on every node
  int min_replicas_to_write = 0;       // 0 = off
  int min_replicas_max_lag_s = 10;     // whole seconds (Redis' unit)
  // With replicas: a real Sentinel quorum watches the shards (its binary,
  // directory and master ports are filled in by start()).
  std::optional<SentinelSpec> sentinel{};
};

struct RedisNodeProcess {
  std::string name;  // "redis-1", "redis-1-replica-1"
  int shard = 0;     // 0-based master index
  int replica = 0;   // 0 = started as master
  std::string host = "127.0.0.1";
  int port = 0;
  pid_t pid = -1;  // -1: down, or an existing server we did not start
  std::filesystem::path dir;
  // The loopback address it connects out from (bind-source-addr), which
  // tells its links apart on another node's shared proxy listener.
  std::string source_address;
  bool exited_before_ready = false;  // its last start ended with the process exiting (a lost port race)
};

// The redis-server to use: `requested` if given (must be executable), else
// PATH, /usr/sbin, /usr/bin, /usr/local/bin. Error exit 2 when none.
Result<std::filesystem::path, LiveError> locate_redis_server(const std::filesystem::path& requested);

// liblocksim_preload.so: `requested` if given, else where an install puts it
// relative to the running executable (live/installed_files.hpp), else next
// to the executable, else the one this build made (LOCKSIM_PRELOAD_PATH,
// unless LOCKSIM_NO_BUILD_TREE). Exit 2 naming every path tried when none is
// there.
Result<std::filesystem::path, LiveError> locate_preload_library(const std::filesystem::path& requested);

// Client c's own loopback address, "127.0.1.<c+1>" (the nodes' are
// 127.0.0.2 and up): its adapter's connections leave from it (the client
// preload binds it), which names its links on a node's shared listener.
std::string client_source_address(std::size_t c);

// A loopback port free right now (a bind succeeds), below the kernel's
// ephemeral range so that no outgoing connection can take it; never the
// same port twice in one process. Another listener may still win it:
// callers retry. 0 when none is free.
int free_loopback_port();

class RedisCluster final : public LiveServers {
 public:
  static Result<std::unique_ptr<RedisCluster>, LiveError> start(const ClusterSpec& spec);
  // Existing servers "host:port" (masters redis-1..N): proxies only.
  static Result<std::unique_ptr<RedisCluster>, LiveError> attach(const std::vector<std::string>& endpoints,
                                                                 const std::vector<std::string>& clients);
  bool external() const { return external_; }
  ~RedisCluster() override;
  RedisCluster(const RedisCluster&) = delete;
  RedisCluster& operator=(const RedisCluster&) = delete;

  std::size_t node_count() const { return nodes_.size(); }
  const RedisNodeProcess& node(std::size_t i) const { return nodes_[i]; }
  std::optional<std::size_t> find(const std::string& name) const override;
  // LiveServers (live_servers.hpp): the nodes; a link between two nodes of
  // a shard is the replication connection (the master's proxy carries it).
  std::size_t server_count() const override { return nodes_.size(); }
  const std::string& server_name(std::size_t i) const override { return nodes_[i].name; }
  bool server_up(std::size_t i) const override { return nodes_[i].pid > 0; }
  std::optional<LinkRoute> server_link(std::size_t from, std::size_t to) const override;
  int shards() const { return spec_.masters; }

  // The node that currently serves shard m (a promoted replica after a
  // failover), and its "127.0.0.1:port". Thread-safe (clients call it).
  std::size_t master_of(int shard) const;
  std::string master_endpoint(int shard) const;
  std::uint64_t generation() const;  // bumps on every redirect
  // "127.0.0.1:port" of the client's link to shard m's current master.
  std::string client_endpoint(const std::string& client, int shard) const;
  // The proxy in front of node i (its links to clients and replicas).
  TcpProxy& proxy(std::size_t i) const override { return *proxies_[i]; }

  // Process faults (main thread only). false + why on failure.
  void kill9(std::size_t i) override;
  void pause(std::size_t i) override;
  void resume(std::size_t i) override;
  Result<bool, LiveError> restart(std::size_t i) override;  // on the same port and dir
  // The Sentinel quorum, if the cluster has one.
  SentinelQuorum* sentinel() const { return sentinel_.get(); }
  // Clients of shard m go to node i from now on (a failover Sentinel made).
  void redirect(int shard, std::size_t i);
  // The node whose proxy announces this port (what Sentinel hands out).
  std::optional<std::size_t> node_announcing(int port) const;
  // A machine's power loss, observed: SIGKILL, then every file of the
  // node's AOF directory cut back to the length its last fsync made
  // durable (the preload's log). Returns the files it shortened.
  std::vector<PowerCut> power_loss(std::size_t i);
  // The node's own wall clock (kept across its restarts).
  void step_clock(std::size_t i, std::chrono::nanoseconds by);
  void set_clock_drift(std::size_t i, std::int64_t ppm);
  // Its disk holds fsyncs for d (real time).
  void stall_fsync(std::size_t i, std::chrono::nanoseconds d);
  void end_fsync_stall(std::size_t i);
  // How far node i's wall clock is ahead of the real one now (0 for an
  // existing server: its clock is its own).
  std::chrono::nanoseconds wall_offset(std::size_t i) const;
  // Other clients' writes ([redis] background_writes_per_second): one SET
  // of an unrelated key on every node serving a shard, each `gap` (real
  // time), straight to the server (no proxy), on one thread until stop_all.
  void start_background_load(std::chrono::nanoseconds gap);

  // A node that exited although no fault crashed it, if any.
  std::optional<std::string> died_unexpectedly() override;
  void stop_all() override;
  std::vector<pid_t> pids() const;

 private:
  explicit RedisCluster(ClusterSpec spec) : spec_(std::move(spec)) {}
  Result<bool, LiveError> start_node(RedisNodeProcess& node, bool fresh_port);
  bool spawn_and_wait(RedisNodeProcess& node);
  Result<bool, LiveError> start_proxy(std::size_t i);
  Result<bool, LiveError> start_sentinels();
  std::vector<std::string> arguments(const RedisNodeProcess& node) const;
  std::optional<std::size_t> upstream_of(const RedisNodeProcess& node) const;
  std::vector<std::string> environment(const RedisNodeProcess& node) const;
  void stop_node(RedisNodeProcess& node);
  bool interrupted() const { return spec_.interrupted && spec_.interrupted->load() != 0; }

  ClusterSpec spec_;
  std::filesystem::path dir_;
  std::vector<RedisNodeProcess> nodes_;
  std::vector<std::unique_ptr<TcpProxy>> proxies_;  // per node
  std::unique_ptr<SentinelQuorum> sentinel_;
  std::vector<std::unique_ptr<ServerClock>> clocks_;  // per node (none when attached)
  std::optional<LiveError> preload_error_;            // a server that did not load the library
  std::atomic<bool> load_stop_{false};
  std::thread load_;                                  // the background write load, if any
  bool external_ = false;
  mutable std::mutex mutex_;         // guards shard_master_ and generation_
  std::vector<std::size_t> shard_master_;
  std::uint64_t generation_ = 0;
};

}  // namespace locksim::live
