// RedisCluster: fork/exec of real redis-servers on free loopback ports,
// readiness by PING (and master_link_status:up for replicas) under a
// deadline, process faults, and a stop that always reaps (redis_cluster.hpp).
#include "live/redis_cluster.hpp"

#include "live/live_leftovers.hpp"
#include "live/process_group.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "live/preload/preload_control.h"
#include "locks/hiredis/hiredis_conn.hpp"
#include "scenarios/host_names.hpp"
#include "vocab/task.hpp"

namespace locksim::live {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr int kStartAttempts = 5;  // fresh ports tried when another process wins a port race

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p, ec);
}

std::string log_tail(const fs::path& dir) { return last_log_line(dir / "redis.log"); }

// Where the kernel's ephemeral range starts (net.ipv4.ip_local_port_range);
// Linux's default if it cannot be read.
int ephemeral_ports_start() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0, high = 0;
  if (in >> low >> high && 1024 < low && low <= high) return low;
  return 32768;
}

bool loopback_port_bindable(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

// Never a port of the ephemeral range: every outgoing connection on the
// machine (a ZooKeeper peer dialling its quorum, a test's client) takes its
// local port from there, so a port picked there can be taken between this
// call and the server's bind, or while a member is down for a restart
// (ZooKeeper then exits with code 14, "unable to bind quorum port"). Below
// the range only another listener can take it. A random start per process
// and a cursor that never hands out a port twice keep parallel suites and
// one cluster's members apart.
int free_loopback_port() {
  static const int low = ephemeral_ports_start();
  const int first = std::max(low / 2, 1024);  // [low/2, low): 16384 ports below Linux's default range
  const int span = low - first;
  static std::atomic<int> cursor{static_cast<int>(std::random_device{}() % static_cast<unsigned>(span))};
  for (int tries = 0; tries < span; ++tries) {
    const int port = first + cursor.fetch_add(1) % span;
    if (loopback_port_bindable(port)) return port;
  }
  return 0;
}

Result<fs::path, LiveError> locate_redis_server(const fs::path& requested) {
  if (!requested.empty()) {
    if (is_executable(requested)) return requested;
    return failure(LiveError{kBadInput, requested.string() + ": no executable redis-server there (--redis-server)"});
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string d; std::getline(dirs, d, ':');)
      if (!d.empty() && is_executable(fs::path(d) / "redis-server")) return fs::path(d) / "redis-server";
  }
  for (const char* d : {"/usr/sbin", "/usr/bin", "/usr/local/bin"})
    if (is_executable(fs::path(d) / "redis-server")) return fs::path(d) / "redis-server";
  return failure(LiveError{kBadInput, "redis-server not found on PATH (install it or pass --redis-server PATH)"});
}

Result<fs::path, LiveError> locate_preload_library(const fs::path& requested) {
  constexpr const char* kName = "liblocksim_preload.so";
  if (!requested.empty()) {
    if (fs::is_regular_file(requested)) return requested;
    return failure(LiveError{kBadInput, requested.string() + ": no " + kName + " there"});
  }
#ifdef LOCKSIM_PRELOAD_PATH
  const std::vector<fs::path> tried = library_candidates(LOCKSIM_PRELOAD_PATH, kName);
#else
  const std::vector<fs::path> tried = library_candidates(nullptr, kName);
#endif
  std::error_code ec;
  std::string where;
  for (const auto& p : tried) {
    if (fs::is_regular_file(p, ec)) return p;
    where += (where.empty() ? "" : ", ") + p.string();
  }
  return failure(LiveError{kBadInput, std::string("live mode needs ") + kName +
                                          " (the fsync recorder and server clocks redis-server loads): not found at " +
                                          where + "; build the locksim_preload target"});
}

