// How live mode produces each fault (fault_mechanism.hpp). The words follow
// what live/live_runner.cpp's appliers do and docs/live.md's fault table
// says; a change to an applier changes its entry here.
#include "scenarios/fault_mechanism.hpp"

#include <algorithm>

#include "sim/time.hpp"

namespace locksim::scenarios {

namespace {

constexpr const char* kStorage = "storage";  // the in-process storage host (scenarios/scenario.cpp)

bool is_node(const std::string& host) { return host.rfind("redis-", 0) == 0; }

struct How {
  FaultProduction production;
  std::string means;
};

How real(std::string means) { return {FaultProduction::Real, std::move(means)}; }

How node_crash(const FaultSpec& f) {
  const std::string restart = f.restart_after ? ", restarted from its own AOF" : "";
  if (f.kind == FaultKind::PowerLoss)
    return {FaultProduction::Observed,
            "SIGKILL, every AOF file cut back to what the server's fsyncs made durable (the preload's record)" + restart};
  return real("SIGKILL" + restart);
}

How client_crash(const FaultSpec& f) {
  return real(std::string("the client thread forgets its lock and unwinds at its next step") +
              (f.restart_after ? ", restarted with a fresh lock" : ""));
}

How clock_fault(const FaultSpec& f) {
  const bool jump = f.kind == FaultKind::ClockJump;
  if (is_node(f.target))
    return real(std::string("the preload ") + (jump ? "steps" : "skews") +
                " the server's wall clock (CLOCK_REALTIME, gettimeofday, time; monotonic untouched)");
  return real(jump ? "the client runtime's wall clock steps (ClientClock)"
                   : "the client runtime's clocks and sleeps drift (ClientClock)");
}

How delay(const FaultSpec& f) {
  if (f.from == kStorage || f.to == kStorage)
    return {FaultProduction::Emulated, "the in-process storage's link holds the message (the storage is locksim's)"};
  return real("the TCP proxy holds the link's next bytes and everything behind them");
}

How partition(const FaultSpec& f) {
  return real(f.mode == sim::PartitionMode::Hold ? "the TCP proxies hold every byte between the groups until the heal"
                                                 : "the TCP proxies discard every byte between the groups");
}

How how_produced(const FaultSpec& f) {
  switch (f.kind) {
    case FaultKind::Pause:
      return is_node(f.target) ? real("SIGSTOP, SIGCONT after the duration")
                               : real("the client thread stops at its next step until the pause ends");
    case FaultKind::Crash:
    case FaultKind::PowerLoss: return is_node(f.target) ? node_crash(f) : client_crash(f);
    case FaultKind::Restart:
      return is_node(f.target) ? real("SIGTERM, started again on its port and directory")
                               : real("the client thread unwinds and runs the iterations left with a fresh lock");
    case FaultKind::Failover: return real("REPLICAOF NO ONE on the replica");
    case FaultKind::Delay: return delay(f);
    case FaultKind::Partition: return partition(f);
    case FaultKind::Heal: return real("the TCP proxies pass bytes again");
    case FaultKind::ClockJump:
    case FaultKind::ClockDrift: return clock_fault(f);
    case FaultKind::FsyncStall: return real("the preload holds the server's fsync calls until the stall ends");
  }
  return real("");
}

std::vector<std::string> fault_targets(const FaultSpec& f) {
  switch (f.kind) {
    case FaultKind::Delay: return {f.from + " -> " + f.to};
    case FaultKind::Heal: return {};
    case FaultKind::Partition: {
      std::string groups;
      for (const auto& g : f.groups) {
        groups += groups.empty() ? "[" : " [";
        for (std::size_t i = 0; i < g.size(); ++i) groups += (i ? " " : "") + g[i];
        groups += "]";
      }
      return {groups};
    }
    default: return {f.target};
  }
}

bool names_storage(const FaultSpec& f) {
  return std::any_of(f.groups.begin(), f.groups.end(),
                     [](const auto& g) { return std::find(g.begin(), g.end(), kStorage) != g.end(); });
}

void add(std::vector<FaultMechanism>& out, const std::string& fault, const std::vector<std::string>& targets, How how) {
  merge_fault_mechanism(out, FaultMechanism{fault, targets, how.production, std::move(how.means)});
}

// Scenario settings that live mode produces as faults are: a client's
// constant drift, the replication lag, the automatic failover, a busy node.
void add_settings(std::vector<FaultMechanism>& out, const Scenario& s) {
  std::vector<std::string> drifting, masters, replica_links;
  for (const auto& c : s.clients)
    if (c.clock_drift_ppm != 0) drifting.push_back(c.name);
  for (int m = 1; m <= s.redis.masters; ++m) {
    masters.push_back("redis-" + std::to_string(m));
    for (int r = 1; r <= s.redis.replicas; ++r)
      replica_links.push_back(masters.back() + " -> " + masters.back() + "-replica-" + std::to_string(r));
  }
  if (!drifting.empty()) add(out, "clock_drift_ppm", drifting, real("the client runtime's clocks and sleeps drift (ClientClock)"));
  if (s.redis.replicas > 0)
    add(out, "replication_lag", replica_links,
        {FaultProduction::Emulated, "a constant " + sim::format_duration(s.redis.replication_lag) +
                                        " delay on the TCP proxy's master -> replica link (loopback replicates in "
                                        "microseconds)"});
  if (s.redis.replicas > 0 && s.redis.failover_after > Duration{0})
    add(out, "failover_after", masters, real("REPLICAOF NO ONE on the replica once its master has been down that long"));
  if (s.redis.background_writes_per_second > 0)
    add(out, "background_writes_per_second", masters, real("a thread SETs an unrelated key at that rate"));
}

}  // namespace

std::string_view fault_production_name(FaultProduction production) {
  switch (production) {
    case FaultProduction::Real: return "real";
    case FaultProduction::Observed: return "observed";
    case FaultProduction::Emulated: return "emulated";
  }
  return "real";
}

std::optional<FaultProduction> fault_production_from_name(std::string_view name) {
  for (auto p : {FaultProduction::Real, FaultProduction::Observed, FaultProduction::Emulated})
    if (fault_production_name(p) == name) return p;
  return std::nullopt;
}

void merge_fault_mechanism(std::vector<FaultMechanism>& into, const FaultMechanism& m) {
  auto same = std::find_if(into.begin(), into.end(), [&](const FaultMechanism& e) {
    return e.fault == m.fault && e.production == m.production && e.means == m.means;
  });
  if (same == into.end()) same = into.insert(into.end(), FaultMechanism{m.fault, {}, m.production, m.means});
  for (const auto& t : m.targets)
    if (std::find(same->targets.begin(), same->targets.end(), t) == same->targets.end()) same->targets.push_back(t);
}

std::vector<FaultMechanism> live_fault_mechanisms(const Scenario& scenario) {
  std::vector<FaultMechanism> out;
  for (const FaultSpec& f : scenario.faults) {
    const std::string kind(fault_kind_name(f.kind));
    add(out, kind, fault_targets(f), how_produced(f));
    if (f.kind == FaultKind::Partition && names_storage(f))
      add(out, kind, {kStorage}, {FaultProduction::Emulated, "the in-process storage's links are cut"});
  }
  add_settings(out, scenario);
  return out;
}

std::string fault_mechanism_text(const FaultMechanism& m) {
  std::string text = m.fault;
  for (std::size_t i = 0; i < m.targets.size(); ++i) text += (i ? ", " : " ") + m.targets[i];
  return text + ": " + std::string(fault_production_name(m.production)) + " (" + m.means + ")";
}

}  // namespace locksim::scenarios
