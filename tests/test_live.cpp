// `locksim live` against real redis-server processes (live/): the same
// verdicts as the simulation where live mode can reproduce a scenario, and
// robustness — every server it started is gone after a run, a failed one
// included, and bad input fails fast with exit 2. Needs a redis-server:
// without one the suite is SKIPPED (exit 77), never passed. The [cp-live]
// cases (ctest cp_live) run etcd / ZooKeeper stories on real clusters live
// mode starts itself, at time scale 0.1, and never skip.
//
// Live runs are real-time and not deterministic; a scenario's verdict is
// checked over up to three runs (the first that agrees wins) so a loaded CI
// machine's scheduling hiccup does not fail the suite. Runs use time scale
// 0.01: gc-pause's 120 s take 1.2 s.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <tuple>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "vocab/partition_mode.hpp"
#include "cli/live_result.hpp"
#include "locks/registry.hpp"
#include "live/live_leftovers.hpp"
#include "live/live_runner.hpp"
#include "live/redis_cluster.hpp"
#include "live/server_preload.hpp"
#include "live/tcp_proxy.hpp"
#include "locks/hiredis/hiredis_conn.hpp"
#include "locks/hiredis/real_runtime.hpp"
#include "reports/comparison.hpp"
#include "reports/report.hpp"
#include "reports/run_output.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/inventory_workload.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "sim/redis/node.hpp"
#include "scenarios/duration.hpp"
#include "sim/world.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/shell.hpp"

namespace {

using namespace locksim;
namespace fs = std::filesystem;

// Processes a live run started that are still alive: anything whose working
// directory or command line is in a live temporary directory
// ("/locksim-live-": redis-server chdirs to its --dir and rewrites its
// command line), or a redis-server — that descends from this process or was
// orphaned (reparented to pid 1). Other live runs on the same machine (other
// test binaries, a sweep) have their own parents and do not count.
int redis_children() {
  struct Proc {
    std::string ppid;
    bool suspect = false;
  };
  std::map<std::string, Proc> procs;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat"), cmdline(entry.path() / "cmdline");
    std::string line, args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (!stat || !std::getline(stat, line)) continue;
    const auto open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::string state, ppid;
    std::istringstream rest(line.substr(close + 2));
    rest >> state >> ppid;
    const bool redis = line.substr(open + 1, close - open - 1).find("redis") != std::string::npos;
    std::error_code ec;
    const std::string cwd = fs::read_symlink(entry.path() / "cwd", ec).string();
    const bool in_live_dir = args.find("/locksim-live-") != std::string::npos ||
                             cwd.find("/locksim-live-") != std::string::npos;
    procs[pid] = {ppid, state != "Z" && (redis || in_live_dir)};
  }
  const std::string me = std::to_string(::getpid());
  const auto ours = [&](std::string pid) {
    if (procs[pid].ppid == "1") return true;  // orphaned
    for (int depth = 0; depth < 64 && procs.count(pid); ++depth) {
      pid = procs[pid].ppid;
      if (pid == me) return true;
    }
    return false;
  };
  int n = 0;
  for (const auto& [pid, proc] : procs)
    if (pid != me && proc.suspect && ours(pid)) ++n;
  return n;
}

scenarios::Scenario catalog_scenario(const std::string& name) {
  auto s = scenarios::load_catalog_scenario(name);
  REQUIRE(s);
  return *s;
}

std::set<std::string> live_kinds(const scenarios::Scenario& s, const std::string& lock, std::int64_t ppm = 10'000) {
  live::LiveOptions options;
  options.lock_kind = lock;
  options.time_scale_ppm = ppm;
  auto run = live::run_live(s, options);
  if (!run) FAIL(run.error().message);
  return run->run.violation_kinds();
}

std::set<std::string> sim_kinds(const scenarios::Scenario& s, const std::string& lock) {
  scenarios::RunOptions options;
  options.lock_kind = lock;
  auto run = scenarios::run_scenario(s, options);
  REQUIRE(run);
  return run->violation_kinds();
}

// The live verdict of up to three runs that first equals `want`, else the last.
std::set<std::string> live_kinds_agreeing(const scenarios::Scenario& s, const std::string& lock,
                                          const std::set<std::string>& want, std::int64_t ppm = 10'000) {
  std::set<std::string> got;
  for (int attempt = 0; attempt < 3; ++attempt) {
    got = live_kinds(s, lock, ppm);
    if (got == want) break;
  }
  return got;
}

// A shell command's stdout and stderr, and its exit code.
std::pair<std::string, int> run_shell(const std::string& command) { return tests::run_shell(command + " 2>&1"); }

int open_fds() {
  return static_cast<int>(std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator{}));
}

std::unique_ptr<live::TcpProxy> proxy_to(const tests::RedisServerProcess& server) {
  auto proxy = live::TcpProxy::start("127.0.0.1", server.port(), {"A"});
  REQUIRE(proxy);
  return std::move(*proxy);
}

locks::HiredisConn conn_through(const live::TcpProxy& proxy, int timeout_ms) {
  locks::HiredisOptions o;
  o.port = proxy.port("A");
  o.connect_timeout = std::chrono::milliseconds(timeout_ms);
  o.command_timeout = std::chrono::milliseconds(timeout_ms);
  return locks::HiredisConn(o);
}

// A scenario file's head: a token lock (TTL 5 s) on one key, one master
// with `replicas`; more tables follow (or keys of [redis], last).
std::string token_lock_toml(const std::string& name, const std::string& duration, int replicas = 0) {
  return "name = \"" + name + "\"\nduration = \"" + duration + "\"\n" + R"(
[workload]
kind = "lock"
key = "lock:live-test"
[lock]
kind = "token"
ttl = "5s"
retry = "50ms"
acquire_timeout = "20s"
[redis]
masters = 1
)" + "replicas = " + std::to_string(replicas) + "\n";
}

std::optional<scenarios::Scenario> scenario_from(const std::string& toml) {
  auto s = scenarios::load_scenario_text(toml, "inline.toml");
  if (!s) FAIL(s.error().to_string());
  return *s;
}
std::pair<std::string, int> run_cli(const std::string& args) { return run_shell(std::string(LOCKSIM_BINARY) + " " + args); }

}  // namespace

TEST_CASE("the TCP proxy delays, holds and drops a link's bytes as the simulated network does", "[live]") {
  tests::skip_without_redis_server();
  tests::RedisServerProcess server;
  const int fds_before = open_fds();
  SECTION("delay_next, hold until heal, drop") {
    auto proxy = proxy_to(server);
    auto conn = conn_through(*proxy, 2000);
    CHECK(conn.execute({"SET", "k", "1"}).is_ok());

    // delay_next: the next request waits; the reply comes after it.
    proxy->delay_next("A", live::Flow::ToServer, std::chrono::milliseconds(300));
    auto start = std::chrono::steady_clock::now();
    CHECK(conn.execute({"INCR", "k"}).integer == 2);
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(300));

    // hold: the request times out, still arrives after the heal and runs.
    auto quick = conn_through(*proxy, 100);
    proxy->cut("A", locksim::PartitionMode::Hold);
    CHECK(quick.execute({"INCR", "k"}).is_error());
    locks::HiredisConn direct(locks::parse_endpoint(server.endpoint()));
    CHECK(direct.execute({"GET", "k"}).str == "2");
    proxy->cut("A", std::nullopt);
    bool arrived = false;
    for (int i = 0; i < 200 && !arrived; ++i) {
      arrived = direct.execute({"GET", "k"}).str == "3";
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(arrived);

    // drop: the request is lost for good.
    proxy->cut("A", locksim::PartitionMode::Drop);
    CHECK(quick.execute({"INCR", "k"}).is_error());
    proxy->cut("A", std::nullopt);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(direct.execute({"GET", "k"}).str == "3");
    CHECK(quick.execute({"GET", "k"}).str == "3");  // a new connection passes again

    // A pipeline that times out behind a delay keeps its replies owed, and
    // read_owed collects them once the delayed request has run.
    proxy->delay_next("A", live::Flow::ToServer, std::chrono::milliseconds(300));
    const locks::PipelineReplies sent = quick.execute_pipeline({{"INCR", "k"}, {"GET", "k"}}, std::chrono::milliseconds(50));
    CHECK(sent.owed == 2);
    std::vector<locksim::Reply> late;
    for (int i = 0; i < 100 && late.size() < 2; ++i)
      for (auto& r : quick.read_owed(std::chrono::milliseconds(20)).replies) late.push_back(r);
    REQUIRE(late.size() == 2);
    CHECK(late[0].integer == 4);
    CHECK(late[1].str == "4");
  }
  SECTION("a link held forever ends in a client timeout and the proxy still stops at once") {
    auto proxy = proxy_to(server);
    auto conn = conn_through(*proxy, 100);
    proxy->cut("A", locksim::PartitionMode::Hold);
    const auto start = std::chrono::steady_clock::now();
    const auto reply = conn.execute({"PING"});
    CHECK(reply.is_error());
    CHECK(reply.str.find("timed out") != std::string::npos);
    proxy->stop();
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  }
  CHECK(open_fds() == fds_before);  // the proxy closed every socket and joined its thread
}

