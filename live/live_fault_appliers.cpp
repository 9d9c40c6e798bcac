// Live mode's appliers, one per fault kind (live_fault_appliers.hpp). Each
// does what the simulator's applier of the same kind does
// (scenarios/faults.cpp), on real processes, threads and links.
#include "live/live_fault_appliers.hpp"

#include <algorithm>
#include <array>

#include "live/live_faults.hpp"
#include "live/live_network.hpp"
#include "scenarios/fault_kinds.hpp"
#include "scenarios/host_names.hpp"
#include "vocab/partition_mode.hpp"

namespace locksim::live {

namespace {

using scenarios::FaultKind;
using scenarios::FaultSpec;

void apply_pause(LiveFaultActions& w, const FaultSpec& f) {
  w.note_fault(f, f.duration);
  if (const auto node = w.find_server(f.target)) w.server_pause(*node, f.duration);
  else w.client_pause(f.target, f.duration);
}

// A server's wall clock through its preload control block (the redis-server
// reads it); a client's through its runtime's ClientClock.
void apply_clock_jump(LiveFaultActions& w, const FaultSpec& f) {
  w.note_fault(f, std::nullopt);
  if (const auto node = w.find_server(f.target)) w.server_clock_step(*node, f.by);
  else w.client_clock_step(f.target, f.by);
}

void apply_clock_drift(LiveFaultActions& w, const FaultSpec& f) {
  w.note_fault(f, std::nullopt);
  if (const auto node = w.find_server(f.target)) w.server_clock_drift(*node, f.ppm);
  else w.client_clock_drift(f.target, f.ppm);
}

void apply_delay(LiveFaultActions& w, const FaultSpec& f) {
  w.note_fault(f, std::nullopt);
  w.network_delay(f);
}

// A power loss also cuts the AOF back to what the server made durable
// (RedisCluster::power_loss); a client just stops either way.
void crash(LiveFaultActions& w, const FaultSpec& f, bool power_loss) {
  const auto node = w.find_server(f.target);
  if (!node) return w.client_crash(f);
  if (w.server_down(*node)) return;  // down already: nothing to crash, as simulated
  w.note_fault(f, std::nullopt);
  w.server_crash(f, *node, power_loss);
}
void apply_crash(LiveFaultActions& w, const FaultSpec& f) { crash(w, f, false); }
void apply_power_loss(LiveFaultActions& w, const FaultSpec& f) { crash(w, f, true); }

void apply_restart(LiveFaultActions& w, const FaultSpec& f) {
  w.note_fault(f, std::nullopt);
  if (const auto node = w.find_server(f.target)) return w.server_restart(*node);
  w.client_restart(f.target);
}

// The parser checked that a failover names a master.
void apply_failover(LiveFaultActions& w, const FaultSpec& f) {
  w.note_fault(f, std::nullopt);
  if (const auto node = w.find_server(f.target)) w.server_promote(*node);
}

void apply_heal(LiveFaultActions& w, const FaultSpec& f) {
  w.note_fault(f, std::nullopt);
  w.network_heal();
}

// A new partition replaces the last one; a timed one heals itself.
void apply_partition(LiveFaultActions& w, const FaultSpec& f) {
  const bool timed = scenarios::fault_is_timed(f);
  w.note_fault(f, timed ? std::optional(f.duration) : std::nullopt);
  w.network_partition(f.groups, f.mode);
  if (!timed) return;
  w.after(f.duration, [&w] {
    FaultSpec heal;
    heal.kind = FaultKind::Heal;
    apply_heal(w, heal);
  });
}

// The server's fsyncs really wait (liblocksim_preload holds them).
void apply_fsync_stall(LiveFaultActions& w, const FaultSpec& f) {
  const auto node = w.find_server(f.target);
  if (!node) return;
  w.note_fault(f, f.duration);
  w.server_stall_fsync(*node, f.duration);
}

// --- how each kind is produced live (the run record's "fault_mechanisms") ---

using scenarios::FaultMechanism;
using scenarios::FaultProduction;

struct How {
  FaultProduction production;
  std::string means;
};
How real(std::string means) { return {FaultProduction::Real, std::move(means)}; }

// `on_server`: the fault names a server, not a client (find_server at run time).
How how_pause(const FaultSpec&, bool on_server) {
  return on_server ? real("SIGSTOP, SIGCONT after the duration")
                   : real("the client thread stops at its next step until the pause ends");
}

How how_clock(const FaultSpec& f, bool on_server) {
  const bool jump = f.kind == FaultKind::ClockJump;
  if (on_server)
    return real(std::string("the preload ") + (jump ? "steps" : "skews") +
                " the server's wall clock (CLOCK_REALTIME, gettimeofday, time; monotonic untouched)");
  return real(jump ? "the client runtime's wall clock steps (ClientClock)"
                   : "the client runtime's clocks and sleeps drift (ClientClock)");
}

How how_delay(const FaultSpec& f, bool) {
  if (f.from == kStorageHost || f.to == kStorageHost)
    return {FaultProduction::Emulated, "the in-process storage's link holds the message (the storage is locksim's)"};
  return real("the TCP proxy holds the link's next bytes and everything behind them");
}

How how_crash(const FaultSpec& f, bool on_server) {
  const bool restarts = f.restart_after.has_value();
  if (!on_server)
    return real(std::string("the client thread forgets its lock and unwinds at its next step") +
                (restarts ? ", restarted with a fresh lock" : ""));
  const std::string restart = restarts ? ", restarted from its own AOF" : "";
  if (f.kind == FaultKind::PowerLoss)
    return {FaultProduction::Observed,
            "SIGKILL, every AOF file cut back to what the server's fsyncs made durable (the preload's record)" + restart};
  return real("SIGKILL" + restart);
}

How how_restart(const FaultSpec&, bool on_server) {
  return on_server ? real("SIGTERM, started again on its port and directory")
                   : real("the client thread unwinds and runs the iterations left with a fresh lock");
}

How how_failover(const FaultSpec&, bool) {
  return real("SENTINEL FAILOVER to the real Sentinel quorum (3 sentinels, quorum 2); it promotes and re-points");
}

How how_partition(const FaultSpec& f, bool) {
  return real(f.mode == PartitionMode::Hold ? "the TCP proxies hold every byte between the groups until the heal"
                                                 : "the TCP proxies discard every byte between the groups");
}

How how_heal(const FaultSpec&, bool) { return real("the TCP proxies pass bytes again"); }

How how_fsync_stall(const FaultSpec&, bool) {
  return real("the preload holds the server's fsync calls until the stall ends");
}

struct LiveApplier {
  FaultKind kind;
  void (*apply)(LiveFaultActions&, const FaultSpec&);
  How (*how)(const FaultSpec&, bool on_server);
};

constexpr std::array<LiveApplier, scenarios::kFaultKindCount> kLiveAppliers = {{
    {FaultKind::Pause, apply_pause, how_pause},
    {FaultKind::ClockJump, apply_clock_jump, how_clock},
    {FaultKind::ClockDrift, apply_clock_drift, how_clock},
    {FaultKind::Delay, apply_delay, how_delay},
    {FaultKind::Crash, apply_crash, how_crash},
    {FaultKind::PowerLoss, apply_power_loss, how_crash},
    {FaultKind::Restart, apply_restart, how_restart},
    {FaultKind::Failover, apply_failover, how_failover},
    {FaultKind::Partition, apply_partition, how_partition},
    {FaultKind::Heal, apply_heal, how_heal},
    {FaultKind::FsyncStall, apply_fsync_stall, how_fsync_stall},
}};

static_assert(scenarios::in_fault_kind_order(kLiveAppliers), "kLiveAppliers: one applier per FaultKind, in FaultKind order");

void add(std::vector<FaultMechanism>& out, const std::string& fault, const std::vector<std::string>& targets, How how) {
  scenarios::merge_fault_mechanism(out, FaultMechanism{fault, targets, how.production, std::move(how.means)});
}

bool names_storage(const FaultSpec& f) {
  return std::any_of(f.groups.begin(), f.groups.end(), [](const auto& g) {
    return std::find(g.begin(), g.end(), kStorageHost) != g.end();
  });
}

// Scenario settings that live mode produces as faults: a client's constant
// drift, the replication lag, the automatic failover, a busy node.
void add_settings(std::vector<FaultMechanism>& out, const scenarios::Scenario& s) {
  std::vector<std::string> drifting, masters, replica_links;
  for (const auto& c : s.clients)
    if (c.clock_drift_ppm != 0) drifting.push_back(c.name);
  for (int m = 1; m <= s.redis.masters; ++m) {
    masters.push_back(scenarios::redis_host_name(m));
    for (int r = 1; r <= s.redis.replicas; ++r)
      replica_links.push_back(masters.back() + " -> " + scenarios::redis_host_name(m, r));
  }
  if (!drifting.empty()) add(out, "clock_drift_ppm", drifting, real("the client runtime's clocks and sleeps drift (ClientClock)"));
  if (s.redis.replicas > 0)
    add(out, "replication_lag", replica_links,
        {FaultProduction::Emulated, "a constant " + format_duration(s.redis.replication_lag) +
                                        " delay on the TCP proxy's master -> replica link (loopback replicates in "
                                        "microseconds)"});
  if (s.redis.replicas > 0 && s.redis.failover_after > Duration{0})
    add(out, "failover_after", masters, real("the real Sentinel quorum's own detection (down-after-milliseconds, ODOWN by 2 of 3, a "
                                               "leader elected), promotion and reconfiguration"));
  if (s.redis.background_writes_per_second > 0)
    add(out, "background_writes_per_second", masters, real("a thread SETs an unrelated key at that rate"));
}

}  // namespace

void apply_live_fault(LiveFaultActions& actions, const FaultSpec& f) {
  kLiveAppliers[static_cast<std::size_t>(f.kind)].apply(actions, f);
}

std::vector<FaultMechanism> live_fault_mechanisms(const scenarios::Scenario& scenario) {
  std::vector<FaultMechanism> out;
  for (const FaultSpec& f : scenario.faults) {
    const std::string kind(scenarios::fault_kind_name(f.kind));
    const bool on_server = !is_scenario_client(scenario, scenarios::fault_record_target(f));
    add(out, kind, scenarios::fault_acts_on(f), kLiveAppliers[static_cast<std::size_t>(f.kind)].how(f, on_server));
    if (f.kind == FaultKind::Partition && names_storage(f))
      add(out, kind, {kStorageHost}, {FaultProduction::Emulated, "the in-process storage's links are cut"});
  }
  add_settings(out, scenario);
  return out;
}

}  // namespace locksim::live
