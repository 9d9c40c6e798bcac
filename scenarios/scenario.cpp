// Scenario loading: TOML (toml++) → Scenario, with every field validated.
//
// One Parser walks the document in a fixed order (root scalars, the topology
// table: [redis], [etcd] or [zookeeper], then [network], [storage],
// [workload], [lock], [check], [[client]], [[fault]], [nemesis], [expect])
// and keeps the first problem it meets as a located
// ScenarioError (`file:line: field: message`). The generic parts live
// elsewhere: the typed Section readers, the first-error sink and the guarded
// toml++ parse in toml_section.*, durations in duration.*, host names in
// host_names.*, each fault kind's keys and targets in fault_kinds.*. The only
// try/catch here is a last guard so nothing ever escapes the load functions.
#include "scenarios/scenario.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "locks/registry.hpp"
#include "scenarios/cp_topology_parse.hpp"
#include "scenarios/input_file.hpp"
#include "scenarios/lock_expectations.hpp"
#include "scenarios/inventory_workload_parse.hpp"
#include "scenarios/scenario_bounds.hpp"
#include "scenarios/toml_section.hpp"
#include "vocab/partition_mode.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::scenarios {

// ---------------------------------------------------------------------------
// Names

const std::vector<std::string>& violation_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& row : violation_kind_table()) out.emplace_back(row.name);
    return out;
  }();
  return names;
}

std::string ScenarioError::to_string() const {
  // Line 0 is the file as a whole (missing, unreadable, an unknown catalog
  // name): no ":0:" location, which would point at no line.
  return file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + field + ": " + message;
}

std::optional<std::set<std::string>> Scenario::expected_for(const std::string& kind) const {
  if (auto it = expect_by_lock.find(kind); it != expect_by_lock.end()) return it->second;
  return expect_default;
}

std::set<std::string> Scenario::may_for(const std::string& kind) const {
  if (auto it = expect_may_by_lock.find(kind); it != expect_may_by_lock.end()) return it->second;
  return expect_may_default;
}

bool Scenario::matches(const std::string& kind, const std::set<std::string>& found) const {
  const std::set<std::string> required = expected_for(kind).value_or(std::set<std::string>{});
  const std::set<std::string> may = may_for(kind);
  for (const auto& r : required)
    if (!found.count(r)) return false;
  for (const auto& f : found)
    if (!required.count(f) && !may.count(f)) return false;
  return true;
}

std::vector<std::string> host_names(const Scenario& s) {
  std::vector<std::string> names;
  for (const auto& c : s.clients) names.push_back(c.name);
  if (s.topology != locks::Topology::Redis) {
    const std::vector<std::string> members = cp_member_hosts(s.topology, s.cp.members);
    names.insert(names.end(), members.begin(), members.end());
  } else {
    const RedisHosts redis = redis_hosts(s.redis.masters, s.redis.replicas);
    names.insert(names.end(), redis.masters.begin(), redis.masters.end());
    names.insert(names.end(), redis.replicas.begin(), redis.replicas.end());
  }
  names.push_back(kStorageHost);
  return names;
}

// ---------------------------------------------------------------------------
// The parser

