// The live rows of the CP services (live_service_table.hpp): they wrap the
// clusters of live/etcd_cluster.* and live/zk_cluster.* and the clients of
// live/etcd_http_client.* and live/zk_c_client.* (as steps of a client:
// live/live_cp_conns.hpp).
#include "live/live_service_table.hpp"

#include <algorithm>
#include <cstdlib>

#include "live/etcd_cluster.hpp"
#include "live/etcd_http_client.hpp"
#include "live/live_cp_conns.hpp"
#include "live/zk_c_client.hpp"
#include "live/zk_cluster.hpp"
#include "scenarios/duration.hpp"
#include "scenarios/services.hpp"

namespace locksim::live {

namespace {

using namespace std::chrono_literals;
using scenarios::Scenario;

std::chrono::milliseconds whole_ms(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d); }

// ---- etcd

// The least heartbeat and election timeout live etcd members get (real
// time), as the client command timeout is floored: below them a loaded
// machine's elections thrash (a vote waits for a WAL fsync), and the cluster
// never elects a leader. The default 0.1 scale gives 10 ms / 100 ms.
constexpr std::chrono::milliseconds kEtcdHeartbeatFloor{50}, kEtcdElectionFloor{500};

Result<std::unique_ptr<CpCluster>, LiveError> start_etcd(const Scenario& scaled, CpClusterOptions options) {
  auto etcd = EtcdCluster::start(EtcdClusterSpec{std::move(options),
                                                 {},
                                                 std::max(whole_ms(scaled.cp.heartbeat), kEtcdHeartbeatFloor),
                                                 std::max(whole_ms(scaled.cp.election_timeout), kEtcdElectionFloor)});
  if (!etcd) return failure(etcd.error());
  return std::unique_ptr<CpCluster>(std::move(*etcd));
}

// etcd grants leases in whole seconds (its heartbeat and election timeout
// are floored, above).
std::optional<std::string> etcd_scale_refusal(const Scenario& scaled) {
  if (scaled.lock.ttl % Duration{1s} == Duration{0}) return std::nullopt;
  return "etcd grants leases in whole seconds: ttl x time-scale (" + format_duration(scaled.lock.ttl) +
         ") must be whole seconds (e.g. --time-scale 0.1 for a 10 s ttl)";
}

std::optional<std::string> etcd_floor_note(const Scenario& scaled) {
  if (scaled.cp.heartbeat >= kEtcdHeartbeatFloor && scaled.cp.election_timeout >= kEtcdElectionFloor)
    return std::nullopt;
  return "etcd members run with heartbeat " +
         format_duration(std::max<Duration>(scaled.cp.heartbeat, kEtcdHeartbeatFloor)) + " and election timeout " +
         format_duration(std::max<Duration>(scaled.cp.election_timeout, kEtcdElectionFloor)) +
         " real (scaled: " + format_duration(scaled.cp.heartbeat) + " / " +
         format_duration(scaled.cp.election_timeout) + "): shorter ones make elections thrash on a loaded machine";
}

std::unique_ptr<locks::ServiceConn> connect_etcd(LiveWorld& world, std::size_t c,
                                                 const std::vector<std::string>& endpoints,
                                                 std::chrono::milliseconds timeout) {
  return std::make_unique<LiveEtcdConn>(world, c, std::make_unique<EtcdHttpConn>(endpoints, timeout));
}

constexpr LiveServiceRow kEtcdLive{
    .topology = locks::Topology::Etcd,
    .start_cluster = start_etcd,
    .scale_refusal = etcd_scale_refusal,
    .timing_note = etcd_floor_note,
    .connect = connect_etcd,
    .cluster = "a real etcd cluster",
    .processes = "etcd processes",
    .client = "the v3 JSON gateway with libcurl",
    .no_clock_step = "etcd reads its clocks through the vDSO, not libc",
};

// ---- ZooKeeper

Result<std::unique_ptr<CpCluster>, LiveError> start_zk(const Scenario& scaled, CpClusterOptions options) {
  auto zk = ZkCluster::start(ZkClusterSpec{std::move(options), {}, {}, whole_ms(scaled.cp.tick)});
  if (!zk) return failure(zk.error());
  return std::unique_ptr<CpCluster>(std::move(*zk));
}

// ZooKeeper takes its tickTime in whole milliseconds.
std::optional<std::string> zk_scale_refusal(const Scenario& scaled) {
  if (scaled.cp.tick >= Duration{1ms}) return std::nullopt;
  return "tick x time-scale (" + format_duration(scaled.cp.tick) +
         ") is under the 1 ms ZooKeeper's tickTime takes as its least unit: use a larger --time-scale";
}

std::optional<std::string> no_note(const Scenario&) { return std::nullopt; }

std::unique_ptr<locks::ServiceConn> connect_zk(LiveWorld& world, std::size_t c,
                                               const std::vector<std::string>& endpoints, std::chrono::milliseconds) {
  return std::make_unique<LiveZkConn>(world, c, std::make_unique<ZkCClientConn>(ZkCluster::connect_string(endpoints)));
}

constexpr LiveServiceRow kZkLive{
    .topology = locks::Topology::ZooKeeper,
    .start_cluster = start_zk,
    .scale_refusal = zk_scale_refusal,
    .timing_note = no_note,
    .connect = connect_zk,
    .cluster = "a real ZooKeeper ensemble",
    .processes = "JVMs",
    .client = "the C client libzookeeper_mt",
    .no_clock_step = "ZooKeeper's JVM does not run under liblocksim_preload",
};

}  // namespace

const LiveServiceRow* live_service_row(locks::Topology topology) {
  switch (topology) {  // no default: a service without its live row does not compile
    case locks::Topology::Redis: return nullptr;
    case locks::Topology::Etcd: return &kEtcdLive;
    case locks::Topology::ZooKeeper: return &kZkLive;
  }
  std::abort();  // not an enumerator
}

std::unique_ptr<locks::ServiceConn> connect_live_client(const Scenario& s, const locks::LockInfo& lock,
                                                        LiveWorld& world, std::size_t c,
                                                        const std::vector<std::string>& endpoints,
                                                        std::chrono::milliseconds timeout) {
  const LiveServiceRow* row = live_service_row(s.topology);
  if (!row || !lock.library.empty()) return nullptr;  // its adapter's process connects itself
  return row->connect(world, c, endpoints, timeout);
}

}  // namespace locksim::live
