// Generated schedules (draw → Scenario), the shrinker and the hunt loop.
// See schedule_gen.hpp for the contract; the rules that make it useful:
// every field's zero is its simplest value, every built scenario loads back
// from its TOML, and nothing depends on anything but the inputs.
#include "scenarios/schedule_gen.hpp"

#include <algorithm>

#include "locks/registry.hpp"
#include "scenarios/inventory_workload.hpp"
#include "scenarios/lock_assumptions.hpp"
#include "scenarios/scenario_bounds.hpp"
#include "scenarios/scenario_writer.hpp"
#include "scenarios/services.hpp"

namespace locksim::scenarios {

namespace {

using std::chrono::milliseconds;

constexpr std::uint32_t kPerMille = 1000;

Duration ms(std::int64_t n) { return milliseconds(n); }
std::int64_t whole_ms(Duration d) { return std::chrono::duration_cast<milliseconds>(d).count(); }

// The hosts a drawn fault may name, by role (the kind table's HuntHosts),
// and the minority a `minority_nodes_only` hunt keeps to.
struct HostSets : HuntHosts {
  std::vector<std::string> minority;  // the first (masters-1)/2 masters
};

HostSets host_sets(const Scenario& s, const locks::LockInfo& info, const GenLimits& limits) {
  HostSets h;
  for (const auto& c : s.clients) h.clients.push_back(c.name);
  if (s.topology != locks::Topology::Redis) {  // the members stand where the masters do
    h.masters = cp_member_hosts(s.topology, s.cp.members);
    for (int m = 1; m <= (s.cp.members - 1) / 2; ++m) h.minority.push_back(h.masters[static_cast<std::size_t>(m - 1)]);
    return h;
  }
  RedisHosts redis = redis_hosts(s.redis.masters, s.redis.replicas);
  h.masters = std::move(redis.masters);
  h.replicas = std::move(redis.replicas);
  for (int m = 1; m <= (s.redis.masters - 1) / 2; ++m) h.minority.push_back(redis_host_name(m));
  if (limits.spare_counter_node && info.fencing) {
    const std::int64_t n = s.redis.masters;
    const std::int64_t c = s.lock.counter_node;
    const std::int64_t index = info.min_nodes <= 1 ? 0 : (c < 0 || c >= n ? n - 1 : c);
    h.counter_node = redis_host_name(static_cast<int>(index + 1));
  }
  return h;
}

std::vector<std::string> kind_candidates(FaultKind kind, const HostSets& h, const GenLimits& limits) {
  const FaultKindInfo& info = fault_kind_info(kind);
  if (limits.minority_nodes_only) return info.needs_replicas ? std::vector<std::string>{} : h.minority;
  return info.hunt_candidates(h);
}

// Who a fault of this kind may hit, simplest first (clients before nodes
// for process faults, nodes before clients for clock faults).
std::vector<std::string> candidates(FaultKind kind, const HostSets& h, const GenLimits& limits) {
  std::vector<std::string> who = kind_candidates(kind, h, limits);
  if (limits.nodes_only)
    std::erase_if(who, [&h](const std::string& name) {
      return std::find(h.clients.begin(), h.clients.end(), name) != h.clients.end();
    });
  return who;
}

// Per-mille of the fault span (kFaultSpanTtls x ttl), in whole milliseconds.
Duration span_part(Duration ttl, std::uint32_t per_mille) {
  const std::int64_t span_ms = whole_ms(ttl) * kFaultSpanTtls;
  return ms(span_ms * std::min(per_mille, kPerMille) / kPerMille);
}

// Within an acquire: 1 ms (after the first clock read) up to one round trip
// to every master at the highest latency.
Duration acquire_window_part(const Scenario& s, std::uint32_t per_mille) {
  const std::int64_t window_ms = 2 * whole_ms(s.network.latency.max) * s.redis.masters;
  return ms(1 + window_ms * std::min(per_mille, kPerMille) / kPerMille);
}

void set_trigger(FaultSpec& f, const FaultDraw& d, const Scenario& s, std::uint32_t triggers, bool in_acquire) {
  const ClientSpec& c = s.clients[d.trigger_client % s.clients.size()];
  std::uint32_t event = in_acquire ? 4 : d.trigger % triggers;
  if (event == 4) {
    f.after = Trigger{c.name, TriggerEvent::Acquiring, 1};
    f.at = acquire_window_part(s, d.at_pm);
    if (fault_kind_info(f.kind).clock == ClockEffect::Step) f.target = c.name;  // the acquiring client's clock steps
    return;
  }
  if (event == 2 && c.writes < 1) event = 1;
  static constexpr TriggerEvent kEvents[] = {TriggerEvent::Acquired, TriggerEvent::Write, TriggerEvent::Released};
  f.after = Trigger{c.name, kEvents[event - 1], 1};  // event 1..3 (0 is an absolute time)
  f.at = std::min(ms(whole_ms(span_part(s.lock.ttl, d.at_pm) / kFaultSpanTtls)), s.lock.ttl);
}

// Whether a scenario survives its own TOML round trip (every generated and
// shrunk scenario must: it is printed as the repro).
bool loads_back(const Scenario& s) {
  return load_scenario_text(scenario_to_toml(s), "shrink").ok();
}

// Untriggered faults are timed from here: 0 on Redis, the first start on
// etcd and ZooKeeper (whose clients wait for the first leader).
Duration first_client_start(const Scenario& s) {
  Duration first = s.duration;
  for (const ClientSpec& c : s.clients) first = std::min(first, c.start);
  return first;
}

// One drawn fault on scenario `s`, or nullopt when this kind cannot apply.
std::optional<FaultSpec> build_fault(const FaultDraw& d, const Scenario& s, const HostSets& h,
                                     const GenLimits& limits) {
  const auto who = candidates(d.kind, h, limits);
  if (who.empty()) return std::nullopt;
  FaultSpec f;
  f.kind = d.kind;
  HuntFill fill{who, h};
  fill.target = d.target;
  fill.peer = d.peer;
  fill.length_pm = d.length_pm;
  fill.backward = d.backward;
  fill.flag = d.flag;
  fill.minority_nodes_only = limits.minority_nodes_only;
  fill.length = ms(1) + span_part(s.lock.ttl, d.length_pm);
  fill.restart_after =
      (limits.restart_after_ttl ? s.lock.ttl + ms(1) : ms(0)) + span_part(s.lock.ttl, d.length_pm);
  if (!fault_kind_info(d.kind).hunt_fill(f, fill)) return std::nullopt;
  const std::uint32_t triggers = limits.acquiring_trigger ? 5 : 4;
  // A wall-clock-validity lock's clock steps all land inside an acquire,
  // the only place they matter to it (between its two clock reads).
  const bool in_acquire = limits.acquiring_trigger && fault_kind_info(d.kind).clock == ClockEffect::Step;
  if (in_acquire || d.trigger % triggers != 0) set_trigger(f, d, s, triggers, in_acquire);
  else f.at = std::min(first_client_start(s) + span_part(s.lock.ttl, d.at_pm), s.duration - ms(1));
  return f;
}

// An etcd lock's TTL is its lease's, in whole seconds (LeaseGrant takes
// seconds): the drawn TTL rounded up, at least 2 s.
Duration whole_seconds_ttl(Duration ttl) {
  return std::chrono::seconds(std::max<std::int64_t>(2, (whole_ms(ttl) + 999) / 1000));
}

// A CP topology of three members with the defaults ([etcd] or [zookeeper]);
// the clients start after kCpFirstLeader, once the fresh cluster has
// elected its first leader (as the catalog's etcd stories do; a ZooKeeper
// ensemble elects finalizeWait after its start: sim/consensus/raft.hpp).
constexpr Duration kCpFirstLeader = std::chrono::seconds(3);

void make_cp_topology(Scenario& s, locks::Topology topology) {
  s.topology = topology;
  s.cp = CpSpec{};
  s.lock.ttl = whole_seconds_ttl(s.lock.ttl);
  s.lock.ttl = service_row(topology).cp->generated_ttl(s.lock.ttl, s.cp);
  s.lock.retry = std::max(ms(10), s.lock.ttl / 20);
}

// The drawn sale's workload and terms (the buyers' buys come with the
// clients): a stock of a few items, segments that each start with one.
void make_sale(Scenario& s, const InventoryDraw& d, const GenLimits& limits) {
  s.workload = WorkloadKind::Inventory;
  s.lock.key = "sale:generated";
  InventorySpec& sale = s.inventory;
  sale.method = limits.inventory_methods[d.method % limits.inventory_methods.size()];
  sale.stock = 1 + std::min(d.extra_stock, kMaxExtraStock);
  const auto most_segments = static_cast<std::uint32_t>(std::min<std::int64_t>(kMaxExtraSegments, sale.stock - 1));
  sale.segments = sale.method == InventoryMethod::Segmented ? 1 + static_cast<int>(std::min(d.extra_segments, most_segments)) : 1;
  sale.per_buyer = 1 + static_cast<int>(std::min(d.extra_per_buyer, kMaxExtraPerBuyer));
  s.unique = d.unique && sale.per_buyer == 1;  // the unique constraint is one order per buyer
}

// A buyer's work per purchase starts at 0 (a sale's default), a lock
// client's job at 20% of the TTL.
Duration drawn_work(const Scenario& s, const ScenarioDraw& d, const GenLimits& limits) {
  const std::uint32_t work_scale = limits.long_jobs ? 5 : 1;  // long jobs: up to 320% of the TTL
  const std::uint32_t pct = std::min(d.work_pct, kMaxWorkPct) * work_scale;
  return s.lock.ttl * ((s.workload == WorkloadKind::Inventory ? 0 : 20) + pct) / 100;
}

// Whether client i extends its lock before each write: never a buyer (a
// purchase does not extend) nor on a lock with nothing to renew; every
// client of a lock whose bug is in extend(); else as drawn.
bool extends_lock(const Scenario& s, const ScenarioDraw& d, const locks::LockInfo& info, const GenLimits& limits,
                  std::size_t i) {
  if (s.workload != WorkloadKind::Lock || !info.implements_extend) return false;
  return limits.extending_clients || ((d.extends >> (i % 8)) & 1U) != 0;
}

// Client i's turns at the lock: its iterations, or a buyer's buys.
void set_turns(ClientSpec& c, const Scenario& s, const ScenarioDraw& d, std::size_t i) {
  if (s.workload != WorkloadKind::Inventory) {
    c.writes = 1 + static_cast<int>(std::min(d.extra_writes, kMaxExtraWrites));
    c.iterations = 1 + static_cast<int>(std::min(d.extra_iterations, kMaxExtraIterations));
    return;
  }
  const auto& extra = d.inventory.extra_buys;
  c.buys = 1 + static_cast<int>(i < extra.size() ? std::min(extra[i], kMaxExtraBuys) : 0);
  // Where the method does not keep a buyer to the shop's rule, the buyer
  // keeps to it: more buys would be a double purchase whatever the lock does.
  if (!method_checks_per_buyer(s.inventory.method)) c.buys = std::min(c.buys, s.inventory.per_buyer);
}

// The drawn clients and their jobs, starting at `first_start`; the acquire
// timeout and the run's length follow from them.
Scenario with_clients(Scenario s, const ScenarioDraw& d, const locks::LockInfo& info, const GenLimits& limits,
                      Duration first_start) {
  const int n = std::clamp(limits.min_clients + static_cast<int>(std::min(d.extra_clients, 8U)), 1,
                           std::max(limits.min_clients, limits.max_clients));
  const bool buyers = s.workload == WorkloadKind::Inventory;
  const Duration work = drawn_work(s, d, limits);
  const Duration stagger = std::min(ms(d.stagger_ms), s.lock.ttl);
  int turns = 0;  // sections (or purchases) of all clients together
  for (int i = 0; i < n; ++i) {
    ClientSpec c{generated_client_name(i), first_start + stagger * i, work};
    set_turns(c, s, d, static_cast<std::size_t>(i));
    c.extends = extends_lock(s, d, info, limits, static_cast<std::size_t>(i));
    turns += buyers ? c.buys : c.iterations;
    s.clients.push_back(std::move(c));
  }
  s.lock.acquire_timeout = s.lock.ttl * (2 + turns);
  s.duration = stagger * (n - 1) + s.lock.ttl * (4 + turns);
  if (work > s.lock.ttl) {  // long jobs: everyone waits for everyone's whole job
    s.lock.acquire_timeout = s.lock.ttl * 2 + work * turns;
    s.duration = stagger * (n - 1) + s.lock.ttl * 4 + work * turns;
  }
  s.duration += first_start;
  return s;
}

// A Redis topology: masters, replicas, fsync and failover as drawn.
Scenario with_redis(Scenario s, const ScenarioDraw& d, const locks::LockInfo& info, const GenLimits& limits) {
  s.lock.retry = std::max(ms(10), s.lock.ttl / 20);  // fewer idle retry events: faster cases
  s = with_clients(std::move(s), d, info, limits, ms(0));
  s.redis.masters = info.min_nodes <= 1 ? 1 : static_cast<int>(info.min_nodes + std::min(d.extra_masters, kMaxExtraMasters));
  s.redis.replicas = limits.allow_replicas ? static_cast<int>(std::min(d.replicas, 1U)) : 0;
  static constexpr sim::redis::Fsync kFsync[] = {sim::redis::Fsync::Everysec, sim::redis::Fsync::Always,
                                                 sim::redis::Fsync::No};
  s.redis.appendfsync = kFsync[d.fsync % 3];
  if (s.redis.replicas > 0 && d.failover_after_ms > 0)
    s.redis.failover_after = std::min(ms(d.failover_after_ms), s.lock.ttl * kFaultSpanTtls);
  s.network.latency = {ms(1), ms(1 + std::min(d.latency_ms, kMaxLatencyMs))};
  return s;
}

Scenario generated_topology(const ScenarioDraw& d, const locks::LockInfo& info, const GenLimits& limits) {
  Scenario s;
  s.name = "generated";
  s.lock_kind = info.name;
  s.lock.key = "lock:generated";
  s.lock.ttl = ms(1000 + 250 * std::int64_t{std::min(d.ttl_steps, kMaxTtlSteps)});
  if (!limits.inventory_methods.empty()) make_sale(s, d.inventory, limits);
  if (info.topology == locks::Topology::Redis) return with_redis(std::move(s), d, info, limits);
  make_cp_topology(s, info.topology);
  s = with_clients(std::move(s), d, info, limits, kCpFirstLeader);
  s.network.latency = {ms(1), ms(1 + std::min(d.latency_ms, kMaxLatencyMs))};
  return s;
}

}  // namespace

std::vector<InventoryMethod> hunted_inventory_methods() {
  std::vector<InventoryMethod> methods;
  for (const std::string& name : inventory_method_names())
    if (const auto m = inventory_method_of(name); m && method_takes_lock(*m)) methods.push_back(*m);
  return methods;
}

std::vector<FaultKind> default_hunt_kinds() {
  std::vector<FaultKind> kinds = all_fault_kinds();
  std::erase_if(kinds, [](FaultKind k) { return !fault_kind_info(k).hunted_by_default; });
  return kinds;
}

namespace {

std::uint32_t draw_upto(sim::Rng& rng, std::uint32_t hi) {
  return static_cast<std::uint32_t>(rng.below(std::uint64_t{hi} + 1));
}

// The sale, from its own stream: every field uniformly, buys for each of
// the `clients` drawn.
InventoryDraw draw_inventory(sim::Rng rng, const GenLimits& limits, std::uint32_t clients) {
  InventoryDraw d;
  d.method = draw_upto(rng, static_cast<std::uint32_t>(limits.inventory_methods.size() - 1));
  d.extra_stock = draw_upto(rng, kMaxExtraStock);
  d.extra_segments = draw_upto(rng, kMaxExtraSegments);
  d.extra_per_buyer = draw_upto(rng, kMaxExtraPerBuyer);
  for (std::uint32_t i = 0; i < clients; ++i) d.extra_buys.push_back(draw_upto(rng, kMaxExtraBuys));
  d.unique = rng.chance(1, 2);
  return d;
}

}  // namespace

ScenarioDraw draw_scenario(sim::Rng& rng, const GenLimits& limits) {
  auto upto = [&](std::uint32_t hi) { return draw_upto(rng, hi); };
  ScenarioDraw d;
  if (!limits.inventory_methods.empty())  // forked before any draw: the lock workload's draws stay as they were
    d.inventory = draw_inventory(rng.fork("inventory"), limits,
                                 static_cast<std::uint32_t>(std::max(limits.min_clients, limits.max_clients)));
  d.extra_clients = upto(static_cast<std::uint32_t>(std::max(0, limits.max_clients - limits.min_clients)));
  d.ttl_steps = upto(kMaxTtlSteps);
  d.work_pct = upto(kMaxWorkPct);
  d.stagger_ms = upto(2000);
  d.latency_ms = upto(kMaxLatencyMs);
  d.extra_masters = upto(kMaxExtraMasters);
  d.replicas = upto(1);
  d.fsync = upto(2);
  const bool no_failover = rng.chance(1, 2);  // one draw per statement ([rules])
  d.failover_after_ms = no_failover ? 0 : upto(5000);
  d.extra_iterations = upto(kMaxExtraIterations);
  d.extra_writes = upto(kMaxExtraWrites);
  // Its own stream (Rng::fork reads the seed, not the state): every other
  // field is drawn as before extending was drawn at all.
  sim::Rng extends_rng = rng.fork("extends");
  d.extends = draw_upto(extends_rng, kMaxExtendsMask);
  if (limits.kinds.empty()) return d;
  const std::uint32_t faults = upto(static_cast<std::uint32_t>(std::max(0, limits.max_faults)));
  for (std::uint32_t i = 0; i < faults; ++i) {
    FaultDraw f;
    f.kind = limits.kinds[rng.below(limits.kinds.size())];
    // A lock that renews in the background meets its bugs in a starved
    // process: for it, half of the drawn faults are pauses.
    const bool starve = limits.long_jobs && rng.chance(1, 2);
    if (starve && std::find(limits.kinds.begin(), limits.kinds.end(), FaultKind::Pause) != limits.kinds.end())
      f.kind = FaultKind::Pause;
    f.target = upto(7);
    f.peer = static_cast<std::uint32_t>(rng.next());
    f.trigger = upto(limits.acquiring_trigger ? 4 : 3);
    f.trigger_client = upto(3);
    f.at_pm = upto(kPerMille);
    f.length_pm = upto(kPerMille);
    f.backward = rng.chance(1, 2);
    f.flag = rng.chance(1, 4);
    d.faults.push_back(f);
  }
  return d;
}

Scenario build_scenario(const ScenarioDraw& draw, const std::string& lock_kind, const GenLimits& limits,
                        const Scenario* base) {
  const auto info = locks::find_lock(lock_kind).value_or(locks::LockInfo{lock_kind, "", "", 1, false, false, false, {}});
  Scenario s = base ? *base : generated_topology(draw, info, limits);
  s.lock_kind = lock_kind;
  give_assumed_environment(s, info);  // judge the lock under what it states it needs
  s.faults.clear();
  s.nemesis.reset();
  s.expect_default.reset();
  s.expect_by_lock.clear();
  s.expect_may_default.clear();
  s.expect_may_by_lock.clear();
  if (base)  // the base's own clients extend as written, or as drawn
    for (std::size_t i = 0; i < s.clients.size(); ++i) s.clients[i].extends |= extends_lock(s, draw, info, limits, i);
  const HostSets hosts = host_sets(s, info, limits);
  for (const FaultDraw& d : draw.faults) {
    if (std::find(limits.kinds.begin(), limits.kinds.end(), d.kind) == limits.kinds.end()) continue;
    auto f = build_fault(d, s, hosts, limits);
    if (!f) continue;
    s.faults.push_back(std::move(*f));
    // Fault spans follow the TTL (3 x ttl): on a base scenario with a long
    // TTL one can pass the duration caps, or push a clock past its bound;
    // such a fault is dropped, so no generated run can overflow.
    if (scenario_arithmetic_problem(s)) {
      s.faults.pop_back();
      continue;
    }
    // The kind table's targets are Redis roles; on etcd / ZooKeeper a member takes a
    // master's place, and a fault the file format refuses there is dropped.
    if (s.topology != locks::Topology::Redis && !loads_back(s)) s.faults.pop_back();
  }
  return s;
}

Scenario generate_scenario(std::uint64_t seed, const std::string& lock_kind, const GenLimits& limits,
                           const Scenario* base) {
  sim::Rng rng(seed);
  return build_scenario(draw_scenario(rng, limits), lock_kind, limits, base);
}

// ---------------------------------------------------------------------------
// The shrinker

namespace {


bool mentions(const FaultSpec& f, const std::string& host) {
  if (f.target == host || f.from == host || f.to == host) return true;
  return f.after && f.after->host == host;
}

// `s` with hosts `gone` forgotten: the faults that target or trigger on
// them go, and they leave the partition groups and nemesis targets.
void forget_hosts(Scenario& s, const std::vector<std::string>& gone) {
  const auto is_gone = [&gone](const std::string& host) {
    return std::find(gone.begin(), gone.end(), host) != gone.end();
  };
  std::erase_if(s.faults, [&](const FaultSpec& f) {
    return std::any_of(gone.begin(), gone.end(), [&f](const std::string& h) { return mentions(f, h); });
  });
  for (FaultSpec& f : s.faults) {
    for (auto& g : f.groups) std::erase_if(g, is_gone);
    std::erase_if(f.groups, [](const auto& g) { return g.empty(); });
  }
  std::erase_if(s.faults, [](const FaultSpec& f) { return fault_takes_key(f.kind, "groups") && f.groups.size() < 2; });
  if (s.nemesis) std::erase_if(s.nemesis->targets, is_gone);
}

Scenario without_client(const Scenario& s, std::size_t i) {
  Scenario out = s;
  out.clients.erase(out.clients.begin() + static_cast<std::ptrdiff_t>(i));
  forget_hosts(out, {s.clients[i].name});
  return out;
}

// The fewest writes client `c` can make without breaking a write#N trigger.
int min_writes(const Scenario& s, const std::string& client) {
  int n = 0;
  for (const FaultSpec& f : s.faults)
    if (f.after && f.after->host == client && f.after->event == TriggerEvent::Write)
      n = std::max(n, f.after->write_index);
  return n;
}

// When the shrinker checks that its scenario survives the TOML round trip:
// after every accepted step, or once on the result (a round trip costs
// about two of a small scenario's runs, and a step almost never breaks it).
enum class RoundTrip { EveryStep, AtEnd };

class Shrinker {
 public:
  Shrinker(const ScenarioPredicate& fails, std::size_t max_runs, ShrinkStats& stats, RoundTrip round_trip)
      : fails_(fails), max_runs_(max_runs), stats_(stats), round_trip_(round_trip) {}

