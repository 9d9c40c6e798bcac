// Live mode's appliers, one per fault kind (live_fault_appliers.hpp). Each
// does what the simulator's applier of the same kind does
// (scenarios/faults.cpp), on real processes, threads and links.
#include "live/live_fault_appliers.hpp"

#include <algorithm>
#include <array>

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

struct LiveApplier {
  FaultKind kind;
  void (*apply)(LiveFaultActions&, const FaultSpec&);
};

constexpr std::array<LiveApplier, scenarios::kFaultKindCount> kLiveAppliers = {{
    {FaultKind::Pause, apply_pause},
    {FaultKind::ClockJump, apply_clock_jump},
    {FaultKind::ClockDrift, apply_clock_drift},
    {FaultKind::Delay, apply_delay},
    {FaultKind::Crash, apply_crash},
    {FaultKind::PowerLoss, apply_power_loss},
    {FaultKind::Restart, apply_restart},
    {FaultKind::Failover, apply_failover},
    {FaultKind::Partition, apply_partition},
    {FaultKind::Heal, apply_heal},
    {FaultKind::FsyncStall, apply_fsync_stall},
}};

static_assert(scenarios::in_fault_kind_order(kLiveAppliers), "kLiveAppliers: one applier per FaultKind, in FaultKind order");

}  // namespace

void apply_live_fault(LiveFaultActions& actions, const FaultSpec& f) {
  kLiveAppliers[static_cast<std::size_t>(f.kind)].apply(actions, f);
}

// How live mode produced the scenario's power-loss, clock and fsync-stall
// faults (said in the output, one line per mechanism).
std::vector<std::string> fault_mechanism_notes(const scenarios::Scenario& s) {
  auto has = [&](auto pred) { return std::any_of(s.faults.begin(), s.faults.end(), pred); };
  auto on_node = [](const FaultSpec& f) { return f.target.rfind("redis-", 0) == 0; };
  std::vector<std::string> notes;
  if (has([](const FaultSpec& f) { return f.kind == FaultKind::PowerLoss; }))
    notes.push_back("power-loss is observed: SIGKILL, then every AOF file cut back to the length the server's own "
                    "fsync/fdatasync calls made durable (recorded by liblocksim_preload), then a restart");
  if (has([&](const FaultSpec& f) { return (f.kind == FaultKind::ClockJump || f.kind == FaultKind::ClockDrift) && on_node(f); }))
    notes.push_back("server clock faults are real: liblocksim_preload steps or skews the redis-server's wall clock "
                    "(CLOCK_REALTIME, gettimeofday, time) while it runs; its monotonic clock is untouched");
  if (has([&](const FaultSpec& f) { return (f.kind == FaultKind::ClockJump || f.kind == FaultKind::ClockDrift) && !on_node(f); }) ||
      std::any_of(s.clients.begin(), s.clients.end(), [](const auto& c) { return c.clock_drift_ppm != 0; }))
    notes.push_back("client clock faults act on the client runtime's clocks (its wall and monotonic readings and "
                    "sleeps), not on the machine's");
  if (has([](const FaultSpec& f) { return f.kind == FaultKind::FsyncStall; }))
    notes.push_back("fsync-stall is real: liblocksim_preload holds the redis-server's fsync calls until it ends");
  return notes;
}

}  // namespace locksim::live