namespace {

// Built from the scenario read so far: what a host name may refer to.
struct Hosts {
  std::vector<std::string> clients, masters, replicas;
  std::vector<std::string> members;  // a CP topology's etcd-N / zk-N
  bool sentinel = false;  // the failover controller's host, when there are replicas
  bool is_client(std::string_view h) const { return has(clients, h); }
  bool is_master(std::string_view h) const { return has(masters, h); }
  bool is_redis(std::string_view h) const { return is_master(h) || has(replicas, h); }
  bool is_member(std::string_view h) const { return has(members, h); }
  bool is_server(std::string_view h) const { return is_redis(h) || is_member(h); }  // crashes and restarts
  std::string server_kind() const { return members.empty() ? "Redis node" : "CP member"; }
  bool known(std::string_view h) const {
    return is_client(h) || is_server(h) || h == kStorageHost || (sentinel && h == kSentinelHost);
  }
  std::vector<std::string> all() const {
    std::vector<std::string> v = clients;
    v.insert(v.end(), masters.begin(), masters.end());
    v.insert(v.end(), replicas.begin(), replicas.end());
    v.insert(v.end(), members.begin(), members.end());
    v.push_back(kStorageHost);
    if (sentinel) v.push_back(kSentinelHost);
    return v;
  }
  static bool has(const std::vector<std::string>& v, std::string_view h) {
    return std::find(v.begin(), v.end(), h) != v.end();
  }
};

class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)) {}

  bool fail(int line, std::string field, std::string message) {
    return errors_.fail(line, std::move(field), std::move(message));
  }
  bool failed() const { return errors_.failed(); }

  Result<Scenario, ScenarioError> run(const toml::table& root);

 private:
  void read_root(Section& root);
  void read_topology(Section& root);
  void read_redis(Section& root);
  void note_topology_hosts();
  void read_network(Section& root);
  void read_storage_and_check(Section& root);
  void read_workload(Section& root);
  void read_lock(Section& root);
  void check_lock_fits(const Section& at, std::string_view key, const std::string& kind);
  void read_counter_node(Section& lock);
  void read_lock_command(Section& lock);
  void read_adapter_options(Section& lock);
  void read_clients(Section& root);
  void read_client(Section& c, std::set<std::string>& seen);
  void read_faults(Section& root);
  void read_fault(Section& f);
  std::optional<FaultKind> read_fault_kind(Section& f);
  bool check_fault_shape(Section& f, FaultKind kind);
  void read_fault_hosts(Section& f, FaultSpec& fault);
  std::optional<std::string> read_host(Section& s, std::string_view key, TargetRole role);
  std::optional<Trigger> read_trigger(Section& f, std::string_view key);
  std::string trigger_problem(const Trigger& t) const;
  void read_groups(Section& f, FaultSpec& fault);
  void read_nemesis(Section& root);
  bool read_nemesis_kinds(Section& s, NemesisSpec& n);
  bool read_nemesis_targets(Section& s, NemesisSpec& n);
  void read_expect(Section& root);
  void read_live(Section& root);
  void read_expect_by_lock(Section& expect, const char* name, std::map<std::string, std::set<std::string>>& out);
  std::optional<std::set<std::string>> read_violations(const toml::node& n, const std::string& field);
  std::string hosts_hint() const;

  std::string file_;
  TomlErrors errors_;
  Scenario sc_;
  Hosts hosts_;
};

// --- The walk --------------------------------------------------------------

Result<Scenario, ScenarioError> Parser::run(const toml::table& root_table) {
  Section root(errors_, root_table, "");
  root.check_keys({"name", "description", "duration", "workload", "lock", "redis", "etcd", "zookeeper", "network",
                   "storage", "check", "client", "fault", "nemesis", "expect", "live"});
  if (!failed()) read_root(root);
  if (!failed()) read_topology(root);
  note_topology_hosts();
  if (!failed()) read_network(root);
  if (!failed()) read_storage_and_check(root);
  if (!failed()) read_workload(root);
  if (!failed()) read_lock(root);
  if (!failed()) read_clients(root);
  if (!failed()) read_inventory_workload(root, sc_);
  if (!failed()) read_faults(root);
  if (!failed()) read_nemesis(root);
  if (!failed()) read_expect(root);
  if (!failed()) read_live(root);
  if (!failed())
    if (auto problem = check_scenario_bounds(sc_, root_table)) fail(problem->line, problem->field, problem->message);
  if (!failed()) check_cp_lock_ttl(root, sc_);
  if (const auto& e = errors_.first()) return failure(ScenarioError{file_, e->line, e->field, e->message});
  sc_.source = file_;
  return std::move(sc_);
}

// The topology's table: [redis] (also the default when a file has none), or
// [etcd] / [zookeeper] instead (cp_topology_parse.hpp). Every backend's
// table is read here.
void Parser::read_topology(Section& root) {
  read_redis(root);
  if (!failed()) read_cp_topology(root, sc_);
}

// The hosts the topology made: what the later tables' host names may refer to.
void Parser::note_topology_hosts() {
  if (sc_.topology != locks::Topology::Redis) {
    hosts_.members = cp_member_hosts(sc_.topology, sc_.cp.members);
    return;
  }
  RedisHosts redis = redis_hosts(sc_.redis.masters, sc_.redis.replicas);
  hosts_.masters = std::move(redis.masters);
  hosts_.replicas = std::move(redis.replicas);
  hosts_.sentinel = sc_.redis.replicas > 0;
}

void Parser::read_root(Section& root) {
  if (auto v = root.string("name")) sc_.name = *v;
  else if (!failed()) root.missing("name", "every scenario needs a name");
  if (auto v = root.string("description", true)) sc_.description = *v;
  if (auto v = root.duration("duration", Sign::Positive)) sc_.duration = *v;
}