  bool out_of_runs() const { return stats_.runs >= max_runs_; }

  // Takes `candidate` as the new current scenario if it still fails.
  // The run comes before the TOML round trip: most candidates stop failing,
  // and those need no round trip.
  bool accept(Scenario& current, Scenario candidate) {
    if (out_of_runs()) return false;
    ++stats_.runs;
    if (!fails_(candidate) || (round_trip_ == RoundTrip::EveryStep && !loads_back(candidate))) return false;
    current = std::move(candidate);
    ++stats_.steps;
    return true;
  }

  // Structure first (each try is one run), then numbers; numbers again only
  // after they let the structure shrink further.
  void shrink(Scenario& s) {
    for (int round = 0; round < 3 && !out_of_runs(); ++round) {
      bool restructured = false;
      while (!out_of_runs() && structure(s)) restructured = true;
      if ((round > 0 && !restructured) || !numbers(s)) break;
    }
  }

 private:
  bool structure(Scenario& s) {
    bool changed = drop_faults(s);
    changed |= drop_clients(s);
    changed |= fewer_rounds(s);
    changed |= smaller_sale(s);
    changed |= fewer_extends(s);
    changed |= smaller_topology(s);
    return changed;
  }

  bool numbers(Scenario& s) {
    bool changed = shorter_faults(s);
    changed |= shorter_clients(s);
    changed |= shorter_run(s);
    return changed;
  }

