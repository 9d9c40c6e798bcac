// The etcd / ZooKeeper topologies' live service (live_service.hpp): a real
// etcd cluster or ZooKeeper ensemble (CpCluster: one process per member on
// free loopback ports, clients through a proxy per member), each client
// incarnation's own connection (live_cp_conns.hpp) — none for a library
// lock, whose adapter connects — and its links on the proxies, which follow
// the client's pause and crash. The Redis-only faults (failover, server
// clocks, fsync stalls, power loss) are refused before the run
// (live_faults.cpp).
#include "live/live_cp_service.hpp"

#include <algorithm>

#include "live/cp_cluster.hpp"
#include "live/etcd_cluster.hpp"
#include "live/etcd_http_client.hpp"
#include "live/live_cp_conns.hpp"
#include "live/zk_c_client.hpp"
#include "live/zk_cluster.hpp"
#include "scenarios/workload.hpp"

namespace locksim::live {

namespace {

using scenarios::Scenario;

// The least heartbeat and election timeout live etcd members get (real
// time), as the client command timeout is floored: below them a loaded
// machine's elections thrash (a vote waits for a WAL fsync), and the cluster
// never elects a leader. The default 0.1 scale gives 10 ms / 100 ms.
constexpr std::chrono::milliseconds kEtcdHeartbeatFloor{50}, kEtcdElectionFloor{500};

std::chrono::milliseconds whole_ms(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d); }

// The note a run gets when the floor above applied, or nullopt.
std::optional<std::string> etcd_floor_note(const Scenario& scaled) {
  if (scaled.topology != locks::Topology::Etcd ||
      (scaled.cp.heartbeat >= kEtcdHeartbeatFloor && scaled.cp.election_timeout >= kEtcdElectionFloor))
    return std::nullopt;
  return "etcd members run with heartbeat " +
         format_duration(std::max<Duration>(scaled.cp.heartbeat, kEtcdHeartbeatFloor)) + " and election timeout " +
         format_duration(std::max<Duration>(scaled.cp.election_timeout, kEtcdElectionFloor)) +
         " real (scaled: " + format_duration(scaled.cp.heartbeat) + " / " +
         format_duration(scaled.cp.election_timeout) + "): shorter ones make elections thrash on a loaded machine";
}

class CpService final : public LiveService {
 public:
  CpService(std::unique_ptr<CpCluster> cluster, const Scenario& scaled)
      : cluster_(std::move(cluster)), topology_(scaled.topology), members_(scaled.cp.members) {
    for (const auto& c : scaled.clients) client_names_.push_back(c.name);
  }

  LiveServers& servers() override { return *cluster_; }
  Result<bool, LiveError> prepare(const Scenario& scaled, LiveRecorder& recorder) override {
    if (auto floored = etcd_floor_note(scaled)) recorder.note(*floored);
    return true;
  }
  std::string what_ran(const locks::LockInfo& lock) const override;

  // One link per member, member (c mod N) first as the simulated client
  // tries them (scenarios/runner.cpp connect_cp).
  std::vector<std::string> client_endpoints(std::size_t c) const override {
    std::vector<std::string> out = cluster_->client_endpoints(client_names_[c]);
    std::rotate(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(c % out.size()), out.end());
    return out;
  }
  void run_client(const ClientRun& run) override;
  bool links_follow_clients() const override { return true; }

  void crash(std::size_t node, bool, LiveRecorder&) override { cluster_->kill9(node); }  // no power loss here
  void promote(std::size_t, LiveRecorder&) override {}
  void clock_step(std::size_t, Duration) override {}
  void clock_drift(std::size_t, std::int64_t) override {}
  void stall_fsync(std::size_t, Duration) override {}
  std::chrono::nanoseconds wall_offset(std::size_t) const override { return std::chrono::nanoseconds{0}; }
  void follow_servers(LiveRecorder&) override {}

  std::string stopped_text() const override {
    return topology_ == locks::Topology::Etcd ? "every etcd member was stopped" : "every ZooKeeper member was stopped";
  }
  std::optional<std::string> stop() override {
    cluster_->discard_all();  // their data goes with them
    return std::nullopt;
  }

 private:
  std::unique_ptr<CpCluster> cluster_;
  locks::Topology topology_;
  int members_;
  std::vector<std::string> client_names_;
};

std::string CpService::what_ran(const locks::LockInfo& lock) const {
  const std::string n = std::to_string(members_);
  const bool library = !lock.library.empty();  // its own client, in the adapter's process
  if (topology_ == locks::Topology::Etcd)
    return "a real etcd cluster (" + n + " etcd processes; clients through " +
           (library ? lock.library : "the v3 JSON gateway with libcurl") + ")";
  return "a real ZooKeeper ensemble (" + n + " JVMs; clients through " +
         (library ? lock.library : "the C client libzookeeper_mt") + ")";
}

// One incarnation: its own connection to the members through its links on
// their proxies (client_endpoints). The connection outlives the runtime
// (whose destructor joins the session's keep-alive thread). A library lock
// (external_lock.hpp) connects from its adapter's process: none here, which
// would open a session of its own.
void CpService::run_client(const ClientRun& run) {
  const std::size_t c = run.client;
  const std::vector<std::string> endpoints = client_endpoints(c);
  const bool own_client = run.workload.lock().library.empty();
  const auto timeout = run.world.command_timeout();
  std::unique_ptr<LiveEtcdConn> etcd;
  std::unique_ptr<LiveZkConn> zk;
  if (own_client && topology_ == locks::Topology::Etcd)
    etcd = std::make_unique<LiveEtcdConn>(run.world, c, std::make_unique<EtcdHttpConn>(endpoints, timeout));
  else if (own_client)
    zk = std::make_unique<LiveZkConn>(run.world, c,
                                      std::make_unique<ZkCClientConn>(ZkCluster::connect_string(endpoints)));
  LiveRuntime rt(run.world, run.late, LiveCpConns{etcd.get(), zk.get()}, c, client_names_[c], run.clock);
  sync_wait(scenarios::client_main(run.workload, c, rt));
}

}  // namespace

// One proxy listener per client on every member.
Result<std::unique_ptr<LiveService>, LiveError> start_cp_service(const Scenario& scaled,
                                                                 const std::atomic<int>* interrupted) {
  CpClusterOptions cluster;
  cluster.members = scaled.cp.members;
  cluster.interrupted = interrupted;
  for (const auto& c : scaled.clients) cluster.clients.push_back(c.name);
  const auto ms = whole_ms;
  std::unique_ptr<CpCluster> members;
  if (scaled.topology == locks::Topology::Etcd) {
    auto etcd = EtcdCluster::start(EtcdClusterSpec{cluster,
                                                   {},
                                                   std::max(ms(scaled.cp.heartbeat), kEtcdHeartbeatFloor),
                                                   std::max(ms(scaled.cp.election_timeout), kEtcdElectionFloor)});
    if (!etcd) return failure(etcd.error());
    members = std::move(*etcd);
  } else {
    auto zk = ZkCluster::start(ZkClusterSpec{cluster, {}, {}, ms(scaled.cp.tick)});
    if (!zk) return failure(zk.error());
    members = std::move(*zk);
  }
  return std::unique_ptr<LiveService>(std::make_unique<CpService>(std::move(members), scaled));
}

}  // namespace locksim::live
