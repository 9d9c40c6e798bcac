// Live refusals per fault kind (live_faults.hpp).
#include "live/live_faults.hpp"

#include <algorithm>

#include "live/live_network.hpp"

namespace locksim::live {

namespace {

using scenarios::FaultKind;
using scenarios::FaultSpec;
using scenarios::Scenario;

bool is_client(const Scenario& s, const std::string& host) {
  return std::any_of(s.clients.begin(), s.clients.end(), [&](const auto& c) { return c.name == host; });
}
bool is_redis(const std::string& host) { return scenarios::is_redis_host_name(host); }

std::optional<std::string> fault_ok(const Scenario&, const FaultSpec&) { return std::nullopt; }

// pause, crash, power-loss, restart, clock-jump, clock-drift: a client
// thread (its runtime's clocks) or a redis-server process (its preload).
std::optional<std::string> process_target(const Scenario& s, const FaultSpec& f) {
  if (is_redis(f.target) || is_client(s, f.target)) return std::nullopt;
  return " " + f.target + ": unsupported in live mode (only clients and Redis nodes)";
}

// A delay needs a connection that carries its link.
std::optional<std::string> routable_link(const Scenario& s, const FaultSpec& f) {
  const auto& from = f.from;
  const auto& to = f.to;
  if ((is_client(s, from) && (is_redis(to) || to == kStorageHost)) ||
      (is_client(s, to) && (is_redis(from) || from == kStorageHost)))
    return std::nullopt;
  if (is_redis(from) && is_redis(to) && scenarios::redis_master_of(from) == scenarios::redis_master_of(to)) return std::nullopt;  // the replication link
  return " " + from + "->" + to +
         ": unsupported in live mode (no connection carries it: only client<->redis, client<->storage and "
         "master<->replica links)";
}

std::optional<std::string> no_sentinel_host(const Scenario&, const FaultSpec& f) {
  for (const auto& group : f.groups)
    for (const auto& host : group)
      if (host == scenarios::kSentinelHost) return ": unsupported in live mode (there is no sentinel host: the runner promotes replicas)";
  return std::nullopt;
}

// In FaultKind order (checked below).
// In FaultKind order (checked below). A server's clock is set through the
// preload of a server live mode starts, so clock faults on a server need
// process control as a pause of one does.
constexpr std::array<LiveFaultKind, scenarios::kFaultKindCount> kLiveFaultKinds = {{
    {FaultKind::Pause, process_target, ProcessControl::ForRedisTargets},
    {FaultKind::ClockJump, process_target, ProcessControl::ForRedisTargets},
    {FaultKind::ClockDrift, process_target, ProcessControl::ForRedisTargets},
    {FaultKind::Delay, routable_link, ProcessControl::Never},
    {FaultKind::Crash, process_target, ProcessControl::Always},
    {FaultKind::PowerLoss, process_target, ProcessControl::Always},
    {FaultKind::Restart, process_target, ProcessControl::Always},
    {FaultKind::Failover, fault_ok, ProcessControl::Always},  // the parser checked it names a master
    {FaultKind::Partition, no_sentinel_host, ProcessControl::Never},
    {FaultKind::Heal, fault_ok, ProcessControl::Never},
    {FaultKind::FsyncStall, fault_ok, ProcessControl::Always},  // the parser checked it names a Redis node
}};

static_assert(scenarios::in_fault_kind_order(kLiveFaultKinds), "kLiveFaultKinds: one entry per FaultKind, in FaultKind order");

}  // namespace

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

}  // namespace locksim::live
