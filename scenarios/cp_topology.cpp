// CP topologies: [etcd] / [zookeeper] in a scenario file, read with the
// Section readers, and the lock TTL rules each service imposes
// (cp_topology.hpp has the contract and the sources).
#include "scenarios/cp_topology.hpp"

#include <algorithm>

#include "sim/consensus/etcd_member.hpp"
#include "sim/consensus/zk_member.hpp"

#include "scenarios/cp_topology_parse.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/scenario_writer.hpp"

namespace locksim::scenarios {

namespace {

using locks::Topology;

// etcd's embed.Config.Validate: ElectionMs <= maxElectionMs (50000) and at
// least 5 × TickMs.
constexpr Duration kMaxEtcdElectionTimeout = std::chrono::seconds(50);
constexpr std::int64_t kEtcdElectionPerHeartbeat = 5;

// `members`: 1..kMaxCpMembers. Its own wording (it says the value it got),
// not Section::integer's.
void read_members(Section& t, CpSpec& cp) {
  const toml::node* n = t.node("members");
  if (!n) return;
  if (!n->is_integer()) return void(t.fail_value("members", "expected an integer"));
  const std::int64_t v = n->as_integer()->get();
  if (v < 1 || v > kMaxCpMembers)
    return void(t.fail_value("members", "must be between 1 and " + std::to_string(kMaxCpMembers) + " (got " +
                                            std::to_string(v) + ")"));
  cp.members = static_cast<int>(v);
}

// A positive duration in whole milliseconds (etcd and ZooKeeper take ms);
// `service` names the one that does in the message. The hints suggest
// millisecond values, unlike Section::duration's.
void read_ms(Section& t, std::string_view key, std::string_view service, Duration& out) {
  const toml::node* n = t.node(key);
  if (!n) return;
  if (!n->is_string()) return void(t.fail_value(key, "expected a duration string like \"100ms\""));
  const std::string& text = n->as_string()->get();
  const auto d = parse_duration(text);
  if (!d) return void(t.fail_value(key, "bad duration " + in_quotes(text) + ": expected e.g. \"100ms\" or \"1s\""));
  if (auto over = duration_over_cap(*d)) return void(t.fail_value(key, *over));
  if (*d <= Duration::zero()) return void(t.fail_value(key, "must be positive"));
  if (auto why = unwanted_sign(text)) return void(t.fail_value(key, *why));
  if (*d % std::chrono::milliseconds(1) != Duration::zero())
    return void(t.fail_value(key, "must be whole milliseconds (" + std::string(service) + " takes milliseconds)"));
  out = *d;
}

// The sink keeps the first problem, so the fields are read in the order
// their errors take precedence, and a later check after an earlier error
// changes nothing.
void read_etcd(Section& t, CpSpec& cp) {
  if (!t.check_keys({"members", "election_timeout", "heartbeat"})) return;
  read_members(t, cp);
  read_ms(t, "election_timeout", "etcd", cp.election_timeout);
  read_ms(t, "heartbeat", "etcd", cp.heartbeat);
  if (cp.election_timeout > kMaxEtcdElectionTimeout)
    t.fail_value("election_timeout", "must be at most 50s (etcd refuses a longer one)");
  else if (cp.election_timeout < kEtcdElectionPerHeartbeat * cp.heartbeat)
    t.fail_value("election_timeout", "must be at least 5 heartbeats (" +
                                         format_duration(kEtcdElectionPerHeartbeat * cp.heartbeat) +
                                         "), as etcd requires");
}

void read_zookeeper(Section& t, CpSpec& cp) {
  if (!t.check_keys({"members", "tick"})) return;
  read_members(t, cp);
  read_ms(t, "tick", "ZooKeeper", cp.tick);
}

// Why the lock's ttl does not fit the topology's rule, or nullopt.
std::optional<std::string> lock_ttl_problem(const Scenario& s) {
  const Duration ttl = s.lock.ttl;
  if (s.topology == Topology::Etcd && ttl % std::chrono::seconds(1) != Duration::zero())
    return "is the etcd lease TTL: whole seconds (LeaseGrant takes seconds), got " + format_duration(ttl);
  if (s.topology == Topology::ZooKeeper && ttl % std::chrono::milliseconds(1) != Duration::zero())
    return "is the ZooKeeper session timeout: whole milliseconds (the client sends milliseconds), got " +
           format_duration(ttl);
  return std::nullopt;
}

}  // namespace

std::vector<std::string> cp_ttl_adjustments(const Scenario& s) {
  const Duration ttl = s.lock.ttl;
  if (s.topology == Topology::Etcd) {
    sim::consensus::EtcdConfig etcd;
    etcd.raft.election_timeout = s.cp.election_timeout;
    etcd.raft.heartbeat = s.cp.heartbeat;
    const Duration min_ttl = std::chrono::seconds(etcd.min_lease_ttl());
    if (ttl >= min_ttl) return {};
    return {"etcd raises the lease TTL " + format_duration(ttl) + " to its minimum " + format_duration(min_ttl) +
            " (1.5 election timeouts of " + format_duration(s.cp.election_timeout) + ", rounded up to seconds)"};
  }
  if (s.topology != Topology::ZooKeeper) return {};
  sim::consensus::ZkConfig zk;
  zk.tick = s.cp.tick;
  const Duration negotiated = std::clamp(ttl, zk.min_session_timeout(), zk.max_session_timeout());
  if (negotiated == ttl) return {};
  return {"ZooKeeper negotiates the session timeout " + format_duration(ttl) + " to " + format_duration(negotiated) +
          " (the server clamps it to 2..20 ticks of " + format_duration(s.cp.tick) + ": " +
          format_duration(zk.min_session_timeout()) + " .. " + format_duration(zk.max_session_timeout()) + ")"};
}

const char* cp_table_name(Topology topology) { return topology == Topology::Etcd ? "etcd" : "zookeeper"; }

toml::table cp_table(const Scenario& s) {
  const CpSpec d;
  toml::table t;
  t.insert("members", std::int64_t{s.cp.members});
  if (s.topology == Topology::Etcd) {
    if (s.cp.election_timeout != d.election_timeout) t.insert("election_timeout", duration_text(s.cp.election_timeout));
    if (s.cp.heartbeat != d.heartbeat) t.insert("heartbeat", duration_text(s.cp.heartbeat));
  } else if (s.cp.tick != d.tick) {
    t.insert("tick", duration_text(s.cp.tick));
  }
  return t;
}

std::string default_cp_lock(Topology topology) { return topology == Topology::Etcd ? "etcd-mutex" : "zk-lock"; }

void read_cp_topology(Section& root, Scenario& s) {
  const bool etcd = root.has("etcd");
  const bool zk = root.has("zookeeper");
  if (!etcd && !zk) return;
  const std::string mine = etcd ? "etcd" : "zookeeper";
  if (etcd && zk)
    return void(root.fail_value("zookeeper", "a scenario has one topology: [etcd] or [zookeeper], not both"));
  if (root.has("redis"))
    return void(root.fail_value(mine, "a scenario has one topology: [redis] or [" + mine + "], not both"));
  // Checked here, not by Section::sub: the message has no ", got <type>".
  if (!root.node(mine)->is_table()) return void(root.fail_value(mine, "expected a table ([" + mine + "])"));
  std::optional<Section> table = root.sub(mine);
  s.topology = etcd ? Topology::Etcd : Topology::ZooKeeper;
  if (!root.table().at_path("lock.kind")) s.lock_kind = default_cp_lock(s.topology);
  if (etcd) read_etcd(*table, s.cp);
  else read_zookeeper(*table, s.cp);
}

void check_cp_lock_ttl(Section& root, const Scenario& s) {
  const auto problem = lock_ttl_problem(s);
  if (!problem) return;
  // At the ttl's line, else [lock]'s, else the top of the file.
  if (std::optional<Section> lock = root.sub("lock")) lock->fail_value("ttl", *problem);
  else root.fail_value("lock.ttl", *problem);
}

}  // namespace locksim::scenarios
