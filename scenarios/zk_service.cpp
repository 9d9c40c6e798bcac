// ZooKeeper's row (scenarios/services.hpp): the [zookeeper] table, the
// session timeout rule, the simulated members (sim/consensus/zk_member.hpp)
// and clients (locks/sim_cp_client.hpp SimZkConn). The contract of
// [zookeeper] and the sources of its rules are in cp_topology.hpp.
#include <algorithm>
#include <chrono>

#include "locks/sim_cp_client.hpp"
#include "scenarios/cp_topology_parse.hpp"
#include "scenarios/duration.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/services.hpp"
#include "sim/consensus/zk_member.hpp"

namespace locksim::scenarios {

namespace {

void read_zookeeper(Section& t, CpSpec& cp) {
  if (!t.check_keys({"members", "tick"})) return;
  read_cp_members(t, cp);
  read_cp_ms(t, "tick", "ZooKeeper", cp.tick);
}

void write_zookeeper(const CpSpec& cp, toml::table& t) {
  if (cp.tick != CpSpec{}.tick) t.insert("tick", duration_text(cp.tick));
}

sim::consensus::ZkConfig zk_config(const CpSpec& cp) {
  sim::consensus::ZkConfig zk;
  zk.tick = cp.tick;
  return zk;
}

std::optional<std::string> zk_ttl_problem(Duration ttl) {
  if (ttl % std::chrono::milliseconds(1) == Duration::zero()) return std::nullopt;
  return "is the ZooKeeper session timeout: whole milliseconds (the client sends milliseconds), got " +
         format_duration(ttl);
}

std::optional<std::string> zk_ttl_adjustment(const Scenario& s) {
  const Duration ttl = s.lock.ttl;
  const sim::consensus::ZkConfig zk = zk_config(s.cp);
  const Duration negotiated = std::clamp(ttl, zk.min_session_timeout(), zk.max_session_timeout());
  if (negotiated == ttl) return std::nullopt;
  return "ZooKeeper negotiates the session timeout " + format_duration(ttl) + " to " + format_duration(negotiated) +
         " (the server clamps it to 2..20 ticks of " + format_duration(s.cp.tick) + ": " +
         format_duration(zk.min_session_timeout()) + " .. " + format_duration(zk.max_session_timeout()) + ")";
}

// ZooKeeper's longest session (kZkMaxSessionTicks ticks).
std::optional<std::pair<std::string, std::string>> zk_derived_overflow(const CpSpec& cp) {
  if (derived_product(cp.tick, kZkMaxSessionTicks)) return std::nullopt;
  return std::pair<std::string, std::string>{"zookeeper.tick",
                                             "the longest session, " + std::to_string(kZkMaxSessionTicks) + " x tick,"};
}

// A ZooKeeper lock's TTL is its session timeout: 2 to 20 ticks
// (ZooKeeperServer's default min/max session timeouts).
Duration zk_generated_ttl(Duration ttl, const CpSpec& cp) {
  return std::clamp(ttl, kZkMinSessionTicks * cp.tick, kZkMaxSessionTicks * cp.tick);
}

std::unique_ptr<sim::consensus::ConsensusMember> zk_member(sim::Host& host, const Scenario& s,
                                                           const std::vector<sim::HostId>& members) {
  return std::make_unique<sim::consensus::ZkMember>(host, zk_config(s.cp), members);
}

std::unique_ptr<locks::ServiceConn> zk_client(sim::Host& client, std::vector<sim::HostId> members, const Scenario&,
                                              std::size_t index) {
  return std::make_unique<locks::SimZkConn>(client, std::move(members), index);
}

constexpr CpServiceOps kZkOps{
    .read = read_zookeeper,
    .write = write_zookeeper,
    .ttl_problem = zk_ttl_problem,
    .ttl_adjustment = zk_ttl_adjustment,
    .derived_overflow = zk_derived_overflow,
    .generated_ttl = zk_generated_ttl,
    .member = zk_member,
    .client = zk_client,
};

}  // namespace

extern const ServiceRow kZkService;
const ServiceRow kZkService{
    .topology = locks::Topology::ZooKeeper,
    .table = "zookeeper",
    .what = "ZooKeeper",
    .member_prefix = "zk-",
    .default_lock = "zk-lock",
    .report_family = "ZooKeeper",
    .cp = &kZkOps,
};

}  // namespace locksim::scenarios
