// CP topologies: [etcd] / [zookeeper] in a scenario file, their host names,
// and the lock TTL rules each service imposes (cp_topology.hpp has the
// contract and the sources).
#include "scenarios/cp_topology.hpp"

#include <algorithm>

#include "scenarios/cp_topology_parse.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/scenario_writer.hpp"

namespace locksim::scenarios {

namespace {

using locks::Topology;
using Problem = std::optional<BoundProblem>;

// etcd's embed.Config.Validate: ElectionMs <= maxElectionMs (50000) and at
// least 5 × TickMs.
constexpr Duration kMaxEtcdElectionTimeout = std::chrono::seconds(50);
constexpr std::int64_t kEtcdElectionPerHeartbeat = 5;
// ZooKeeperServer: minSessionTimeout = 2 × tickTime, maxSessionTimeout = 20 × tickTime.
constexpr std::int64_t kZkMinSessionTicks = 2;
constexpr std::int64_t kZkMaxSessionTicks = 20;

BoundProblem at(const toml::table& file, const std::string& path, std::string message) {
  return BoundProblem{line_at(file, path), path, std::move(message)};
}

Problem unknown_key(const toml::table& file, const toml::table& t, const std::string& table,
                    const std::vector<std::string>& known) {
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const auto close = close_names(key, known);
    std::string names;
    for (const auto& n : known) names += (names.empty() ? "" : ", ") + n;
    return at(file, table + "." + key,
              close.empty() ? "unknown key (known keys: " + names + ")"
                            : "unknown key (did you mean \"" + close.front() + "\"?)");
  }
  return std::nullopt;
}

Problem read_members(const toml::table& file, const toml::table& t, const std::string& table, CpSpec& cp) {
  const toml::node* n = t.get("members");
  if (!n) return std::nullopt;
  const std::string path = table + ".members";
  if (!n->is_integer()) return at(file, path, "expected an integer");
  const std::int64_t v = n->as_integer()->get();
  if (v < 1 || v > kMaxCpMembers)
    return at(file, path, "must be between 1 and " + std::to_string(kMaxCpMembers) + " (got " + std::to_string(v) + ")");
  cp.members = static_cast<int>(v);
  return std::nullopt;
}

// A positive duration in whole milliseconds (etcd and ZooKeeper take ms).
Problem read_ms(const toml::table& file, const toml::table& t, const std::string& table, const char* key,
                Duration& out) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  const std::string path = table + "." + key;
  if (!n->is_string()) return at(file, path, "expected a duration string like \"100ms\"");
  const auto d = parse_duration(n->as_string()->get());
  if (!d) return at(file, path, "bad duration \"" + n->as_string()->get() + "\": expected e.g. \"100ms\" or \"1s\"");
  if (auto over = duration_over_cap(*d)) return at(file, path, *over);
  if (*d <= Duration::zero()) return at(file, path, "must be positive");
  if (*d % std::chrono::milliseconds(1) != Duration::zero())
    return at(file, path, "must be whole milliseconds (" + std::string(table == "etcd" ? "etcd" : "ZooKeeper") +
                              " takes milliseconds)");
  out = *d;
  return std::nullopt;
}

Problem read_etcd(const toml::table& file, const toml::table& t, CpSpec& cp) {
  if (auto p = unknown_key(file, t, "etcd", {"members", "election_timeout", "heartbeat"})) return p;
  if (auto p = read_members(file, t, "etcd", cp)) return p;
  if (auto p = read_ms(file, t, "etcd", "election_timeout", cp.election_timeout)) return p;
  if (auto p = read_ms(file, t, "etcd", "heartbeat", cp.heartbeat)) return p;
  if (cp.election_timeout > kMaxEtcdElectionTimeout)
    return at(file, "etcd.election_timeout", "must be at most 50s (etcd refuses a longer one)");
  if (cp.election_timeout < kEtcdElectionPerHeartbeat * cp.heartbeat)
    return at(file, "etcd.election_timeout",
              "must be at least 5 heartbeats (" + sim::format_duration(kEtcdElectionPerHeartbeat * cp.heartbeat) +
                  "), as etcd requires");
  return std::nullopt;
}

Problem read_zookeeper(const toml::table& file, const toml::table& t, CpSpec& cp) {
  if (auto p = unknown_key(file, t, "zookeeper", {"members", "tick"})) return p;
  if (auto p = read_members(file, t, "zookeeper", cp)) return p;
  return read_ms(file, t, "zookeeper", "tick", cp.tick);
}

}  // namespace

std::string cp_member_name(Topology topology, int member) {
  return std::string(topology == Topology::Etcd ? "etcd-" : "zk-") + std::to_string(member);
}

std::vector<std::string> cp_member_names(const Scenario& s) {
  std::vector<std::string> names;
  if (s.topology == Topology::Redis) return names;
  for (int m = 1; m <= s.cp.members; ++m) names.push_back(cp_member_name(s.topology, m));
  return names;
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

std::optional<BoundProblem> read_cp_topology(const toml::table& file, Scenario& s) {
  const toml::node* etcd = file.get("etcd");
  const toml::node* zk = file.get("zookeeper");
  if (!etcd && !zk) return std::nullopt;
  const char* mine = etcd ? "etcd" : "zookeeper";
  if (etcd && zk) return at(file, "zookeeper", "a scenario has one topology: [etcd] or [zookeeper], not both");
  if (file.get("redis"))
    return at(file, mine, std::string("a scenario has one topology: [redis] or [") + mine + "], not both");
  const toml::node* table = etcd ? etcd : zk;
  if (!table->is_table()) return at(file, mine, std::string("expected a table ([") + mine + "])");
  s.topology = etcd ? Topology::Etcd : Topology::ZooKeeper;
  if (!file.at_path("lock.kind")) s.lock_kind = default_cp_lock(s.topology);
  return etcd ? read_etcd(file, *table->as_table(), s.cp) : read_zookeeper(file, *table->as_table(), s.cp);
}

std::optional<BoundProblem> check_cp_lock_ttl(const toml::table& file, const Scenario& s) {
  const std::string path = "lock.ttl";
  const Duration ttl = s.lock.ttl;
  if (s.topology == Topology::Etcd && ttl % std::chrono::seconds(1) != Duration::zero())
    return at(file, path, "is the etcd lease TTL: whole seconds (LeaseGrant takes seconds), got " +
                              sim::format_duration(ttl));
  if (s.topology == Topology::ZooKeeper &&
      (ttl < kZkMinSessionTicks * s.cp.tick || ttl > kZkMaxSessionTicks * s.cp.tick))
    return at(file, path, "is the ZooKeeper session timeout: between 2 and 20 ticks (" +
                              sim::format_duration(kZkMinSessionTicks * s.cp.tick) + " .. " +
                              sim::format_duration(kZkMaxSessionTicks * s.cp.tick) + " with [" +
                              cp_table_name(s.topology) + "] tick = " + sim::format_duration(s.cp.tick) + "), got " +
                              sim::format_duration(ttl));
  return std::nullopt;
}

}  // namespace locksim::scenarios