TEST_CASE("network faults run live through the proxy and agree with the simulation", "[live]") {
  tests::skip_without_redis_server();
  // delayed-packet: a write held 90 s on A -> storage (the in-process storage
  // link; its [live] time_scale, 0.05: at 0.01 A's 10 s TTL is 100 ms of real
  // time, which a stalled thread outlasted); replica-failover: the
  // replication lag on the master -> replica proxy link loses A's SET with
  // the master, and the real Sentinel quorum fails over (its [live]
  // time_scale, 3: Sentinel's fixed 1 s failover INFO period is then a
  // third of a scenario second); redlock-power-loss-bare-majority:
  // a drop partition of A from two of five masters (time scale 0.3: restart
  // latency, see docs/live.md); thread-id-collision: A's release held 10 s on
  // A -> redis-1 runs late, and is still recorded (LateReplies).
  const std::vector<std::tuple<std::string, std::string, std::int64_t>> rows = {
      {"delayed-packet", "token", 0},          {"delayed-packet", "fenced", 0},  // 0: the scenario's
      {"replica-failover", "token", 0},        {"replica-failover", "naive-del", 0},
      {"flash-sale-gate", "token", 0},   {"redlock-power-loss-bare-majority", "redlock", 300'000},
      {"thread-id-collision", "thread-id", 10'000}};
  for (const auto& [name, lock, ppm] : rows) {
    INFO(name << " --lock " << lock);
    const auto s = catalog_scenario(name);
    const auto simulated = sim_kinds(s, lock);
    const std::int64_t scale = ppm != 0 ? ppm : cli::live_time_scale_ppm(s, std::nullopt);
    CHECK(live_kinds_agreeing(s, lock, simulated, scale) == simulated);
  }
  CHECK(redis_children() == 0);
}

namespace {

// INFO replication of a real node, straight to its port.
std::string replication_info(const live::RedisCluster& cluster, std::size_t node) {
  locks::HiredisConn conn(locks::HiredisOptions{"127.0.0.1", cluster.node(node).port, 1000ms, 1000ms});
  return conn.execute({"INFO", "replication"}).str;
}

// Whether a process is gone (or a zombie nobody has reaped yet: it runs nothing).
bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!stat || !std::getline(stat, line)) return true;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

}  // namespace

// A real Sentinel quorum fails over a master with two replicas: it promotes
// one, re-points the other to it through the promoted node's proxy (the
// address it announces, not its real port), and its processes go with the
// cluster.
TEST_CASE("a real Sentinel quorum promotes a replica and re-points the other through the proxies", "[live]") {
  tests::skip_without_redis_server();
  live::ClusterSpec spec;
  spec.binary = *tests::find_redis_server();
  spec.preload = LOCKSIM_PRELOAD_LIBRARY;
  spec.replicas = 2;
  spec.sentinel = live::SentinelSpec{};
  spec.sentinel->down_after = 300ms;
  spec.sentinel->failover_timeout = 5s;
  std::vector<pid_t> pids;
  {
    auto started = live::RedisCluster::start(spec);
    if (!started) FAIL(started.error().message);
    live::RedisCluster& cluster = **started;
    pids = cluster.pids();
    REQUIRE(pids.size() == 3 + live::SentinelQuorum::kSentinels);
    REQUIRE(cluster.sentinel());
    cluster.kill9(0);
    std::optional<std::size_t> promoted;
    for (int i = 0; i < 200 && (!promoted || *promoted == 0); ++i) {  // at most 20 s
      std::this_thread::sleep_for(100ms);
      if (const auto view = cluster.sentinel()->master(0)) promoted = cluster.node_announcing(view->port);
    }
    REQUIRE(promoted);
    REQUIRE(*promoted != 0);
    CHECK(replication_info(cluster, *promoted).find("role:master") != std::string::npos);
    const std::size_t other = *promoted == 1 ? 2 : 1;
    // Re-pointed to the announced address: the promoted node's shared proxy listener.
    const std::string want = "master_port:" + std::to_string(cluster.proxy(*promoted).shared_port()) + "\r";
    std::string info;
    for (int i = 0; i < 200; ++i) {  // sentinelFailoverReconfNextSlave, then the link comes up
      info = replication_info(cluster, other);
      if (info.find(want) != std::string::npos && info.find("master_link_status:up") != std::string::npos) break;
      std::this_thread::sleep_for(100ms);
    }
    INFO(info);
    CHECK(info.find(want) != std::string::npos);
    CHECK(info.find("master_link_status:up") != std::string::npos);
    // The bytes go through the proxy, on the other node's own link.
    cluster.proxy(*promoted).cut(cluster.node(other).name, locksim::PartitionMode::Drop);
    locks::HiredisConn writer(locks::HiredisOptions{"127.0.0.1", cluster.node(*promoted).port, 1000ms, 1000ms});
    REQUIRE(writer.execute({"SET", "through-the-proxy", "1"}).is_ok());
    std::this_thread::sleep_for(300ms);
    locks::HiredisConn reader(locks::HiredisOptions{"127.0.0.1", cluster.node(other).port, 1000ms, 1000ms});
    CHECK(reader.execute({"GET", "through-the-proxy"}).is_nil());
    cluster.proxy(*promoted).cut(cluster.node(other).name, std::nullopt);
  }
  for (pid_t pid : pids) CHECK(process_gone(pid));  // the sentinels too
  CHECK(redis_children() == 0);
}

// replica-failover with two replicas, live: the real quorum's failover
// gives the verdict the simulated Sentinel gives, the run's record names
// the replica it promoted, and no sentinel is left after the run.
TEST_CASE("replica-failover runs live through a real Sentinel quorum and agrees with the simulation", "[live]") {
  tests::skip_without_redis_server();
  auto s = catalog_scenario("replica-failover");
  s.redis.replicas = 2;
  const auto simulated = sim_kinds(s, "token");
  REQUIRE(simulated == std::set<std::string>{"mutual-exclusion", "stale-write"});
  const std::int64_t scale = cli::live_time_scale_ppm(s, std::nullopt);
  std::set<std::string> got;
  std::vector<std::string> failovers;
  for (int attempt = 0; attempt < 3 && got != simulated; ++attempt) {
    live::LiveOptions options;
    options.lock_kind = "token";
    options.time_scale_ppm = scale;
    auto run = live::run_live(s, options);
    if (!run) FAIL(run.error().message);
    got = run->run.violation_kinds();
    failovers.clear();
    for (const auto& f : run->run.history.faults)
      if (f.kind == scenarios::FaultKind::Failover) failovers.push_back(f.description);
  }
  CHECK(got == simulated);
  REQUIRE(failovers.size() == 1);
  CHECK(failovers[0].rfind("failover to redis-1-replica-", 0) == 0);
  CHECK(failovers[0].find("(Sentinel, epoch 1)") != std::string::npos);
  CHECK(redis_children() == 0);
}

TEST_CASE("live --redis runs against an existing server touching only its own prefixed keys", "[live]") {
  tests::skip_without_redis_server();
  tests::RedisServerProcess server;
  locks::HiredisConn admin(locks::parse_endpoint(server.endpoint()));
  REQUIRE(admin.execute({"SET", "unrelated:key", "keep"}).is_ok());
  live::LiveOptions options;
  options.redis_endpoints = {server.endpoint()};

  SECTION("a run finds the simulated violations and leaves only the unrelated key") {
    const auto s = catalog_scenario("gc-pause");
    const auto simulated = sim_kinds(s, "token");
    std::set<std::string> got;
    for (int attempt = 0; attempt < 3 && got != simulated; ++attempt) {
      options.lock_kind = "token";
      auto run = live::run_live(s, options);
      REQUIRE(run);
      CHECK(run->key_prefix.rfind("locksim:", 0) == 0);
      CHECK(run->run.history.entries.front().key == run->key_prefix + s.lock.key);
      got = run->run.violation_kinds();
    }
    CHECK(got == simulated);
    CHECK(admin.execute({"DBSIZE"}).integer == 1);
    CHECK(admin.execute({"GET", "unrelated:key"}).str == "keep");
  }
  SECTION("a key of the run that exists already is refused, and left alone") {
    options.key_prefix = "mine:";
    REQUIRE(admin.execute({"SET", "mine:lock:job:daily-report", "theirs"}).is_ok());
    auto run = live::run_live(catalog_scenario("gc-pause"), options);
    REQUIRE_FALSE(run);
    CHECK(run.error().exit_code == 2);
    CHECK(run.error().message.find("already exists") != std::string::npos);
    CHECK(admin.execute({"GET", "mine:lock:job:daily-report"}).str == "theirs");
  }
  SECTION("faults that need process control, and remote addresses, are refused with exit 2") {
    auto crash = live::run_live(catalog_scenario("aof-everysec-process-crash"), options);
    REQUIRE_FALSE(crash);
    CHECK(crash.error().exit_code == 2);
    CHECK(crash.error().message.find("crash redis-1") != std::string::npos);
    options.redis_endpoints = {"10.20.30.40:6379"};
    auto remote = live::run_live(catalog_scenario("gc-pause"), options);
    REQUIRE_FALSE(remote);
    CHECK(remote.error().exit_code == 2);
    CHECK(remote.error().message.find("--allow-remote") != std::string::npos);
  }
  CHECK(admin.execute({"GET", "unrelated:key"}).str == "keep");
}

TEST_CASE("min_replicas_to_write runs live: a master whose replica died refuses the lock, as simulated", "[live]") {
  tests::skip_without_redis_server();
  const std::string toml = token_lock_toml("min-replicas-live", "40s", 1) + R"(
min_replicas_to_write = 1
[[fault]]
kind = "crash"
target = "redis-1-replica-1"
at = "1s"
[[client]]
name = "A"
start = "15s"
work = "1s"
)";
  auto s = scenario_from(toml);
  scenarios::RunOptions sim_options;
  auto simulated = scenarios::run_scenario(*s, sim_options);
  REQUIRE(simulated);
  CHECK(simulated->summary.acquisitions == 0);
  auto run = live::run_live(*s, live::LiveOptions{});
  REQUIRE(run);
  CHECK(run->run.summary.acquisitions == 0);
  CHECK(run->run.summary.gave_up == 1);
  CHECK(redis_children() == 0);
}

TEST_CASE("a [nemesis] runs live as the very faults the simulator draws for the seed", "[live]") {
  tests::skip_without_redis_server();
  const std::string toml = token_lock_toml("nemesis-live", "60s") + R"(
[storage]
fencing = true
[[client]]
name = "A"
work = "2s"
writes = 2
iterations = 5
[[client]]
name = "B"
start = "1s"
work = "2s"
writes = 2
iterations = 5
[nemesis]
kinds = ["pause", "delay", "partition"]
mean_interval = "8s"
max_duration = "8s"
targets = ["A", "B", "redis-1"]
)";
  auto s = scenario_from(toml);
  const auto descriptions = [](const scenarios::History& h) {
    std::multiset<std::string> out;
    for (const auto& f : h.faults) out.insert(f.description);
    return out;
  };
  scenarios::RunOptions sim_options;
  sim_options.seed = 4;
  auto simulated = scenarios::run_scenario(*s, sim_options);
  REQUIRE(simulated);
  live::LiveOptions options;
  options.seed = 4;
  auto run = live::run_live(*s, options);
  REQUIRE(run);
  CHECK(descriptions(run->run.history) == descriptions(simulated->history));
  CHECK(descriptions(simulated->history).size() >= 6);
  CHECK(run->run.repro.find("--seed 4") != std::string::npos);
}

TEST_CASE("a client crash runs live: its frames unwind, it believes nothing more, and a restart runs the iterations left", "[live]") {
  tests::skip_without_redis_server();
  // A crashes 500 ms into its critical section. Without a TTL its lock stays
  // and B waits in vain (lock-unavailable); with one, B gets it later. With a
  // restart, A comes back as a new process and runs its second iteration.
  const std::string toml = token_lock_toml("client-crash-live", "40s") + R"(
[check]
liveness = "10s"
[[client]]
name = "A"
work = "2s"
iterations = 2
[[client]]
name = "B"
start = "1s"
work = "1s"
[[fault]]
kind = "crash"
target = "A"
after = "A:acquired"
at = "500ms"
)";
  auto s = scenario_from(toml);
  for (const char* lock : {"no-ttl", "token"}) {
    INFO(lock);
    const auto simulated = sim_kinds(*s, lock);
    CHECK(simulated == (std::string(lock) == "no-ttl" ? std::set<std::string>{"lock-unavailable"}
                                                      : std::set<std::string>{}));
    CHECK(live_kinds_agreeing(*s, lock, simulated) == simulated);
  }
  s->faults[0].restart_after = std::chrono::seconds(2);
  live::LiveOptions options;
  options.lock_kind = "token";
  auto run = live::run_live(*s, options);
  REQUIRE(run);
  const auto& a = run->run.history.clients[0];
  CHECK(a.crashes.size() == 1);
  CHECK(a.finished.has_value());  // the restarted A ran its iterations left
  const auto grants_of_a = [](const scenarios::History& h) {
    return std::count_if(h.beliefs.begin(), h.beliefs.end(), [](const auto& b) { return b.client == 0; });
  };
  scenarios::RunOptions sim_options;
  sim_options.lock_kind = "token";
  auto simulated = scenarios::run_scenario(*s, sim_options);
  REQUIRE(simulated);
  CHECK(grants_of_a(simulated->history) == 3);  // the crashed iteration, then both again
  CHECK(grants_of_a(run->run.history) == grants_of_a(simulated->history));
  CHECK(redis_children() == 0);
}

TEST_CASE("a partition that never heals ends the live run on time, with every thread, socket and server gone", "[live]") {
  tests::skip_without_redis_server();
  // A is cut from redis-1 (held, never healed) and the replica from its
  // master: A's commands time out until it gives up, the master's SIGTERM
  // does not wait for the stuck replica, nothing hangs.
  const std::string toml = token_lock_toml("hung-link-live", "30s", 1) + R"(
[[client]]
name = "A"
start = "1s"
work = "1s"
[[fault]]
kind = "partition"
groups = [["A", "redis-1-replica-1"], ["redis-1"]]
at = "500ms"
)";
  auto s = scenario_from(toml);
  const int fds_before = open_fds();
  const auto start = std::chrono::steady_clock::now();
  auto run = live::run_live(*s, live::LiveOptions{});
  REQUIRE(run);
  CHECK(run->run.summary.acquisitions == 0);
  CHECK(run->run.summary.gave_up == 1);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  CHECK(open_fds() == fds_before);
  CHECK(redis_children() == 0);
}

namespace {
using namespace std::chrono_literals;
// The scenario time of live mode's "the story was over at T" note, or -1 s
// when the run went on to the scenario's end.
Duration story_over_at(const live::LiveRun& run) {
  constexpr std::string_view prefix = "the story was over at ";
  for (const auto& note : run.notes)
    if (note.starts_with(prefix)) {
      const std::size_t at = prefix.size();
      auto d = scenarios::parse_duration(note.substr(at, note.find(' ', at) - at));
      REQUIRE(d);
      return *d;
    }
  return Duration{-1s};
}
}  // namespace