void Parser::read_redis(Section& root) {
  auto s = root.sub("redis");
  if (!s) return;
  if (!s->check_keys({"masters", "replicas", "replication_lag", "appendonly", "appendfsync", "failover_after",
                      "redis84", "min_replicas_to_write", "fsync_duration", "background_writes_per_second",
                      "parallel_syncs", "failover_timeout"}))
    return;
  RedisSpec& r = sc_.redis;
  if (auto v = s->integer("masters", 1, kMaxMasters)) r.masters = static_cast<int>(*v);
  if (auto v = s->integer("replicas", 0, kMaxReplicas)) r.replicas = static_cast<int>(*v);
  if (auto v = s->duration("replication_lag", Sign::NonNegative)) r.replication_lag = *v;
  if (auto v = s->boolean("appendonly")) r.appendonly = *v;
  if (auto v = s->choice("appendfsync", {"always", "everysec", "no"}))
    r.appendfsync = *v == "always" ? sim::redis::Fsync::Always
                    : *v == "no"   ? sim::redis::Fsync::No
                                   : sim::redis::Fsync::Everysec;
  if (auto v = s->duration("failover_after", Sign::NonNegative)) r.failover_after = *v;
  if (auto v = s->boolean("redis84")) r.redis84 = *v;
  if (auto v = s->integer("min_replicas_to_write", 0, kMaxReplicas)) r.min_replicas_to_write = static_cast<int>(*v);
  if (auto v = s->duration("fsync_duration", Sign::NonNegative)) r.fsync_duration = *v;
  if (auto v = s->integer("parallel_syncs", 1, kMaxReplicas)) r.parallel_syncs = static_cast<int>(*v);
  if (auto v = s->duration("failover_timeout", Sign::Positive)) r.failover_timeout = *v;
  if (auto v = s->integer("background_writes_per_second", 0, kMaxBackgroundWritesPerSecond))
    r.background_writes_per_second = static_cast<std::uint32_t>(*v);
  if (!failed() && r.min_replicas_to_write > r.replicas)
    s->fail_value("min_replicas_to_write", "is " + std::to_string(r.min_replicas_to_write) +
                                               " but each master has only " + std::to_string(r.replicas) +
                                               " replicas: every write would fail");
}

void Parser::read_network(Section& root) {
  auto s = root.sub("network");
  if (!s || !s->check_keys({"latency", "timeout", "tail_per_mille", "tail_max_shift"})) return;
  NetworkSpec& n = sc_.network;
  if (auto v = s->range("latency")) n.latency = *v;
  if (auto v = s->duration("timeout", Sign::Positive)) n.timeout = *v;
  if (auto v = s->integer("tail_per_mille", 0, 1000)) n.tail_per_mille = static_cast<std::uint32_t>(*v);
  if (auto v = s->integer("tail_max_shift", 0, kMaxTailShift)) n.tail_max_shift = static_cast<std::uint32_t>(*v);
}

void Parser::read_storage_and_check(Section& root) {
  if (auto s = root.sub("storage"); s && s->check_keys({"fencing", "unique"})) {
    if (auto v = s->boolean("fencing")) sc_.fencing = *v;
    if (auto v = s->boolean("unique")) sc_.unique = *v;
  }
  if (failed()) return;
  if (auto s = root.sub("check"); s && s->check_keys({"liveness"}))
    if (auto v = s->duration("liveness", Sign::Positive)) sc_.liveness = *v;
}

void Parser::read_workload(Section& root) {
  auto s = root.sub("workload");
  // stock, method, segments, per_buyer: read_inventory_workload.
  if (!s || !s->check_keys({"kind", "key", "stock", "method", "segments", "per_buyer"})) return;
  if (auto v = s->choice("kind", {"lock", "gate", "inventory"}))
    sc_.workload = *v == "gate" ? WorkloadKind::Gate : *v == "inventory" ? WorkloadKind::Inventory : WorkloadKind::Lock;
  if (auto v = s->string("key")) sc_.lock.key = *v;
}

std::string known_locks() {
  std::vector<std::string> names;
  for (const auto& info : locks::all_locks()) names.push_back(info.name);
  return joined(names);
}

// A lock kind must exist, and the topology must be able to run it.
void Parser::check_lock_fits(const Section& at, std::string_view key, const std::string& kind) {
  const toml::node* n = at.node(key);
  const int line = n ? line_of(n->source()) : at.line();
  const auto info = locks::find_lock(kind);
  if (!info) {
    fail(line, at.field(key), "unknown lock kind " + in_quotes(kind) + " (known: " + known_locks() + ")");
  } else if (auto why = locks::topology_mismatch(*info, sc_.topology)) {
    fail(line, at.field(key), *why);
  } else if (sc_.topology == locks::Topology::Redis && info->min_nodes > static_cast<std::size_t>(sc_.redis.masters)) {
    fail(line, at.field(key),
         in_quotes(kind) + " needs at least " + std::to_string(info->min_nodes) + " Redis masters; [redis] masters = " +
             std::to_string(sc_.redis.masters));
  }
}

