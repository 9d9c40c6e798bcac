// Scenario → TOML (toml++ table + its emitter) and field-by-field equality.
//
// The writer mirrors the loader's walk (scenarios/scenario.cpp): the same
// tables and keys, values in the forms the loader accepts. Defaults are
// compared with a default-constructed Scenario so that a changed default
// in scenario.hpp cannot make the writer drop a value the loader would not
// restore.
#include "scenarios/scenario_writer.hpp"

#include <toml++/toml.h>

#include <sstream>

#include "scenarios/cp_topology_parse.hpp"
#include "scenarios/duration.hpp"
#include "scenarios/inventory_workload_parse.hpp"
#include "vocab/partition_mode.hpp"

namespace locksim::scenarios {

namespace {

std::string fsync_name(sim::redis::Fsync f) {
  switch (f) {
    case sim::redis::Fsync::Always: return "always";
    case sim::redis::Fsync::No: return "no";
    default: return "everysec";
  }
}

toml::array string_array(const auto& items) {
  toml::array a;
  for (const auto& s : items) a.push_back(std::string(s));
  return a;
}

toml::table redis_table(const RedisSpec& r) {
  const RedisSpec d;
  toml::table t;
  t.insert("masters", std::int64_t{r.masters});
  if (r.replicas != d.replicas) t.insert("replicas", std::int64_t{r.replicas});
  if (r.replication_lag != d.replication_lag) t.insert("replication_lag", duration_text(r.replication_lag));
  if (r.appendonly != d.appendonly) t.insert("appendonly", r.appendonly);
  if (r.appendfsync != d.appendfsync) t.insert("appendfsync", fsync_name(r.appendfsync));
  if (r.fsync_duration != d.fsync_duration) t.insert("fsync_duration", duration_text(r.fsync_duration));
  if (r.background_writes_per_second != d.background_writes_per_second)
    t.insert("background_writes_per_second", std::int64_t{r.background_writes_per_second});
  if (r.failover_after != d.failover_after) t.insert("failover_after", duration_text(r.failover_after));
  if (r.min_replicas_to_write != d.min_replicas_to_write)
    t.insert("min_replicas_to_write", std::int64_t{r.min_replicas_to_write});
  if (r.parallel_syncs != d.parallel_syncs) t.insert("parallel_syncs", std::int64_t{r.parallel_syncs});
  if (r.failover_timeout != d.failover_timeout) t.insert("failover_timeout", duration_text(r.failover_timeout));
  if (r.redis84 != d.redis84) t.insert("redis84", r.redis84);
  return t;
}

toml::table network_table(const NetworkSpec& n) {
  const NetworkSpec d;
  toml::table t;
  t.insert("latency", duration_range_text(n.latency));
  t.insert("timeout", duration_text(n.timeout));
  if (n.tail_per_mille != d.tail_per_mille) t.insert("tail_per_mille", std::int64_t{n.tail_per_mille});
  if (n.tail_max_shift != d.tail_max_shift) t.insert("tail_max_shift", std::int64_t{n.tail_max_shift});
  return t;
}

toml::table lock_table(const Scenario& s) {
  const locks::LockConfig d;
  const locks::LockConfig& c = s.lock;
  toml::table t;
  t.insert("kind", s.lock_kind);
  t.insert("ttl", duration_text(c.ttl));
  t.insert("retry", duration_text(c.retry));
  t.insert("acquire_timeout", duration_text(c.acquire_timeout));
  if (c.track_validity != d.track_validity) t.insert("track_validity", c.track_validity);
  if (c.node_timeout != d.node_timeout) t.insert("node_timeout", duration_text(c.node_timeout));
  if (c.clock != d.clock) t.insert("clock", c.clock == locks::RedlockClock::Wall ? "wall" : "monotonic");
  if (c.check_validity_after_acquire != d.check_validity_after_acquire)
    t.insert("check_validity_after_acquire", c.check_validity_after_acquire);
  if (c.retry_jitter != d.retry_jitter) t.insert("retry_jitter", duration_text(c.retry_jitter));
  if (c.counter_node != d.counter_node) t.insert("counter_node", c.counter_node);
  if (c.counter_key != d.counter_key) t.insert("counter_key", c.counter_key);
  if (!c.command.empty()) t.insert("command", string_array(c.command));
  if (!c.adapter_options.empty()) {
    toml::table options;
    for (const auto& [key, value] : c.adapter_options) options.insert(key, value);
    t.insert("options", std::move(options));
  }
  if (c.thread_id != d.thread_id) t.insert("thread_id", c.thread_id);
  if (c.thread_name != d.thread_name) t.insert("thread_name", c.thread_name);
  if (c.renew_interval != d.renew_interval) t.insert("renew_interval", duration_text(c.renew_interval));
  return t;
}

// A buyer (inventory) has `buys` instead of `writes` and `iterations`.
toml::table client_table(const ClientSpec& c, bool buyer) {
  toml::table t;
  t.insert("name", c.name);
  if (c.start != Duration::zero()) t.insert("start", duration_text(c.start));
  t.insert("work", duration_text(c.work));
  if (buyer) {
    if (c.buys != 1) t.insert("buys", std::int64_t{c.buys});
  } else {
    t.insert("writes", std::int64_t{c.writes});
    if (c.iterations != 1) t.insert("iterations", std::int64_t{c.iterations});
  }
  if (c.clock_drift_ppm != 0) t.insert("clock_drift_ppm", c.clock_drift_ppm);
  if (c.extends) t.insert("extends", true);
  return t;
}

// One of a fault's keys in the form the loader reads; an optional key only
// when it differs from its absence.
void insert_fault_key(toml::table& t, const FaultSpec& f, std::string_view key, bool required) {
  if (key == "target") t.insert("target", f.target);
  else if (key == "from") t.insert("from", f.from);
  else if (key == "to") t.insert("to", f.to);
  else if (key == "by") t.insert("by", duration_text(f.by, true));
  else if (key == "ppm") t.insert("ppm", f.ppm);
  else if (key == "duration" && (required || f.duration != Duration::zero()))
    t.insert("duration", duration_text(f.duration));
  else if (key == "restart_after" && f.restart_after) t.insert("restart_after", duration_text(*f.restart_after));
  else if (key == "mode" && f.mode == PartitionMode::Drop) t.insert("mode", "drop");
  else if (key == "groups") {
    toml::array groups;
    for (const auto& g : f.groups) groups.push_back(string_array(g));
    t.insert("groups", std::move(groups));
  }
}

// Exactly the keys the fault kind table gives the loader (fault_kinds.hpp).
toml::table fault_table(const FaultSpec& f) {
  const FaultKindInfo& info = fault_kind_info(f.kind);
  toml::table t;
  t.insert("kind", std::string(info.name));
  for (auto key : info.required) insert_fault_key(t, f, key, true);
  for (auto key : info.optional) insert_fault_key(t, f, key, false);
  if (f.after) t.insert("after", f.after->text());
  if (f.at != Duration::zero() || !f.after) t.insert("at", duration_text(f.at));
  return t;
}

toml::table nemesis_table(const NemesisSpec& n) {
  toml::table t;
  toml::array kinds;
  for (FaultKind k : n.kinds) kinds.push_back(std::string(fault_kind_name(k)));
  t.insert("kinds", std::move(kinds));
  t.insert("mean_interval", duration_text(n.mean_interval));
  t.insert("max_duration", duration_text(n.max_duration));
  if (!n.targets.empty()) t.insert("targets", string_array(n.targets));
  return t;
}

toml::table by_lock_table(const std::map<std::string, std::set<std::string>>& by_lock) {
  toml::table t;
  for (const auto& [kind, set] : by_lock) t.insert(kind, string_array(set));
  return t;
}

bool has_expectation(const Scenario& s) {
  return s.expect_default || !s.expect_by_lock.empty() || !s.expect_may_default.empty() ||
         !s.expect_may_by_lock.empty();
}

toml::table expect_table(const Scenario& s) {
  toml::table t;
  if (s.expect_default) t.insert("violations", string_array(*s.expect_default));
  if (!s.expect_may_default.empty()) t.insert("may", string_array(s.expect_may_default));
  if (!s.expect_by_lock.empty()) t.insert("by_lock", by_lock_table(s.expect_by_lock));
  if (!s.expect_may_by_lock.empty()) t.insert("may_by_lock", by_lock_table(s.expect_may_by_lock));
  return t;
}

const char* workload_kind_name(WorkloadKind k) {
  return k == WorkloadKind::Gate ? "gate" : k == WorkloadKind::Inventory ? "inventory" : "lock";
}

toml::array tables_array(const auto& items, auto to_table) {
  toml::array a;
  for (const auto& item : items) a.push_back(to_table(item));
  return a;
}

}  // namespace

std::string scenario_to_toml(const Scenario& s) {
  toml::table root;
  root.insert("name", s.name);
  if (!s.description.empty()) root.insert("description", s.description);
  root.insert("duration", duration_text(s.duration));
  toml::table workload{{"kind", workload_kind_name(s.workload)}, {"key", s.lock.key}};
  insert_inventory_keys(workload, s);
  root.insert("workload", std::move(workload));
  root.insert("lock", lock_table(s));
  if (s.topology == locks::Topology::Redis) root.insert("redis", redis_table(s.redis));
  else root.insert(cp_table_name(s.topology), cp_table(s));
  root.insert("network", network_table(s.network));
  toml::table storage{{"fencing", s.fencing}};
  if (s.unique) storage.insert("unique", true);
  root.insert("storage", std::move(storage));
  if (s.liveness) root.insert("check", toml::table{{"liveness", duration_text(*s.liveness)}});
  const bool buyers = s.workload == WorkloadKind::Inventory;
  root.insert("client", tables_array(s.clients, [buyers](const ClientSpec& c) { return client_table(c, buyers); }));
  if (!s.faults.empty()) root.insert("fault", tables_array(s.faults, fault_table));
  if (s.nemesis) root.insert("nemesis", nemesis_table(*s.nemesis));
  if (has_expectation(s)) root.insert("expect", expect_table(s));
  if (s.live_time_scale_ppm)
    root.insert("live", toml::table{{"time_scale", static_cast<double>(*s.live_time_scale_ppm) / 1e6}});
  // One-line strings only: a newline in a name or description is written
  // as \n, so a scenario printed on a terminal (hunt, check) shows each
  // control character escaped, never a line of its own.
  std::ostringstream out;
  out << toml::toml_formatter{root, toml::toml_formatter::default_flags & ~toml::format_flags::allow_multi_line_strings}
      << "\n";
  return out.str();
}

// ---------------------------------------------------------------------------
// Equality, naming the first difference.

namespace {

class Diff {
 public:
  template <class T>
  Diff& eq(const std::string& field, const T& a, const T& b) {
    if (first_.empty() && !(a == b)) first_ = field;
    return *this;
  }
  Diff& range(const std::string& field, const DurationRange& a, const DurationRange& b) {
    return eq(field + ".min", a.min, b.min).eq(field + ".max", a.max, b.max);
  }
  const std::string& first() const { return first_; }
  bool done() const { return !first_.empty(); }

