// The live session's fault actions (live_fault_actions.hpp).
#include "live/live_fault_actions.hpp"

namespace locksim::live {

using scenarios::FaultKind;
using scenarios::FaultSpec;
using scenarios::TriggerEvent;
using Clock = LiveCore::Clock;

void SessionFaultActions::after(Duration after, std::function<void()> then) {
  std::lock_guard lk(p_.core.mutex);
  p_.events.schedule(Clock::now() + std::chrono::duration_cast<Clock::duration>(after), std::move(then));
}

void SessionFaultActions::server_pause(std::size_t node, Duration d) {
  servers_.pause(node);
  after(d, [this, node] { servers_.resume(node); });
}

void SessionFaultActions::crashed(const FaultSpec& f) {
  p_.timeline.reach(f.target, TriggerEvent::Crash);
  if (f.restart_after) p_.timeline.follow_up(FaultKind::Restart, f.target, *f.restart_after);
}

// A server's crash: SIGKILL (a Redis node's power loss: observed), then its
// restart when the scenario asks for it. A Redis master's automatic
// failover is the Sentinel quorum's own doing (LiveService::follow_servers).
void SessionFaultActions::server_crash(const FaultSpec& f, std::size_t node, bool power_loss) {
  p_.service.crash(node, power_loss, p_.recorder);
  std::lock_guard lk(p_.core.mutex);
  crashed(f);
}

void SessionFaultActions::server_restart(std::size_t node) {
  auto restarted = servers_.restart(node);
  if (!restarted) return p_.core.fail(restarted.error());
  std::lock_guard lk(p_.core.mutex);
  p_.timeline.reach(servers_.server_name(node), TriggerEvent::Restart);
}

// A client's crash records itself, unless the client is down already.
void SessionFaultActions::client_crash(const FaultSpec& f) {
  const std::size_t c = p_.clients.index(f.target);
  if (p_.clients.down(c)) return;
  p_.recorder.note_fault(f, std::nullopt);
  std::lock_guard lk(p_.core.mutex);
  p_.clients.crash(c);
  crashed(f);
  p_.core.cv.notify_all();
}

// A restart of a running client crashes it first (sim::Host::restart).
void SessionFaultActions::client_restart(const std::string& client) {
  const std::size_t c = p_.clients.index(client);
  if (!p_.clients.down(c)) {
    FaultSpec crash;
    crash.kind = FaultKind::Crash;
    crash.target = client;
    client_crash(crash);
  }
  std::lock_guard lk(p_.core.mutex);
  p_.clients.revive(c);
  p_.timeline.reach(client, TriggerEvent::Restart);
  p_.core.cv.notify_all();
}

// `delay from -> to`: the next bytes (or storage message) on that link wait
// d more, and everything behind them too.
void SessionFaultActions::network_delay(const FaultSpec& f) {
  const auto d = std::chrono::duration_cast<Clock::duration>(f.duration);
  if (f.from == kStorageHost || f.to == kStorageHost)
    return p_.storage.delay(f.from == kStorageHost ? f.to : f.from, f.to == kStorageHost, d);
  if (auto link = route(servers_, f.from, f.to)) servers_.proxy(link->node).delay_next(link->source, link->flow, d);
}

// A new partition replaces the last one (as sim::Network::partition does):
// on the proxies, the clients' own links and the storage link.
void SessionFaultActions::partition(const PartitionMap& map, std::optional<PartitionMode> mode) {
  live::apply_partition(servers_, map, mode);  // live_network.hpp
  std::lock_guard lk(p_.core.mutex);
  p_.core.partition = map;
  p_.core.partition_mode = mode;
  p_.clients.relink();
  p_.storage.repartition();
}

}  // namespace locksim::live
