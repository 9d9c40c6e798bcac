// The enumeration behind `locksim check` (check.hpp has the bound).
// The per-kind data (who a kind may hit, which boundary sizes it takes)
// is in the fault kind table (fault_kinds.hpp: check_targets, check_sizes);
// nothing here depends on a kind.
#include "scenarios/check.hpp"

#include <algorithm>
#include <set>

#include "locks/registry.hpp"
#include "scenarios/fault_kinds.hpp"
#include "scenarios/lock_assumptions.hpp"
#include "scenarios/scenario_writer.hpp"
#include "vocab/joined.hpp"

namespace locksim::scenarios {

namespace {

using std::chrono::milliseconds;

constexpr std::uint64_t kBaselineSeed = 1;  // the one seed of network jitter a check runs
constexpr std::int64_t kMillion = 1'000'000;

struct Hosts {
  std::vector<std::string> clients, masters, nodes;  // nodes: each master, then its replicas
};

Hosts hosts_of(const Scenario& s) {
  Hosts h;
  for (const ClientSpec& c : s.clients) h.clients.push_back(c.name);
  if (s.topology != locks::Topology::Redis) {  // the members stand where the masters do
    h.masters = cp_member_hosts(s.topology, s.cp.members);
    h.nodes = h.masters;
    return h;
  }
  RedisHosts redis = redis_hosts(s.redis.masters, s.redis.replicas);
  h.masters = std::move(redis.masters);
  h.nodes = std::move(redis.by_shard);
  return h;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<std::string> targets_of(CheckTargets t, const Hosts& h) {
  switch (t) {
    case CheckTargets::ClientsAndNodes: return concat(h.clients, h.nodes);
    case CheckTargets::ClientsAndMasters: return concat(h.clients, h.masters);
    case CheckTargets::Nodes: return h.nodes;
    case CheckTargets::Masters: return h.masters;
    case CheckTargets::ClientSenders: return h.clients;
    case CheckTargets::EveryHost: return concat(concat(h.clients, h.nodes), {kStorageHost});
    case CheckTargets::NotEnumerated: return {};
  }
  return {};
}

Duration at_least_1ms(Duration d) { return std::max<Duration>(d, milliseconds(1)); }

// redlock-rb's drift allowance (locks/redlock.hpp Redlock::drift): ttl/100 + 2 ms.
Duration validity_margin(const Scenario& s) { return s.lock.ttl / 100 + milliseconds(2); }

struct Boundaries {
  std::vector<BoundaryValue> offsets, lengths, restarts;
  std::int64_t drift_ppm = 0;
};

Boundaries boundaries_of(const Scenario& s) {
  const Duration ttl = s.lock.ttl;
  Boundaries b;
  b.offsets = {{Duration{0}, "at the trigger"},
               {at_least_1ms(ttl - validity_margin(s)), "the end of the validity (TTL less the validity margin)"}};
  b.lengths = {{at_least_1ms(ttl - milliseconds(1)), "just under the TTL"}, {ttl + milliseconds(1), "just over the TTL"}};
  b.restarts = {{ttl + milliseconds(1), "restart just over the TTL"},
                {s.liveness_bound() + milliseconds(1), "restart just over the liveness bound"}};
  // Gains (or loses) just over the validity margin in one TTL.
  const auto margin_ns = std::chrono::nanoseconds(validity_margin(s)).count();
  const auto ttl_ns = std::chrono::nanoseconds(ttl).count();
  b.drift_ppm = std::min<std::int64_t>(margin_ns / (ttl_ns / kMillion) + 1, kMaxPpm);
  return b;
}

// A fault with its size set, one per boundary value of the kind.
std::vector<std::pair<FaultSpec, Duration>> sized(const FaultKindInfo& k, FaultSpec f, const Boundaries& b) {
  std::vector<std::pair<FaultSpec, Duration>> out;
  switch (k.check_sizes) {
    case CheckSizes::Length:
      for (const auto& v : b.lengths) f.duration = v.value, out.emplace_back(f, v.value);
      break;
    case CheckSizes::Jump:
      for (const int sign : {1, -1}) f.by = b.lengths.back().value * sign, out.emplace_back(f, b.lengths.back().value);
      break;
    case CheckSizes::Drift:
      for (const int sign : {1, -1}) f.ppm = b.drift_ppm * sign, out.emplace_back(f, Duration{0});
      break;
    case CheckSizes::RestartAfter:
      for (const auto& v : b.restarts) f.restart_after = v.value, out.emplace_back(f, v.value);
      break;
    case CheckSizes::None: out.emplace_back(f, Duration{0}); break;
  }
  return out;
}

// One fault of a kind on one target (delay: from `target` to each peer;
// partition: `target` cut off from every other host).
std::vector<FaultSpec> placed(const FaultKindInfo& k, const std::string& target, const Hosts& h) {
  FaultSpec f;
  f.kind = k.kind;
  if (k.check_targets == CheckTargets::ClientSenders) {  // a delay
    std::vector<FaultSpec> out;
    for (const auto& to : concat({kStorageHost}, h.masters)) {
      f.from = target;
      f.to = to;
      out.push_back(f);
    }
    return out;
  }
  if (k.check_targets == CheckTargets::EveryHost) {  // a partition
    std::vector<std::string> rest = targets_of(CheckTargets::EveryHost, h);
    std::erase(rest, target);
    f.groups = {{target}, rest};
    return {f};
  }
  f.target = target;
  return {f};
}

struct Point {
  Trigger trigger;
  Duration at{0};  // when the fault-free run reached it
};

std::vector<Trigger> declared_points(const Scenario& s) {
  std::vector<Trigger> out;
  for (const ClientSpec& c : s.clients) {
    out.push_back({c.name, TriggerEvent::Acquiring, 1});
    out.push_back({c.name, TriggerEvent::Acquired, 1});
    for (int i = 1; i <= c.writes && s.workload == WorkloadKind::Lock; ++i)
      out.push_back({c.name, TriggerEvent::Write, i});
    if (s.workload == WorkloadKind::Lock) out.push_back({c.name, TriggerEvent::Released, 1});
  }
  return out;
}

// The first time the run reached `t` (a trigger fires once: FaultTimeline::reach).
std::optional<Duration> reached_at(const RunResult& run, const Trigger& t) {
  for (const PointReached& p : run.history.points) {
    if (t.fired_by(run.history.clients[p.client].name, p.event, p.write_index)) return p.at - true_epoch;
  }
  return std::nullopt;
}

// When each client's workload ended in the fault-free run (nullopt: it did not).
std::map<std::string, std::optional<Duration>> finish_times(const RunResult& run) {
  std::map<std::string, std::optional<Duration>> out;
  for (const ClientInfo& c : run.history.clients)
    out[c.name] = c.finished ? std::optional<Duration>(*c.finished - true_epoch) : std::nullopt;
  return out;
}

std::optional<Duration> last_event(const std::map<std::string, std::optional<Duration>>& finished) {
  Duration last{0};
  for (const auto& [name, at] : finished) {
    if (!at) return std::nullopt;
    last = std::max(last, *at);
  }
  return last;
}

// The client a fault acts on, if it acts on one client only.
std::optional<std::string> client_target(const FaultSpec& f, const Hosts& h) {
  const std::string& who = !f.from.empty() ? f.from : f.groups.empty() ? f.target : f.groups.front().front();
  if (std::find(h.clients.begin(), h.clients.end(), who) == h.clients.end()) return std::nullopt;
  return who;
}

std::optional<RemovalReason> single_removal(const CheckFault& c, bool reached, const Hosts& h,
                                            const std::map<std::string, std::optional<Duration>>& finished) {
  const auto client = client_target(c.spec, h);
  if (fault_kind_info(c.spec.kind).on_a_client_is_crash && client) return RemovalReason::ClientPowerLoss;
  if (!reached) return RemovalReason::PointNeverReached;
  if (const auto last = last_event(finished); last && c.due >= *last) return RemovalReason::AfterLastEvent;
  if (client) {
    const auto& end = finished.at(*client);
    if (end && c.due >= *end) return RemovalReason::TargetFinished;
  }
  return std::nullopt;
}

// A kind that needs a Redis node of its own (a replica to promote, an AOF
// to stall): not on an etcd or ZooKeeper topology.
bool redis_only(const FaultKindInfo& k, const Scenario& s) {
  return s.topology != locks::Topology::Redis && (k.needs_replicas || k.target == TargetRole::RedisNode);
}

std::string validate(const Scenario& s, const CheckOptions& o, const locks::LockInfo& lock) {
  if (auto why = locks::topology_mismatch(lock, s.topology)) return "check: --lock: " + *why;
  if (o.max_faults < 1 || o.max_faults > kMaxCheckFaults)
    return "check: --faults must be from 1 to " + std::to_string(kMaxCheckFaults) + " (the schedules grow as singles^K), got " +
           std::to_string(o.max_faults);
  if (!o.property.empty()) {
    const auto& names = violation_names();
    if (std::find(names.begin(), names.end(), o.property) == names.end())
      return "check: --property: unknown violation \"" + o.property + "\"";
  }
  for (FaultKind kind : o.kinds) {
    const FaultKindInfo& k = fault_kind_info(kind);
    const std::string name(fault_kind_name(kind));
    if (k.check_targets == CheckTargets::NotEnumerated) return "check: --kinds: " + name + " is not enumerated (a checked partition heals on its own)";
    if (redis_only(k, s))
      return "check: --kinds: " + name + " is a Redis fault; scenario " + s.name + " runs on " + locks::topology_name(s.topology);
    if (k.needs_replicas && s.redis.replicas == 0) return "check: --kinds: " + name + " needs replicas; scenario " + s.name + " has none";
    if (k.needs_aof && !s.redis.appendonly) return "check: --kinds: " + name + " needs an AOF; scenario " + s.name + " has appendonly = false";
  }
  return "";
}

std::vector<FaultKind> kinds_that_apply(const Scenario& s) {
  std::vector<FaultKind> out;
  for (const FaultKindInfo& k : fault_kind_table())
    if (k.check_targets != CheckTargets::NotEnumerated && !redis_only(k, s) && !(k.needs_replicas && s.redis.replicas == 0) &&
        !(k.needs_aof && !s.redis.appendonly))
      out.push_back(k.kind);
  return out;
}

bool any_client_extends(const Scenario& s) {
  return std::any_of(s.clients.begin(), s.clients.end(), [](const ClientSpec& c) { return c.extends; });
}

Scenario check_base(const Scenario& base, const locks::LockInfo& lock, bool every_client_extends) {
  Scenario s = base;
  if (every_client_extends) {
    for (ClientSpec& c : s.clients) c.extends = true;
    s.name += "-extending";  // its schedules' scenarios are named apart from the as-written pass's
  }
  s.faults.clear();
  s.nemesis.reset();
  s.lock_kind = lock.name;
  s.expect_default = std::set<std::string>{};
  s.expect_by_lock.clear();
  s.expect_may_default.clear();
  s.expect_may_by_lock.clear();
  give_assumed_environment(s, lock);
  return s;
}

// Faults that set state consulted once, of one kind, place and size.
bool twins(const CheckFault& a, const CheckFault& b) {
  if (a.spec.kind != b.spec.kind) return false;
  switch (fault_kind_info(a.spec.kind).check_effect) {
    case CheckEffect::LinkSendsAfter:
      return a.spec.from == b.spec.from && a.spec.to == b.spec.to && a.spec.duration == b.spec.duration;
    case CheckEffect::WallReadAfter: return a.spec.target == b.spec.target && a.spec.by == b.spec.by;
    default: return false;
  }
}

// When a one-off fault's state is consulted in a run (null: never).
const std::vector<Duration>* consults(const CheckFault& f, const RunActivity& a) {
  switch (fault_kind_info(f.spec.kind).check_effect) {
    case CheckEffect::LinkSendsAfter: {
      const auto link = a.links.find({f.spec.from, f.spec.to});
      return link == a.links.end() ? nullptr : &link->second.sends;
    }
    case CheckEffect::WallReadAfter: {
      const auto reads = a.wall_reads.find(f.spec.target);
      return reads == a.wall_reads.end() ? nullptr : &reads->second;
    }
    default: return nullptr;
  }
}

void add_twins(const CheckPlan& plan, CheckFault& c) {
  for (std::size_t i = 0; i < plan.singles.size(); ++i)
    if (twins(plan.singles[i], c)) c.twins.push_back(i);
}

// Alone, `c` is the fault-free run when it acts on nothing there, or the
// run of an earlier explored twin that meets the same consult there.
void same_as_another(const CheckPlan& plan, CheckFault& c) {
  if (!acts_in_run(plan, c, plan.baseline, {})) {
    c.removed = RemovalReason::ActsOnNothing;
    return;
  }
  for (std::size_t t : c.twins)
    if (!plan.singles[t].removed && same_effect(plan.singles[t], c, plan.baseline, nullptr)) {
      c.removed = RemovalReason::SameEffect;
      c.same_as = t;
      return;
    }
}

void add_singles(CheckPlan& plan, const std::vector<Point>& points, const std::vector<bool>& reached,
                 const Boundaries& b, const Hosts& h, const std::map<std::string, std::optional<Duration>>& finished) {
  for (std::size_t p = 0; p < points.size(); ++p)
    for (const BoundaryValue& offset : b.offsets)
      for (FaultKind kind : plan.kinds) {
        const FaultKindInfo& k = fault_kind_info(kind);
        for (const std::string& target : targets_of(k.check_targets, h))
          for (FaultSpec f : placed(k, target, h)) {
            f.after = points[p].trigger;
            f.at = offset.value;
            for (auto& [spec, size] : sized(k, f, b)) {
              CheckFault c{spec, points[p].at + offset.value, size, std::nullopt, p, client_target(spec, h), {}, std::nullopt};
              c.removed = single_removal(c, reached[p], h, finished);
              add_twins(plan, c);
              // A fault-free run that violates is not what {c} is compared with.
              if (!c.removed && !plan.baseline.violates) same_as_another(plan, c);
              plan.singles.push_back(std::move(c));
            }
          }
      }
}

void add_bound_words(CheckPlan& plan, const Boundaries& b, const Hosts& h) {
  plan.offsets = b.offsets;
  plan.sizes = b.lengths;
  plan.sizes.insert(plan.sizes.end(), b.restarts.begin(), b.restarts.end());
  plan.sizes.push_back({Duration{0}, "clock drift ±" + std::to_string(b.drift_ppm) +
                                         " ppm (just over the validity margin per TTL)"});
  for (FaultKind kind : plan.kinds)
    for (const auto& t : targets_of(fault_kind_info(kind).check_targets, h))
      if (std::find(plan.targets.begin(), plan.targets.end(), t) == plan.targets.end()) plan.targets.push_back(t);
}

// Whether a sorted list holds a time in [from, to] (closed: a same-instant
// event may run after the fault's, so it counts).
bool any_within(const std::vector<Duration>& times, Duration from, Duration to) {
  const auto first = std::lower_bound(times.begin(), times.end(), from);
  return first != times.end() && *first <= to;
}

bool any_of_host_within(const std::map<std::string, std::vector<Duration>>& by_host, const std::string& host,
                        Duration from, Duration to) {
  const auto times = by_host.find(host);
  return times != by_host.end() && any_within(times->second, from, to);
}

RunActivity activity_by_name(const sim::Activity& a, const std::vector<std::string>& host_names) {
  auto since_start = [](const std::vector<TrueInstant>& at) {
    std::vector<Duration> out;
    out.reserve(at.size());
    for (TrueInstant t : at) out.push_back(t - true_epoch);
    return out;
  };
  RunActivity out;
  out.recorded = true;
  out.unowned = since_start(a.unowned);
  for (std::size_t h = 0; h < a.dispatched.size() && h < host_names.size(); ++h)
    out.events[host_names[h]] = since_start(a.dispatched[h]);
  for (std::size_t h = 0; h < a.wall_reads.size() && h < host_names.size(); ++h)
    out.wall_reads[host_names[h]] = since_start(a.wall_reads[h]);
  for (std::size_t h = 0; h < a.disk_checks.size() && h < host_names.size(); ++h)
    out.disk_checks[host_names[h]] = since_start(a.disk_checks[h]);
  for (const sim::Activity::LinkUse& l : a.links) {
    if (l.from >= host_names.size() || l.to >= host_names.size()) continue;
    out.links[{host_names[l.from], host_names[l.to]}] = {since_start(l.sends), since_start(l.deliveries)};
  }
  return out;
}

}  // namespace

std::string_view removal_reason_text(RemovalReason reason) {
  switch (reason) {
    case RemovalReason::PointNeverReached: return "trigger point never reached";
    case RemovalReason::AfterLastEvent: return "fault after the last event";
    case RemovalReason::TargetFinished: return "target's workload already ended";
    case RemovalReason::ClientPowerLoss: return "power loss of a client is a crash";
    case RemovalReason::HoldsViolating: return "holds a smaller violating schedule";
    case RemovalReason::ActsOnNothing: return "a fault acts on nothing in the others' run";
    case RemovalReason::SameEffect: return "same effect as an earlier-listed twin";
  }
  return "";
}

std::string CheckFault::text() const {
  std::string words = std::string(fault_kind_name(spec.kind)) + " ";
  if (fault_takes_key(spec.kind, "from")) words += spec.from + "->" + spec.to;  // a delay names its link
  else if (!spec.groups.empty()) words += spec.groups.front().front() + " cut off";
  else words += spec.target;
  if (spec.duration > Duration{0}) words += " " + duration_text(spec.duration);
  if (spec.by != Duration{0}) words += " " + duration_text(spec.by, true);
  if (spec.ppm != 0) words += " " + std::to_string(spec.ppm) + "ppm";
  if (spec.restart_after) words += " restart " + duration_text(*spec.restart_after);
  return words + " at " + spec.after->text() + "+" + duration_text(spec.at);
}

std::vector<CheckOptions> check_passes(const Scenario& base, const CheckOptions& options) {
  std::vector<CheckOptions> passes{options};
  const auto lock = locks::find_lock(options.lock_kind);
  if (lock && lock->implements_extend && base.workload == WorkloadKind::Lock && !any_client_extends(base)) {
    passes.push_back(options);
    passes.back().every_client_extends = true;
  }
  return passes;
}

Result<CheckPlan, std::string> plan_check(const Scenario& base, const CheckOptions& o) {
  const auto lock = locks::find_lock(o.lock_kind);
  if (!lock) return failure("check: --lock: " + locks::unknown_lock_message(o.lock_kind));
  if (auto why = validate(base, o, *lock); !why.empty()) return failure(why);
  CheckPlan plan;
  plan.base = check_base(base, *lock, o.every_client_extends);
  plan.extend_pass = o.every_client_extends;
  plan.lock_kind = lock->name;
  plan.property = o.property;
  plan.max_faults = o.max_faults;
  plan.kinds = o.kinds.empty() ? kinds_that_apply(plan.base) : o.kinds;
  plan.assumptions = assumptions_given_to(base, *lock);

  RunOptions run_options;
  run_options.lock_kind = plan.lock_kind;
  run_options.seed = kBaselineSeed;
  sim::Activity activity;
  run_options.activity = &activity;
  auto baseline = run_scenario(plan.base, run_options);
  if (!baseline) return failure("check: " + baseline.error());
  plan.sentinel = plan.base.topology == locks::Topology::Redis && plan.base.redis.replicas > 0;

  std::vector<Point> points;
  std::vector<bool> reached;
  plan.triggers = declared_points(plan.base);
  for (const Trigger& t : plan.triggers) {
    const auto at = reached_at(*baseline, t);
    points.push_back({t, at.value_or(plan.base.duration)});
    reached.push_back(at.has_value());
    (at ? plan.points : plan.unreached_points).push_back(t.text());
  }
  plan.baseline = summarize(plan, *baseline, &activity);
  const Hosts h = hosts_of(plan.base);
  const Boundaries b = boundaries_of(plan.base);
  add_singles(plan, points, reached, b, h, finish_times(*baseline));
  add_bound_words(plan, b, h);
  return plan;
}

ScheduleOutcome summarize(const CheckPlan& plan, const RunResult& run, const sim::Activity* activity) {
  ScheduleOutcome out;
  for (const Trigger& t : plan.triggers) out.reached.push_back(reached_at(run, t));
  out.finished = finish_times(run);
  out.violates = !counted_violations(plan, run).empty();
  if (activity) out.activity = activity_by_name(*activity, run.host_names);
  return out;
}

namespace {

// Whether the yield at `f`'s trigger (sim_workload_world.cpp reach) leaves
// `run` as it was: `f` never fires there, another fault has its trigger
// (that yield is in `run` already), or nothing else runs at that instant.
bool trigger_yield_harmless(const CheckFault& f, const ScheduleOutcome& run, const std::vector<const CheckFault*>& others) {
  const auto& reached = run.reached[f.point];
  if (!reached) return true;
  for (const CheckFault* o : others)
    if (o->point == f.point) return true;
  auto at_that_instant = [&](const std::vector<Duration>& times) {
    const auto [first, last] = std::equal_range(times.begin(), times.end(), *reached);
    return static_cast<std::size_t>(last - first);
  };
  std::size_t events = at_that_instant(run.activity.unowned);
  for (const auto& [host, times] : run.activity.events) events += at_that_instant(times);
  return events <= 1;  // the event that reached it
}

}  // namespace

bool same_effect(const CheckFault& a, const CheckFault& b, const ScheduleOutcome& run, const CheckFault* partner) {
  if (!twins(a, b) || !run.activity.recorded) return false;
  std::vector<const CheckFault*> others;
  if (partner) others.push_back(partner);
  if (!trigger_yield_harmless(a, run, others) || !trigger_yield_harmless(b, run, others)) return false;
  const auto& at_a = run.reached[a.point];
  const auto& at_b = run.reached[b.point];
  if (!at_a || !at_b) return false;
  const Duration fires_a = *at_a + a.spec.at, fires_b = *at_b + b.spec.at;
  const std::vector<Duration>* times = consults(a, run.activity);
  return !times || !any_within(*times, std::min(fires_a, fires_b), std::max(fires_a, fires_b));
}

bool acts_in_run(const CheckPlan& plan, const CheckFault& f, const ScheduleOutcome& run,
                 const std::vector<const CheckFault*>& others) {
  const auto& reached = run.reached[f.point];
  if (!reached) return false;  // it never fires
  const RunActivity& a = run.activity;
  if (!a.recorded || !trigger_yield_harmless(f, run, others)) return true;
  const Duration fires = *reached + f.spec.at;
  switch (fault_kind_info(f.spec.kind).check_effect) {
    case CheckEffect::HostEventInWindow: return any_of_host_within(a.events, f.spec.target, fires, fires + f.spec.duration);
    case CheckEffect::FsyncInWindow: return any_of_host_within(a.disk_checks, f.spec.target, fires, fires + f.spec.duration);
    case CheckEffect::LinkSendsAfter:
    case CheckEffect::WallReadAfter: {
      const std::vector<Duration>* times = consults(f, a);
      return times && any_within(*times, fires, Duration::max());
    }
    case CheckEffect::ArrivalAcrossCut: {
      if (plan.sentinel || f.spec.groups.empty()) return true;
      for (const CheckFault* o : others)
        if (fault_kind_info(o->spec.kind).check_effect == CheckEffect::ArrivalAcrossCut) return true;
      const std::string& cut_off = f.spec.groups.front().front();
      for (const auto& [ends, link] : a.links)
        if ((ends.first == cut_off || ends.second == cut_off) &&
            any_within(link.deliveries, fires, fires + f.spec.duration))
          return true;
      return false;
    }
    case CheckEffect::Always: return true;
  }
  return true;
}

ScheduleCursor::ScheduleCursor(const CheckPlan& plan)
    : plan_(plan), singles_run_(plan.singles.size()), single_violates_(plan.singles.size(), false) {}

bool ScheduleCursor::advance() {
  const std::size_t n = plan_.singles.size();
  if (!started_) {
    started_ = true;
    current_ = {0};
    return n > 0;
  }
  // The next k-combination in lexicographic order.
  const std::size_t k = current_.size();
  for (std::size_t i = k; i-- > 0;) {
    if (current_[i] < n - (k - i)) {
      ++current_[i];
      for (std::size_t j = i + 1; j < k; ++j) current_[j] = current_[j - 1] + 1;
      return true;
    }
  }
  return false;
}

bool ScheduleCursor::can_grow() const {
  const std::size_t k = current_.size();
  return k + 1 <= static_cast<std::size_t>(plan_.max_faults) && k + 1 <= plan_.singles.size();
}

// The first (k+1)-combination.
void ScheduleCursor::grow() {
  const std::size_t k = current_.size();
  current_.resize(k + 1);
  for (std::size_t j = 0; j <= k; ++j) current_[j] = j;
  handed_at_size_ = learned_at_size_ = 0;
}

// A schedule is removed for a member that never fires or is always a
// crash; or for a member that observes nothing when it fires at or before
// every other member (the run is the fault-free one up to that moment, so
// the judgement on the fault-free run holds). A member that fires after
// another may meet a changed run: for a pair that is judged on the run of
// the first alone (pair_removal); with more faults the schedule is explored.
std::optional<RemovalReason> ScheduleCursor::removal(const std::vector<std::size_t>& schedule) const {
  for (std::size_t i : schedule) {
    const CheckFault& f = plan_.singles[i];
    if (!f.removed) continue;
    if (*f.removed == RemovalReason::ActsOnNothing || *f.removed == RemovalReason::SameEffect) {
      if (schedule.size() == 1) return f.removed;  // judged on the fault-free run; a pair on its partner's
      continue;
    }
    if (*f.removed == RemovalReason::PointNeverReached || *f.removed == RemovalReason::ClientPowerLoss) return f.removed;
    const bool first = std::all_of(schedule.begin(), schedule.end(),
                                   [&](std::size_t j) { return f.due <= plan_.singles[j].due; });
    if (first) return f.removed;
  }
  if (holds_violating(schedule)) return RemovalReason::HoldsViolating;
  if (schedule.size() == 2) return pair_removal(schedule);
  return std::nullopt;
}

// Whether a smaller schedule inside this one (a member, or for three
// faults a pair of them) was run and violated.
bool ScheduleCursor::holds_violating(const std::vector<std::size_t>& schedule) const {
  for (std::size_t i : schedule) {
    const auto& same_as = plan_.singles[i].same_as;  // alone it runs as that one
    if (single_violates_[i] || (same_as && single_violates_[*same_as])) return true;
  }
  if (schedule.size() < 3) return false;
  for (std::size_t a = 0; a < schedule.size(); ++a)
    for (std::size_t b = a + 1; b < schedule.size(); ++b)
      if (violating_pairs_.count({schedule[a], schedule[b]})) return true;
  return false;
}

// A pair {first, second} (second due no earlier in the fault-free run) runs
// as `first` alone until `second` fires: at its trigger's first occurrence
// in that run, plus its offset. So the pair is the run of `first` when
// `second` never fires there, or fires after every workload ended, or on a
// client whose workload had ended.
std::optional<RemovalReason> ScheduleCursor::pair_removal(const std::vector<std::size_t>& schedule) const {
  const bool in_order = plan_.singles[schedule[0]].due <= plan_.singles[schedule[1]].due;
  const CheckFault& first = plan_.singles[in_order ? schedule[0] : schedule[1]];
  const CheckFault& second = plan_.singles[in_order ? schedule[1] : schedule[0]];
  const ScheduleOutcome* run = single_run(in_order ? schedule[0] : schedule[1]);
  if (!run) return std::nullopt;  // first was removed: judged as before
  const auto& reached = run->reached[second.point];
  if (!reached) return RemovalReason::PointNeverReached;
  const Duration due = *reached + second.spec.at;
  if (const auto last = last_event(run->finished); last && due >= *last) return RemovalReason::AfterLastEvent;
  if (second.client) {
    const auto& end = run->finished.at(*second.client);
    if (end && due >= *end) return RemovalReason::TargetFinished;
  }
  // Either fault acting on nothing in the other's run: that run it is.
  if (!acts_in_run(plan_, second, *run, {&first})) return RemovalReason::ActsOnNothing;
  const ScheduleOutcome* other = single_run(in_order ? schedule[1] : schedule[0]);
  if (other && !acts_in_run(plan_, first, *other, {&second})) return RemovalReason::ActsOnNothing;
  // A delay or jump with an earlier twin that meets the same consult in its
  // partner's run: the pair with the twin is the same run (and is walked, or
  // removed for a reason that holds for both).
  if (has_earlier_twin(second, first, *run) || (other && has_earlier_twin(first, second, *other)))
    return RemovalReason::SameEffect;
  return std::nullopt;
}

bool ScheduleCursor::has_earlier_twin(const CheckFault& f, const CheckFault& partner, const ScheduleOutcome& run) const {
  for (std::size_t t : f.twins)
    if (&plan_.singles[t] != &partner && same_effect(plan_.singles[t], f, run, &partner)) return true;
  return false;
}

// A single's run: learned, or the fault-free one for a fault that acts on
// nothing there (the same run).
const ScheduleOutcome* ScheduleCursor::single_run(std::size_t single) const {
  if (singles_run_[single]) return &*singles_run_[single];
  const auto& removed = plan_.singles[single].removed;
  if (removed && *removed == RemovalReason::ActsOnNothing) return &plan_.baseline;
  if (removed && *removed == RemovalReason::SameEffect) return single_run(*plan_.singles[single].same_as);
  return nullptr;
}

ScheduleCursor::Next ScheduleCursor::next() {
  for (;;) {
    if (!advance()) {
      if (!can_grow()) return {Step::End, {}};
      if (learned_at_size_ < handed_at_size_) return {Step::Wait, {}};
      grow();
    }
    if (const auto why = removal(current_)) {
      ++removed_[*why];
      continue;
    }
    ++explored_;
    ++handed_at_size_;
    return {Step::Schedule, current_};
  }
}

std::uint64_t ScheduleCursor::walked() const {
  std::uint64_t n = explored_;
  for (const auto& [reason, count] : removed_) n += count;
  return n;
}

std::uint64_t ScheduleCursor::candidates() const {
  const std::uint64_t n = plan_.singles.size();
  std::uint64_t total = 0, choose = 1;  // choose: n over k
  for (std::uint64_t k = 1; k <= static_cast<std::uint64_t>(plan_.max_faults) && k <= n; ++k) {
    choose = choose * (n - k + 1) / k;
    total += choose;
  }
  return total;
}

void ScheduleCursor::learn(const std::vector<std::size_t>& schedule, ScheduleOutcome summary) {
  if (schedule.size() == current_.size()) ++learned_at_size_;
  if (summary.violates && schedule.size() == 1) single_violates_[schedule.front()] = true;
  if (summary.violates && schedule.size() == 2) violating_pairs_.insert({schedule[0], schedule[1]});
  if (schedule.size() == 1) singles_run_[schedule.front()] = std::move(summary);
}

Scenario schedule_scenario(const CheckPlan& plan, const std::vector<std::size_t>& schedule, std::uint64_t number) {
  Scenario s = plan.base;
  s.name = plan.base.name + "-check-" + std::to_string(number);
  s.description = "Schedule " + std::to_string(number) + " of `locksim check " + plan.base.name + " --lock " +
                  plan.lock_kind + "`:";
  for (std::size_t i : schedule) {
    s.faults.push_back(plan.singles[i].spec);
    s.description += " " + plan.singles[i].text() + ";";
  }
  s.description.pop_back();
  s.description += ".";
  return s;
}

std::vector<std::string> counted_violations(const CheckPlan& plan, const RunResult& run) {
  std::vector<std::string> out;
  for (const std::string& kind : run.violation_kinds())
    if (plan.property.empty() || kind == plan.property) out.push_back(kind);
  return out;
}

std::pair<std::size_t, Duration> schedule_rank(const CheckPlan& plan, const std::vector<std::size_t>& schedule) {
  Duration total{0};
  for (std::size_t i : schedule) total += plan.singles[i].size;
  return {schedule.size(), total};
}

std::string bound_text(const CheckPlan& plan) {
  auto list = [](const std::vector<std::string>& v) {
    return v.empty() ? std::string("none") : joined(v);
  };
  std::vector<std::string> kinds, offsets, sizes;
  for (FaultKind k : plan.kinds) kinds.emplace_back(fault_kind_name(k));
  for (const auto& v : plan.offsets) offsets.push_back(duration_text(v.value) + " (" + v.why + ")");
  for (const auto& v : plan.sizes)
    sizes.push_back(v.value == Duration{0} ? v.why : duration_text(v.value) + " (" + v.why + ")");
  std::string text = "  faults      up to " + std::to_string(plan.max_faults) + " per schedule\n";
  text += "  kinds       " + list(kinds) + "\n";
  text += "  targets     " + list(plan.targets) + "\n";
  text += "  triggers    " + list(plan.points) + "\n";
  if (!plan.unreached_points.empty()) text += "  unreached   " + list(plan.unreached_points) + "\n";
  text += "  offsets     " + list(offsets) + "\n";
  text += "  sizes       " + list(sizes) + "\n";
  text += "  seed        " + std::to_string(kBaselineSeed) + " (one seed of network jitter)\n";
  text += "  property    " + (plan.property.empty() ? std::string("any violation") : plan.property) + "\n";
  for (const auto& a : plan.assumptions) text += "  assumes     " + a + "\n";
  if (plan.extend_pass) text += "  workload    every client extends its lock before each write (the extend pass)\n";
  return text;
}

}  // namespace locksim::scenarios