  using Field = std::function<Duration&(Scenario&)>;

  using Make = std::function<Scenario(const Scenario&, Duration)>;

  // Lowers a value from `hi` to `lo`, else bisects (whole ms, to within
  // 1/32 or 1 ms) between the highest passing and the lowest failing value.
  // One step below `hi` is tried first, and halfway only if that step does
  // not fail: most values cannot be lowered at all, and that answers them in
  // three runs instead of six. Halfway is still asked because a fault's time
  // is not monotone: a pause that misses its purchase a step earlier may
  // land in an earlier purchase at half the time.
  bool bisect_with(Scenario& s, Duration hi, Duration lo, const Make& make) {
    if (hi <= lo) return false;
    if (accept(s, make(s, lo))) return true;
    const Duration step = std::max(ms(1), hi / 32);
    if (hi - lo <= step) return false;
    const Duration near = ms(whole_ms(hi - step));  // < hi: whole_ms rounds down
    const Duration mid = ms(whole_ms(lo + (hi - lo) / 2));
    if (near > lo && accept(s, make(s, near))) hi = near;
    else if (mid > lo && mid < near && accept(s, make(s, mid))) hi = mid;
    else return false;
    bool changed = true;
    Duration pass = lo;
    while (!out_of_runs()) {
      const Duration gap = hi - pass;
      if (gap <= std::max(ms(1), hi / 32)) break;
      const Duration mid = ms(whole_ms(pass + gap / 2));
      if (mid <= pass || mid >= hi) break;
      if (accept(s, make(s, mid))) {
        hi = mid;
        changed = true;
      } else {
        pass = mid;
      }
    }
    return changed;
  }