Result<std::unique_ptr<RedisCluster>, LiveError> RedisCluster::start(const ClusterSpec& spec) {
  if (spec.preload.empty())
    return failure(LiveError{
        kBadInput, "live mode needs liblocksim_preload.so for the servers it starts (locate_preload_library)"});
  std::unique_ptr<RedisCluster> cluster(new RedisCluster(spec));
  const char* base = std::getenv("TMPDIR");
  const std::string tmp = base && *base ? base : "/tmp";
  remove_stale_live_dirs(tmp);  // those of runs that were killed (live_leftovers.hpp)
  std::string tmpl = tmp + "/locksim-live-XXXXXX";
  if (!::mkdtemp(tmpl.data())) return failure(LiveError{kInternal, "cannot create a temporary directory in " + tmpl});
  cluster->dir_ = tmpl;
  mark_live_dir_owner(cluster->dir_);
  for (int m = 0; m < spec.masters; ++m) {
    for (int r = 0; r <= spec.replicas; ++r) {
      RedisNodeProcess node;
      node.shard = m;
      node.replica = r;
      node.name = scenarios::redis_host_name(m + 1, r);
      node.dir = cluster->dir_ / node.name;
      node.source_address = "127.0.0." + std::to_string(2 + cluster->nodes_.size());
      fs::create_directories(node.dir);
      std::string why;
      auto clock = ServerClock::create(node.dir / "clock.ctl", &why);
      if (!clock) return failure(LiveError{kInternal, node.name + ": " + why});
      cluster->clocks_.push_back(std::move(clock));
      cluster->nodes_.push_back(node);
    }
    cluster->shard_master_.push_back(cluster->nodes_.size() - static_cast<std::size_t>(spec.replicas) - 1);
  }
  cluster->proxies_.resize(cluster->nodes_.size());
  for (auto& node : cluster->nodes_) {  // masters come before their replicas
    auto started = cluster->start_node(node, true);
    if (cluster->interrupted())
      return failure(
          LiveError{kInternal, "interrupted by a signal while starting redis-server; every server was stopped", true});
    if (!started) return failure(started.error());  // the destructor stops what did start
  }
  if (auto watched = cluster->start_sentinels(); !watched) return failure(watched.error());
  return cluster;
}

// The quorum watches each shard's master through its proxy's shared
// listener, the address every node announces.
Result<bool, LiveError> RedisCluster::start_sentinels() {
  if (!spec_.sentinel || spec_.replicas == 0) return true;
  SentinelSpec spec = *spec_.sentinel;
  spec.binary = spec_.binary;
  spec.dir = dir_;
  spec.replicas = spec_.replicas;
  spec.interrupted = spec_.interrupted;
  for (int m = 0; m < spec_.masters; ++m) spec.master_ports.push_back(proxies_[master_of(m)]->shared_port());
  auto quorum = SentinelQuorum::start(spec);
  if (!quorum) return failure(quorum.error());
  sentinel_ = std::move(*quorum);
  return true;
}

Result<std::unique_ptr<RedisCluster>, LiveError> RedisCluster::attach(const std::vector<std::string>& endpoints,
                                                                      const std::vector<std::string>& clients) {
  ClusterSpec spec;
  spec.masters = static_cast<int>(endpoints.size());
  spec.replicas = 0;
  spec.clients = clients;
  std::unique_ptr<RedisCluster> cluster(new RedisCluster(spec));
  cluster->external_ = true;
  for (std::size_t m = 0; m < endpoints.size(); ++m) {
    const auto colon = endpoints[m].rfind(':');
    RedisNodeProcess node;
    node.shard = static_cast<int>(m);
    node.name = scenarios::redis_host_name(static_cast<int>(m) + 1);
    node.host = endpoints[m].substr(0, colon);
    node.port = std::stoi(endpoints[m].substr(colon + 1));
    cluster->nodes_.push_back(node);
    cluster->shard_master_.push_back(m);
    cluster->proxies_.emplace_back();
    if (auto proxied = cluster->start_proxy(m); !proxied) return failure(proxied.error());
  }
  return cluster;
}

// The node's proxy: a listener per client, per other node of its shard
// and for the Sentinel quorum; a started node's proxy also has the shared
// listener it announces, where the other nodes' links are told apart by
// their source address (tcp_proxy.hpp SharedListener) and anyone else is
// the sentinel.
std::string client_source_address(std::size_t c) { return "127.0.1." + std::to_string(c + 1); }

