// CP topologies: a CP service's table ([etcd] / [zookeeper]) in a scenario
// file, read with the Section readers through the service's row
// (services.hpp; each service's own reader and TTL rules are in its
// <service>_service.cpp; cp_topology.hpp has the contract and the sources).
#include "scenarios/cp_topology.hpp"

#include <algorithm>

#include "scenarios/cp_topology_parse.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/services.hpp"

namespace locksim::scenarios {

// `members`: 1..kMaxCpMembers. Its own wording (it says the value it got),
// not Section::integer's.
void read_cp_members(Section& t, CpSpec& cp) {
  const toml::node* n = t.node("members");
  if (!n) return;
  if (!n->is_integer()) return void(t.fail_value("members", "expected an integer"));
  const std::int64_t v = n->as_integer()->get();
  if (v < 1 || v > kMaxCpMembers)
    return void(t.fail_value("members", "must be between 1 and " + std::to_string(kMaxCpMembers) + " (got " +
                                            std::to_string(v) + ")"));
  cp.members = static_cast<int>(v);
}

// The hints suggest millisecond values, unlike Section::duration's.
void read_cp_ms(Section& t, std::string_view key, std::string_view service, Duration& out) {
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

std::vector<std::string> cp_ttl_adjustments(const Scenario& s) {
  const CpServiceOps* cp = service_row(s.topology).cp;
  if (!cp) return {};
  if (auto adjusted = cp->ttl_adjustment(s)) return {std::move(*adjusted)};
  return {};
}

const char* cp_table_name(locks::Topology topology) { return service_row(topology).table.data(); }

toml::table cp_table(const Scenario& s) {
  toml::table t;
  t.insert("members", std::int64_t{s.cp.members});
  service_row(s.topology).cp->write(s.cp, t);
  return t;
}

std::string default_cp_lock(locks::Topology topology) { return std::string(service_row(topology).default_lock); }

namespace {

// The CP tables the file has, in service order.
std::vector<const ServiceRow*> cp_tables_in(const Section& root) {
  std::vector<const ServiceRow*> found;
  for (const ServiceRow* row : services())
    if (row->cp && root.has(row->table)) found.push_back(row);
  return found;
}

}  // namespace

void read_cp_topology(Section& root, Scenario& s) {
  const std::vector<const ServiceRow*> found = cp_tables_in(root);
  if (found.empty()) return;
  const std::string mine(found[0]->table);
  if (found.size() > 1)
    return void(root.fail_value(found[1]->table, "a scenario has one topology: [" + mine + "] or [" +
                                                     std::string(found[1]->table) + "], not both"));
  if (root.has("redis"))
    return void(root.fail_value(mine, "a scenario has one topology: [redis] or [" + mine + "], not both"));
  // Checked here, not by Section::sub: the message has no ", got <type>".
  if (!root.node(mine)->is_table()) return void(root.fail_value(mine, "expected a table ([" + mine + "])"));
  std::optional<Section> table = root.sub(mine);
  s.topology = found[0]->topology;
  if (!root.table().at_path("lock.kind")) s.lock_kind = default_cp_lock(s.topology);
  found[0]->cp->read(*table, s.cp);
}

void check_cp_lock_ttl(Section& root, const Scenario& s) {
  const CpServiceOps* cp = service_row(s.topology).cp;
  const auto problem = cp ? cp->ttl_problem(s.lock.ttl) : std::nullopt;
  if (!problem) return;
  // At the ttl's line, else [lock]'s, else the top of the file.
  if (std::optional<Section> lock = root.sub("lock")) lock->fail_value("ttl", *problem);
  else root.fail_value("lock.ttl", *problem);
}

}  // namespace locksim::scenarios