 private:
  std::string first_;
};

std::string trigger_text(const std::optional<Trigger>& t) { return t ? t->text() : std::string(); }

void diff_lock(Diff& d, const locks::LockConfig& a, const locks::LockConfig& b) {
  d.eq("lock.key", a.key, b.key).eq("lock.ttl", a.ttl, b.ttl).eq("lock.retry", a.retry, b.retry);
  d.eq("lock.acquire_timeout", a.acquire_timeout, b.acquire_timeout);
  d.eq("lock.track_validity", a.track_validity, b.track_validity);
  d.eq("lock.node_timeout", a.node_timeout, b.node_timeout).eq("lock.clock", a.clock, b.clock);
  d.eq("lock.check_validity_after_acquire", a.check_validity_after_acquire, b.check_validity_after_acquire);
  d.eq("lock.retry_jitter", a.retry_jitter, b.retry_jitter).eq("lock.counter_node", a.counter_node, b.counter_node);
  d.eq("lock.counter_key", a.counter_key, b.counter_key).eq("lock.thread_id", a.thread_id, b.thread_id);
  d.eq("lock.thread_name", a.thread_name, b.thread_name);
  d.eq("lock.renew_interval", a.renew_interval, b.renew_interval);
}

void diff_topology(Diff& d, const Scenario& a, const Scenario& b) {
  d.eq("topology", a.topology, b.topology).eq("cp.members", a.cp.members, b.cp.members);
  d.eq("cp.election_timeout", a.cp.election_timeout, b.cp.election_timeout);
  d.eq("cp.heartbeat", a.cp.heartbeat, b.cp.heartbeat).eq("cp.tick", a.cp.tick, b.cp.tick);
  const RedisSpec &x = a.redis, &y = b.redis;
  d.eq("redis.masters", x.masters, y.masters).eq("redis.replicas", x.replicas, y.replicas);
  d.eq("redis.replication_lag", x.replication_lag, y.replication_lag).eq("redis.appendonly", x.appendonly, y.appendonly);
  d.eq("redis.appendfsync", x.appendfsync, y.appendfsync);
  d.eq("redis.fsync_duration", x.fsync_duration, y.fsync_duration);
  d.eq("redis.background_writes_per_second", x.background_writes_per_second, y.background_writes_per_second);
  d.eq("redis.failover_after", x.failover_after, y.failover_after);
  d.eq("redis.min_replicas_to_write", x.min_replicas_to_write, y.min_replicas_to_write);
  d.eq("redis.parallel_syncs", x.parallel_syncs, y.parallel_syncs);
  d.eq("redis.failover_timeout", x.failover_timeout, y.failover_timeout);
  d.eq("redis.redis84", x.redis84, y.redis84);
  d.range("network.latency", a.network.latency, b.network.latency);
  d.eq("network.tail_per_mille", a.network.tail_per_mille, b.network.tail_per_mille);
  d.eq("network.tail_max_shift", a.network.tail_max_shift, b.network.tail_max_shift);
  d.eq("network.timeout", a.network.timeout, b.network.timeout);
  d.eq("storage.fencing", a.fencing, b.fencing).eq("check.liveness", a.liveness, b.liveness);
  d.eq("storage.unique", a.unique, b.unique);
}

void diff_clients(Diff& d, const Scenario& a, const Scenario& b) {
  d.eq("client.count", a.clients.size(), b.clients.size());
  for (std::size_t i = 0; i < a.clients.size() && !d.done(); ++i) {
    const std::string p = "client[" + std::to_string(i + 1) + "].";
    const ClientSpec &x = a.clients[i], &y = b.clients[i];
    d.eq(p + "name", x.name, y.name).eq(p + "start", x.start, y.start).eq(p + "work", x.work, y.work);
    d.eq(p + "writes", x.writes, y.writes).eq(p + "iterations", x.iterations, y.iterations);
    d.eq(p + "clock_drift_ppm", x.clock_drift_ppm, y.clock_drift_ppm).eq(p + "buys", x.buys, y.buys);
    d.eq(p + "extends", x.extends, y.extends);
  }
}

void diff_faults(Diff& d, const Scenario& a, const Scenario& b) {
  d.eq("fault.count", a.faults.size(), b.faults.size());
  for (std::size_t i = 0; i < a.faults.size() && !d.done(); ++i) {
    const std::string p = "fault[" + std::to_string(i + 1) + "].";
    const FaultSpec &x = a.faults[i], &y = b.faults[i];
    d.eq(p + "kind", x.kind, y.kind).eq(p + "target", x.target, y.target);
    d.eq(p + "from", x.from, y.from).eq(p + "to", x.to, y.to).eq(p + "at", x.at, y.at);
    d.eq(p + "after", trigger_text(x.after), trigger_text(y.after));
    d.eq(p + "duration", x.duration, y.duration).eq(p + "by", x.by, y.by).eq(p + "ppm", x.ppm, y.ppm);
    d.eq(p + "restart_after", x.restart_after, y.restart_after).eq(p + "groups", x.groups, y.groups);
    d.eq(p + "mode", x.mode, y.mode);
  }
}

void diff_nemesis(Diff& d, const std::optional<NemesisSpec>& a, const std::optional<NemesisSpec>& b) {
  d.eq("nemesis", a.has_value(), b.has_value());
  if (!a || !b) return;
  d.eq("nemesis.kinds", a->kinds, b->kinds).eq("nemesis.mean_interval", a->mean_interval, b->mean_interval);
  d.eq("nemesis.max_duration", a->max_duration, b->max_duration).eq("nemesis.targets", a->targets, b->targets);
}

}  // namespace

std::string scenario_difference(const Scenario& a, const Scenario& b) {
  Diff d;
  d.eq("name", a.name, b.name).eq("description", a.description, b.description).eq("duration", a.duration, b.duration);
  d.eq("workload.kind", a.workload, b.workload).eq("lock.kind", a.lock_kind, b.lock_kind);
  d.eq("workload.stock", a.inventory.stock, b.inventory.stock).eq("workload.method", a.inventory.method, b.inventory.method);
  d.eq("workload.segments", a.inventory.segments, b.inventory.segments);
  d.eq("workload.per_buyer", a.inventory.per_buyer, b.inventory.per_buyer);
  diff_lock(d, a.lock, b.lock);
  diff_topology(d, a, b);
  diff_clients(d, a, b);
  diff_faults(d, a, b);
  diff_nemesis(d, a.nemesis, b.nemesis);
  d.eq("expect.violations", a.expect_default, b.expect_default).eq("expect.by_lock", a.expect_by_lock, b.expect_by_lock);
  d.eq("expect.may", a.expect_may_default, b.expect_may_default);
  d.eq("expect.may_by_lock", a.expect_may_by_lock, b.expect_may_by_lock);
  d.eq("live.time_scale", a.live_time_scale_ppm, b.live_time_scale_ppm);
  return d.first();
}

}  // namespace locksim::scenarios