Result<bool, LiveError> RedisCluster::start_proxy(std::size_t i) {
  std::vector<std::string> sources = spec_.clients;
  std::optional<SharedListener> shared;
  if (!external_) shared = SharedListener{{}, scenarios::kSentinelHost};
  for (const auto& other : nodes_) {
    if (other.shard != nodes_[i].shard || other.name == nodes_[i].name) continue;
    sources.push_back(other.name);
    if (shared) shared->by_address.emplace_back(other.source_address, other.name);
  }
  if (shared) {
    for (std::size_t c = 0; c < spec_.clients.size(); ++c)
      shared->by_address.emplace_back(client_source_address(c), spec_.clients[c]);
    sources.push_back(scenarios::kSentinelHost);
  }
  auto proxy = TcpProxy::start(nodes_[i].host, nodes_[i].port, sources, shared);
  if (!proxy) return failure(LiveError{kInternal, nodes_[i].name + ": proxy: " + proxy.error()});
  proxies_[i] = std::move(*proxy);
  return true;
}

RedisCluster::~RedisCluster() {
  stop_all();
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::optional<std::size_t> RedisCluster::find(const std::string& name) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].name == name) return i;
  return std::nullopt;
}

// The replication connection of a shard: its current master is the server
// side, the other node the source; two replicas share no connection.
std::optional<LinkRoute> RedisCluster::server_link(std::size_t from, std::size_t to) const {
  const int shard = nodes_[from].shard;
  if (nodes_[to].shard != shard) return std::nullopt;
  const std::size_t server = master_of(shard);
  if (server == from) return LinkRoute{server, nodes_[to].name, Flow::ToSource};
  if (server == to) return LinkRoute{server, nodes_[from].name, Flow::ToServer};
  return std::nullopt;
}

std::size_t RedisCluster::master_of(int shard) const {
  std::lock_guard lock(mutex_);
  return shard_master_[static_cast<std::size_t>(shard)];
}

std::string RedisCluster::master_endpoint(int shard) const {
  const RedisNodeProcess& node = nodes_[master_of(shard)];
  return node.host + ":" + std::to_string(node.port);
}

std::string RedisCluster::client_endpoint(const std::string& client, int shard) const {
  return "127.0.0.1:" + std::to_string(proxies_[master_of(shard)]->port(client));
}

std::uint64_t RedisCluster::generation() const {
  std::lock_guard lock(mutex_);
  return generation_;
}

std::vector<std::string> RedisCluster::arguments(const RedisNodeProcess& node) const {
  std::vector<std::string> args = {spec_.binary.string(), "--port", std::to_string(node.port), "--bind", "127.0.0.1",
                                   "--dir", node.dir.string(), "--logfile", (node.dir / "redis.log").string(),
                                   "--save", "", "--appendonly", spec_.appendonly ? "yes" : "no",
                                   "--appendfsync", spec_.appendfsync, "--daemonize", "no",
                                   // a replica's full sync starts at once, not after 5 s
                                   "--repl-diskless-sync-delay", "0"};
  if (spec_.min_replicas_to_write > 0)  // on every node: a promoted replica enforces it too, as simulated
    args.insert(args.end(), {"--min-replicas-to-write", std::to_string(spec_.min_replicas_to_write),
                             "--min-replicas-max-lag", std::to_string(spec_.min_replicas_max_lag_s)});
  const std::size_t self = static_cast<std::size_t>(&node - nodes_.data());
  // Sentinel hands out what a node announces: its proxy's shared listener,
  // so a replica Sentinel re-points still replicates through the proxy
  // (docs/live.md, "Failover: a real Sentinel quorum").
  args.insert(args.end(), {"--bind-source-addr", node.source_address, "--replica-announce-ip", "127.0.0.1",
                           "--replica-announce-port", std::to_string(proxies_[self]->shared_port())});
  if (const auto master = upstream_of(node))  // through the master's proxy: the link can lag, be delayed or cut
    args.insert(args.end(), {"--replicaof", "127.0.0.1", std::to_string(proxies_[*master]->port(node.name))});
  return args;
}

// The node a (re)started server replicates from: its shard's current
// master, except that a shard's first master restarted after a Sentinel
// failover comes back as the master it was, and Sentinel converts it
// (+convert-to-slave), as a real one restarted from its own config does.
std::optional<std::size_t> RedisCluster::upstream_of(const RedisNodeProcess& node) const {
  const std::size_t master = master_of(node.shard);
  if (master == static_cast<std::size_t>(&node - nodes_.data()) || (sentinel_ && node.replica == 0)) return std::nullopt;
  return master;
}