void Parser::read_lock(Section& root) {
  auto s = root.sub("lock");
  if (!s) return;
  if (!s->check_keys({"kind", "ttl", "retry", "acquire_timeout", "track_validity", "node_timeout", "clock",
                      "check_validity_after_acquire", "retry_jitter", "counter_node", "counter_key", "thread_id",
                      "thread_name", "renew_interval", "command", "options"}))
    return;
  locks::LockConfig& c = sc_.lock;
  if (auto v = s->string("kind")) {
    sc_.lock_kind = *v;
    check_lock_fits(*s, "kind", *v);
  }
  if (auto v = s->duration("ttl", Sign::Positive)) {
    c.ttl = *v;
    if (*v < std::chrono::milliseconds(1)) s->fail_value("ttl", "must be at least 1ms (PX takes milliseconds)");
  }
  if (auto v = s->duration("retry", Sign::Positive)) c.retry = *v;
  if (auto v = s->duration("acquire_timeout", Sign::NonNegative)) c.acquire_timeout = *v;
  if (auto v = s->boolean("track_validity")) c.track_validity = *v;
  if (auto v = s->duration("node_timeout", Sign::NonNegative)) c.node_timeout = *v;
  if (auto v = s->choice("clock", {"monotonic", "wall"}))
    c.clock = *v == "wall" ? locks::RedlockClock::Wall : locks::RedlockClock::Monotonic;
  if (auto v = s->boolean("check_validity_after_acquire")) c.check_validity_after_acquire = *v;
  if (auto v = s->duration("retry_jitter", Sign::NonNegative)) c.retry_jitter = *v;
  read_counter_node(*s);
  if (auto v = s->string("counter_key")) c.counter_key = *v;
  if (auto v = s->string("thread_id")) c.thread_id = *v;
  if (auto v = s->string("thread_name")) c.thread_name = *v;
  if (auto v = s->duration("renew_interval", Sign::NonNegative)) c.renew_interval = *v;
  read_lock_command(*s);
  read_adapter_options(*s);
}

// `options`: a table of text settings for the client adapter (kind =
// "external" or lib:*), passed to it as they are; a non-string value is an
// error rather than a guess at its spelling ("0" vs 0 vs 0.0).
void Parser::read_adapter_options(Section& lock) {
  auto options = lock.sub("options");
  if (!options) return;
  for (const auto& [key, value] : options->table())
    if (auto text = options->string(key.str(), true)) sc_.lock.adapter_options[std::string(key.str())] = *text;
}

// `command`: the client adapter's program and its arguments (kind =
// "external", live/external_lock.hpp), a non-empty array of strings.
void Parser::read_lock_command(Section& lock) {
  const toml::array* command = lock.array("command");
  if (!command) return;
  if (command->empty()) {
    lock.fail_value("command", "is empty: name the adapter's program, e.g. [\"/usr/bin/python3\", \"adapter.py\"]");
    return;
  }
  for (const toml::node& part : *command) {
    const auto text = part.value<std::string>();
    if (!text || text->empty()) {
      fail(line_of(part.source()), lock.field("command"),
           text ? "an empty argument" : "expected a string, got " + type_name(part));
      return;
    }
    sc_.lock.command.push_back(*text);
  }
}

void Parser::read_counter_node(Section& lock) {
  const toml::node* n = lock.node("counter_node");
  if (!n) return;
  const int masters = sc_.redis.masters;
  if (n->is_string()) {
    const std::string name = n->as_string()->get();
    for (int m = 1; m <= masters; ++m)
      if (name == redis_host_name(m, 0)) {
        sc_.lock.counter_node = m - 1;
        return;
      }
    lock.fail_value("counter_node", in_quotes(name) + " is not a Redis master (" + redis_host_name(1) + " .. " +
                                        redis_host_name(masters) + ")");
    return;
  }
  if (!n->is_integer()) {
    lock.fail_value("counter_node", "expected a Redis master name like \"" + redis_host_name(5) + "\" or a 0-based index, got " +
                                        type_name(*n));
    return;
  }
  if (auto v = lock.integer("counter_node", -1, masters - 1)) sc_.lock.counter_node = *v;
}

// --- [[client]] --------------------------------------------------------------

bool valid_client_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
           ch == '.';
  });
}