  bool bisect(Scenario& s, const Field& field, Duration lo) {
    return bisect_with(s, field(s), lo, [&field](const Scenario& x, Duration v) {
      Scenario c = x;
      field(c) = v;
      return c;
    });
  }

  // A count (buys, items, segments) lowered by the same search, one unit a
  // millisecond; `set` writes it into a copy (with whatever must follow it).
  using SetCount = std::function<void(Scenario&, std::int64_t)>;
  bool bisect_count(Scenario& s, std::int64_t value, std::int64_t lo, const SetCount& set) {
    return bisect_with(s, ms(value), ms(lo), [&set](const Scenario& x, Duration v) {
      Scenario c = x;
      set(c, whole_ms(v));
      return c;
    });
  }

  bool drop_faults(Scenario& s) {
    bool changed = false;
    if (s.nemesis) {
      Scenario c = s;
      c.nemesis.reset();
      changed |= accept(s, std::move(c));
    }
    if (s.faults.size() > 2) {  // halves first (delta debugging), then one by one
      const std::size_t half = s.faults.size() / 2;
      for (int keep_first = 1; keep_first >= 0 && s.faults.size() > 2; --keep_first) {
        Scenario c = s;
        if (keep_first) c.faults.resize(half);
        else c.faults.erase(c.faults.begin(), c.faults.begin() + static_cast<std::ptrdiff_t>(half));
        changed |= accept(s, std::move(c));
      }
    }
    for (std::size_t i = s.faults.size(); i-- > 0;) {
      Scenario c = s;
      c.faults.erase(c.faults.begin() + static_cast<std::ptrdiff_t>(i));
      changed |= accept(s, std::move(c));
    }
    return changed;
  }

