// The pre-run refusals of live mode (live_refusals.hpp).
#include "live/live_refusals.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <stdexcept>

#include "live/external_lock.hpp"
#include "live/live_faults.hpp"
#include "live/live_service_table.hpp"
#include "locks/hiredis/real_runtime.hpp"
#include "scenarios/fault_kinds.hpp"
#include "scenarios/runner.hpp"

namespace locksim::live {

namespace {

using namespace std::chrono_literals;
using scenarios::Scenario;

// A library lock needs its adapter's command (the scenario's, for a lock
// that ships no adapter), and clock faults its runtime can take
// (adapter_clock_refusal, external_lock.hpp).
std::optional<std::string> library_lock_refusal(const Scenario& s, const locks::LockInfo& lock) {
  if (lock.library.empty()) return std::nullopt;
  if (lock.adapter.script.empty() && s.lock.command.empty())
    return "lock " + lock.name + " needs its adapter's command: --client \"CMD ARGS\" or [lock] command = [...]";
  return adapter_clock_refusal(s, lock);
}

// A TTL the lock sets in whole seconds must stay whole seconds at this
// time scale.
std::optional<std::string> lock_scale_refusal(const Scenario& scaled, const locks::LockInfo& lock) {
  if (lock.whole_second_ttl.empty() || scaled.lock.ttl % Duration{1s} == Duration{0}) return std::nullopt;
  return lock.name + " sets its TTL with " + lock.whole_second_ttl + " in whole seconds: ttl x time-scale (" +
         format_duration(scaled.lock.ttl) + ") must be whole seconds (e.g. --time-scale 1)";
}

// What the service's members take at this time scale (its live row:
// etcd's whole-second leases, ZooKeeper's whole-millisecond tick).
std::optional<std::string> service_scale_refusal(const Scenario& scaled) {
  const LiveServiceRow* row = live_service_row(scaled.topology);  // none for Redis
  return row ? row->scale_refusal(scaled) : std::nullopt;
}

// --redis HOST:PORT,...: each one valid, none twice, and loopback unless
// --allow-remote (a typo must not point a fault injector at production).
std::optional<LiveError> endpoints_refusal(const std::vector<std::string>& endpoints, bool allow_remote) {
  for (const auto& e : endpoints) {
    std::string host;
    try {
      host = locks::parse_endpoint(e).host;
    } catch (const std::invalid_argument& why) {
      return LiveError{kBadInput, std::string("--redis: ") + why.what()};
    }
    in_addr v4{};  // a name or IPv6 is not provably loopback
    const bool loopback = host == "localhost" ||
                          (::inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127);
    if (!allow_remote && !loopback)
      return LiveError{kBadInput,
                       "--redis " + e + " is not a loopback address; pass --allow-remote to inject faults against it"};
  }
  if (endpoints.empty()) return LiveError{kBadInput, "--redis needs at least one HOST:PORT"};
  for (auto it = endpoints.begin(); it != endpoints.end(); ++it)
    if (std::find(endpoints.begin(), it, *it) != it)
      return LiveError{kBadInput, "--redis lists " + *it + " twice (each master is its own server)"};
  return std::nullopt;
}

// What servers someone else runs cannot take: a topology other than the
// endpoints', anything that needs process control of a server, writes of
// our own beside the run's keys.
std::optional<std::string> unsupported_on_existing(const Scenario& s, std::size_t endpoints) {
  if (static_cast<std::size_t>(s.redis.masters) != endpoints)
    return "scenario " + s.name + " has " + std::to_string(s.redis.masters) + " Redis master(s); --redis gives " +
           std::to_string(endpoints);
  if (s.redis.replicas > 0)
    return "scenario " + s.name + " has replicas: --redis cannot set up replication on servers it does not run";
  for (const auto& f : s.faults)
    if (needs_process_control(f))
      return "fault (line " + std::to_string(f.line) + ") " + std::string(scenarios::fault_kind_name(f.kind)) + " " +
             f.target + ": needs process control of the server, refused with --redis";
  if (s.nemesis && std::any_of(s.nemesis->kinds.begin(), s.nemesis->kinds.end(), may_need_process_control))
    return "[nemesis] may crash, pause, restart, stall or change the clock of a server: refused with --redis";
  if (s.redis.background_writes_per_second > 0)
    return "scenario " + s.name + " has a background write load: refused with --redis (it would write to your servers)";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> live_unsupported(const Scenario& s, const locks::LockInfo& lock) {
  if (auto why = scenarios::unsupported_lock(s, lock)) return why;
  if (lock.needs_redis84 || s.redis.redis84)
    return "lock " + lock.name + " needs Redis 8.4 commands (DELEX/IFEQ): unsupported in live mode";
  if (auto why = library_lock_refusal(s, lock)) return why;
  for (const scenarios::FaultSpec& f : s.faults) {
    const std::string where = (f.line > 0 ? "fault (line " + std::to_string(f.line) + ") "
                                          : "[nemesis] fault at " + format_duration(f.at) + " ") +
                              std::string(scenarios::fault_kind_name(f.kind));
    if (auto why = live_fault_refusal(s, f)) return where + *why;
  }
  return std::nullopt;
}

std::optional<LiveError> live_refusal(const Scenario& scenario, const Scenario& scaled, const std::string& lock_kind,
                                      const LiveOptions& options) {
  const auto lock = locks::find_lock(lock_kind);
  if (!lock) return LiveError{kBadInput, locks::unknown_lock_message(lock_kind)};
  if (auto why = live_unsupported(scenario, *lock)) return LiveError{kBadInput, *why};
  if (options.time_scale_ppm < kMinTimeScalePpm || options.time_scale_ppm > kMaxTimeScalePpm)
    return LiveError{kBadInput, "--time-scale must be between 0.001 and 10"};
  if (auto why = lock_scale_refusal(scaled, *lock)) return LiveError{kBadInput, *why};
  const bool existing = !options.redis_endpoints.empty();
  if (existing && scenario.topology != locks::Topology::Redis)
    return LiveError{kBadInput, "--redis names Redis servers: scenario " + scenario.name + " has an [" +
                                    std::string(locks::topology_name(scenario.topology)) + "] topology"};
  if (auto why = service_scale_refusal(scaled)) return LiveError{kBadInput, *why};
  if (!existing) return std::nullopt;
  if (auto refused = endpoints_refusal(options.redis_endpoints, options.allow_remote)) return refused;
  if (auto why = unsupported_on_existing(scenario, options.redis_endpoints.size())) return LiveError{kBadInput, *why};
  return std::nullopt;
}

}  // namespace locksim::live