void Parser::read_clients(Section& root) {
  const auto tables = root.tables("client");
  if (failed()) return;
  if (tables.empty()) {
    root.fail_value("client", "at least one [[client]] is required");
    return;
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < tables.size() && !failed(); ++i) {
    Section c(errors_, *tables[i], "client[" + std::to_string(i + 1) + "]");
    read_client(c, seen);
  }
  for (const auto& c : sc_.clients) hosts_.clients.push_back(c.name);
}

void Parser::read_client(Section& c, std::set<std::string>& seen) {
  // buys: read_inventory_workload.
  if (!c.check_keys({"name", "start", "work", "writes", "iterations", "clock_drift_ppm", "buys", "extends"})) return;
  ClientSpec spec;
  const auto name = c.string("name");
  if (!name) {
    if (!failed()) c.missing("name", "every client needs a name");
    return;
  }
  if (!valid_client_name(*name))
    c.fail_value("name", "bad client name " + in_quotes(*name) + ": use letters, digits, '_', '-' and '.'");
  else if (is_reserved_host_name(*name))
    c.fail_value("name", in_quotes(*name) + " is reserved for a Redis node, the storage or the sentinel host");
  else if (hosts_.is_member(*name))
    c.fail_value("name", in_quotes(*name) + " is reserved for a member of the CP topology");
  else if (!seen.insert(*name).second)
    c.fail_value("name", "duplicate client name " + in_quotes(*name));
  spec.name = *name;
  if (auto v = c.duration("start", Sign::NonNegative)) spec.start = *v;
  if (auto v = c.duration("work", Sign::NonNegative)) spec.work = *v;
  if (auto v = c.integer("writes", 0, kMaxWrites)) spec.writes = static_cast<int>(*v);
  if (auto v = c.integer("iterations", 1, kMaxIterations)) spec.iterations = static_cast<int>(*v);
  if (auto v = c.integer("clock_drift_ppm", -kMaxPpm, kMaxPpm)) spec.clock_drift_ppm = *v;
  if (auto v = c.boolean("extends")) spec.extends = *v;
  if (!failed() && spec.extends && sc_.workload != WorkloadKind::Lock)
    c.fail_value("extends", "only for [workload] kind = \"lock\" (a client extends its lock before each write)");
  if (!failed() && spec.start >= sc_.duration)
    c.fail_value("start", "the run ends at " + format_duration(sc_.duration) + ", before this client starts");
  sc_.clients.push_back(std::move(spec));
}

// --- [[fault]] ---------------------------------------------------------------

void Parser::read_faults(Section& root) {
  const auto tables = root.tables("fault");
  for (std::size_t i = 0; i < tables.size() && !failed(); ++i) {
    Section f(errors_, *tables[i], "fault[" + std::to_string(i + 1) + "]");
    read_fault(f);
  }
}

void Parser::read_fault(Section& f) {
  if (!f.check_keys({"kind", "target", "from", "to", "at", "after", "duration", "by", "ppm", "restart_after",
                     "groups", "mode"}))
    return;
  const auto kind = read_fault_kind(f);
  if (!kind || !check_fault_shape(f, *kind)) return;
  FaultSpec fault;
  fault.kind = *kind;
  fault.line = f.line();
  if (auto v = f.duration("at", Sign::NonNegative)) fault.at = *v;
  fault.after = read_trigger(f, "after");
  if (!failed() && !fault.after && fault.at >= sc_.duration)
    f.fail_value("at", "the run ends at " + format_duration(sc_.duration) + ", before this fault");
  const Sign duration_sign = fault_kind_info(*kind).duration_may_be_zero ? Sign::NonNegative : Sign::Positive;
  if (auto v = f.duration("duration", duration_sign)) fault.duration = *v;
  if (auto v = f.duration("by", Sign::Signed)) fault.by = *v;
  if (auto v = f.integer("ppm", -kMaxPpm, kMaxPpm)) fault.ppm = *v;
  fault.restart_after = f.duration("restart_after", Sign::NonNegative);
  if (auto v = f.choice("mode", {"hold", "drop"}))
    fault.mode = *v == "drop" ? PartitionMode::Drop : PartitionMode::Hold;
  read_fault_hosts(f, fault);
  if (!failed()) sc_.faults.push_back(std::move(fault));
}

std::optional<FaultKind> Parser::read_fault_kind(Section& f) {
  const auto name = f.string("kind");
  if (!name) {
    if (!failed()) f.missing("kind", "e.g. kind = \"pause\"");
    return std::nullopt;
  }
  const auto kind = fault_kind_from_name(*name);
  if (!kind) {
    f.fail_value("kind", "unknown fault kind " + in_quotes(*name) + " (known: " + joined(fault_kind_names()) + ")");
  }
  return kind;
}