TEST_CASE("a live run stops once the story is over, and not before a fault still to come", "[live]") {
  tests::skip_without_redis_server();
  // A is done by ~400 ms of a 600 s story; at the default scale (0.01) the
  // rest would be 6 s of real sleep with nothing left to happen.
  const std::string client = R"(
[[client]]
name = "A"
start = "100ms"
work = "200ms"
)";
  auto quiet = scenario_from(token_lock_toml("story-over", "600s") + client);
  auto run = live::run_live(*quiet, live::LiveOptions{});
  REQUIRE(run);
  CHECK(run->run.summary.acquisitions == 1);
  CHECK(run->run.history.end == TrueInstant{600s});  // judged to the scenario's end, as simulated
  const Duration over = story_over_at(*run);
  CHECK(over > 300ms);
  CHECK(over < 300s);
  // A pause of redis-1 at 300 s is still to come when A finishes: the run
  // waits for it (and for its end) before it stops.
  auto pending = scenario_from(token_lock_toml("story-over-pending", "600s") + client + R"(
[[fault]]
kind = "pause"
target = "redis-1"
at = "300s"
duration = "1s"
)");
  run = live::run_live(*pending, live::LiveOptions{});
  REQUIRE(run);
  CHECK(story_over_at(*run) >= 301s);
  CHECK(redis_children() == 0);
}

TEST_CASE("gc-pause run live with naive-del finds the same violation kinds as the simulation", "[live]") {
  tests::skip_without_redis_server();
  const auto s = catalog_scenario("gc-pause");
  const auto simulated = sim_kinds(s, "naive-del");
  CHECK(simulated == std::set<std::string>{"mutual-exclusion", "stale-write", "wrong-owner-release"});
  CHECK(live_kinds_agreeing(s, "naive-del", simulated) == simulated);
  CHECK(redis_children() == 0);
}

TEST_CASE("gc-pause run live with a token unlock finds no wrong-owner release, as simulated", "[live]") {
  tests::skip_without_redis_server();
  const auto s = catalog_scenario("gc-pause");
  const auto simulated = sim_kinds(s, "token");
  CHECK(live_kinds_agreeing(s, "token", simulated) == simulated);
}

TEST_CASE("the baseline is safe when run live against real redis-servers", "[live]") {
  tests::skip_without_redis_server();
  const auto s = catalog_scenario("baseline");
  for (const char* lock : {"token", "naive-del", "redlock"}) {
    INFO(lock);
    CHECK(live_kinds_agreeing(s, lock, {}).empty());
  }
  CHECK(redis_children() == 0);
}

TEST_CASE("catalog scenarios with process faults and pauses agree live and simulated", "[live]") {
  tests::skip_without_redis_server();
  // The rows of docs/live.md's agreement table that exercise each live
  // mechanism: client pause + fencing, a pause inside get-then-del, kill -9
  // and restart from the same AOF, Redlock on five servers, a watchdog thread.
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"fencing-gc-pause", "fenced"},          {"get-then-del-pause", "get-then-del"},
      {"aof-everysec-process-crash", "token"}, {"redlock-pause-after-acquire", "redlock"},
      {"long-job-watchdog", "watchdog"}};
  for (const auto& [name, lock] : rows) {
    INFO(name << " --lock " << lock);
    const auto s = catalog_scenario(name);
    const auto simulated = sim_kinds(s, lock);
    CHECK(live_kinds_agreeing(s, lock, simulated) == simulated);
  }
  CHECK(redis_children() == 0);
}

TEST_CASE("a segmented sale runs live: each segment's lock key recorded on its own, the stock sold once", "[live]") {
  tests::skip_without_redis_server();
  const auto s = catalog_scenario("inventory-segmented");
  live::LiveOptions options;
  options.lock_kind = s.lock_kind;
  // Its [live] time_scale, 1: at 0.01 the whole 30 s story is 0.3 s of real
  // time, and on a loaded machine it ended before the sale did (60 orders).
  options.time_scale_ppm = cli::live_time_scale_ppm(s, std::nullopt);
  CHECK(options.time_scale_ppm == 1'000'000);
  auto run = live::run_live(s, options);
  if (!run) FAIL(run.error().message);
  CHECK(run->run.violation_kinds().empty());
  std::set<std::string> keys;
  for (const auto& e : run->run.history.entries) keys.insert(e.key.substr(run->key_prefix.size()));
  const auto expected = scenarios::lock_keys(s);
  CHECK(keys == std::set<std::string>(expected.begin(), expected.end()));
  REQUIRE(run->run.summary.sale);
  CHECK(run->run.summary.sale->orders == static_cast<std::uint64_t>(s.inventory.stock));
  CHECK(redis_children() == 0);
}

TEST_CASE("an observed power loss of a busy node loses the lock entry as the simulation does", "[live]") {
  tests::skip_without_redis_server();
  // At the scenario's [live] time_scale, 0.3 (`live` without --time-scale):
  // a redis-server restart takes tens of real milliseconds, seconds of
  // scenario time at 0.01 (docs/live.md, "Why rows differ").
  const auto s = catalog_scenario("aof-everysec-power-loss");
  const auto simulated = sim_kinds(s, "token");
  CHECK(simulated == std::set<std::string>{"mutual-exclusion", "stale-write"});
  std::set<std::string> live;
  bool entry_lost = false;  // in some attempt
  nlohmann::json notes, mechanisms;
  for (int attempt = 0; attempt < 3 && live != simulated; ++attempt) {
    const auto [out, code] = run_cli("live aof-everysec-power-loss --lock token --format json");
    const auto j = nlohmann::json::parse(out, nullptr, false);
    REQUIRE(j.is_object());
    CHECK(j["live"]["time_scale"] == 0.3);
    notes = j["live"]["notes"];
    mechanisms = j["live"]["fault_mechanisms"];
    live.clear();
    for (const auto& v : j["violations"]) live.insert(v["kind"].get<std::string>());
    for (const auto& kind : live) CHECK(simulated.count(kind) == 1);
    entry_lost = entry_lost || live.count("mutual-exclusion") == 1;
  }
  // The lost entry (B granted while A holds) must show. The stale-write
  // also needs B's first write before A's second, which a slow restart on a
  // loaded machine moves past it, and a SET near a wall-second boundary is
  // fsynced anyway (kKnownDifferences' aof-everysec-power-loss): three
  // attempts missed the pair in 2 ctest runs of 3 at a load of ~25 on 2
  // cores. Reported, not failed.
  CHECK(entry_lost);
  if (live != simulated) WARN("aof-everysec-power-loss --lock token: live found " << live.size() << " of the 2 simulated violations in 3 runs");
  // The output says the loss was observed, and what the cut took.
  const std::string text = notes.dump();
  CHECK(text.find("power-loss redis-1: observed (SIGKILL, every AOF file cut back") != std::string::npos);
  // The run record carries it typed: the power loss observed, the busy node's load real.
  REQUIRE(mechanisms.is_array());
  REQUIRE(mechanisms.size() == 2);
  CHECK(mechanisms[0]["fault"] == "power-loss");
  CHECK(mechanisms[0]["targets"] == nlohmann::json::array({"redis-1"}));
  CHECK(mechanisms[0]["produced"] == "observed");
  CHECK(mechanisms[1]["fault"] == "background_writes_per_second");
  CHECK(mechanisms[1]["produced"] == "real");
  CHECK(text.find("power-loss redis-1 observed:") != std::string::npos);
  CHECK(text.find("emulated: SIGKILL") == std::string::npos);
  CHECK(redis_children() == 0);
}

