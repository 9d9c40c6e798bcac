// The fault kind table (fault_kinds.hpp): one entry per kind, in FaultKind
// order, and the small per-kind functions its entries point to.
//
// The nemesis and hunt functions draw from their streams in a fixed order;
// that order is part of every nemesis run's trace digest and of every hunt's
// cases (tests/golden/perf-budget.json pins them), so a change here is a
// behaviour change.
#include "scenarios/fault_kinds.hpp"

#include <algorithm>
#include <cassert>

#include "scenarios/scenario.hpp"
#include "vocab/partition_mode.hpp"

namespace locksim::scenarios {

namespace {


std::string signed_duration(Duration d) { return (d >= Duration{0} ? "+" : "") + format_duration(d); }

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<std::string> without(std::vector<std::string> v, const std::string& name) {
  std::erase(v, name);
  return v;
}

const std::string& pick(const std::vector<std::string>& v, std::uint32_t i) { return v[i % v.size()]; }

// --- describe: the words in traces, the History and the timeline -------------

std::string kind_and_target(const FaultSpec& f) { return std::string(fault_kind_name(f.kind)) + " " + f.target; }
// pause, fsync-stall: "pause A 35s"
std::string describe_for_duration(const FaultSpec& f) {
  return kind_and_target(f) + " " + format_duration(f.duration);
}
std::string describe_clock_jump(const FaultSpec& f) { return kind_and_target(f) + " " + signed_duration(f.by); }
std::string describe_clock_drift(const FaultSpec& f) { return kind_and_target(f) + " " + std::to_string(f.ppm) + "ppm"; }
std::string describe_delay(const FaultSpec& f) {
  return "delay " + f.from + "->" + f.to + " " + format_duration(f.duration);
}
// "[A redis-1] [B]"
std::string partition_groups(const FaultSpec& f) {
  std::string text;
  for (const auto& g : f.groups) {
    text += text.empty() ? "[" : " [";
    for (std::size_t i = 0; i < g.size(); ++i) text += (i ? " " : "") + g[i];
    text += "]";
  }
  return text;
}
std::string describe_partition(const FaultSpec& f) {
  return f.groups.empty() ? "partition" : "partition " + partition_groups(f);
}
std::string describe_heal(const FaultSpec&) { return "heal"; }

// --- acts_on: the hosts or links a fault acts on, as live mode's run record names them

std::vector<std::string> acts_on_target(const FaultSpec& f) { return {f.target}; }
std::vector<std::string> acts_on_link(const FaultSpec& f) { return {f.from + " -> " + f.to}; }
std::vector<std::string> acts_on_groups(const FaultSpec& f) { return {partition_groups(f)}; }
std::vector<std::string> acts_on_nothing(const FaultSpec&) { return {}; }

// --- nemesis: fields after `at` and `target` (faults.cpp expand_nemesis) -------

bool nemesis_pause(FaultSpec& f, NemesisDraw& d) {
  f.duration = d.span();
  return true;
}
bool nemesis_clock_jump(FaultSpec& f, NemesisDraw& d) {
  // The sign is drawn before the size: the order GCC happened to use when
  // both draws shared one expression (unspecified in C++), kept so no digest
  // changes.
  const bool forward = d.rng.chance(1, 2);
  f.by = d.span() * (forward ? 1 : -1);
  return true;
}
bool nemesis_clock_drift(FaultSpec& f, NemesisDraw& d) {
  f.ppm = d.rng.between(-1000, 1000);
  return true;
}
bool nemesis_delay(FaultSpec& f, NemesisDraw& d) {
  f.from = d.clients[d.rng.below(d.clients.size())];
  const bool to_storage = d.rng.chance(1, 2);  // one draw per statement ([rules])
  f.to = to_storage ? kStorageHost : d.pick(d.nodes);
  f.duration = d.span();
  return true;
}
bool nemesis_crash(FaultSpec& f, NemesisDraw& d) {
  f.restart_after = d.span();
  return true;
}
bool nemesis_on_node(FaultSpec& f, NemesisDraw& d) {
  f.target = d.pick(d.nodes);
  return true;
}
bool nemesis_partition(FaultSpec& f, NemesisDraw& d) {
  std::vector<std::string> inside, outside;
  for (const auto& h : d.targets) (d.rng.chance(1, 2) ? inside : outside).push_back(h);
  if (inside.empty() || outside.empty()) return false;
  f.groups = {inside, outside};
  f.duration = d.span();
  return true;
}
// fsync-stall: the drawn target is redrawn among the Redis nodes (two
// draws, as the nemesis has always made them).
bool nemesis_fsync_stall(FaultSpec& f, NemesisDraw& d) {
  f.target = d.pick(d.nodes);
  f.duration = d.span();
  return true;
}
bool nemesis_nothing(FaultSpec&, NemesisDraw&) { return true; }

// --- hunt: candidates, simplest first (clients before nodes for process
// faults, nodes before clients for clock faults) --------------------------------

std::vector<std::string> nodes_of(const HuntHosts& h) { return concat(h.masters, h.replicas); }
std::vector<std::string> hunt_anyone(const HuntHosts& h) { return concat(h.clients, nodes_of(h)); }
std::vector<std::string> hunt_clocks(const HuntHosts& h) { return concat(h.masters, h.clients); }
std::vector<std::string> hunt_clients(const HuntHosts& h) { return h.clients; }
std::vector<std::string> hunt_processes(const HuntHosts& h) { return without(hunt_anyone(h), h.counter_node); }
std::vector<std::string> hunt_nodes(const HuntHosts& h) { return without(nodes_of(h), h.counter_node); }
std::vector<std::string> hunt_masters(const HuntHosts& h) {
  return h.replicas.empty() ? std::vector<std::string>{} : without(h.masters, h.counter_node);
}
std::vector<std::string> hunt_no_host(const HuntHosts&) { return {""}; }
std::vector<std::string> hunt_any_node(const HuntHosts& h) { return nodes_of(h); }

// --- hunt: fields (schedule_gen.cpp build_fault) --------------------------------

// pause, fsync-stall: a target and a length
bool fill_for_duration(FaultSpec& f, const HuntFill& d) {
  f.target = pick(d.who, d.target);
  f.duration = d.length;
  return true;
}
bool fill_clock_jump(FaultSpec& f, const HuntFill& d) {
  f.target = pick(d.who, d.target);
  f.by = d.backward ? -d.length : d.length;
  return true;
}
bool fill_clock_drift(FaultSpec& f, const HuntFill& d) {
  constexpr std::uint32_t kPerMille = 1000;
  f.target = pick(d.who, d.target);
  f.ppm = (1 + std::int64_t{std::min(d.length_pm, kPerMille)} * 200) * (d.backward ? -1 : 1);
  return true;
}
bool fill_delay(FaultSpec& f, const HuntFill& d) {
  f.from = pick(d.who, d.target);
  const auto to = concat({kStorageHost}, d.hosts.masters);
  f.to = pick(to, d.peer);
  f.duration = d.length;
  return true;
}
bool fill_crash(FaultSpec& f, const HuntFill& d) {
  f.target = pick(d.who, d.target);
  if (!d.flag) f.restart_after = d.restart_after;
  return true;
}
bool fill_target(FaultSpec& f, const HuntFill& d) {
  f.target = pick(d.who, d.target);
  return true;
}
// The drawn bits of `peer` pick the hosts cut off from the rest.
bool fill_partition(FaultSpec& f, const HuntFill& d) {
  const auto& pool = d.who;
  std::vector<std::string> cut, rest;
  for (std::size_t i = 0; i < pool.size(); ++i)
    ((i < 32 && (d.peer >> i) & 1U) ? cut : rest).push_back(pool[i]);
  if (cut.empty()) {
    cut.push_back(pick(pool, d.target));
    rest = without(pool, cut.front());
  }
  if (d.minority_nodes_only) rest = d.hosts.clients;  // a minority of nodes cut off from every client
  if (rest.empty()) {  // every host drawn: the last one is the other side
    rest.push_back(cut.back());
    cut.pop_back();
  }
  if (cut.empty()) return false;
  f.groups = {cut, rest};
  f.mode = d.flag ? PartitionMode::Drop : PartitionMode::Hold;
  f.duration = d.length;
  return true;
}
bool fill_nothing(FaultSpec&, const HuntFill&) { return true; }

// clang-format off
const std::array<FaultKindInfo, kFaultKindCount> kFaultKinds = {{
    {.kind = FaultKind::Pause, .name = "pause", .required = {"target", "duration"},
     .target = TargetRole::AnyHost, .lasts = true, .report_words = "process pauses", .report_class = FaultClass::ProcessPause,
     .check_targets = CheckTargets::ClientsAndNodes, .check_sizes = CheckSizes::Length, .check_effect = CheckEffect::HostEventInWindow,
     .host = HostEffect::Pauses, .hunt_shrinks_duration = true,
     .acts_on = acts_on_target, .describe = describe_for_duration, .nemesis = nemesis_pause, .hunt_candidates = hunt_anyone, .hunt_fill = fill_for_duration},
    {.kind = FaultKind::ClockJump, .name = "clock-jump", .required = {"target", "by"},
     .target = TargetRole::AnyHost, .report_words = "clock jumps", .report_class = FaultClass::ClockStep,
     .check_targets = CheckTargets::ClientsAndMasters, .check_sizes = CheckSizes::Jump, .check_effect = CheckEffect::WallReadAfter,
     .clock = ClockEffect::Step,
     .acts_on = acts_on_target, .describe = describe_clock_jump, .nemesis = nemesis_clock_jump, .hunt_candidates = hunt_clocks,
     .hunt_fill = fill_clock_jump},
    {.kind = FaultKind::ClockDrift, .name = "clock-drift", .required = {"target", "ppm"},
     .target = TargetRole::AnyHost, .report_words = "clock drift", .report_class = FaultClass::ClockDrift,
     .check_targets = CheckTargets::ClientsAndMasters, .check_sizes = CheckSizes::Drift,
     .clock = ClockEffect::Drift,
     .acts_on = acts_on_target, .describe = describe_clock_drift, .nemesis = nemesis_clock_drift, .hunt_candidates = hunt_clocks,
     .hunt_fill = fill_clock_drift},
    {.kind = FaultKind::Delay, .name = "delay", .required = {"from", "to", "duration"},
     .report_words = "delayed packets", .report_class = FaultClass::DelayedPacket,
     .check_targets = CheckTargets::ClientSenders, .check_sizes = CheckSizes::Length, .check_effect = CheckEffect::LinkSendsAfter,
     .hunt_shrinks_duration = true,
     .acts_on = acts_on_link, .describe = describe_delay, .nemesis = nemesis_delay, .hunt_candidates = hunt_clients, .hunt_fill = fill_delay},
    {.kind = FaultKind::Crash, .name = "crash", .required = {"target"}, .optional = {"restart_after"},
     .target = TargetRole::Process, .report_words = "crashes", .report_class = FaultClass::CrashPowerLoss,
     .check_targets = CheckTargets::ClientsAndNodes, .check_sizes = CheckSizes::RestartAfter,
     .host = HostEffect::TakesDown, .named_by_kind_alone = true,
     .acts_on = acts_on_target, .describe = kind_and_target, .nemesis = nemesis_crash, .hunt_candidates = hunt_processes, .hunt_fill = fill_crash},
    {.kind = FaultKind::PowerLoss, .name = "power-loss", .required = {"target"}, .optional = {"restart_after"},
     .target = TargetRole::Process, .report_words = "power loss", .report_class = FaultClass::CrashPowerLoss,
     .check_targets = CheckTargets::ClientsAndNodes, .check_sizes = CheckSizes::RestartAfter, .on_a_client_is_crash = true,
     .host = HostEffect::TakesDown, .named_by_kind_alone = true,
     .acts_on = acts_on_target, .describe = kind_and_target, .nemesis = nemesis_crash, .hunt_candidates = hunt_processes, .hunt_fill = fill_crash},
    {.kind = FaultKind::Restart, .name = "restart", .required = {"target"},
     .target = TargetRole::Process, .report_words = "restarts", .report_class = FaultClass::CrashPowerLoss,
     .check_targets = CheckTargets::Nodes,
     .host = HostEffect::BringsUp, .named_by_kind_alone = true,
     .acts_on = acts_on_target, .describe = kind_and_target, .nemesis = nemesis_on_node, .hunt_candidates = hunt_nodes, .hunt_fill = fill_target},
    {.kind = FaultKind::Failover, .name = "failover", .required = {"target"},
     .target = TargetRole::Master, .needs_replicas = true, .report_words = "failovers", .report_class = FaultClass::Failover,
     .check_targets = CheckTargets::Masters,
     .named_by_kind_alone = true,
     .acts_on = acts_on_target, .describe = kind_and_target, .nemesis = nemesis_on_node, .hunt_candidates = hunt_masters, .hunt_fill = fill_target},
    {.kind = FaultKind::Partition, .name = "partition", .required = {"groups"}, .optional = {"duration", "mode"},
     .duration_may_be_zero = true, .lasts = true, .report_words = "partitions", .report_class = FaultClass::Partition,
     .check_targets = CheckTargets::EveryHost, .check_sizes = CheckSizes::Length, .check_effect = CheckEffect::ArrivalAcrossCut,
     .hunt_shrinks_duration = true,
     .acts_on = acts_on_groups, .describe = describe_partition, .nemesis = nemesis_partition, .hunt_candidates = hunt_anyone,
     .hunt_fill = fill_partition},
    // Heal ends a partition: no trouble of its own, and a drawn partition
    // heals after its duration, so the hunt does not draw it by default.
    {.kind = FaultKind::Heal, .name = "heal", .hunted_by_default = false,
     .acts_on = acts_on_nothing, .describe = describe_heal, .nemesis = nemesis_nothing, .hunt_candidates = hunt_no_host, .hunt_fill = fill_nothing},
    // A stalled disk loses what a crash then finds unsynced: the crash / power
    // loss class. Opt-in for the hunt (--kinds fsync-stall): drawing it by
    // default would change every recorded hunt's schedule, and a stall only
    // matters with everysec.
    {.kind = FaultKind::FsyncStall, .name = "fsync-stall", .required = {"target", "duration"},
     .target = TargetRole::RedisNode, .lasts = true, .report_words = "fsync stalls",
     .report_class = FaultClass::CrashPowerLoss, .hunted_by_default = false,
     .check_targets = CheckTargets::Nodes, .check_sizes = CheckSizes::Length, .check_effect = CheckEffect::FsyncInWindow,
     .needs_aof = true,
     .acts_on = acts_on_target, .describe = describe_for_duration, .nemesis = nemesis_fsync_stall, .hunt_candidates = hunt_any_node,
     .hunt_fill = fill_for_duration},
}};
// clang-format on

}  // namespace

Duration NemesisDraw::span() {
  return Duration(rng.between(std::chrono::nanoseconds(std::chrono::milliseconds(1)).count(),
                              std::max<std::int64_t>(max_duration.count(), 1'000'000)));
}

const std::array<FaultKindInfo, kFaultKindCount>& fault_kind_table() {
  static_assert(static_cast<std::size_t>(FaultKind::FsyncStall) + 1 == kFaultKindCount, "kFaultKindCount is stale");
  assert(in_fault_kind_order(kFaultKinds));
  return kFaultKinds;
}

const FaultKindInfo& fault_kind_info(FaultKind kind) {
  const auto i = static_cast<std::size_t>(kind);
  assert(i < kFaultKindCount && kFaultKinds[i].kind == kind);
  return fault_kind_table()[i];
}

std::string_view fault_kind_name(FaultKind kind) {
  return static_cast<std::size_t>(kind) < kFaultKindCount ? fault_kind_info(kind).name : "unknown";
}

std::optional<FaultKind> fault_kind_from_name(std::string_view name) {
  for (const auto& k : fault_kind_table())
    if (k.name == name) return k.kind;
  return std::nullopt;
}

const std::vector<FaultKind>& all_fault_kinds() {
  static const std::vector<FaultKind> kinds = [] {
    std::vector<FaultKind> v;
    for (const auto& k : fault_kind_table()) v.push_back(k.kind);
    return v;
  }();
  return kinds;
}

std::vector<std::string> fault_kind_names() {
  std::vector<std::string> names;
  for (const auto& k : fault_kind_table()) names.emplace_back(k.name);
  return names;
}

const std::string& fault_record_target(const FaultSpec& f) {
  return fault_takes_key(f.kind, "from") ? f.from : f.target;
}

std::vector<std::string> fault_acts_on(const FaultSpec& f) { return fault_kind_info(f.kind).acts_on(f); }

bool fault_is_timed(const FaultSpec& f) { return fault_kind_info(f.kind).lasts && f.duration > Duration{0}; }

bool fault_takes_key(FaultKind kind, std::string_view key) {
  const FaultKindInfo& info = fault_kind_info(kind);
  return std::find(info.required.begin(), info.required.end(), key) != info.required.end() ||
         std::find(info.optional.begin(), info.optional.end(), key) != info.optional.end();
}

}  // namespace locksim::scenarios