// A fault takes exactly its kind's fields (plus kind, at, after) and needs
// the required ones.
bool Parser::check_fault_shape(Section& f, FaultKind kind) {
  const std::string kind_name(fault_kind_name(kind));
  const FaultKindInfo& shape = fault_kind_info(kind);
  std::vector<std::string_view> takes = shape.required;
  takes.insert(takes.end(), shape.optional.begin(), shape.optional.end());
  takes.insert(takes.end(), {"at", "after"});
  for (auto&& [k, v] : f.table()) {
    if (k.str() == "kind" || std::find(takes.begin(), takes.end(), k.str()) != takes.end()) continue;
    const std::vector<std::string> names(takes.begin(), takes.end());
    return fail(line_of(k.source()), f.field(k.str()),
                "a " + in_quotes(kind_name) + " fault takes no " + in_quotes(k.str()) + " (it takes " + joined(names) +
                    ")");
  }
  for (auto key : shape.required) {
    if (f.has(key)) continue;
    const std::vector<std::string> names(shape.required.begin(), shape.required.end());
    return f.missing(key, "a " + in_quotes(kind_name) + " fault needs " + joined(names, " and "));
  }
  return true;
}

// The hosts a fault names, as its kind's table entry says (fault_kinds.hpp).
void Parser::read_fault_hosts(Section& f, FaultSpec& fault) {
  const FaultKindInfo& info = fault_kind_info(fault.kind);
  if (info.target != TargetRole::None) fault.target = read_host(f, "target", info.target).value_or("");
  if (!failed() && info.needs_replicas && sc_.redis.replicas < 1)
    f.fail_value("target", std::string(info.name) + " promotes a replica, but [redis] replicas = 0");
  if (fault_takes_key(fault.kind, "from")) {
    fault.from = read_host(f, "from", TargetRole::AnyHost).value_or("");
    fault.to = read_host(f, "to", TargetRole::AnyHost).value_or("");
    if (!failed() && fault.from == fault.to) f.fail_value("to", "from and to are the same host");
  }
  if (fault_takes_key(fault.kind, "groups")) read_groups(f, fault);
}

std::string Parser::hosts_hint() const {
  auto all = hosts_.all();
  if (all.size() > 24) {
    all.resize(24);
    all.push_back("...");
  }
  return "(hosts: " + joined(all) + ")";
}

std::optional<std::string> Parser::read_host(Section& s, std::string_view key, TargetRole role) {
  const auto h = s.string(key);
  if (!h) return std::nullopt;
  if (!hosts_.known(*h)) {
    s.fail_value(key, "unknown host " + in_quotes(*h) + " " + hosts_hint());
    return std::nullopt;
  }
  if (role == TargetRole::Process && !hosts_.is_client(*h) && !hosts_.is_server(*h)) {
    s.fail_value(key, in_quotes(*h) + " cannot crash or restart: expected a client or a " + hosts_.server_kind());
    return std::nullopt;
  }
  if (role == TargetRole::RedisNode && !hosts_.is_redis(*h)) {
    s.fail_value(key, in_quotes(*h) + " has no AOF to stall: expected a Redis node");
    return std::nullopt;
  }
  if (role == TargetRole::Master && hosts_.masters.empty()) {
    s.fail_value(key, "failover is a Redis fault: this scenario has no Redis master");
    return std::nullopt;
  }
  if (role == TargetRole::Master && !hosts_.is_master(*h)) {
    s.fail_value(key, in_quotes(*h) + " is not a Redis master (" + hosts_.masters.front() + " .. " + hosts_.masters.back() + ")");
    return std::nullopt;
  }
  return h;
}

// "HOST:EVENT" or "HOST:write#N" into its parts; nullopt and `why` if neither.
std::optional<Trigger> split_trigger(const std::string& text, std::string& why) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) {
    why = "expected HOST:EVENT with EVENT acquired, write, write#N, released, crash or restart";
    return std::nullopt;
  }
  Trigger t;
  t.host = text.substr(0, colon);
  std::string event = text.substr(colon + 1);
  if (const std::size_t hash = event.find('#'); hash != std::string::npos && event.substr(0, hash) == "write") {
    const std::string n = event.substr(hash + 1);
    int index = 0;
    const auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), index);
    if (n.empty() || ec != std::errc{} || ptr != n.data() + n.size() || index < 1) {
      why = "write#N needs N >= 1";
      return std::nullopt;
    }
    t.write_index = index;
    event = "write";
  }
  const auto named = trigger_event_named(event);
  if (!named) {
    why = "unknown event " + in_quotes(event) +
          " (expected acquiring, acquired, write, write#N, released, crash or restart)";
    return std::nullopt;
  }
  t.event = *named;
  return t;
}