// The environment a server starts with: ours, plus the preload library, its
// control block and its fsync log.
std::vector<std::string> RedisCluster::environment(const RedisNodeProcess& node) const {
  return preload_environment(spec_.preload, node.dir / "clock.ctl", node.dir / "fsync.log");
}

namespace {

// Whether a redis-server process started since the log had `before` hello
// lines loaded the library (a wrapper script's shell says hello too; on
// Debian redis-server is a symlink to redis-check-rdb, the name /proc shows).
bool loaded_preload(const fs::path& log, std::size_t before) {
  const FsyncLog read = read_fsync_log(log);
  for (std::size_t i = before; i < read.loaded_by.size(); ++i)
    if (fs::path(read.loaded_by[i]).filename().string().rfind("redis", 0) == 0) return true;  // Debian: redis-check-rdb
  return false;
}

}  // namespace

bool RedisCluster::spawn_and_wait(RedisNodeProcess& node) {
  const std::vector<std::string> env = environment(node);
  const std::size_t hellos_before = read_fsync_log(node.dir / "fsync.log").loaded_by.size();
  const pid_t pid = spawn_process_group(arguments(node), &env, node.dir / "stdout.log");
  if (pid < 0) return false;
  node.pid = pid;
  node.exited_before_ready = false;
  const auto master = upstream_of(node);
  const bool replica = master && nodes_[*master].pid > 0;
  const auto deadline = std::chrono::steady_clock::now() + spec_.start_deadline;
  while (std::chrono::steady_clock::now() < deadline && !interrupted()) {
    if (reaped(pid)) {
      node.pid = -1;
      node.exited_before_ready = true;
      return false;
    }
    if (loopback_roundtrip(node.port, "PING\r\n").rfind("+PONG", 0) == 0 &&
        (!replica || loopback_roundtrip(node.port, "INFO replication\r\n").find("master_link_status:up") != std::string::npos)) {
      if (loaded_preload(node.dir / "fsync.log", hellos_before)) return true;
      preload_error_ = LiveError{kBadInput,
                                 node.name + ": " + spec_.binary.string() + " did not load " + spec_.preload.string() +
                                     " (LD_PRELOAD ignored: a setuid or static binary?); live mode cannot observe "
                                     "its fsyncs or set its clock"};
      stop_node(node);
      return false;
    }
    std::this_thread::sleep_for(5ms);
  }
  stop_node(node);
  return false;
}

Result<bool, LiveError> RedisCluster::start_node(RedisNodeProcess& node, bool fresh_port) {
  for (int attempt = 0; attempt < (fresh_port ? kStartAttempts : 1); ++attempt) {
    if (fresh_port) node.port = free_loopback_port();
    if (node.port == 0) return failure(LiveError{kInternal, "cannot find a free loopback port"});
    if (fresh_port) {  // a new port: a new proxy in front of it, before the server announces it
      if (auto proxied = start_proxy(static_cast<std::size_t>(&node - nodes_.data())); !proxied) return proxied;
    }
    if (spawn_and_wait(node)) return true;
    if (preload_error_) return failure(*preload_error_);
    if (interrupted()) return false;
    // Only a server that exited (another process won the port) is worth a
    // fresh port; one that ran but never answered would not answer there
    // either, so the first deadline is the last (not 5 x 10 s).
    if (!node.exited_before_ready) break;
  }
  return failure(LiveError{kInternal, node.name + " (redis-server on 127.0.0.1:" + std::to_string(node.port) +
                                          ") did not become ready within " +
                                          std::to_string(spec_.start_deadline.count()) + " ms: " + log_tail(node.dir)});
}

void RedisCluster::stop_node(RedisNodeProcess& node) { stop_process_group(node.pid, 3s); }

void RedisCluster::kill9(std::size_t i) { kill_process_group(nodes_[i].pid); }

void RedisCluster::pause(std::size_t i) {
  pause_process_group(nodes_[i].pid);
}

void RedisCluster::resume(std::size_t i) {
  resume_process_group(nodes_[i].pid);
}

