// Fault injection in the simulated world: its side of the fault timeline
// (scenarios/fault_timeline.hpp), the random nemesis, and an applier per
// fault kind.
#include <algorithm>
#include <array>

#include "scenarios/run_context.hpp"

namespace locksim::scenarios {

namespace {

void apply_fault(RunContext& ctx, const FaultSpec& f);

void on_fault_due(void* context, std::uint64_t event) { static_cast<RunContext*>(context)->timeline->act(event); }

// The simulator's side of the fault timeline: its scheduler and appliers.
class SimFaultWorld final : public FaultTimeline::World {
 public:
  explicit SimFaultWorld(RunContext& ctx) : ctx_(ctx) {}
  Duration now() const override { return ctx_.world.now() - true_epoch; }
  void schedule(Duration at, std::size_t event) override {
    sim::Scheduler& sched = ctx_.world.scheduler();
    sched.schedule(std::max(true_epoch + at, sched.now()), &on_fault_due, &ctx_, event);
  }
  void apply(const FaultSpec& f) override { apply_fault(ctx_, f); }

 private:
  RunContext& ctx_;
};

// Records a fault as it takes effect: in the trace (its table words) and in
// the History (typed, with its window when it has one).
void record(RunContext& ctx, const FaultSpec& f) {
  std::string description = fault_kind_info(f.kind).describe(f);
  ctx.world.note(sim::kNoHost, "fault", description);
  std::optional<TrueInstant> until;
  if (fault_is_timed(f)) until = ctx.world.now() + f.duration;
  ctx.history.faults.push_back({ctx.world.now(), f.kind, std::move(description), fault_record_target(f), until});
}

// --- The simulator's appliers, one per kind (kSimAppliers, in FaultKind order).

void apply_pause(RunContext& ctx, const FaultSpec& f) {
  sim::Host* host = ctx.host_by_name(f.target);
  if (!host || !host->up()) return;
  record(ctx, f);
  host->pause(f.duration);
}

void apply_clock_jump(RunContext& ctx, const FaultSpec& f) {
  sim::Host* host = ctx.host_by_name(f.target);
  if (!host) return;
  record(ctx, f);
  host->clock().step(f.by);
}

void apply_clock_drift(RunContext& ctx, const FaultSpec& f) {
  sim::Host* host = ctx.host_by_name(f.target);
  if (!host) return;
  record(ctx, f);
  host->clock().set_drift(ctx.world.now(), f.ppm);
}

void apply_delay(RunContext& ctx, const FaultSpec& f) {
  sim::Host* from = ctx.host_by_name(f.from);
  sim::Host* to = ctx.host_by_name(f.to);
  if (!from || !to) return;
  record(ctx, f);
  ctx.world.network().delay_next(from->id(), to->id(), f.duration);
}

// Crash and power loss: a node that loses power also loses what it had not
// fsynced (RedisNode::power_loss); anything else just stops.
void apply_crash(RunContext& ctx, const FaultSpec& f) {
  sim::redis::RedisNode* node = ctx.node_by_name(f.target);
  sim::consensus::ConsensusMember* member = ctx.member_by_name(f.target);
  sim::Host* host = node ? &node->host() : ctx.host_by_name(f.target);
  if (!host || !host->up()) return;
  record(ctx, f);
  if (node && f.kind == FaultKind::PowerLoss) node->power_loss();
  else if (member && f.kind == FaultKind::PowerLoss) member->power_loss();  // raft keeps only what it fsynced
  else host->crash();
  ctx.timeline->reach(f.target, TriggerEvent::Crash);
  if (f.restart_after) ctx.timeline->follow_up(FaultKind::Restart, f.target, *f.restart_after);
}

void apply_restart(RunContext& ctx, const FaultSpec& f) {
  sim::Host* host = ctx.host_by_name(f.target);
  if (!host) return;
  record(ctx, f);
  host->restart();
  ctx.timeline->reach(f.target, TriggerEvent::Restart);
}

void apply_failover(RunContext& ctx, const FaultSpec& f) {
  sim::redis::RedisNode* node = ctx.node_by_name(f.target);
  if (!node || !ctx.sentinel) return;
  record(ctx, f);
  ctx.sentinel->failover(ctx.sentinel->shard_of(*node));
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

void apply_partition(RunContext& ctx, const FaultSpec& f) {
  record(ctx, f);
  ctx.world.network().partition(resolve_groups(ctx, f), f.mode);
  if (fault_is_timed(f)) ctx.timeline->follow_up(FaultKind::Heal, "", f.duration);
}

void apply_heal(RunContext& ctx, const FaultSpec& f) {
  record(ctx, f);
  ctx.world.network().heal();
}

// An fsync stall: the node's disk holds its AOF fsyncs for `duration`
// (RedisNode::stall_fsync); a client or an unknown name has no AOF.
void apply_fsync_stall(RunContext& ctx, const FaultSpec& f) {
  sim::redis::RedisNode* node = ctx.node_by_name(f.target);
  if (!node) return;
  record(ctx, f);
  node->stall_fsync(f.duration);
}

struct SimApplier {
  FaultKind kind;
  void (*apply)(RunContext&, const FaultSpec&);
};

constexpr std::array<SimApplier, kFaultKindCount> kSimAppliers = {{
    {FaultKind::Pause, apply_pause},         {FaultKind::ClockJump, apply_clock_jump},
    {FaultKind::ClockDrift, apply_clock_drift}, {FaultKind::Delay, apply_delay},
    {FaultKind::Crash, apply_crash},         {FaultKind::PowerLoss, apply_crash},
    {FaultKind::Restart, apply_restart},     {FaultKind::Failover, apply_failover},
    {FaultKind::Partition, apply_partition}, {FaultKind::Heal, apply_heal},
    {FaultKind::FsyncStall, apply_fsync_stall},
}};

static_assert(in_fault_kind_order(kSimAppliers), "kSimAppliers: one applier per FaultKind, in FaultKind order");

void apply_fault(RunContext& ctx, const FaultSpec& f) { kSimAppliers[static_cast<std::size_t>(f.kind)].apply(ctx, f); }

// The random nemesis: faults drawn from the seed's "nemesis" stream, in
// time order, each kind's fields as its table entry draws them. Host names
// as the runner builds them: clients in file order, then each master
// followed by its replicas.
std::vector<FaultSpec> expand_nemesis(const Scenario& s, const NemesisSpec& n, sim::Rng rng) {
  std::vector<FaultSpec> out;
  if (n.kinds.empty()) return out;
  std::vector<std::string> clients;
  for (const ClientSpec& c : s.clients) clients.push_back(c.name);
  // failover/fsync-stall are refused on CP, so the members stand in as the nodes
  const std::vector<std::string> nodes = s.topology == locks::Topology::Redis
                                             ? redis_hosts(s.redis.masters, s.redis.replicas).by_shard
                                             : cp_member_hosts(s.topology, s.cp.members);
  std::vector<std::string> targets = n.targets;
  if (targets.empty()) {
    targets = clients;
    targets.insert(targets.end(), nodes.begin(), nodes.end());
  }
  NemesisDraw draw{rng, clients, nodes, targets, n.max_duration};
  const std::int64_t mean = std::max<std::int64_t>(n.mean_interval.count(), 1'000'000);
  Duration t{0};
  for (;;) {
    t += Duration(rng.between(1, 2 * mean));
    if (t >= s.duration) break;
    FaultSpec f;
    f.kind = n.kinds[rng.below(n.kinds.size())];
    f.at = t;
    f.target = draw.pick(targets);
    if (fault_kind_info(f.kind).nemesis(f, draw)) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

void schedule_faults(RunContext& ctx) {
  ctx.fault_world = std::make_unique<SimFaultWorld>(ctx);
  ctx.timeline = std::make_unique<FaultTimeline>(*ctx.fault_world);
  ctx.timeline->start(ctx.scenario.faults);
  if (const auto& n = ctx.scenario.nemesis)
    for (FaultSpec& f : expand_nemesis(ctx.scenario, *n, ctx.world.stream("nemesis"))) ctx.timeline->add(std::move(f));
}

std::vector<FaultSpec> nemesis_faults(const Scenario& s, std::uint64_t seed) {
  if (!s.nemesis) return {};
  return expand_nemesis(s, *s.nemesis, sim::World(seed).stream("nemesis"));  // the stream a run's world draws from
}

}  // namespace locksim::scenarios