  bool drop_clients(Scenario& s) {
    bool changed = false;
    for (std::size_t i = s.clients.size(); i-- > 0 && s.clients.size() > 1;)
      changed |= accept(s, without_client(s, i));
    return changed;
  }

  bool fewer_rounds(Scenario& s) {
    if (s.workload == WorkloadKind::Inventory) return fewer_buys(s);  // a buyer has no iterations or writes
    bool changed = false;
    for (std::size_t i = 0; i < s.clients.size(); ++i) {
      changed |= bisect_count(s, s.clients[i].iterations, 1,
                              [i](Scenario& x, std::int64_t v) { x.clients[i].iterations = static_cast<int>(v); });
      changed |= bisect_count(s, s.clients[i].writes, min_writes(s, s.clients[i].name),
                              [i](Scenario& x, std::int64_t v) { x.clients[i].writes = static_cast<int>(v); });
    }
    return changed;
  }

  bool fewer_buys(Scenario& s) {
    bool changed = false;
    for (std::size_t i = 0; i < s.clients.size(); ++i)
      changed |= bisect_count(s, s.clients[i].buys, 1,
                              [i](Scenario& x, std::int64_t v) { x.clients[i].buys = static_cast<int>(v); });
    return changed;
  }

  // Fewer segments, orders per buyer and items; no unique constraint. The
  // method stays: it is what the sale is about.
  bool smaller_sale(Scenario& s) {
    if (s.workload != WorkloadKind::Inventory) return false;
    InventorySpec& sale = s.inventory;
    bool changed = bisect_count(s, sale.segments, 1, [](Scenario& x, std::int64_t v) {
      x.inventory.segments = static_cast<int>(v);
    });
    // Not below a buyer's buys where the method does not check the rule
    // (a double purchase by construction, see set_turns).
    int least_per_buyer = 1;
    if (!method_checks_per_buyer(sale.method))
      for (const ClientSpec& c : s.clients) least_per_buyer = std::max(least_per_buyer, c.buys);
    changed |= bisect_count(s, sale.per_buyer, least_per_buyer, [](Scenario& x, std::int64_t v) {
      x.inventory.per_buyer = static_cast<int>(v);
    });
    if (s.unique) {
      Scenario c = s;
      c.unique = false;
      changed |= accept(s, std::move(c));
    }
    // Every segment keeps an item (segments <= stock).
    changed |= bisect_count(s, sale.stock, sale.segments, [](Scenario& x, std::int64_t v) { x.inventory.stock = v; });
    return changed;
  }

