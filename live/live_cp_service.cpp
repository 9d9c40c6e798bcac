// The etcd / ZooKeeper topologies' live service (live_cp_service.hpp): the
// real members of the service's live row (live_service_table.hpp: a CpCluster,
// one process per member on free loopback ports, clients through a proxy
// per member), each client incarnation's own connection (the row's client;
// none for a library lock, whose adapter connects) and its links on the
// proxies, which follow the client's pause and crash. The Redis-only faults
// (failover, server clocks, fsync stalls, power loss) are refused before
// the run (live_faults.cpp).
#include "live/live_cp_service.hpp"

#include <algorithm>

#include "live/cp_cluster.hpp"
#include "live/live_service_table.hpp"
#include "scenarios/services.hpp"
#include "scenarios/workload.hpp"

namespace locksim::live {

namespace {

using scenarios::Scenario;

class CpService final : public LiveService {
 public:
  CpService(std::unique_ptr<CpCluster> cluster, const Scenario& scaled, const LiveServiceRow& row)
      : cluster_(std::move(cluster)), scaled_(scaled), row_(row) {}

  LiveServers& servers() override { return *cluster_; }
  Result<bool, LiveError> prepare(const Scenario& scaled, LiveRecorder& recorder) override {
    if (auto note = row_.timing_note(scaled)) recorder.note(*note);
    return true;
  }
  std::string what_ran(const locks::LockInfo& lock) const override {
    const bool library = !lock.library.empty();  // its own client, in the adapter's process
    return std::string(row_.cluster) + " (" + std::to_string(scaled_.cp.members) + " " + std::string(row_.processes) +
           "; clients through " + (library ? lock.library : std::string(row_.client)) + ")";
  }

  // One link per member, member (c mod N) first as the simulated client
  // tries them (scenarios/runner.cpp connect_cp).
  std::vector<std::string> client_endpoints(std::size_t c) const override {
    std::vector<std::string> out = cluster_->client_endpoints(scaled_.clients[c].name);
    std::rotate(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(c % out.size()), out.end());
    return out;
  }
  std::optional<SentinelDiscovery> sentinel_discovery(std::size_t) const override { return std::nullopt; }
  void run_client(const ClientRun& run) override;
  bool links_follow_clients() const override { return true; }

  void crash(std::size_t node, bool, LiveRecorder&) override { cluster_->kill9(node); }  // no power loss here
  void promote(std::size_t, LiveRecorder&) override {}
  void clock_step(std::size_t, Duration) override {}
  void clock_drift(std::size_t, std::int64_t) override {}
  void stall_fsync(std::size_t, Duration) override {}
  std::chrono::nanoseconds wall_offset(std::size_t) const override { return std::chrono::nanoseconds{0}; }
  void follow_servers(LiveRecorder&) override {}

  // etcd and ZooKeeper keep no command stream to watch: a library lock's
  // history here is its beliefs and writes (the entries are not observed).
  void collect_observed(LiveRecorder&) override {}
  std::string stopped_text() const override {
    return "every " + std::string(scenarios::service_row(scaled_.topology).what) + " member was stopped";
  }
  std::optional<std::string> stop() override {
    cluster_->discard_all();  // their data goes with them
    return std::nullopt;
  }

 private:
  std::unique_ptr<CpCluster> cluster_;
  const Scenario& scaled_;
  const LiveServiceRow& row_;
};

// One incarnation: its own connection to the members through its links on
// their proxies (client_endpoints). The connection outlives the runtime
// (whose destructor joins the session's keep-alive thread).
void CpService::run_client(const ClientRun& run) {
  const std::size_t c = run.client;
  const std::unique_ptr<locks::ServiceConn> conn = connect_live_client(
      scaled_, run.workload.lock(), run.world, c, client_endpoints(c), run.world.command_timeout());
  LiveRuntime rt(run.world, run.late, conn.get(), c, scaled_.clients[c].name, run.clock);
  sync_wait(scenarios::client_main(run.workload, c, rt));
}

}  // namespace

// One proxy listener per client on every member.
Result<std::unique_ptr<LiveService>, LiveError> start_cp_service(const Scenario& scaled,
                                                                 const std::atomic<int>* interrupted) {
  const LiveServiceRow& row = *live_service_row(scaled.topology);  // a CP topology: it has its row
  CpClusterOptions cluster;
  cluster.members = scaled.cp.members;
  cluster.interrupted = interrupted;
  for (const auto& c : scaled.clients) cluster.clients.push_back(c.name);
  auto members = row.start_cluster(scaled, std::move(cluster));
  if (!members) return failure(members.error());
  return std::unique_ptr<LiveService>(std::make_unique<CpService>(std::move(*members), scaled, row));
}

}  // namespace locksim::live