std::optional<Trigger> Parser::read_trigger(Section& f, std::string_view key) {
  const auto text = f.string(key);
  if (!text) return std::nullopt;
  std::string why;
  auto t = split_trigger(*text, why);
  if (t) why = trigger_problem(*t);
  if (why.empty()) return t;
  f.fail_value(key, "bad trigger " + in_quotes(*text) + ": " + why);
  return std::nullopt;
}

// Why the trigger's host cannot have its event ("" if it can).
std::string Parser::trigger_problem(const Trigger& t) const {
  const std::string event(trigger_event_name(t.event));
  if (!hosts_.known(t.host)) return "unknown host " + in_quotes(t.host) + " " + hosts_hint();
  if (is_workload_point(t.event)) {
    if (!hosts_.is_client(t.host)) return in_quotes(t.host) + " is not a client (only clients " + event + ")";
  } else if (!hosts_.is_client(t.host) && !hosts_.is_server(t.host)) {
    return in_quotes(t.host) + " never crashes or restarts (only clients and " + hosts_.server_kind() + "s do)";
  }
  if (t.event == TriggerEvent::Write) {
    const auto& c = *std::find_if(sc_.clients.begin(), sc_.clients.end(),
                                  [&](const ClientSpec& cs) { return cs.name == t.host; });
    if (t.write_index > c.writes)
      return in_quotes(t.host) + " makes " + std::to_string(c.writes) + " write(s) per critical section";
  }
  return "";
}

void Parser::read_groups(Section& f, FaultSpec& fault) {
  const toml::array* groups = f.array("groups");
  if (!groups) return;
  std::set<std::string> seen;
  for (const toml::node& g : *groups) {
    if (!g.is_array() || g.as_array()->empty()) {
      fail(line_of(g.source()), f.field("groups"), "each group is a non-empty array of host names, got " +
                                                      (g.is_array() ? std::string("an empty array") : type_name(g)));
      return;
    }
    std::vector<std::string> group;
    for (const toml::node& h : *g.as_array()) {
      const int line = line_of(h.source());
      if (!h.is_string()) return void(fail(line, f.field("groups"), "expected a host name, got " + type_name(h)));
      const std::string name = h.as_string()->get();
      if (!hosts_.known(name)) return void(fail(line, f.field("groups"), "unknown host " + in_quotes(name) + " " + hosts_hint()));
      if (!seen.insert(name).second)
        return void(fail(line, f.field("groups"), in_quotes(name) + " is in more than one group"));
      group.push_back(name);
    }
    fault.groups.push_back(std::move(group));
  }
  if (fault.groups.size() < 2)
    f.fail_value("groups", "a partition needs at least two groups (hosts in no group reach everyone)");
}

// --- [nemesis] and [expect] -------------------------------------------------

void Parser::read_nemesis(Section& root) {
  auto s = root.sub("nemesis");
  if (!s || !s->check_keys({"kinds", "mean_interval", "max_duration", "targets"})) return;
  NemesisSpec n;
  if (!read_nemesis_kinds(*s, n)) return;
  if (auto v = s->duration("mean_interval", Sign::Positive)) n.mean_interval = *v;
  if (auto v = s->duration("max_duration", Sign::Positive)) n.max_duration = *v;
  if (!failed() && sc_.duration / n.mean_interval > kMaxNemesisFaults)
    s->fail_value("mean_interval", "would inject about " + std::to_string(sc_.duration / n.mean_interval) +
                                       " faults in " + format_duration(sc_.duration) + " (at most " +
                                       std::to_string(kMaxNemesisFaults) + "): use a longer interval");
  if (!read_nemesis_targets(*s, n)) return;
  if (!failed()) sc_.nemesis = std::move(n);
}