  // A client that extends its lock is one that does not (the simpler workload).
  bool fewer_extends(Scenario& s) {
    bool changed = false;
    for (std::size_t i = 0; i < s.clients.size(); ++i) {
      if (!s.clients[i].extends) continue;
      Scenario c = s;
      c.clients[i].extends = false;
      changed |= accept(s, std::move(c));
    }
    return changed;
  }

  bool shorter_faults(Scenario& s) {
    bool changed = false;
    for (std::size_t i = 0; i < s.faults.size(); ++i) {
      auto fault = [i](Scenario& x) -> FaultSpec& { return x.faults[i]; };
      const FaultKindInfo& k = fault_kind_info(s.faults[i].kind);
      // A partition without a duration lasts until a heal: nothing to shorten.
      if (k.hunt_shrinks_duration && (!k.duration_may_be_zero || s.faults[i].duration > ms(0)))
        changed |= bisect(s, [&](Scenario& x) -> Duration& { return fault(x).duration; }, ms(1));
      if (k.clock == ClockEffect::Step) changed |= shorter_jump(s, i);
      if (s.faults[i].restart_after)
        changed |= bisect(s, [&](Scenario& x) -> Duration& { return *fault(x).restart_after; }, ms(0));
      changed |= bisect(s, [&](Scenario& x) -> Duration& { return fault(x).at; }, ms(0));
    }
    return changed;
  }

