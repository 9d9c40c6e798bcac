// Fault injection: scheduling (absolute, triggered, random nemesis) and
// applying each fault kind to the simulated world.
#include <algorithm>

#include "scenarios/run_context.hpp"

namespace locksim::scenarios {

namespace {

using sim::Duration;

std::string trigger_key(const std::string& host, std::string_view event, int write_index) {
  std::string key = host + ":" + std::string(event);
  if (event == "write") key += "#" + std::to_string(std::max(write_index, 1));
  return key;
}

void apply_fault(RunContext& ctx, const FaultSpec& f);

void on_fault_due(void* context, std::uint64_t index) {
  auto& ctx = *static_cast<RunContext*>(context);
  apply_fault(ctx, *ctx.scheduled[index]);
}

void schedule_at(RunContext& ctx, const FaultSpec& f, sim::TrueInstant at) {
  ctx.scheduled.push_back(&f);
  sim::Scheduler& sched = ctx.world.scheduler();
  sched.schedule(std::max(at, sched.now()), &on_fault_due, &ctx, ctx.scheduled.size() - 1);
}

// A follow-up fault (a restart after a crash, a heal after a partition).
void schedule_follow_up(RunContext& ctx, FaultKind kind, const std::string& target, Duration after) {
  auto f = std::make_unique<FaultSpec>();
  f->kind = kind;
  f->target = target;
  schedule_at(ctx, *f, ctx.world.now() + after);
  ctx.generated_faults.push_back(std::move(f));
}

void record(RunContext& ctx, const FaultSpec& f, std::string description,
            std::optional<sim::TrueInstant> until = std::nullopt) {
  ctx.world.note(sim::kNoHost, "fault", description);
  ctx.history.faults.push_back({ctx.world.now(), std::move(description), f.target, until});
}

std::string signed_duration(Duration d) { return (d >= Duration{0} ? "+" : "") + sim::format_duration(d); }

void crash_host(RunContext& ctx, const FaultSpec& f, bool power_loss) {
  sim::redis::RedisNode* node = ctx.node_by_name(f.target);
  sim::consensus::ConsensusMember* member = ctx.member_by_name(f.target);
  sim::Host* host = node ? &node->host() : ctx.host_by_name(f.target);
  if (!host || !host->up()) return;
  record(ctx, f, std::string(power_loss ? "power-loss " : "crash ") + f.target);
  if (node && power_loss) node->power_loss();
  else if (member && power_loss) member->power_loss();  // raft keeps only what it fsynced
  else host->crash();
  fire_trigger(ctx, f.target, "crash");
  if (f.restart_after) schedule_follow_up(ctx, FaultKind::Restart, f.target, *f.restart_after);
}

std::vector<std::vector<sim::HostId>> resolve_groups(RunContext& ctx, const FaultSpec& f) {
  std::vector<std::vector<sim::HostId>> groups;
  for (const auto& names : f.groups) {
    auto& g = groups.emplace_back();
    for (const auto& name : names)
      if (sim::Host* h = ctx.host_by_name(name)) g.push_back(h->id());
  }
  return groups;
}

void apply_fault(RunContext& ctx, const FaultSpec& f) {
  sim::Host* host = ctx.host_by_name(f.target);
  const sim::TrueInstant now = ctx.world.now();
  switch (f.kind) {
    case FaultKind::Pause:
      if (!host || !host->up()) return;
      record(ctx, f, "pause " + f.target + " " + sim::format_duration(f.duration), now + f.duration);
      host->pause(f.duration);
      return;
    case FaultKind::ClockJump:
      if (!host) return;
      record(ctx, f, "clock-jump " + f.target + " " + signed_duration(f.by));
      host->clock().step(f.by);
      return;
    case FaultKind::ClockDrift:
      if (!host) return;
      record(ctx, f, "clock-drift " + f.target + " " + std::to_string(f.ppm) + "ppm");
      host->clock().set_drift(now, f.ppm);
      return;
    case FaultKind::Delay: {
      sim::Host* from = ctx.host_by_name(f.from);
      sim::Host* to = ctx.host_by_name(f.to);
      if (!from || !to) return;
      FaultSpec shown = f;
      shown.target = f.from;
      record(ctx, shown, "delay " + f.from + "->" + f.to + " " + sim::format_duration(f.duration));
      ctx.world.network().delay_next(from->id(), to->id(), f.duration);
      return;
    }
    case FaultKind::Crash: crash_host(ctx, f, false); return;
    case FaultKind::PowerLoss: crash_host(ctx, f, true); return;
    case FaultKind::Restart:
      if (!host) return;
      record(ctx, f, "restart " + f.target);
      host->restart();
      fire_trigger(ctx, f.target, "restart");
      return;
    case FaultKind::Failover: {
      sim::redis::RedisNode* node = ctx.node_by_name(f.target);
      if (!node || !ctx.sentinel) return;
      record(ctx, f, "failover " + f.target);
      ctx.sentinel->failover(ctx.sentinel->shard_of(*node));
      return;
    }
    case FaultKind::Partition: {
      std::string text = "partition";
      for (const auto& g : f.groups) {
        text += " [";
        for (std::size_t i = 0; i < g.size(); ++i) text += (i ? " " : "") + g[i];
        text += "]";
      }
      const bool timed = f.duration > Duration{0};
      record(ctx, f, text, timed ? std::optional(now + f.duration) : std::nullopt);
      ctx.world.network().partition(resolve_groups(ctx, f), f.mode);
      if (timed) schedule_follow_up(ctx, FaultKind::Heal, "", f.duration);
      return;
    }
    case FaultKind::Heal:
      record(ctx, f, "heal");
      ctx.world.network().heal();
      return;
    case FaultKind::FsyncStall:
      if (sim::redis::RedisNode* node = ctx.node_by_name(f.target)) {
        record(ctx, f, "fsync-stall " + f.target + " " + sim::format_duration(f.duration), now + f.duration);
        node->stall_fsync(f.duration);
      }
      return;
  }
}

// The random nemesis: faults drawn from the seed's "nemesis" stream, in
// time order. Host names as the runner builds them: clients in file order,
// then each master followed by its replicas.
std::vector<FaultSpec> expand_nemesis(const Scenario& s, const NemesisSpec& n, sim::Rng rng) {
  std::vector<FaultSpec> out;
  if (n.kinds.empty()) return out;
  std::vector<std::string> clients, nodes;
  for (const ClientSpec& c : s.clients) clients.push_back(c.name);
  if (s.topology != locks::Topology::Redis) nodes = cp_member_names(s);  // failover/fsync-stall: refused on CP
  for (int m = 1; m <= s.redis.masters && s.topology == locks::Topology::Redis; ++m)
    for (int r = 0; r <= s.redis.replicas; ++r) nodes.push_back(redis_host_name(m, r));
  std::vector<std::string> targets = n.targets;
  if (targets.empty()) {
    targets = clients;
    targets.insert(targets.end(), nodes.begin(), nodes.end());
  }
  auto pick = [&](const std::vector<std::string>& from) { return from[rng.below(from.size())]; };
  auto span = [&](Duration max) {
    return Duration(rng.between(std::chrono::nanoseconds(std::chrono::milliseconds(1)).count(),
                                std::max<std::int64_t>(max.count(), 1'000'000)));
  };
  const std::int64_t mean = std::max<std::int64_t>(n.mean_interval.count(), 1'000'000);
  Duration t{0};
  for (;;) {
    t += Duration(rng.between(1, 2 * mean));
    if (t >= s.duration) break;
    FaultSpec f;
    f.kind = n.kinds[rng.below(n.kinds.size())];
    f.at = t;
    f.target = pick(targets);
    switch (f.kind) {
      case FaultKind::Pause: f.duration = span(n.max_duration); break;
      case FaultKind::ClockJump: {
        // The sign is drawn before the size: the order GCC happened to use
        // when both draws shared one expression (unspecified in C++), kept so
        // no digest changes.
        const bool forward = rng.chance(1, 2);
        f.by = span(n.max_duration) * (forward ? 1 : -1);
        break;
      }
      case FaultKind::ClockDrift: f.ppm = rng.between(-1000, 1000); break;
      case FaultKind::Delay: {
        f.from = clients[rng.below(clients.size())];
        const bool to_storage = rng.chance(1, 2);  // one draw per statement ([rules])
        f.to = to_storage ? "storage" : pick(nodes);
        f.duration = span(n.max_duration);
        break;
      }
      case FaultKind::Crash:
      case FaultKind::PowerLoss:
        f.restart_after = span(n.max_duration);
        break;
      case FaultKind::Restart:
      case FaultKind::Failover:
        f.target = pick(nodes);
        break;
      case FaultKind::Partition: {
        std::vector<std::string> inside, outside;
        for (const auto& h : targets) (rng.chance(1, 2) ? inside : outside).push_back(h);
        if (inside.empty() || outside.empty()) continue;
        f.groups = {inside, outside};
        f.duration = span(n.max_duration);
        break;
      }
      case FaultKind::Heal: break;
      case FaultKind::FsyncStall:
        f.target = pick(nodes);
        f.duration = span(n.max_duration);
        break;
    }
    out.push_back(std::move(f));
  }
  return out;
}

void generate_nemesis(RunContext& ctx, const NemesisSpec& n) {
  for (FaultSpec& f : expand_nemesis(ctx.scenario, n, ctx.world.stream("nemesis"))) {
    auto owned = std::make_unique<FaultSpec>(std::move(f));
    schedule_at(ctx, *owned, sim::true_epoch + owned->at);
    ctx.generated_faults.push_back(std::move(owned));
  }
}

}  // namespace

void schedule_faults(RunContext& ctx) {
  for (const FaultSpec& f : ctx.scenario.faults) {
    if (f.after) {
      const Trigger& t = *f.after;
      ctx.armed.emplace(trigger_key(t.host, t.event, t.write_index), &f);
    } else {
      schedule_at(ctx, f, sim::true_epoch + f.at);
    }
  }
  if (ctx.scenario.nemesis) generate_nemesis(ctx, *ctx.scenario.nemesis);
}

std::vector<FaultSpec> nemesis_faults(const Scenario& s, std::uint64_t seed) {
  if (!s.nemesis) return {};
  return expand_nemesis(s, *s.nemesis, sim::World(seed).stream("nemesis"));  // the stream a run's world draws from
}

bool fire_trigger(RunContext& ctx, const std::string& host, std::string_view event, int write_index) {
  auto [first, last] = ctx.armed.equal_range(trigger_key(host, event, write_index));
  if (first == last) return false;
  for (auto it = first; it != last; ++it) schedule_at(ctx, *it->second, ctx.world.now() + it->second->at);
  ctx.armed.erase(first, last);  // a trigger fires once
  return true;
}

}  // namespace locksim::scenarios