Result<bool, LiveError> RedisCluster::restart(std::size_t i) {
  RedisNodeProcess& node = nodes_[i];
  stop_node(node);
  auto started = start_node(node, false);
  if (!started) {
    return failure(LiveError{kInternal, node.name + " did not restart on port " + std::to_string(node.port) +
                                            " (taken by another process, or see " + (node.dir / "redis.log").string() +
                                            ")"});
  }
  return true;
}

void RedisCluster::redirect(int shard, std::size_t i) {
  std::lock_guard lock(mutex_);
  shard_master_[static_cast<std::size_t>(shard)] = i;
  ++generation_;
}

std::optional<std::size_t> RedisCluster::node_announcing(int port) const {
  for (std::size_t i = 0; i < proxies_.size(); ++i)
    if (proxies_[i] && proxies_[i]->shared_port() == port) return i;
  return std::nullopt;
}

std::vector<PowerCut> RedisCluster::power_loss(std::size_t i) {
  kill9(i);  // the kernel's page cache dies with the machine: keep only what was fsynced
  return cut_to_durable(nodes_[i].dir / "appendonlydir", read_fsync_log(nodes_[i].dir / "fsync.log"));
}

void RedisCluster::step_clock(std::size_t i, std::chrono::nanoseconds by) {
  if (i < clocks_.size()) clocks_[i]->step(by);
}

void RedisCluster::set_clock_drift(std::size_t i, std::int64_t ppm) {
  if (i < clocks_.size()) clocks_[i]->set_drift(ppm);
}

void RedisCluster::stall_fsync(std::size_t i, std::chrono::nanoseconds d) {
  if (i < clocks_.size()) clocks_[i]->stall_fsync(d);
}

void RedisCluster::end_fsync_stall(std::size_t i) {
  if (i < clocks_.size()) clocks_[i]->end_fsync_stall();
}

std::chrono::nanoseconds RedisCluster::wall_offset(std::size_t i) const {
  return i < clocks_.size() ? clocks_[i]->wall_offset() : std::chrono::nanoseconds{0};
}

void RedisCluster::start_background_load(std::chrono::nanoseconds gap) {
  load_ = std::thread([this, gap] {
    std::vector<std::unique_ptr<locks::HiredisConn>> conns;
    for (int m = 0; m < spec_.masters; ++m) conns.push_back(nullptr);
    std::uint64_t n = 0;
    for (auto next = std::chrono::steady_clock::now(); !load_stop_.load(); next += gap) {
      std::this_thread::sleep_until(next);
      for (int m = 0; m < spec_.masters; ++m) {
        const RedisNodeProcess& node = nodes_[master_of(m)];
        auto& conn = conns[static_cast<std::size_t>(m)];
        if (!conn || conn->options().port != node.port)  // a failover moved the shard
          conn = std::make_unique<locks::HiredisConn>(locks::HiredisOptions{node.host, node.port, 100ms, 100ms});
        (void)sync_wait(conn->command({"SET", "locksim:background-load", std::to_string(++n)}));
      }
    }
  });
}

std::optional<std::string> RedisCluster::died_unexpectedly() {
  for (auto& node : nodes_) {
    if (node.pid > 0 && reaped(node.pid)) {
      ::kill(-node.pid, SIGKILL);
      node.pid = -1;
      return node.name + " (redis-server pid on 127.0.0.1:" + std::to_string(node.port) +
             ") exited unexpectedly: " + log_tail(node.dir);
    }
  }
  return std::nullopt;
}

// Replicas first: a master given SIGTERM waits for its replicas to catch up
// (shutdown-timeout), which a paused or broken link turns into our grace.
void RedisCluster::stop_all() {
  load_stop_.store(true);
  if (load_.joinable()) load_.join();
  if (sentinel_) sentinel_->stop_all();  // first: no failover while the servers stop
  for (auto& proxy : proxies_)
    if (proxy) proxy->stop();  // first: a held replication link must not delay a shutdown
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) stop_node(*it);
}

std::vector<pid_t> RedisCluster::pids() const {
  std::vector<pid_t> out;
  for (const auto& node : nodes_)
    if (node.pid > 0) out.push_back(node.pid);
  if (sentinel_)
    for (pid_t p : sentinel_->pids()) out.push_back(p);
  return out;
}

}  // namespace locksim::live