// `kinds`: fault kind names, at least one; false when the walk must stop.
bool Parser::read_nemesis_kinds(Section& s, NemesisSpec& n) {
  const toml::array* kinds = s.array("kinds");
  if (!kinds) {
    if (!failed()) s.missing("kinds", "e.g. kinds = [\"pause\", \"clock-jump\"]");
    return false;
  }
  for (const toml::node& k : *kinds) {
    const auto name = k.value<std::string>();
    const auto kind = name ? fault_kind_from_name(*name) : std::nullopt;
    if (!kind)
      return fail(line_of(k.source()), s.field("kinds"),
                  (name ? "unknown fault kind " + in_quotes(*name) : "expected a fault kind name, got " + type_name(k)) +
                      " (known: " + joined(fault_kind_names()) + ")");
    const FaultKindInfo& info = fault_kind_info(*kind);
    if ((info.needs_replicas || info.target == TargetRole::RedisNode) && sc_.topology != locks::Topology::Redis)
      return fail(line_of(k.source()), s.field("kinds"),
                  in_quotes(fault_kind_name(*kind)) + " is a Redis fault: this scenario has no Redis node");
    if (info.needs_replicas && sc_.redis.replicas < 1)
      return fail(line_of(k.source()), s.field("kinds"), *name + " promotes a replica, but [redis] replicas = 0");
    n.kinds.push_back(*kind);
  }
  if (n.kinds.empty()) s.fail_value("kinds", "must list at least one fault kind");
  return true;
}

// `targets`: known host names (none = every client and Redis node).
bool Parser::read_nemesis_targets(Section& s, NemesisSpec& n) {
  const toml::array* targets = s.array("targets");
  if (!targets) return true;
  // Leaving the key out means every client and node; an empty list is not
  // read as that (a list emptied by mistake would widen the nemesis).
  if (targets->empty())
    return s.fail_value("targets", "lists no host: name at least one, or leave targets out for every client and node");
  for (const toml::node& t : *targets) {
    const auto name = t.value<std::string>();
    if (!name || !hosts_.known(*name))
      return fail(line_of(t.source()), s.field("targets"),
                  (name ? "unknown host " + in_quotes(*name) + " " + hosts_hint()
                        : "expected a host name, got " + type_name(t)));
    n.targets.push_back(*name);
  }
  return true;
}

std::optional<std::set<std::string>> Parser::read_violations(const toml::node& n, const std::string& field) {
  return read_violation_names(errors_, n, field);
}

void Parser::read_expect(Section& root) {
  auto s = root.sub("expect");
  if (!s || !s->check_keys({"violations", "by_lock", "may", "may_by_lock"})) return;
  if (const toml::node* v = s->node("violations")) sc_.expect_default = read_violations(*v, s->field("violations"));
  if (failed()) return;
  if (const toml::node* v = s->node("may")) {
    auto set = read_violations(*v, s->field("may"));
    if (!set) return;
    sc_.expect_may_default = std::move(*set);
  }
  read_expect_by_lock(*s, "by_lock", sc_.expect_by_lock);
  if (!failed()) read_expect_by_lock(*s, "may_by_lock", sc_.expect_may_by_lock);
}

void Parser::read_expect_by_lock(Section& expect, const char* name,
                                 std::map<std::string, std::set<std::string>>& out) {
  auto by_lock = expect.sub(name);
  if (!by_lock) return;
  for (auto&& [k, v] : by_lock->table()) {
    const std::string kind(k.str());
    check_lock_fits(*by_lock, kind, kind);
    if (failed()) return;
    auto set = read_violations(v, by_lock->field(kind));
    if (!set) return;
    out[kind] = std::move(*set);
  }
}

void Parser::read_live(Section& root) {
  auto s = root.sub("live");
  if (!s || !s->check_keys({"time_scale"})) return;
  constexpr double kPpm = 1e6;
  if (auto v = s->number("time_scale", static_cast<double>(kMinLiveTimeScalePpm) / kPpm,
                         static_cast<double>(kMaxLiveTimeScalePpm) / kPpm))
    sc_.live_time_scale_ppm = std::llround(*v * kPpm);
}

}  // namespace

// ---------------------------------------------------------------------------
// Entry points: never throw, whatever the input.

Result<Scenario, ScenarioError> load_scenario_text(std::string_view toml_text, const std::string& file) {
  try {
    auto root = parse_toml(toml_text, file);
    if (!root) return failure(ScenarioError{file, root.error().line, root.error().field, root.error().message});
    return Parser(file).run(root.value());
  } catch (const std::exception& e) {
    return failure(ScenarioError{file, 0, "internal", std::string("cannot load: ") + e.what()});
  } catch (...) {
    return failure(ScenarioError{file, 0, "internal", "cannot load: unknown error"});
  }
}

Result<Scenario, ScenarioError> load_scenario_file(const std::string& path) {
  try {
    auto text = read_input_file(path);
    if (!text) return failure(ScenarioError{path, 0, "file", text.error()});
    return load_scenario_text(*text, path);
  } catch (...) {
    return failure(ScenarioError{path, 0, "file", "cannot read the file"});
  }
}

}  // namespace locksim::scenarios
