// etcd's row (scenarios/services.hpp): the [etcd] table, etcd's lease TTL
// rule, the simulated members (sim/consensus/etcd_member.hpp) and clients
// (locks/sim_cp_client.hpp SimEtcdConn). The contract of [etcd] and the
// sources of its rules are in cp_topology.hpp.
#include <chrono>

#include "locks/sim_cp_client.hpp"
#include "scenarios/cp_topology_parse.hpp"
#include "scenarios/duration.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/services.hpp"
#include "sim/consensus/etcd_member.hpp"

namespace locksim::scenarios {

namespace {

// etcd's embed.Config.Validate: ElectionMs <= maxElectionMs (50000) and at
// least 5 × TickMs.
constexpr Duration kMaxEtcdElectionTimeout = std::chrono::seconds(50);
constexpr std::int64_t kEtcdElectionPerHeartbeat = 5;

// The sink keeps the first problem, so the fields are read in the order
// their errors take precedence, and a later check after an earlier error
// changes nothing.
void read_etcd(Section& t, CpSpec& cp) {
  if (!t.check_keys({"members", "election_timeout", "heartbeat"})) return;
  read_cp_members(t, cp);
  read_cp_ms(t, "election_timeout", "etcd", cp.election_timeout);
  read_cp_ms(t, "heartbeat", "etcd", cp.heartbeat);
  if (cp.election_timeout > kMaxEtcdElectionTimeout)
    t.fail_value("election_timeout", "must be at most 50s (etcd refuses a longer one)");
  else if (cp.election_timeout < kEtcdElectionPerHeartbeat * cp.heartbeat)
    t.fail_value("election_timeout", "must be at least 5 heartbeats (" +
                                         format_duration(kEtcdElectionPerHeartbeat * cp.heartbeat) +
                                         "), as etcd requires");
}

void write_etcd(const CpSpec& cp, toml::table& t) {
  const CpSpec d;
  if (cp.election_timeout != d.election_timeout) t.insert("election_timeout", duration_text(cp.election_timeout));
  if (cp.heartbeat != d.heartbeat) t.insert("heartbeat", duration_text(cp.heartbeat));
}

sim::consensus::EtcdConfig etcd_config(const CpSpec& cp) {
  sim::consensus::EtcdConfig etcd;
  etcd.raft.election_timeout = cp.election_timeout;
  etcd.raft.heartbeat = cp.heartbeat;
  return etcd;
}

std::optional<std::string> etcd_ttl_problem(Duration ttl) {
  if (ttl % std::chrono::seconds(1) == Duration::zero()) return std::nullopt;
  return "is the etcd lease TTL: whole seconds (LeaseGrant takes seconds), got " + format_duration(ttl);
}

std::optional<std::string> etcd_ttl_adjustment(const Scenario& s) {
  const Duration ttl = s.lock.ttl;
  const Duration min_ttl = std::chrono::seconds(etcd_config(s.cp).min_lease_ttl());
  if (ttl >= min_ttl) return std::nullopt;
  return "etcd raises the lease TTL " + format_duration(ttl) + " to its minimum " + format_duration(min_ttl) +
         " (1.5 election timeouts of " + format_duration(s.cp.election_timeout) + ", rounded up to seconds)";
}

// etcd's request timeout (EtcdConfig::request_timeout).
std::optional<std::pair<std::string, std::string>> etcd_derived_overflow(const CpSpec& cp) {
  const auto twice = derived_product(cp.election_timeout, 2);
  if (twice && derived_sum({std::chrono::seconds(5), *twice})) return std::nullopt;
  return std::pair<std::string, std::string>{"etcd.election_timeout",
                                             "the request timeout, 5s + 2 x election_timeout,"};
}

// etcd's minimum lease TTL follows the election timeout: the run's
// adjustment note says when it applies.
Duration etcd_generated_ttl(Duration ttl, const CpSpec&) { return ttl; }

std::unique_ptr<sim::consensus::ConsensusMember> etcd_member(sim::Host& host, const Scenario& s,
                                                             const std::vector<sim::HostId>& members) {
  return std::make_unique<sim::consensus::EtcdMember>(host, etcd_config(s.cp), members);
}

std::unique_ptr<locks::ServiceConn> etcd_client(sim::Host& client, std::vector<sim::HostId> members, const Scenario& s,
                                                std::size_t index) {
  return std::make_unique<locks::SimEtcdConn>(client, std::move(members), s.network.timeout, index);
}

constexpr CpServiceOps kEtcdOps{
    .read = read_etcd,
    .write = write_etcd,
    .ttl_problem = etcd_ttl_problem,
    .ttl_adjustment = etcd_ttl_adjustment,
    .derived_overflow = etcd_derived_overflow,
    .generated_ttl = etcd_generated_ttl,
    .member = etcd_member,
    .client = etcd_client,
};

}  // namespace

extern const ServiceRow kEtcdService;
const ServiceRow kEtcdService{
    .topology = locks::Topology::Etcd,
    .table = "etcd",
    .what = "etcd",
    .member_prefix = "etcd-",
    .default_lock = "etcd-mutex",
    .report_family = "etcd",
    .cp = &kEtcdOps,
};

}  // namespace locksim::scenarios