  // |by| shrinks while its sign stays.
  bool shorter_jump(Scenario& s, std::size_t i) {
    const bool back = s.faults[i].by < ms(0);
    const Duration magnitude = back ? -s.faults[i].by : s.faults[i].by;
    return bisect_with(s, magnitude, ms(1), [i, back](const Scenario& x, Duration v) {
      Scenario c = x;
      c.faults[i].by = back ? -v : v;
      return c;
    });
  }

  bool shorter_clients(Scenario& s) {
    bool changed = false;
    const Duration least_work = s.workload == WorkloadKind::Inventory ? ms(0) : ms(1);  // a purchase may take none
    for (std::size_t i = 0; i < s.clients.size(); ++i) {
      changed |= bisect(s, [i](Scenario& x) -> Duration& { return x.clients[i].work; }, least_work);
      changed |= bisect(s, [i](Scenario& x) -> Duration& { return x.clients[i].start; }, ms(0));
    }
    return changed;
  }

  bool smaller_topology(Scenario& s) {
    bool changed = false;
    if (s.topology != locks::Topology::Redis && s.cp.members > 1) {  // one member: no elections to follow
      Scenario c = s;
      c.cp.members = 1;
      const auto members = cp_member_hosts(s.topology, s.cp.members);
      forget_hosts(c, {members.begin() + 1, members.end()});
      changed |= accept(s, std::move(c));
    }
    if (s.redis.replicas > 0) {
      Scenario c = s;
      c.redis.replicas = 0;
      c.redis.min_replicas_to_write = 0;
      c.redis.failover_after = ms(0);
      forget_hosts(c, redis_hosts(s.redis.masters, s.redis.replicas).replicas);
      changed |= accept(s, std::move(c));
    }
    const auto info = locks::find_lock(s.lock_kind);
    const int floor = info ? static_cast<int>(info->min_nodes) : 1;
    while (s.redis.masters > floor) {
      Scenario c = s;
      c.redis.masters -= 1;
      forget_hosts(c, shard_hosts(s.redis.masters, s.redis.replicas));
      if (!accept(s, std::move(c))) break;
      changed = true;
    }
    return changed;
  }

  bool shorter_run(Scenario& s) {
    Duration floor = ms(1);
    for (const ClientSpec& c : s.clients) floor = std::max(floor, c.start + ms(1));
    for (const FaultSpec& f : s.faults)
      if (!f.after) floor = std::max(floor, f.at + ms(1));
    return bisect(s, [](Scenario& x) -> Duration& { return x.duration; }, floor);
  }