TEST_CASE("the idle node keeps the lock entry through an observed power loss, as simulated", "[live]") {
  tests::skip_without_redis_server();
  const auto s = catalog_scenario("aof-everysec-idle-power-loss");
  CHECK(sim_kinds(s, "token").empty());
  CHECK(live_kinds_agreeing(s, "token", {}, 500'000).empty());  // its [live] time_scale
  CHECK(redis_children() == 0);
}

// When the run's first grant came, in scenario time since the start.
Duration first_grant(const scenarios::RunResult& run) {
  for (const auto& p : run.history.points)
    if (p.event == locksim::scenarios::TriggerEvent::Acquired) return p.at - true_epoch;
  return Duration::max();
}

// appendfsync always fsyncs in redis-server's main thread: with the disk
// held (the preload holds the real fdatasync), A's SET at 2.3 s freezes the
// node until 5 s, A's call times out, and the key it set anyway keeps
// everyone out until it expires at 12.3 s. A model that fsynced at once
// would grant A the lock at 2.3 s.
TEST_CASE("appendfsync always: a held fsync freezes the real server, and the unanswered SET blocks the lock, as simulated",
          "[live]") {
  tests::skip_without_redis_server();
  const auto s = catalog_scenario("aof-always-fsync-stall");
  scenarios::RunOptions sim_options;
  sim_options.lock_kind = "token";
  const auto simulated = scenarios::run_scenario(s, sim_options);
  REQUIRE(simulated);
  CHECK(simulated->violation_kinds().empty());
  CHECK(first_grant(*simulated) >= 12300ms);
  CHECK(first_grant(*simulated) < 12400ms);

  live::LiveOptions options;
  options.lock_kind = "token";
  options.time_scale_ppm = 500'000;  // its [live] time_scale
  const auto live = live::run_live(s, options);
  REQUIRE(live);
  CHECK(live->run.violation_kinds().empty());
  // Real time is coarser than simulated (0.5 s of scenario a real 250 ms):
  // the grant comes with the key's expiry, seconds after the stall's end.
  CHECK(first_grant(live->run) >= 11s);
  CHECK(first_grant(live->run) < 14s);
  CHECK(redis_children() == 0);
}

TEST_CASE("a server that dies mid-run fails the live run with exit 3 and leaves no process behind", "[live]") {
  tests::skip_without_redis_server();
  // A "redis-server" that serves for 0.1 s, then exits: an unexpected death.
  // (baseline at 0.01 is over at ~22 s of story, 0.22 s real: a server that
  // lived 0.3 s outlived a quick run, which then rightly exited 0.)
  const fs::path dir = fs::temp_directory_path() / ("locksim-test-dying-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path wrapper = dir / "dying-redis-server";
  std::ofstream(wrapper) << "#!/bin/sh\n" << tests::find_redis_server()->string()
                         << " \"$@\" &\npid=$!\nsleep 0.1\nkill -9 $pid\nwait $pid\nexit 1\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  const auto start = std::chrono::steady_clock::now();
  const auto [out, code] = run_cli("live baseline --lock token --redis-server " + wrapper.string());
  CHECK(code == 3);
  CHECK((out.find("exited unexpectedly") != std::string::npos || out.find("did not become ready") != std::string::npos));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  fs::remove_all(dir);

  live::LiveOptions options;
  options.redis_server = wrapper;  // gone now: refused before anything starts
  auto run = live::run_live(catalog_scenario("baseline"), options);
  REQUIRE_FALSE(run);
  CHECK(run.error().exit_code == 2);
  CHECK(redis_children() == 0);
}

TEST_CASE("Ctrl-C in the middle of a live run stops it with exit 3, its proxies and servers gone", "[live]") {
  tests::skip_without_redis_server();
  // Real time (scale 1): gc-pause would take 120 s; SIGINT after 1.5 s.
  const std::string binary = LOCKSIM_BINARY;
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1), ::dup2(null, 2);
    ::execl(binary.c_str(), binary.c_str(), "live", "gc-pause", "--lock", "token", "--time-scale", "1",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(pid, SIGINT);
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (::waitpid(pid, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (::waitpid(pid, &status, WNOHANG) == 0) {  // hung: fail, and leave nothing behind
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    FAIL("locksim live did not stop within 20 s of SIGINT");
  }
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(redis_children() == 0);
}

TEST_CASE("a killed run's temporary directory is removed by the next live run, a live owner's is kept (issue 15)",
          "[live]") {
  const fs::path base = fs::temp_directory_path() / ("locksim-test-leftovers-" + std::to_string(::getpid()));
  fs::create_directories(base);
  const pid_t gone = ::fork();  // a pid that existed and is now reaped: a killed run's owner
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  auto make = [&](const std::string& name, std::optional<pid_t> owner) {
    fs::create_directories(base / name / "redis-1");
    if (owner) std::ofstream(base / name / "owner.pid") << *owner << "\n";
  };
  make("locksim-live-dead01", gone);
  make("locksim-live-alive1", ::getpid());
  make("locksim-live-nopid1", std::nullopt);  // not provably ours: kept
  make("other-dead01", gone);                  // not a live run's directory: kept
  CHECK(live::remove_stale_live_dirs(base) == 1);
  CHECK_FALSE(fs::exists(base / "locksim-live-dead01"));
  CHECK(fs::exists(base / "locksim-live-alive1"));
  CHECK(fs::exists(base / "locksim-live-nopid1"));
  CHECK(fs::exists(base / "other-dead01"));
  fs::remove_all(base);
}

TEST_CASE("a redis-server that runs but never answers fails after one start, not five (issue 15)", "[live]") {
  tests::skip_without_redis_server();
  const fs::path dir = fs::temp_directory_path() / ("locksim-test-silent-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path wrapper = dir / "silent-redis-server";
  std::ofstream(wrapper) << "#!/bin/sh\necho started >> " << (dir / "starts").string() << "\nexec sleep 60\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  const auto [out, code] = run_cli("live baseline --lock token --redis-server " + wrapper.string() + " 2>&1");
  CHECK(code == 3);
  CHECK(out.find("did not become ready") != std::string::npos);
  std::ifstream starts(dir / "starts");
  CHECK(std::count(std::istreambuf_iterator<char>(starts), std::istreambuf_iterator<char>(), '\n') == 1);
  fs::remove_all(dir);
  CHECK(redis_children() == 0);
}

TEST_CASE("live --redis: a killed run's order key is dropped, and Ctrl-C names no server it did not start (issue 15)",
          "[live]") {
  tests::skip_without_redis_server();
  tests::RedisServerProcess server;
  locks::HiredisConn admin(locks::parse_endpoint(server.endpoint()));
  // What a run killed with SIGKILL leaves: its INCR counter, with no TTL.
  REQUIRE(admin.execute({"SET", "mine:locksim:live:order", "41"}).is_ok());
  live::LiveOptions options;
  options.redis_endpoints = {server.endpoint()};
  options.key_prefix = "mine:";
  options.lock_kind = "token";
  auto run = live::run_live(catalog_scenario("gc-pause"), options);
  INFO((run ? std::string() : run.error().message));
  REQUIRE(run);  // it used to refuse: "key mine:locksim:live:order already exists"
  CHECK(admin.execute({"EXISTS", "mine:locksim:live:order"}).integer == 0);

  const auto [out, code] = run_shell("{ " + std::string(LOCKSIM_BINARY) + " live gc-pause --lock token --time-scale 1 "
                                     "--redis " + server.endpoint() + " & pid=$!; sleep 1.5; kill -INT $pid; "
                                     "wait $pid; } 2>&1");
  CHECK(code == 3);
  CHECK(out.find("interrupted by SIGINT; this run's keys were deleted") != std::string::npos);
  CHECK(out.find("every redis-server was stopped") == std::string::npos);
}

TEST_CASE("a server clock jump runs live for real and says so", "[live]") {
  tests::skip_without_redis_server();
  const auto [out, code] = run_cli("live redlock-clock-jump-four-held --lock redlock --format json");
  CHECK(code == 0);  // as simulated: four held, one jump leaves three
  const auto j = nlohmann::json::parse(out, nullptr, false);
  REQUIRE(j.is_object());
  const auto& mechanisms = j["live"]["fault_mechanisms"];
  REQUIRE(mechanisms.size() == 2);  // the partition that leaves A four nodes, then the jump
  CHECK(mechanisms[0]["fault"] == "partition");
  CHECK(mechanisms[1]["fault"] == "clock-jump");
  CHECK(mechanisms[1]["targets"] == nlohmann::json::array({"redis-3"}));
  CHECK(mechanisms[1]["produced"] == "real");
  CHECK(mechanisms[1]["means"].get<std::string>().find("the preload steps the server's wall clock") == 0);
  CHECK(j["live"]["notes"].dump().find("clock-jump redis-") != std::string::npos);
  CHECK(redis_children() == 0);
}

TEST_CASE("a missing --redis-server path gives exit 2 at once", "[live]") {
  tests::skip_without_redis_server();
  const auto start = std::chrono::steady_clock::now();
  const auto [out, code] = run_cli("live gc-pause --lock naive-del --redis-server /nonexistent/redis-server");
  CHECK(code == 2);
  CHECK(out.find("/nonexistent/redis-server") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("sweep --live over etcd / ZooKeeper scenarios only does not ask for redis-server (issue 16)", "[live]") {
  const auto [out, code] =
      run_cli("sweep --live --scenario etcd-member-clock-jump --redis-server /nonexistent/redis-server --out " +
              std::string("/tmp/locksim-test-cp-only.jsonl"));
  INFO(out);
  CHECK(code == 0);
  CHECK(out.find("/nonexistent/redis-server") == std::string::npos);
  CHECK(out.find("2 runs written") != std::string::npos);  // the two locks' skip lines (member clocks)
}

TEST_CASE("sweep --live writes live's JSON lines, a skip line with the reason, and resumes", "[live]") {
  tests::skip_without_redis_server();
  const fs::path dir = fs::temp_directory_path() / ("locksim-test-sweep-live-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string live = (dir / "live.jsonl").string(), sim = (dir / "sim.jsonl").string();
  const std::string cells = " --scenario baseline --lock delex,token";
  auto [out, code] = run_cli("sweep --live" + cells + " --quiet --out " + live);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("not run live: baseline × delex: lock delex needs Redis 8.4"));
  std::ifstream in(live);
  std::map<std::string, nlohmann::json> lines;  // by lock
  for (std::string l; std::getline(in, l);) {
    auto j = nlohmann::json::parse(l);
    lines[j["lock"].get<std::string>()] = j;
  }
  REQUIRE(lines.size() == 2);
  CHECK(lines["token"]["scenario"] == "baseline");
  CHECK(lines["token"]["live"]["time_scale"] == 0.01);
  CHECK(lines["token"]["violations"].is_array());
  CHECK_THAT(lines["delex"]["live"]["skipped"].get<std::string>(), Catch::Contains("Redis 8.4"));
  CHECK_FALSE(lines["delex"].contains("violations"));
  std::tie(out, code) = run_cli("sweep --live" + cells + " --quiet --resume --out " + live);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("0 runs written") && Catch::Contains("2 resumed"));
  std::tie(out, code) = run_cli("replay " + live + " --line 1");  // two lines: replay asks which
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("not deterministic and cannot be replayed") &&
                      Catch::Contains("locksim live baseline --lock delex --time-scale 0.01"));  // the first line
  std::tie(out, code) = run_cli("sweep --seeds 1" + cells + " --quiet --out " + sim);
  std::tie(out, code) = run_cli("report " + sim + " " + live + " --format md");
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("| baseline | token | none | none | 0.01 | no faults | yes |") &&
                      Catch::Contains("| baseline | delex | none | — | — | — | not run live: lock delex needs Redis 8.4"));
  fs::remove_all(dir);
  CHECK(redis_children() == 0);
}

TEST_CASE("an interrupted sweep --live keeps its finished lines, stops every server and resumes", "[live]") {
  tests::skip_without_redis_server();
  const fs::path dir = fs::temp_directory_path() / ("locksim-test-sweep-live-int-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string live = (dir / "live.jsonl").string();
  // At 0.04 each gc-pause run takes ~2 s: its story is over at ~50 s.
  const std::string args =
      "sweep --live --scenario gc-pause --lock naive-del,token,fenced --time-scale 0.04 --quiet --out " + live;
  // One SIGINT after 2.5 s (during the second run). Wherever it lands — mid-run or while run_live stops its servers —
  // the sweep must end with 130; a watchdog kills it after 30 s so a lost
  // signal fails the test instead of hanging it.
  auto [out, code] = run_shell("{ " + std::string(LOCKSIM_BINARY) + " " + args + " & pid=$!; sleep 2.5; " +
                               "kill -INT $pid; ( sleep 30; kill -KILL $pid ) 2>/dev/null & w=$!; " +
                               "wait $pid; rc=$?; kill $w 2>/dev/null; exit $rc; }");
  CHECK(code == 130);
  CHECK_THAT(out, Catch::Contains("--resume"));
  CHECK(redis_children() == 0);
  std::ifstream in(live);
  std::size_t finished = 0;
  for (std::string l; std::getline(in, l); ++finished) CHECK(nlohmann::json::parse(l).contains("live"));
  CHECK(finished < 3);
  std::tie(out, code) = run_cli(args + " --resume");
  CHECK(code <= 1);  // 1: a live run did not match its expectation (not deterministic)
  CHECK_THAT(out, Catch::Contains(std::to_string(finished) + " resumed"));
  std::ifstream again(live);
  std::size_t total = 0;
  for (std::string l; std::getline(again, l);) ++total;
  CHECK(total == 3);
  fs::remove_all(dir);
}

// What a live sweep's file says per line, in file order, without what
// real time changes (digests, latencies, timings): scenario, lock, the
// violations or the reason it was not run live.
std::vector<std::string> live_verdicts(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) {
    const auto j = nlohmann::json::parse(l);
    std::string verdict = j["scenario"].get<std::string>() + " × " + j["lock"].get<std::string>() + ": ";
    std::set<std::string> kinds;  // the violation kinds: their times and evidence are real time's
    if (j.contains("violations"))
      for (const auto& v : j["violations"]) kinds.insert(v["kind"].get<std::string>());
    for (const auto& k : kinds) verdict += k + " ";
    if (j["live"].contains("skipped")) verdict += "skipped: " + j["live"]["skipped"].get<std::string>();
    out.push_back(verdict);
  }
  return out;
}

TEST_CASE("sweep --live --jobs 2 writes --jobs 1's lines in the same order, same verdicts (issue 40)", "[live]") {
  tests::skip_without_redis_server();
  const fs::path dir = fs::temp_directory_path() / ("locksim-test-sweep-live-jobs-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Cells whose live verdict does not depend on timing: no fault, and a
  // pause far past the TTL; delex is a skip line (Redis 8.4).
  const std::string cells = " --scenario baseline,gc-pause --lock naive-del,token,fenced,delex --quiet";
  const std::string one = (dir / "one.jsonl").string(), two = (dir / "two.jsonl").string();
  auto [out, code] = run_cli("sweep --live" + cells + " --jobs 1 --out " + one + " 2>&1");
  INFO(out);
  CHECK(code <= 1);
  std::tie(out, code) = run_cli("sweep --live" + cells + " --jobs 2 --out " + two + " 2>&1");
  INFO(out);
  CHECK(code <= 1);
  const auto serial = live_verdicts(one);
  CHECK(serial.size() == 8);
  CHECK(live_verdicts(two) == serial);
  CHECK(redis_children() == 0);
  fs::remove_all(dir);
}

TEST_CASE("free loopback ports picked by concurrent live runs are never the same (issue 40)", "[live]") {
  // sweep --live --jobs N: each run's servers pick their ports on their own
  // worker thread at the same time.
  std::vector<std::vector<int>> picked(4);
  std::vector<std::thread> threads;
  for (auto& ports : picked)
    threads.emplace_back([&ports] {
      for (int i = 0; i < 200; ++i) ports.push_back(live::free_loopback_port());
    });
  for (auto& t : threads) t.join();
  std::set<int> distinct;
  for (const auto& ports : picked)
    for (int port : ports) {
      CHECK(port > 0);
      distinct.insert(port);
    }
  CHECK(distinct.size() == 800);
}

// ---- CP scenarios run live (ctest cp_live) -----------------------------------
//
// [etcd] / [zookeeper] catalog stories against real etcd clusters and
// ZooKeeper ensembles that `locksim live` starts itself (no skip: a missing
// etcd or JRE fails), at the CP default time scale 0.1: the same verdict as
// the simulation, the faults really applied, every member process gone.

namespace {

// A CP catalog story run live at its default time scale: up to three runs,
// the first whose violations equal the simulated ones (seed 1) is returned.
live::LiveRun cp_live_agreeing(const std::string& name, const std::string& lock) {
  const auto s = catalog_scenario(name);
  const auto want = sim_kinds(s, lock);
  live::LiveOptions options;
  options.lock_kind = lock;
  options.time_scale_ppm = cli::live_time_scale_ppm(s, std::nullopt);
  options.scenario_ref = name;
  std::optional<live::LiveRun> last;
  for (int attempt = 0; attempt < 3 && (!last || last->run.violation_kinds() != want); ++attempt) {
    auto run = live::run_live(s, options);
    if (!run) FAIL(name << " --lock " << lock << ": " << run.error().message);
    last = std::move(*run);
  }
  INFO(name << " --lock " << lock);
  CHECK(last->run.violation_kinds() == want);
  CHECK(last->run.matched);
  return std::move(*last);
}

std::size_t faults_of(const scenarios::History& h, scenarios::FaultKind kind) {
  return static_cast<std::size_t>(
      std::count_if(h.faults.begin(), h.faults.end(), [&](const auto& f) { return f.kind == kind; }));
}

bool has_note(const live::LiveRun& run, const std::string& text) {
  return std::any_of(run.notes.begin(), run.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

// etcd-mutex's stale write needs B's grant within ~1.7 s (scenario) of the
// lease's expiry; etcd's lessor looks for expired leases every 500 ms of
// real time (lessor.go runLoop), unscaled: 5 s of scenario time at the CP
// default 0.1, where B's grant came too late in 3 runs of 4 on a loaded
// machine. The scenario says `[live] time_scale = 0.5` (at most 1 s late).
TEST_CASE("etcd-gc-pause runs live on a real etcd cluster: both locks lose mutual exclusion, the fenced one's late writes are rejected",
          "[cp-live]") {
  CHECK(sim_kinds(catalog_scenario("etcd-gc-pause"), "etcd-mutex") ==
        std::set<std::string>{"mutual-exclusion", "stale-write"});
  CHECK(cli::live_time_scale_ppm(catalog_scenario("etcd-gc-pause"), std::nullopt) == 500'000);
  for (const char* lock : {"etcd-mutex", "etcd-fenced"}) {
    const live::LiveRun run = cp_live_agreeing("etcd-gc-pause", lock);
    CHECK(run.run.history.nodes == std::vector<std::string>{"etcd-1", "etcd-2", "etcd-3"});
    CHECK(faults_of(run.run.history, scenarios::FaultKind::Pause) == 1);
    CHECK(has_note(run, "a real etcd cluster (3 etcd processes"));
    CHECK(has_note(run, "the TCP proxies hold its links"));
    CHECK(run.run.history.entries.empty());  // no Redis key events on a CP topology, as simulated
  }
  CHECK(redis_children() == 0);  // every etcd member (and proxy thread's process) gone
}

TEST_CASE("zk-gc-pause runs live on a real ZooKeeper ensemble: the paused holder's session expires and B takes the lock",
          "[cp-live]") {
  CHECK(sim_kinds(catalog_scenario("zk-gc-pause"), "zk-lock").count("mutual-exclusion") == 1);
  for (const char* lock : {"zk-lock", "zk-fenced"}) {
    const live::LiveRun run = cp_live_agreeing("zk-gc-pause", lock);
    CHECK(run.run.history.nodes == std::vector<std::string>{"zk-1", "zk-2", "zk-3"});
    CHECK(has_note(run, "a real ZooKeeper ensemble (3 JVMs"));
  }
  CHECK(redis_children() == 0);
}

TEST_CASE("etcd-leader-crash runs live: every member SIGKILLed and restarted in turn while A holds the lock, no violation",
          "[cp-live]") {
  const live::LiveRun run = cp_live_agreeing("etcd-leader-crash", "etcd-mutex");
  CHECK(run.run.violations.empty());
  CHECK(faults_of(run.run.history, scenarios::FaultKind::Crash) == 3);
  CHECK(faults_of(run.run.history, scenarios::FaultKind::Restart) == 3);
  CHECK(has_note(run, "crash etcd-1, etcd-2, etcd-3: real (SIGKILL, restarted on its ports and data directory)"));
  CHECK(redis_children() == 0);
}

TEST_CASE("zk-holder-partitioned runs live: the proxies cut A off every member, its session expires, its writes go stale",
          "[cp-live]") {
  const live::LiveRun run = cp_live_agreeing("zk-holder-partitioned", "zk-lock");
  CHECK(faults_of(run.run.history, scenarios::FaultKind::Partition) == 1);
  CHECK(run.run.violation_kinds().count("stale-write") == 1);
  // The C client's connection errors under the cut are counted in a note,
  // not printed line by line.
  CHECK(std::any_of(run.notes.begin(), run.notes.end(),
                    [](const std::string& n) { return n.rfind("ZooKeeper C client: ", 0) == 0; }));
  CHECK(redis_children() == 0);
}

// A crashed client is a dead process: its session or lease is neither
// closed nor revoked and expires on the servers after its timeout (10 s);
// only then does B get the lock. Were the ZooKeeper C client's closeSession
// (zookeeper_close, on the crashed thread's way out) or an etcd revoke let
// through, B would get it at once. B starts 2 s after A (the catalog
// story's 100 ms is 10 ms real at 0.1, and B's session is sometimes up
// first), so A holds the lock when it crashes (at A:acquired + 1 s).
TEST_CASE("a client crash on etcd / ZooKeeper runs live: the holder's session expires after its timeout, then B locks",
          "[cp-live]") {
  for (const auto& [story, lock] : {std::pair{"zk-holder-crash", "zk-lock"}, {"etcd-holder-crash", "etcd-mutex"}}) {
    INFO(story);
    scenarios::Scenario s = catalog_scenario(story);
    s.clients.at(1).start = s.clients.at(0).start + 2s;
    live::LiveOptions options;
    options.lock_kind = lock;
    options.time_scale_ppm = cli::live_time_scale_ppm(s, std::nullopt);
    auto run = live::run_live(s, options);
    REQUIRE(run);
    CHECK(run->run.violation_kinds() == sim_kinds(s, lock));  // none
    CHECK(has_note(*run, "crash A: real"));
    const scenarios::History& h = run->run.history;
    REQUIRE(faults_of(h, scenarios::FaultKind::Crash) == 1);
    const TrueInstant crashed = h.faults.front().at;
    std::optional<TrueInstant> b_granted;
    for (const auto& b : h.beliefs)
      if (h.clients[b.client].name == "B") b_granted = b.start;
    REQUIRE(b_granted.has_value());
    // A's last keep-alive or ping came at most a third of the TTL before its
    // crash: B's grant is at least two thirds of a TTL after it.
    CHECK(*b_granted - crashed >= s.lock.ttl * 2 / 3);
  }
  CHECK(redis_children() == 0);
}

// The refusals before a live run are properties of the lock
// (locks::LockInfo), asked in one place (live/live_refusals.cpp), with the
// messages they always had. Nothing is started: no server is needed.
TEST_CASE("live refuses by the lock's properties, before starting anything", "[live]") {
  const auto refusal = [](const scenarios::Scenario& s, const std::string& lock, std::int64_t ppm) {
    live::LiveOptions options;
    options.lock_kind = lock;
    options.time_scale_ppm = ppm;
    auto run = live::run_live(s, options);
    REQUIRE_FALSE(run);
    CHECK(run.error().exit_code == kBadInput);
    return run.error().message;
  };
  CHECK(locks::find_lock("setnx-expire")->whole_second_ttl == "EXPIRE");
  CHECK(locks::find_lock("token")->whole_second_ttl.empty());
  const scenarios::Scenario s = catalog_scenario("gc-pause");
  CHECK_THAT(refusal(s, "setnx-expire", 10'000),
             Catch::StartsWith("setnx-expire sets its TTL with EXPIRE in whole seconds: ttl x time-scale ("));
  CHECK(refusal(s, "external", 10'000) ==
        "lock external needs its adapter's command: --client \"CMD ARGS\" or [lock] command = [...]");
  CHECK(refusal(s, "token", 20'000'000) == "--time-scale must be between 0.001 and 10");
}

TEST_CASE("live refuses on a CP topology what it cannot produce, with the reason, before starting a member", "[cp-live]") {
  const auto refusal = [](const scenarios::Scenario& s, std::int64_t ppm = 100'000) {
    live::LiveOptions options;
    options.time_scale_ppm = ppm;
    auto run = live::run_live(s, options);
    REQUIRE_FALSE(run);
    CHECK(run.error().exit_code == 2);
    return run.error().message;
  };
  CHECK_THAT(refusal(catalog_scenario("etcd-member-clock-jump")),
             Catch::Contains("etcd-1: unsupported in live mode (member clocks cannot be stepped"));
  CHECK_THAT(refusal(catalog_scenario("etcd-baseline"), 50'000),
             Catch::Contains("etcd grants leases in whole seconds: ttl x time-scale (500ms)"));
  scenarios::Scenario split = catalog_scenario("zk-holder-partitioned");
  split.faults.front().groups = {{"zk-1"}, {"zk-2", "zk-3"}};
  CHECK_THAT(refusal(split), Catch::Contains("it separates etcd / ZooKeeper members"));
  live::LiveOptions existing;
  existing.redis_endpoints = {"127.0.0.1:6379"};
  existing.time_scale_ppm = 100'000;
  auto run = live::run_live(catalog_scenario("etcd-baseline"), existing);
  REQUIRE_FALSE(run);
  CHECK_THAT(run.error().message, Catch::Contains("--redis names Redis servers"));
  CHECK(redis_children() == 0);
}

TEST_CASE("Ctrl-C in the middle of a live ZooKeeper run stops it with exit 3 and every member with it", "[cp-live]") {
  const std::string binary = LOCKSIM_BINARY;
  // zk-baseline with 60 s critical sections: its story lasts long after 9 s
  // of real time (live runs stop once the story is over).
  std::ostringstream catalog_file;
  catalog_file << std::ifstream(fs::path(LOCKSIM_SOURCE_DIR) / "scenarios/catalog/zk-baseline.toml").rdbuf();
  std::string toml = catalog_file.str();
  REQUIRE(toml.find("work = \"2s\"") != std::string::npos);
  for (auto [from, to] : {std::pair{"work = \"2s\"", "work = \"60s\""}, {"duration = \"145s\"", "duration = \"400s\""}})
    for (auto at = toml.find(from); at != std::string::npos; at = toml.find(from))
      toml.replace(at, std::string(from).size(), to);
  const fs::path file = fs::temp_directory_path() / ("locksim-zk-ctrl-c-" + std::to_string(::getpid()) + ".toml");
  std::ofstream(file) << toml;
  for (int after_ms : {1500, 9000}) {  // while the JVMs start, then while the clients run
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1), ::dup2(null, 2);
      ::execl(binary.c_str(), binary.c_str(), "live", file.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
    ::kill(pid, SIGINT);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (::waitpid(pid, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (::waitpid(pid, &status, WNOHANG) == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL("locksim live zk-baseline did not stop within 30 s of SIGINT");
    }
    INFO("SIGINT after " << after_ms << " ms");
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 3);
    CHECK(redis_children() == 0);
  }
  fs::remove(file);
}

// ---- The agreement test (ctest live_agreement) ------------------------------
//
// For every catalog scenario and every lock its [expect.by_lock] lists (and
// its [lock] kind when it has an [expect] violations for every lock), the
// violation set of a live run (at the scenario's [live] time_scale, else
// 0.01) must equal the simulated one (seed 1). Live mode decides what it can
// run (live_unsupported / run_live's exit 2), so scenarios join the test by
// themselves when live mode learns their faults. Live runs are not
// deterministic: a row gets up to three live runs, the first that agrees
// wins. The table of the rows run is printed, in the report's format, with
// each row's wall time.
//
// By default (ctest, CI) it runs a subset of the rows, chosen by rule from
// the catalog: per scenario, one row per distinct simulated violation set
// (outcome_groups: the scenario's own [lock] kind if it is in that set, else
// the set's locks by name; a lock live mode refuses, e.g. delex, hands over
// to the next), one row for each listed difference (kKnownDifferences), and
// for each lock kind no row ran live yet, its first left-out row. So every
// scenario, hence every topology and every fault mechanism live mode has,
// and every distinct outcome of each story is confirmed live, and every lock
// kind at least once; what is left out is another lock with the same
// outcome of the same story, and the six CP rows the [cp-live] suite checks
// the same way (kCheckedByCpLive). About half the time (docs/ci.md).
// LOCKSIM_LIVE_AGREEMENT=all runs every row;
// scripts/agreement-table.sh runs every cell (every lock) for docs/agreement.md.

namespace {

// Rows that cannot agree because of the live environment: a scenario and a
// lock ("" = every lock of it). docs/live.md "Why rows differ" explains each.
struct KnownDifference {
  const char* scenario;
  const char* lock;
  const char* reason;
};
const KnownDifference kKnownDifferences[] = {
    {"setnx-expire-crash", "no-ttl",
     "A crashes 1.5 ms in (15 us real at 0.01), after its SETNX has left; it agrees at 0.3, 24 s a run, too slow here"},
    {"aof-everysec-power-loss", "",
     "the busy node's restart under its background load delays B's grant by ~0.3-0.7 s of scenario time at 0.1, so "
     "B's write may follow A's second one (no stale-write); and a real SET that lands within 20 ms of a wall-second "
     "boundary is fsynced by the next second's first write (the key survives)"},
    {"etcd-member-clock-jump", "",
     "not run live: etcd (Go) reads its clocks through the vDSO, not libc, so no preload can step a member's clock "
     "(live mode refuses it, exit 2); the simulated 'no effect' stands unconfirmed"},
    {"zk-member-clock-jump", "",
     "not run live: ZooKeeper's JVM does not run under liblocksim_preload, so a member's clock cannot be stepped "
     "(live mode refuses it, exit 2); the simulated 'no effect' stands unconfirmed"},
    {"etcd-power-loss", "",
     "not run live: a power loss is observed through liblocksim_preload's fsync log, which etcd (Go: system calls, "
     "not libc) does not carry (live mode refuses it, exit 2); the simulated 'the fsynced WAL keeps the lock' stands "
     "unconfirmed"},
    {"zk-power-loss", "",
     "not run live: a power loss is observed through liblocksim_preload's fsync log, which ZooKeeper's JVM does not "
     "run under (live mode refuses it, exit 2); the simulated 'the fsynced log keeps the session and its node' stands "
     "unconfirmed"},
    {"aof-everysec-fsync-stall", "",
     "as aof-everysec-power-loss: B's first write must land before A's second, ~0.4 s of scenario time (0.2 s real "
     "at 0.5) after redis-1's restart; a restart under a load of ~25 on 2 cores took longer, and token and "
     "setnx-expire missed the stale-write in 3 runs of 3 (2026-12-04)"},
    {"redlock-py-pr3-drift", "redlock-py-pr3",
     "the overlap is the 40 ms (scenario) between B's grant at ~10.06 s and the end of A's overshooting validity at "
     "~10.10 s: 4 ms of real time at 0.1, 20 ms at 0.5; it agrees on an idle machine, but under a load of ~25 on 2 "
     "cores B's grant came too late in 5 runs of 5 at 0.1 and 1 of 2 at 0.5 (2026-12-04)"},
    {"redlock-py-wall-clock-step", "redlock-py",
     "the client wall-clock step is triggered at A:acquiring and must land between A's first reading and the replies; "
     "at time scale 0.01 the whole acquire takes well under a millisecond of real time, so the live step (through "
     "ClientClock) lands after it and the validity is not stretched"},
};

const KnownDifference* known_difference(const std::string& scenario, const std::string& lock) {
  for (const auto& k : kKnownDifferences)
    if (scenario == k.scenario && (*k.lock == '\0' || lock == k.lock)) return &k;
  return nullptr;
}

// The locks of a scenario's rows: [expect.by_lock]'s, plus its [lock] kind
// when [expect] violations covers every lock (flash-sale-gate lists no lock).
std::set<std::string> agreement_locks(const scenarios::Scenario& s) {
  std::set<std::string> locks;
  for (const auto& [lock, expected] : s.expect_by_lock)
    if (locks::find_lock(lock)->library.empty()) locks.insert(lock);  // lib:*: tests/test_external.cpp
  if (s.expect_default) locks.insert(s.lock_kind);
  return locks;
}

struct AgreementRow {
  std::string scenario, lock;
  std::set<std::string> simulated, live;
  int attempts = 0;
  bool ran_live = false;
  std::string refusal;                  // live mode's exit-2 reason when it did not run
  std::vector<nlohmann::json> records;  // the simulated run, then the live run or skip, for the table
};

// Rows run on worker threads (the test case, below), where Catch2's macros
// may not be used: a broken expectation throws, and the test case fails
// with the message once the workers are joined.
void expect(bool holds, const std::string& what) {
  if (!holds) throw std::runtime_error(what);
}

// Runs one row: the simulated run, then up to `max_attempts` live runs (the
// last one recorded, or a skip line with live mode's reason).
AgreementRow agreement_row(const scenarios::Scenario& s, const std::string& lock, int max_attempts) {
  AgreementRow row{s.name, lock, {}, {}, 0, false, {}, {}};
  scenarios::RunOptions sim_options;
  sim_options.lock_kind = lock;
  auto simulated = scenarios::run_scenario(s, sim_options);
  expect(static_cast<bool>(simulated), s.name + " --lock " + lock + ": the simulated run failed");
  row.simulated = simulated->violation_kinds();
  row.records.push_back(reports::run_to_json(*simulated));
  if (max_attempts == 0) return row;  // simulated only: outcome_groups()
  live::LiveOptions options;
  options.lock_kind = lock;
  options.time_scale_ppm = cli::live_time_scale_ppm(s, std::nullopt);
  options.scenario_ref = s.name;
  while (row.attempts < max_attempts) {
    ++row.attempts;
    auto run = live::run_live(s, options);
    if (!run) {  // a refusal (exit 2) is a skip; a server failure fails the test
      expect(run.error().exit_code == 2, s.name + " --lock " + lock + ": " + run.error().message);
      row.records.push_back(cli::live_skip_json(s, {s.name, lock, 1, options.time_scale_ppm, run.error().message}));
      row.refusal = run.error().message;
      return row;
    }
    row.ran_live = true;
    row.live = run->run.violation_kinds();
    if (row.live == row.simulated || row.attempts == max_attempts) {
      row.records.push_back(cli::live_run_json(*run, options.time_scale_ppm));
      break;
    }
  }
  return row;
}

}  // namespace

namespace {

// CP rows the [cp-live] suite (ctest cp_live, above) runs live with the same
// check (cp_live_agreeing: up to three live runs, live == simulated): the CI
// subset does not run them twice. Keep in step with those tests.
struct CheckedElsewhere {
  const char* scenario;
  const char* lock;
  const char* test;
};
const CheckedElsewhere kCheckedByCpLive[] = {
    {"etcd-gc-pause", "etcd-mutex", "etcd-gc-pause runs live on a real etcd cluster"},
    {"etcd-gc-pause", "etcd-fenced", "etcd-gc-pause runs live on a real etcd cluster"},
    {"zk-gc-pause", "zk-lock", "zk-gc-pause runs live on a real ZooKeeper ensemble"},
    {"zk-gc-pause", "zk-fenced", "zk-gc-pause runs live on a real ZooKeeper ensemble"},
    {"etcd-leader-crash", "etcd-mutex", "etcd-leader-crash runs live"},
    {"zk-holder-partitioned", "zk-lock", "zk-holder-partitioned runs live"},
};

const char* checked_by_cp_live(const std::string& scenario, const std::string& lock) {
  for (const auto& c : kCheckedByCpLive)
    if (scenario == c.scenario && lock == c.lock) return c.test;
  return nullptr;
}

// One scenario's rows grouped by simulated violation set, each group's locks
// in the order the CI subset tries them: the scenario's own [lock] kind
// first, then by name.
std::map<std::set<std::string>, std::vector<std::string>> outcome_groups(const scenarios::Scenario& s) {
  std::map<std::set<std::string>, std::vector<std::string>> groups;
  for (const auto& lock : agreement_locks(s)) {  // by name
    auto& group = groups[agreement_row(s, lock, 0).simulated];
    if (lock == s.lock_kind) group.insert(group.begin(), lock);
    else group.push_back(lock);
  }
  return groups;
}

// Runs the rows and collects what the test checks; one per worker thread,
// merged on the test's thread.
struct AgreementRun {
  std::vector<nlohmann::json> records;  // for the table, in any order (it sorts)
  std::vector<std::string> differ, retried, known_agree, cp_not_live, left_out;
  std::set<std::string> locks_live;  // lock kinds some row ran live (or [cp-live] checks)
  std::set<std::pair<std::string, std::string>> done;
  std::vector<std::pair<std::string, std::string>> not_chosen;  // rows the subset left, in catalog order
  std::size_t rows_run = 0;

  // Runs one row unless done; true when it ran live.
  bool row(const scenarios::Scenario& s, const std::string& lock) {
    if (!done.insert({s.name, lock}).second) return false;
    const std::string name = s.name + " --lock " + lock;
    const KnownDifference* known = known_difference(s.name, lock);
    const auto start = std::chrono::steady_clock::now();
    AgreementRow row = agreement_row(s, lock, known ? 1 : 3);
    ++rows_run;
    std::move(row.records.begin(), row.records.end(), std::back_inserter(records));
    std::printf("live-agreement: %s: %s, %.1f s\n", name.c_str(),
                row.ran_live ? (std::to_string(row.attempts) + " live run(s)").c_str() : "not run live",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::fflush(stdout);
    // A CP row live mode refuses must be a listed difference, never a silent skip.
    if (!row.ran_live && s.topology != locks::Topology::Redis && !known) cp_not_live.push_back(name + ": " + row.refusal);
    if (!row.ran_live) return false;
    locks_live.insert(lock);
    const bool agree = row.live == row.simulated;
    if (!agree && !known) differ.push_back(name);
    if (agree && known) known_agree.push_back(name);
    if (agree && row.attempts > 1) retried.push_back(name + " (agreed at attempt " + std::to_string(row.attempts) + ")");
    return true;
  }

  // The CI subset's rows of one scenario: one per distinct simulated
  // outcome (the first lock of the group live mode runs — a refused one,
  // e.g. delex, hands over to the next — or that [cp-live] checks), then
  // one for each listed difference (its first row when it names no lock).
  void subset(const scenarios::Scenario& s) {
    for (const auto& [outcome, locks] : outcome_groups(s)) {
      for (const auto& lock : locks) {
        if (const char* test = checked_by_cp_live(s.name, lock)) {
          std::printf("live-agreement: %s --lock %s: checked by [cp-live] \"%s\"\n", s.name.c_str(), lock.c_str(), test);
          done.insert({s.name, lock});
          locks_live.insert(lock);
          break;
        }
        if (row(s, lock)) break;
      }
    }
    const auto locks = agreement_locks(s);
    for (const auto& k : kKnownDifferences) {
      if (s.name != k.scenario) continue;
      if (*k.lock) {
        if (locks.count(k.lock) && !checked_by_cp_live(s.name, k.lock)) row(s, k.lock);
      } else if (!locks.empty() && std::none_of(locks.begin(), locks.end(), [&](const std::string& l) {
                   return done.count({s.name, l}) > 0;
                 })) {
        row(s, *locks.begin());
      }
    }
    for (const auto& lock : locks)
      if (!done.count({s.name, lock})) not_chosen.push_back({s.name, lock});
  }

  void merge(AgreementRun&& other) {
    auto append = [](auto& to, auto& from) { std::move(from.begin(), from.end(), std::back_inserter(to)); };
    append(records, other.records);
    append(differ, other.differ);
    append(retried, other.retried);
    append(known_agree, other.known_agree);
    append(cp_not_live, other.cp_not_live);
    append(not_chosen, other.not_chosen);
    locks_live.merge(other.locks_live);
    done.merge(other.done);
    rows_run += other.rows_run;
  }
};

// The rows of some scenarios on a thread of their own: its AgreementRun,
// or the exception a broken expectation threw.
struct AgreementWorker {
  AgreementRun run;
  std::exception_ptr failed;
  std::thread thread;

  AgreementWorker(const std::vector<scenarios::Scenario>& stories, bool all) {
    thread = std::thread([this, &stories, all] {
      try {
        for (const auto& s : stories) {
          if (!all) run.subset(s);
          else for (const auto& lock : agreement_locks(s)) run.row(s, lock);
        }
      } catch (...) {
        failed = std::current_exception();
      }
    });
  }
};

void rethrow_as_failure(const std::exception_ptr& failed) {
  if (!failed) return;
  try {
    std::rethrow_exception(failed);
  } catch (const std::exception& e) {
    FAIL(e.what());
  }
}

}  // namespace

// The rows run on two threads, the etcd/ZooKeeper stories beside the Redis
// ones: a live run mostly waits on real time (the CI subset took 228 s
// where one thread took 424 s: docs/ci.md). The CP stories run at time
// scale 0.1, where a busy core costs them little, and a Redis row that
// misses a deadline still gets its three attempts.
TEST_CASE("every catalog row live mode can run finds the simulated violations on real Redis", "[live-agreement]") {
  tests::skip_without_redis_server();
  const char* mode = std::getenv("LOCKSIM_LIVE_AGREEMENT");
  const bool all = mode && std::string(mode) == "all";
  const auto started = std::chrono::steady_clock::now();
  std::vector<scenarios::Scenario> redis_stories, cp_stories;
  for (const auto& entry : scenarios::catalog()) {
    auto s = catalog_scenario(entry.name);
    (s.topology == locks::Topology::Redis ? redis_stories : cp_stories).push_back(std::move(s));
  }
  AgreementRun run;
  {
    AgreementWorker cp(cp_stories, all), redis(redis_stories, all);
    cp.thread.join();
    redis.thread.join();
    rethrow_as_failure(cp.failed);
    rethrow_as_failure(redis.failed);
    run.merge(std::move(redis.run));
    run.merge(std::move(cp.run));
  }
  // Every lock kind live at least once: its first left-out row live mode runs.
  try {
    for (const auto& [name, lock] : run.not_chosen)
      if (!run.locks_live.count(lock)) run.row(catalog_scenario(name), lock);
  } catch (...) {
    rethrow_as_failure(std::current_exception());
  }
  for (const auto& [name, lock] : run.not_chosen)
    if (!run.done.count({name, lock})) run.left_out.push_back(name + " --lock " + lock);

  reports::Comparison table;
  for (const auto& record : run.records) REQUIRE(table.add_run(record));
  std::cout << "\n" << reports::render_agreement_markdown(table) << "\nKnown differences (tests/test_live.cpp):\n";
  for (const auto& k : kKnownDifferences)
    std::cout << "  " << k.scenario << (*k.lock ? " --lock " : "") << k.lock << ": " << k.reason << "\n";
  for (const auto& r : run.retried) std::cout << "retried: " << r << "\n";
  std::printf("live-agreement: %zu rows run in %.0f s; %zu rows left out (the same simulated outcome of the same "
              "story as a row run; LOCKSIM_LIVE_AGREEMENT=all runs them):\n",
              run.rows_run, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
              run.left_out.size());
  for (const auto& r : run.left_out) std::cout << "  left out: " << r << "\n";
  for (const auto& r : run.known_agree)
    WARN(r << " agrees now although it is listed in kKnownDifferences: drop it from the list");
  CHECK(redis_children() == 0);
  {
    INFO("etcd / ZooKeeper rows live mode did not run, not listed in kKnownDifferences");
    CHECK(run.cp_not_live == std::vector<std::string>{});
  }
  INFO("rows whose live violations differ from the simulated ones (not known differences)");
  CHECK(run.differ == std::vector<std::string>{});
}

// ---------------------------------------------------------------- the preload library
// liblocksim_preload.so (live/preload/redis_preload.c): its wrappers
// in-process (dlopen'd, so they do not replace this binary's clocks), then
// inside real redis-servers that RedisCluster starts with it.

namespace {

using namespace std::chrono_literals;
using locksim::Reply;

// The library's own symbols, from a private dlopen with its env set first.
struct PreloadedSymbols {
  void* handle = nullptr;
  int (*clock_gettime_)(clockid_t, timespec*) = nullptr;
  int (*gettimeofday_)(timeval*, void*) = nullptr;
  time_t (*time_)(time_t*) = nullptr;
  int (*fdatasync_)(int) = nullptr;
};

PreloadedSymbols open_preload(const fs::path& control, const fs::path& log) {
  ::setenv("LOCKSIM_PRELOAD_CONTROL", control.c_str(), 1);
  ::setenv("LOCKSIM_PRELOAD_LOG", log.c_str(), 1);
  PreloadedSymbols p;
  p.handle = ::dlopen(LOCKSIM_PRELOAD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ::unsetenv("LOCKSIM_PRELOAD_CONTROL");
  ::unsetenv("LOCKSIM_PRELOAD_LOG");
  REQUIRE(p.handle != nullptr);
  p.clock_gettime_ = reinterpret_cast<int (*)(clockid_t, timespec*)>(::dlsym(p.handle, "clock_gettime"));
  p.gettimeofday_ = reinterpret_cast<int (*)(timeval*, void*)>(::dlsym(p.handle, "gettimeofday"));
  p.time_ = reinterpret_cast<time_t (*)(time_t*)>(::dlsym(p.handle, "time"));
  p.fdatasync_ = reinterpret_cast<int (*)(int)>(::dlsym(p.handle, "fdatasync"));
  REQUIRE((p.clock_gettime_ && p.gettimeofday_ && p.time_ && p.fdatasync_));
  return p;
}

std::int64_t ns_of(clockid_t id, int (*get)(clockid_t, timespec*)) {
  timespec ts{};
  get(id, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

fs::path scratch_dir(const std::string& what) {
  const fs::path dir = fs::temp_directory_path() / ("locksim-test-" + what + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A one-node cluster (everysec) whose server loaded the library.
std::unique_ptr<live::RedisCluster> preloaded_cluster() {
  live::ClusterSpec spec;
  spec.binary = *tests::find_redis_server();
  spec.preload = LOCKSIM_PRELOAD_LIBRARY;
  auto cluster = live::RedisCluster::start(spec);
  if (!cluster) FAIL(cluster.error().message);
  return std::move(*cluster);
}

Reply command(const live::RedisCluster& cluster, std::size_t node, Argv argv) {
  locks::HiredisConn conn(locks::HiredisOptions{"127.0.0.1", cluster.node(node).port, 1000ms, 15000ms});
  return locksim::sync_wait(conn.command(std::move(argv)));
}

fs::path incr_aof(const live::RedisCluster& cluster) {
  for (const auto& e : fs::directory_iterator(cluster.node(0).dir / "appendonlydir"))
    if (e.path().string().find(".incr.aof") != std::string::npos) return e.path();
  FAIL("no incr AOF file");
  return {};
}

std::uint64_t durable_length(const live::RedisCluster& cluster, const fs::path& file) {
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  const auto log = live::read_fsync_log(cluster.node(0).dir / "fsync.log");
  const auto found = log.durable.find({static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)});
  return found == log.durable.end() ? 0 : found->second;
}

// Polls (no timing assertion: a deadline only bounds a hang) until the
// file's whole length is durable.
bool becomes_durable(const live::RedisCluster& cluster, const fs::path& file) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (durable_length(cluster, file) == fs::file_size(file)) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

}  // namespace

namespace {

// A control block and the library dlopen'd on it, in a scratch directory.
struct InProcessPreload {
  fs::path dir;
  std::unique_ptr<live::ServerClock> clock;
  PreloadedSymbols p;
  explicit InProcessPreload(const std::string& name) : dir(scratch_dir(name)) {
    std::string why;
    clock = live::ServerClock::create(dir / "clock.ctl", &why);
    REQUIRE(clock);
    p = open_preload(dir / "clock.ctl", dir / "fsync.log");
  }
  ~InProcessPreload() {
    ::dlclose(p.handle);
    fs::remove_all(dir);
  }
};

}  // namespace

TEST_CASE("the preload's wall clock steps and drifts, its monotonic clock does not", "[preload]") {
  InProcessPreload in("preload-clock");
  auto& clock = in.clock;
  const PreloadedSymbols& p = in.p;
  // At zero it is the real clock.
  CHECK(std::llabs(ns_of(CLOCK_REALTIME, p.clock_gettime_) - ns_of(CLOCK_REALTIME, ::clock_gettime)) < 1'000'000'000);
  clock->step(std::chrono::hours(1));
  const std::int64_t hour = 3'600'000'000'000;
  for (clockid_t id : {CLOCK_REALTIME, CLOCK_REALTIME_COARSE}) {
    const std::int64_t ahead = ns_of(id, p.clock_gettime_) - ns_of(id, ::clock_gettime);
    CHECK(std::llabs(ahead - hour) < 1'000'000'000);
  }
  CHECK(std::llabs(ns_of(CLOCK_MONOTONIC, p.clock_gettime_) - ns_of(CLOCK_MONOTONIC, ::clock_gettime)) < 1'000'000'000);
  CHECK(std::llabs(p.time_(nullptr) - ::time(nullptr) - 3600) <= 1);
  timeval tv{};
  REQUIRE(p.gettimeofday_(&tv, nullptr) == 0);
  CHECK(std::llabs(tv.tv_sec - ::time(nullptr) - 3600) <= 1);
  // +50% drift: after at least 200 ms of real time the clock gained at least 100 ms.
  clock->set_drift(500'000);
  std::this_thread::sleep_for(200ms);
  // The real clock is read first: read after, it would have moved on by the
  // time between the two reads and the gain would come out that much short.
  const std::int64_t real_before = ns_of(CLOCK_REALTIME, ::clock_gettime);
  const std::int64_t gained = ns_of(CLOCK_REALTIME, p.clock_gettime_) - real_before - hour;
  CHECK(gained >= 100'000'000);
  CHECK(clock->wall_offset().count() >= hour + 100'000'000);
  // A drift change keeps the clock continuous (the drift so far becomes a step).
  clock->set_drift(0);
  const auto kept = clock->wall_offset();
  CHECK(kept.count() >= hour + 100'000'000);
  std::this_thread::sleep_for(50ms);
  CHECK(clock->wall_offset() == kept);
}

TEST_CASE("the preload logs what each fdatasync made durable and holds it during a stall", "[preload]") {
  InProcessPreload in("preload-sync");
  const fs::path& dir = in.dir;
  auto& clock = in.clock;
  const PreloadedSymbols& p = in.p;
  fs::create_directories(dir / "aof");  // what a power loss cuts: not the control block beside it
  const fs::path file = dir / "aof" / "data";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, "0123456789", 10) == 10);
  REQUIRE(p.fdatasync_(fd) == 0);
  REQUIRE(::write(fd, "abc", 3) == 3);  // written, not synced
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  auto log = live::read_fsync_log(dir / "fsync.log");
  CHECK(log.durable.at({static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)}) == 10);
  REQUIRE_FALSE(log.loaded_by.empty());  // the constructor's hello
  // A power loss cuts the file back to the synced 10 bytes.
  const auto cuts = live::cut_to_durable(dir / "aof", log);
  REQUIRE(cuts.size() == 1);
  CHECK(cuts[0].written == 13);
  CHECK(cuts[0].kept == 10);
  CHECK(fs::file_size(file) == 10);
  // A stall holds the call until it ends (a lower bound: the sleep is real).
  clock->stall_fsync(300ms);
  const auto before = std::chrono::steady_clock::now();
  REQUIRE(p.fdatasync_(fd) == 0);
  CHECK(std::chrono::steady_clock::now() - before >= 290ms);
  ::close(fd);
}

TEST_CASE("a real redis-server with the preload: fsyncs recorded, power loss observed, clock stepped", "[preload]") {
  tests::skip_without_redis_server();
  auto cluster = preloaded_cluster();
  REQUIRE(command(*cluster, 0, {"SET", "kept", "1"}).is_ok());
  const fs::path aof = incr_aof(*cluster);
  REQUIRE(becomes_durable(*cluster, aof));  // the bio thread's fdatasync, recorded
  // A stalled disk: the next write(2) reaches the page cache, its fsync hangs.
  cluster->stall_fsync(0, 30s);
  std::this_thread::sleep_for(1100ms);  // a new wall second: the next write starts an fsync
  REQUIRE(command(*cluster, 0, {"SET", "lost", "1"}).is_ok());
  CHECK(fs::file_size(aof) > durable_length(*cluster, aof));
  const auto cuts = cluster->power_loss(0);
  REQUIRE(cuts.size() == 1);
  CHECK(cuts[0].kept < cuts[0].written);
  cluster->end_fsync_stall(0);
  REQUIRE(cluster->restart(0));
  CHECK(command(*cluster, 0, {"GET", "kept"}) == Reply::bulk("1"));
  CHECK(command(*cluster, 0, {"GET", "lost"}).is_nil());
  // The server's wall clock: TIME and key expiry follow a step.
  const Reply before = command(*cluster, 0, {"TIME"});
  REQUIRE(command(*cluster, 0, {"SET", "lease", "A", "PX", "60000"}).is_ok());
  cluster->step_clock(0, std::chrono::seconds(120));
  const Reply after = command(*cluster, 0, {"TIME"});
  REQUIRE((before.type == Reply::Type::Array && after.type == Reply::Type::Array));
  const long long moved = std::stoll(after.elements[0].str) - std::stoll(before.elements[0].str);
  CHECK((moved >= 120 && moved <= 130));
  CHECK(command(*cluster, 0, {"GET", "lease"}).is_nil());  // expired by the stepped wall clock
  CHECK(cluster->wall_offset(0) >= std::chrono::seconds(120));
}

TEST_CASE("live mode refuses a redis-server that does not load the preload", "[preload]") {
  tests::skip_without_redis_server();
  const fs::path dir = scratch_dir("no-preload");
  const fs::path wrapper = dir / "redis-server";  // named so its hello would count
  std::ofstream(wrapper) << "#!/bin/sh\nunset LD_PRELOAD\nexec " << tests::find_redis_server()->string() << " \"$@\"\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  const auto [out, code] = run_cli("live baseline --lock token --redis-server " + wrapper.string());
  CHECK(code == 2);
  CHECK(out.find("did not load") != std::string::npos);
  CHECK(out.find("liblocksim_preload.so") != std::string::npos);
  fs::remove_all(dir);
  CHECK(redis_children() == 0);
}

// ---------------------------------------------------------------- durability, real vs simulated
// The same timed writes to a real redis-server (with the fsync recorder)
// and to the simulated node, then a power loss (or a kill -9) at a chosen
// instant: both must keep the same keys. Offsets are from t0, 100 ms into
// a wall-clock second S at least one second after the server booted:
//   0 ms SET a   first write of S: fsynced at once
//   300  SET b   same second: waits for the catch-up fsync early in S+1
//   1200 the disk stalls for 2.5 s
//   1300 SET c   S+1's fsync already ran; the catch-up in S+2 hangs in the stall
//   2300 SET d   an fsync is in flight: postponed, only in aof_buf
// The stall ends at 3700 ms; d is written at the next cron tick and fsynced.

namespace {

struct TimedStep {
  std::chrono::milliseconds at;
  std::string key;  // "" = the stall
};

const std::vector<TimedStep> kDurabilitySteps = {
    {0ms, "a"}, {300ms, "b"}, {1200ms, ""}, {1300ms, "c"}, {2300ms, "d"}};
constexpr auto kStall = 2500ms;

struct FaultAt {
  std::chrono::milliseconds at;
  bool power_loss;
};

std::set<std::string> kept_keys(const std::function<bool(const std::string&)>& has) {
  std::set<std::string> kept;
  for (const auto& step : kDurabilitySteps)
    if (!step.key.empty() && has(step.key)) kept.insert(step.key);
  return kept;
}

std::set<std::string> simulated_keeps(FaultAt fault) {
  using namespace locksim::sim;
  World w{1};
  w.network().set_latency(LatencyModel::fixed(std::chrono::microseconds(100)));
  Host& client = w.add_host("A");
  redis::NodeConfig config;
  config.appendfsync = redis::Fsync::Everysec;
  Host& host = w.add_host("redis-1");
  redis::RedisNode node(host, config);
  host.start();
  const TrueInstant t0 = TrueInstant{} + 2100ms;  // boot second 0, S = 2
  auto call = [&](Argv argv) {
    Reply out;
    bool done = false;
    auto task = [](Connection& c, Argv a, Reply& o, bool& d) -> Task<void> {
      o = co_await c.call(std::move(a), std::chrono::seconds(5));
      d = true;
    };
    client.spawn(task(w.network().connect(client.id(), node.id()), std::move(argv), out, done));
    while (!done) w.scheduler().run_until(w.now() + 1ms);
    return out;
  };
  for (const auto& step : kDurabilitySteps) {
    if (step.at >= fault.at) break;
    w.scheduler().run_until(t0 + step.at);
    if (step.key.empty()) node.stall_fsync(kStall);
    else REQUIRE(call({"SET", step.key, "1"}).is_ok());
  }
  w.scheduler().run_until(t0 + fault.at);
  if (fault.power_loss) node.power_loss();
  else host.crash();
  host.restart();
  w.scheduler().run_until(w.now() + 10ms);
  return kept_keys([&](const std::string& k) { return !call({"GET", k}).is_nil(); });
}

std::set<std::string> real_keeps(FaultAt fault) {
  auto cluster = preloaded_cluster();
  using SysClock = std::chrono::system_clock;
  const auto now = SysClock::now();
  const auto t0 = std::chrono::floor<std::chrono::seconds>(now) + 2s + 100ms;  // >= 1 s after boot
  for (const auto& step : kDurabilitySteps) {
    if (step.at >= fault.at) break;
    std::this_thread::sleep_until(t0 + step.at);
    if (step.key.empty()) cluster->stall_fsync(0, kStall);
    else REQUIRE(command(*cluster, 0, {"SET", step.key, "1"}).is_ok());
  }
  std::this_thread::sleep_until(t0 + fault.at);
  if (fault.power_loss) (void)cluster->power_loss(0);
  else cluster->kill9(0);
  cluster->end_fsync_stall(0);
  REQUIRE(cluster->restart(0));
  return kept_keys([&](const std::string& k) { return !command(*cluster, 0, {"GET", k}).is_nil(); });
}

}  // namespace

TEST_CASE("real redis-server and the simulated node keep the same writes after a power loss", "[preload]") {
  tests::skip_without_redis_server();
  using Keys = std::set<std::string>;
  const std::vector<std::tuple<FaultAt, Keys>> cases = {
      {{200ms, true}, {"a"}},                     // a's fsync started right after its write
      {{700ms, true}, {"a"}},                     // b waits for the next second
      {{1250ms, true}, {"a", "b"}},               // S+1's catch-up fsynced b
      {{2600ms, true}, {"a", "b"}},               // c's fsync hangs in the stall, d is postponed
      {{2600ms, false}, {"a", "b", "c"}},         // kill -9: c was written; d was acknowledged but only buffered
      {{4500ms, true}, {"a", "b", "c", "d"}},     // after the stall: c's fsync ends, d is written and fsynced
  };
  for (const auto& [fault, expected] : cases) {
    INFO((fault.power_loss ? "power loss" : "kill -9") << " at " << fault.at.count() << " ms");
    const Keys simulated = simulated_keeps(fault);
    CHECK(simulated == expected);
    Keys real;
    for (int attempt = 0; attempt < 2 && real != simulated; ++attempt) real = real_keeps(fault);  // a loaded machine may slip past a cron tick once
    CHECK(real == simulated);
  }
}

TEST_CASE("a server's port is picked below the ephemeral range, bindable, and never twice", "[live]") {
  // An outgoing connection takes its local port from the ephemeral range;
  // a ZooKeeper member whose quorum port one took exits with code 14.
  int low = 32768, high = 60999;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> low >> high;
  std::set<int> seen;
  for (int i = 0; i < 200; ++i) {
    const int port = live::free_loopback_port();
    REQUIRE(port >= 1024);
    CHECK(port < low);
    CHECK(seen.insert(port).second);
  }
  // It was free: a server can listen there.
  const int port = live::free_loopback_port();
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  CHECK(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  CHECK(::listen(fd, 1) == 0);
  ::close(fd);
}

TEST_CASE("live --redis: every segment of a segmented sale and its fence key are refused if there, deleted after "
          "(issue 35)",
          "[live]") {
  tests::skip_without_redis_server();
  tests::RedisServerProcess server;
  locks::HiredisConn admin(locks::parse_endpoint(server.endpoint()));
  REQUIRE(admin.execute({"SET", "unrelated:key", "keep"}).is_ok());
  live::LiveOptions options;
  options.redis_endpoints = {server.endpoint()};
  options.key_prefix = "mine:";
  options.lock_kind = "fenced";  // INCRs each segment's fence key: mine:sale:42:N:fence
  const auto sale = catalog_scenario("inventory-segmented");
  auto run = live::run_live(sale, options);
  INFO((run ? std::string() : run.error().message));
  REQUIRE(run);
  const auto left = admin.execute({"KEYS", "mine:*"});
  std::string names;
  for (const auto& k : left.elements) names += k.str + " ";
  INFO("left on the server: " << names);
  CHECK(left.elements.empty());  // it used to leave mine:sale:42:1:fence .. :5:fence
  CHECK(admin.execute({"GET", "unrelated:key"}).str == "keep");
  for (const std::string key : {"mine:sale:42:3", "mine:sale:42:5:fence"}) {
    INFO(key);
    REQUIRE(admin.execute({"SET", key, "theirs"}).is_ok());
    auto refused = live::run_live(sale, options);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().exit_code == 2);
    CHECK_THAT(refused.error().message, Catch::Contains("key " + key + " already exists"));
    CHECK(admin.execute({"GET", key}).str == "theirs");
    REQUIRE(admin.execute({"DEL", key}).integer == 1);
  }
}

namespace {

// A redis-server wrapper script in a fresh `dir` that keeps the server as
// its child (no exec), as many wrappers do — PR_SET_PDEATHSIG reaches the
// wrapper only — and appends each server's pid to dir/pids.
fs::path keeping_wrapper(const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path wrapper = dir / "wrapped-redis-server";
  std::ofstream(wrapper) << "#!/bin/sh\n" << tests::find_redis_server()->string() << " \"$@\" &\necho $! >> "
                         << (dir / "pids").string() << "\nwait\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  return wrapper;
}

// `locksim live ARGS --redis-server WRAPPER` in the background: its pid.
pid_t live_in_background(const std::string& args, const fs::path& wrapper) {
  const auto [pid_text, spawned] = run_shell(std::string(LOCKSIM_BINARY) + " live " + args + " --redis-server " +
                                             wrapper.string() + " >/dev/null 2>&1 & echo $!");
  REQUIRE(spawned == 0);
  return static_cast<pid_t>(std::stol(pid_text));
}

}  // namespace

TEST_CASE("a server started through a wrapper script dies with locksim, even when locksim is SIGKILLed (issue 35)",
          "[live]") {
  tests::skip_without_redis_server();
  const fs::path dir = fs::temp_directory_path() / ("locksim-test-orphan-" + std::to_string(::getpid()));
  const fs::path wrapper = keeping_wrapper(dir), server_pid = dir / "pids";
  const pid_t locksim = live_in_background("gc-pause --lock token --time-scale 1", wrapper);
  pid_t server = -1;
  for (int i = 0; i < 3000 && server < 0; ++i) {  // up to 30 s for the server to start
    std::ifstream in(server_pid);
    long pid = 0;
    if (in >> pid && pid > 0) server = static_cast<pid_t>(pid);
    else std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(server > 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the run get going
  REQUIRE_FALSE(process_gone(server));
  ::kill(locksim, SIGKILL);
  for (int i = 0; i < 2000 && !process_gone(server); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool gone = process_gone(server);
  if (!gone) ::kill(server, SIGKILL);  // it used to be left running, orphaned
  CHECK(gone);
  fs::remove_all(dir);
}

// The Sentinel quorum's processes are process groups with the watchdog,
// like the servers: a SIGKILLed locksim leaves none of them behind.
TEST_CASE("the sentinels and servers of a failover run die with locksim when it is SIGKILLed", "[live]") {
  tests::skip_without_redis_server();
  const fs::path dir = fs::temp_directory_path() / ("locksim-test-sentinels-" + std::to_string(::getpid()));
  const fs::path wrapper = keeping_wrapper(dir), pids_file = dir / "pids";
  const pid_t locksim = live_in_background("replica-failover --lock token", wrapper);
  std::vector<pid_t> pids;
  for (int i = 0; i < 3000 && pids.size() < 5; ++i) {  // master, replica, 3 sentinels: up to 30 s
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream in(pids_file);
    pids.clear();
    for (long pid = 0; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
  }
  REQUIRE(pids.size() == 5);
  ::kill(locksim, SIGKILL);
  for (pid_t pid : pids) {
    for (int i = 0; i < 2000 && !process_gone(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const bool gone = process_gone(pid);
    if (!gone) ::kill(pid, SIGKILL);
    CHECK(gone);
  }
  fs::remove_all(dir);
}
