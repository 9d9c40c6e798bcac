// Fault kinds: the one table that says, for each kind, everything that is
// not how it is applied. Its name; the TOML keys a [[fault]] of the kind
// takes and how they are validated; which hosts it may target; its words in
// traces, reports and the timeline; the random nemesis's and the hunt's way
// of drawing one; the report's fault class (the decision table's column).
// The scenario parser and writer, the nemesis, the hunt, the comparison
// report, the decision table and live mode all read this table and never
// switch on a kind themselves.
//
// How a kind acts on a world lives with that world: the simulator's appliers
// (scenarios/faults.cpp) and live mode's (live/live_faults.cpp), each a table
// indexed by kind with one entry per kind (checked at compile time). Adding a
// kind = one FaultKind value, one entry in kFaultKinds (fault_kinds.cpp), one
// simulator applier and one live applier (or its reason to refuse).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/rng.hpp"
#include "vocab/time.hpp"

namespace locksim::scenarios {

struct FaultSpec;

// In table order (fault_kinds.cpp). The order is part of the CLI output
// (`locksim list`) and of the nemesis's and the hunt's draws.
enum class FaultKind : std::uint8_t {
  Pause, ClockJump, ClockDrift, Delay, Crash, PowerLoss, Restart, Failover, Partition, Heal,
  FsyncStall  // a Redis node's disk holds its AOF fsyncs for `duration`
};
inline constexpr std::size_t kFaultKindCount = 11;

// The families of trouble a reader decides by ("does this lock survive a
// process pause? a failover?"): the report's decision table has a column per
// class (reports/fault_class.hpp). A kind names its class here; the last
// three come from a scenario's settings or its absence of faults, not from a
// kind. In the order the decision table shows them. None: nothing injected
// and no setting that stresses the lock (the baseline); Unclassified: the
// scenario could not be loaded to say.
enum class FaultClass : std::uint8_t {
  ProcessPause, ClockStep, ClockDrift, DelayedPacket, CrashPowerLoss, Failover, Partition, LongWork, None,
  Unclassified
};

// What a fault's `target` may name (the parser checks it).
enum class TargetRole : std::uint8_t {
  None,     // no target key (delay names from/to; partition names groups)
  AnyHost,  // any host of the scenario
  Process,  // a client or a Redis node: something that can crash or restart
  Master,   // a Redis master
  RedisNode,  // a Redis master or replica: something with an AOF
};

// What the random nemesis draws from (faults.cpp expand_nemesis), in draw order.
struct NemesisDraw {
  sim::Rng& rng;
  const std::vector<std::string>& clients;  // in file order
  const std::vector<std::string>& nodes;    // each master followed by its replicas
  const std::vector<std::string>& targets;  // [nemesis] targets, or clients then nodes
  Duration max_duration;
  const std::string& pick(const std::vector<std::string>& from) { return from[rng.below(from.size())]; }
  Duration span();  // 1ms .. max_duration, uniform
};

// The hosts a hunted fault may name, by role (schedule_gen.cpp).
struct HuntHosts {
  std::vector<std::string> clients, masters, replicas;
  std::string counter_node;  // "" unless the fencing counter's node is spared
};

// One drawn hunt fault's numbers, already mapped onto the scenario
// (schedule_gen.cpp build_fault): `who` are the kind's candidates.
struct HuntFill {
  const std::vector<std::string>& who;
  const HuntHosts& hosts;
  std::uint32_t target = 0, peer = 0, length_pm = 0;
  bool backward = false, flag = false;
  bool minority_nodes_only = false;  // a partition cuts those nodes off from every client
  Duration length{0};           // 1ms + the drawn share of the fault span
  Duration restart_after{0};    // crash/power-loss: the drawn restart delay
};

// `locksim check` (scenarios/check.hpp): who it enumerates a fault of a
// kind on, and which boundary sizes the fault takes.
enum class CheckTargets : std::uint8_t {
  NotEnumerated,      // heal: every checked partition heals on its own
  ClientsAndNodes,    // every client and Redis node
  ClientsAndMasters,  // clocks: every client and master
  Nodes,              // every Redis node
  Masters,            // every master
  ClientSenders,      // delay: from every client to the storage or a master
  EveryHost,          // partition: each host (storage too) cut off from all others
};
enum class CheckSizes : std::uint8_t {
  None,          // restart, failover
  Length,        // duration: just under / just over the TTL
  Jump,          // by: ±(just over the TTL)
  Drift,         // ppm: ±(just over the validity margin per TTL)
  RestartAfter,  // restart_after: just over the TTL / the liveness bound
};

// How `locksim check` tells whether a fault acts in a given run
// (check.hpp acts_in_run): through the state its mechanism sets, consulted
// where the comment says.
enum class CheckEffect : std::uint8_t {
  Always,             // taken to act: clocks, crashes, restarts, failovers, fsync stalls
  HostEventInWindow,  // pause: one of the target's events comes due in the window (Scheduler::step defers it)
  LinkSendsAfter,     // delay: the link sends after it fires (Network::send takes the pending delay)
  ArrivalAcrossCut,   // partition: a packet to or from the cut-off host arrives in the window (Network::on_deliver)
  WallReadAfter,      // clock jump: the target's wall clock is read after it fires (HostClock::wall)
  FsyncInWindow,      // fsync stall: an fsync starts or ends in the window (RedisNode::start_background_fsync, on_fsync_done)
};

// What a kind does to its target host's clock: clock-jump steps it (bounds,
// the hunt's acquire-time jump and its shrinker, the timeline's step),
// clock-drift makes it run fast or slow (the timeline's wedge).
enum class ClockEffect : std::uint8_t { None, Step, Drift };

// What a kind does to its target host's process, as the timeline draws it:
// a pause is a band on the lane, a crash or power loss takes the host down
// until a restart brings it up (the lane is shaded between them).
enum class HostEffect : std::uint8_t { None, Pauses, TakesDown, BringsUp };

struct FaultKindInfo {
  FaultKind kind = FaultKind::Pause;
  std::string_view name = {};                   // "pause", "clock-jump", ... (TOML, traces, CLI)
  std::vector<std::string_view> required = {};  // TOML keys besides kind, at, after
  std::vector<std::string_view> optional = {};
  TargetRole target = TargetRole::None;
  bool duration_may_be_zero = false;        // partition: 0 = until a heal
  bool needs_replicas = false;              // failover promotes a replica
  bool lasts = false;                       // holds for `duration` (0 = until a heal): pause, partition
  std::string_view report_words = {};          // the comparison report's condition ("process pauses"); "" = none
  std::optional<FaultClass> report_class = {};  // the decision table's column; none: no trouble of its own (heal)
  bool hunted_by_default = true;            // in default_hunt_kinds()
  CheckTargets check_targets = CheckTargets::NotEnumerated;  // `locksim check`
  CheckSizes check_sizes = CheckSizes::None;
  CheckEffect check_effect = CheckEffect::Always;
  bool needs_aof = false;                   // fsync-stall: nothing to stall with appendonly = false
  bool on_a_client_is_crash = false;        // power-loss: a client has no disk (faults.cpp crash_host)
  ClockEffect clock = ClockEffect::None;
  HostEffect host = HostEffect::None;
  bool named_by_kind_alone = false;         // the timeline labels it by its kind ("crash"), without its numbers
  bool hunt_shrinks_duration = false;       // the hunt's shrinker shortens its duration (a partition's when set)
  // The hosts or links a fault acts on, as live mode's run record names
  // them: {"redis-1"}, {"A -> storage"}, {"[A redis-1] [B]"}; none for a heal.
  std::vector<std::string> (*acts_on)(const FaultSpec&) = nullptr;
  // The words a fault is recorded and traced with ("pause A 35s").
  std::string (*describe)(const FaultSpec&) = nullptr;
  // The nemesis: fills the kind's fields after `at` and `target`; false = skip this draw.
  bool (*nemesis)(FaultSpec&, NemesisDraw&) = nullptr;
  // The hunt: the hosts a fault of this kind may hit, simplest first.
  std::vector<std::string> (*hunt_candidates)(const HuntHosts&) = nullptr;
  // The hunt: fills the kind's fields; false = this draw cannot apply.
  bool (*hunt_fill)(FaultSpec&, const HuntFill&) = nullptr;
};

// Whether a per-kind table (an applier table: entries with a `kind`) has
// one entry per kind in FaultKind order; each world static_asserts it.
template <class Table>
constexpr bool in_fault_kind_order(const Table& table) {
  if (table.size() != kFaultKindCount) return false;
  for (std::size_t i = 0; i < table.size(); ++i)
    if (static_cast<std::size_t>(table[i].kind) != i) return false;
  return true;
}

// Every kind, in FaultKind order.
const std::array<FaultKindInfo, kFaultKindCount>& fault_kind_table();
const FaultKindInfo& fault_kind_info(FaultKind kind);

std::string_view fault_kind_name(FaultKind kind);  // "pause", "clock-jump", ...
std::optional<FaultKind> fault_kind_from_name(std::string_view name);
const std::vector<FaultKind>& all_fault_kinds();
std::vector<std::string> fault_kind_names();

// A fault as recorded in a History: who it is shown against (delay: `from`).
const std::string& fault_record_target(const FaultSpec& f);
bool fault_is_timed(const FaultSpec& f);  // has an end: a pause, a partition with a duration
bool fault_takes_key(FaultKind kind, std::string_view key);
std::vector<std::string> fault_acts_on(const FaultSpec& f);  // the kind's acts_on

}  // namespace locksim::scenarios