  const ScenarioPredicate& fails_;
  std::size_t max_runs_;
  ShrinkStats& stats_;
  RoundTrip round_trip_;
};

}  // namespace

Scenario shrink_scenario(Scenario failing, const ScenarioPredicate& still_fails, std::size_t max_runs,
                         ShrinkStats* stats) {
  ShrinkStats local;
  ShrinkStats& st = stats ? *stats : local;
  Scenario shrunk = failing;
  Shrinker(still_fails, max_runs, st, RoundTrip::AtEnd).shrink(shrunk);
  if (loads_back(shrunk)) return shrunk;
  // A step broke the round trip: shrink again, keeping only steps that
  // survive it (the same runs count against max_runs).
  st.steps = 0;
  Shrinker(still_fails, max_runs, st, RoundTrip::EveryStep).shrink(failing);
  return failing;
}

ScenarioPredicate shows_violation(const std::string& lock_kind, std::uint64_t seed, const std::string& kind,
                                  bool verify) {
  return [lock_kind, seed, kind, verify](const Scenario& s) {
    RunOptions options;
    options.lock_kind = lock_kind;
    options.seed = seed;
    options.verify = verify;
    const auto run = run_scenario(s, options);
    if (!run) return false;
    for (const Violation& v : run->violations)
      if (kind.empty() || v.kind == kind) return true;
    return false;
  };
}

ScenarioPredicate shows_violation_unlike(const std::string& lock_kind, const std::string& baseline,
                                         std::uint64_t seed, const std::string& kind, bool verify) {
  return [shows = shows_violation(lock_kind, seed, kind, verify),
          fixed = shows_violation(baseline, seed, kind, verify)](
             const Scenario& s) { return shows(s) && !fixed(s); };
}

// ---------------------------------------------------------------------------
// Hunting

namespace {

std::uint64_t case_seed(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t state = seed ^ (index * 0xd1342543de82ef95ULL);
  return sim::splitmix64(state);
}

// The violation a failing run is shrunk for: the wanted kind, else the
// first in the contract's order.
std::string violation_to_shrink(const RunResult& run, const std::string& wanted) {
  const auto kinds = run.violation_kinds();
  if (!wanted.empty()) return kinds.count(wanted) ? wanted : std::string();
  for (const auto& name : violation_names())
    if (kinds.count(name)) return name;
  return {};
}

}  // namespace

HuntCase run_hunt_case(const HuntOptions& o, std::uint64_t index) {
  HuntCase c;
  try {
    c.scenario = generate_scenario(case_seed(o.seed, index), o.lock_kind, o.limits, o.base ? &*o.base : nullptr);
    RunOptions options;
    options.lock_kind = o.lock_kind;
    options.seed = o.seed;
    options.verify = o.verify;
    const auto run = run_scenario(c.scenario, options);
    if (!run) {
      const auto lock = locks::find_lock(o.lock_kind);
      if (lock && !lock->library.empty()) {  // a process failed: no verdict; never "no violation"
        c.error = run.error();
        return c;
      }
    }
    c.kind = run ? violation_to_shrink(*run, o.violation) : std::string();
    if (!c.kind.empty() && !o.baseline_lock.empty() &&
        shows_violation(o.baseline_lock, o.seed, c.kind, o.verify)(c.scenario))
      c.kind.clear();
  } catch (...) {
    c.thrown = std::current_exception();
  }
  return c;
}

HuntResult hunt(const HuntOptions& o) {
  HuntResult result;
  result.run_seed = o.seed;
  std::optional<HuntCase> failing;
  {
    const std::unique_ptr<HuntCaseSource> source = o.case_source ? o.case_source(o) : nullptr;
    for (std::uint64_t i = 0; i < o.budget; ++i) {
      HuntCase c = source ? source->take(i) : run_hunt_case(o, i);
      result.cases = i + 1;
      if (c.thrown) std::rethrow_exception(c.thrown);
      if (!c.error.empty()) {
        result.error = c.error;
        return result;
      }
      if (!c.kind.empty()) {
        result.case_index = i;
        failing = std::move(c);
        break;
      }
      if (o.keep_going && !o.keep_going(result.cases, false)) break;
    }
  }  // the source is gone before the shrink (a threaded one has stopped)
  if (!failing) return result;
  result.found = true;
  result.violation = failing->kind;
  result.original = failing->scenario;
  const ScenarioPredicate still_fails =
      o.baseline_lock.empty()
          ? shows_violation(o.lock_kind, o.seed, failing->kind, o.verify)
          : shows_violation_unlike(o.lock_kind, o.baseline_lock, o.seed, failing->kind, o.verify);
  result.minimal = shrink_scenario(std::move(failing->scenario), still_fails, o.shrink_runs, &result.shrink);
  if (o.keep_going) o.keep_going(result.cases, true);
  return result;
}

HuntOptions default_hunt_options(const locks::LockInfo& lock) {
  HuntOptions o;
  o.lock_kind = lock.name;
  o.limits.kinds = default_hunt_kinds();
  o.limits.long_jobs = lock.long_jobs;
  o.limits.acquiring_trigger = lock.wall_clock_validity;
  o.limits.extending_clients = lock.extends_before_writes;
  if (const auto& r = lock.reproduces) {
    // Hunt for the reported violation, in runs its fix survives.
    o.baseline_lock = r->fixed_by;
    o.violation = r->violation;
  }
  return o;
}

}  // namespace locksim::scenarios
