// Live refusals per fault kind (live_faults.hpp).
#include "live/live_faults.hpp"

#include <algorithm>

#include "live/live_fault_appliers.hpp"
#include "live/live_network.hpp"
#include "live/live_service_table.hpp"
#include "scenarios/cp_topology.hpp"

namespace locksim::live {

namespace {

using scenarios::FaultKind;
using scenarios::FaultSpec;
using scenarios::Scenario;

bool is_redis(const std::string& host) { return scenarios::is_redis_host_name(host); }
bool is_cp_member(const Scenario& s, const std::string& host) {
  if (s.topology == locks::Topology::Redis) return false;
  const auto members = scenarios::cp_member_hosts(s.topology, s.cp.members);
  return std::find(members.begin(), members.end(), host) != members.end();
}
bool is_cp(const Scenario& s) { return s.topology != locks::Topology::Redis; }

std::optional<std::string> fault_ok(const Scenario&, const FaultSpec&) { return std::nullopt; }

// pause: a client thread, a redis-server process or an etcd / ZooKeeper
// member process (SIGSTOP). crash, restart: the same (SIGKILL, then its
// restart on the same ports and data directory); a CP client's crash leaves
// its session or lease to expire (LiveClients::sever_links).
std::optional<std::string> process_target(const Scenario& s, const FaultSpec& f) {
  if (is_redis(f.target) || is_scenario_client(s, f.target) || is_cp_member(s, f.target)) return std::nullopt;
  return " " + f.target + ": unsupported in live mode (only clients, Redis nodes and etcd / ZooKeeper members)";
}

// power-loss: observed through the preload's fsync log, which only the
// redis-servers live mode starts carry.
std::optional<std::string> power_loss_target(const Scenario& s, const FaultSpec& f) {
  if (is_cp_member(s, f.target))
    return " " + f.target + ": unsupported in live mode (a power loss is observed through liblocksim_preload's "
                            "fsync log, which only the redis-servers carry; a member's crash is SIGKILL)";
  return process_target(s, f);
}

// clock-jump, clock-drift: a client's runtime clocks or a redis-server's
// preload clock. etcd is a Go program: it reads its clocks through the
// vDSO, not libc, so no preload can step them; the JVM's ZooKeeper is
// not run under the preload either.
std::optional<std::string> clock_target(const Scenario& s, const FaultSpec& f) {
  if (is_cp_member(s, f.target))
    return " " + f.target + ": unsupported in live mode (member clocks cannot be stepped: " +
           std::string(live_service_row(s.topology)->no_clock_step) + ")";
  return process_target(s, f);
}

// A delay needs a connection that carries its link.
std::optional<std::string> routable_link(const Scenario& s, const FaultSpec& f) {
  const auto& from = f.from;
  const auto& to = f.to;
  const auto server = [&](const std::string& h) { return is_redis(h) || is_cp_member(s, h); };
  if ((is_scenario_client(s, from) && (server(to) || to == kStorageHost)) ||
      (is_scenario_client(s, to) && (server(from) || from == kStorageHost)))
    return std::nullopt;
  if (is_redis(from) && is_redis(to) && scenarios::redis_master_of(from) == scenarios::redis_master_of(to)) return std::nullopt;  // the replication link
  return " " + from + "->" + to +
         ": unsupported in live mode (no connection carries it: only client<->server, client<->storage and "
         "master<->replica links; etcd / ZooKeeper members talk to each other directly)";
}

// The groups' cuts act on the proxies in front of the servers: between a
// client and a server, never between two members (their links are direct).
std::optional<std::string> proxied_partition(const Scenario& s, const FaultSpec& f) {
  std::optional<std::size_t> member_group;
  for (std::size_t g = 0; g < f.groups.size(); ++g)
    for (const auto& host : f.groups[g]) {
      if (host == scenarios::kSentinelHost)
        return ": unsupported in live mode (the sentinel host is the Sentinel quorum live mode starts, which stays "
               "reachable)";
      if (!is_cp_member(s, host)) continue;
      if (member_group && *member_group != g)
        return ": unsupported in live mode (it separates etcd / ZooKeeper members, whose links are direct, not "
               "through the proxy)";
      member_group = g;
    }
  return std::nullopt;
}

// In FaultKind order (checked below). A server's clock is set through the
// preload of a server live mode starts, so clock faults on a server need
// process control as a pause of one does.
constexpr std::array<LiveFaultKind, scenarios::kFaultKindCount> kLiveFaultKinds = {{
    {FaultKind::Pause, process_target, ProcessControl::ForRedisTargets},
    {FaultKind::ClockJump, clock_target, ProcessControl::ForRedisTargets},
    {FaultKind::ClockDrift, clock_target, ProcessControl::ForRedisTargets},
    {FaultKind::Delay, routable_link, ProcessControl::Never},
    {FaultKind::Crash, process_target, ProcessControl::Always},
    {FaultKind::PowerLoss, power_loss_target, ProcessControl::Always},
    {FaultKind::Restart, process_target, ProcessControl::Always},
    {FaultKind::Failover, fault_ok, ProcessControl::Always},  // the parser checked it names a master
    {FaultKind::Partition, proxied_partition, ProcessControl::Never},
    {FaultKind::Heal, fault_ok, ProcessControl::Never},
    {FaultKind::FsyncStall, fault_ok, ProcessControl::Always},  // the parser checked it names a Redis node
}};

static_assert(scenarios::in_fault_kind_order(kLiveFaultKinds), "kLiveFaultKinds: one entry per FaultKind, in FaultKind order");

}  // namespace

bool is_scenario_client(const Scenario& s, const std::string& host) {
  return std::any_of(s.clients.begin(), s.clients.end(), [&](const auto& c) { return c.name == host; });
}

const LiveFaultKind& live_fault_kind(FaultKind kind) { return kLiveFaultKinds[static_cast<std::size_t>(kind)]; }

std::optional<std::string> live_fault_refusal(const Scenario& s, const FaultSpec& f) {
  return live_fault_kind(f.kind).refuse_fault(s, f);
}

bool needs_process_control(const FaultSpec& f) {
  switch (live_fault_kind(f.kind).process_control) {
    case ProcessControl::Never: return false;
    case ProcessControl::Always: return true;
    case ProcessControl::ForRedisTargets: return is_redis(f.target);
  }
  return true;
}

bool may_need_process_control(FaultKind kind) {
  return live_fault_kind(kind).process_control != ProcessControl::Never;
}

namespace {

using scenarios::FaultMechanism;
using scenarios::FaultProduction;

// The fault as live mode really makes it on its own target.
FaultMechanism real_on_target(const FaultSpec& f, std::string means) {
  return FaultMechanism{std::string(scenarios::fault_kind_name(f.kind)), {f.target}, FaultProduction::Real,
                        std::move(means)};
}

// How live mode produces a fault on a CP topology where it differs from the
// Redis words of scenarios/fault_mechanism.cpp: on a member process, and a
// client pause or crash (its links are held or cut too: live_clients.cpp).
std::optional<FaultMechanism> cp_fault_mechanism(const Scenario& s, const FaultSpec& f) {
  const auto real = [&f](std::string means) { return real_on_target(f, std::move(means)); };
  if (f.kind == FaultKind::Pause && is_scenario_client(s, f.target))
    return real("the client thread stops at its next step until the pause ends, and the TCP proxies hold its links "
                "meanwhile (its client library's own threads send nothing either)");
  if ((f.kind == FaultKind::Crash || f.kind == FaultKind::Restart) && is_scenario_client(s, f.target))
    return real(std::string("the client thread forgets its lock and unwinds at its next step; the TCP proxies drop "
                            "what it sends and reset its links, as a dead process's sockets close, so its session "
                            "or lease is not closed but expires") +
                (f.restart_after || f.kind == FaultKind::Restart ? ", restarted with a fresh lock" : ""));
  if (!is_cp_member(s, f.target)) return std::nullopt;
  if (f.kind == FaultKind::Pause) return real("SIGSTOP, SIGCONT after the duration");
  if (f.kind == FaultKind::Crash)
    return real(std::string("SIGKILL") + (f.restart_after ? ", restarted on its ports and data directory" : ""));
  if (f.kind == FaultKind::Restart) return real("SIGTERM, started again on its ports and data directory");
  return std::nullopt;
}

// A client library's adapter process under drift (clock-drift, clock_drift_ppm).
constexpr const char* kAdapterDrift =
    "the client preload (LD_PRELOAD) drifts every clock of the adapter process (wall and monotonic) and scales its "
    "sleeps and poll/epoll/select timeouts, and the client's own (ClientClock)";

// How a fault acts on a client whose lock is a client library's, run in
// its own process (live/external_lock.hpp): on that process.
std::optional<FaultMechanism> library_fault_mechanism(const Scenario& s, const FaultSpec& f) {
  if (!is_scenario_client(s, f.target)) return std::nullopt;
  const auto real = [&f](std::string means) { return real_on_target(f, std::move(means)); };
  if (f.kind == FaultKind::Pause)
    return real("SIGSTOP of the client's adapter process (its library's own timers and threads stop too), SIGCONT "
                "after the duration");
  if (f.kind == FaultKind::Crash || f.kind == FaultKind::Restart)
    return real(std::string("SIGKILL of the client's adapter process") +
                (f.restart_after || f.kind == FaultKind::Restart ? ", restarted as a new process" : ""));
  if (f.kind == FaultKind::ClockJump)
    return real("the client preload (LD_PRELOAD) steps the adapter process's wall clock (CLOCK_REALTIME, "
                "gettimeofday, time; monotonic untouched, as an NTP step), and the client's own (ClientClock)");
  if (f.kind == FaultKind::ClockDrift) return real(kAdapterDrift);
  return std::nullopt;
}

}  // namespace

std::vector<FaultMechanism> live_run_fault_mechanisms(const Scenario& s, bool library_lock) {
  if (!is_cp(s) && !library_lock) return live_fault_mechanisms(s);
  std::vector<FaultMechanism> out;
  Scenario one = s;
  for (const FaultSpec& f : s.faults) {
    auto own = library_lock ? library_fault_mechanism(s, f) : std::nullopt;
    if (!own && is_cp(s)) own = cp_fault_mechanism(s, f);
    if (own) {
      scenarios::merge_fault_mechanism(out, *own);
      continue;
    }
    one.faults = {f};
    for (const auto& m : live_fault_mechanisms(one)) scenarios::merge_fault_mechanism(out, m);
  }
  one.faults.clear();  // the settings (a client's clock drift)
  for (auto m : live_fault_mechanisms(one)) {
    if (library_lock && m.fault == "clock_drift_ppm") m.means = kAdapterDrift;
    scenarios::merge_fault_mechanism(out, m);
  }
  return out;
}

}  // namespace locksim::live
