// Scenario bounds (see scenario_bounds.hpp for why each cap exists).
#include "scenarios/scenario_bounds.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "locks/registry.hpp"
#include "scenarios/cp_topology.hpp"
#include "scenarios/duration.hpp"
#include "scenarios/services.hpp"
#include "vocab/time.hpp"

namespace locksim::scenarios {

namespace {

// The line of a key given as a toml++ path ("client[0].iterations", 0-based),
// else of its nearest table that exists, else 1 (the top of the file).
int line_at(const toml::table& file, std::string path) {
  for (;;) {
    if (const toml::node* n = file.at_path(path).node(); n && n->source().begin.line > 0)
      return static_cast<int>(n->source().begin.line);
    const auto cut = path.find_last_of(".[");
    if (cut == std::string::npos) return 1;
    path.resize(cut);
  }
}

std::string hours(Duration d) { return std::to_string(std::chrono::duration_cast<std::chrono::hours>(d).count()) + "h"; }

Duration magnitude(Duration d) { return d < Duration::zero() ? -d : d; }

std::optional<BoundProblem> check_clients(const Scenario& s, const toml::table& file) {
  if (s.clients.size() <= kMaxClients) return std::nullopt;
  return BoundProblem{line_at(file, "client[" + std::to_string(kMaxClients) + "]"), "client", std::to_string(s.clients.size()) + " clients (at most " +
                                       std::to_string(kMaxClients) + "): the run would not fit in memory", ""};
}

// Each iteration records an acquire, its writes and a release.
std::optional<BoundProblem> check_history_estimate(const Scenario& s, const toml::table& file) {
  std::int64_t events = 0;
  for (std::size_t i = 0; i < s.clients.size(); ++i) {
    const ClientSpec& c = s.clients[i];
    events += std::int64_t{c.iterations} * (c.writes + 2);
    if (events <= kMaxHistoryEvents) continue;
    const std::string at = "client[" + std::to_string(i + 1) + "]";
    return BoundProblem{line_at(file, "client[" + std::to_string(i) + "].iterations"), at + ".iterations",
                        "writes × iterations: the clients up to " + at + " (" + c.name + ", writes = " +
                            std::to_string(c.writes) + ", iterations = " + std::to_string(c.iterations) +
                            ") would record about " + std::to_string(events) + " history events (at most " +
                            std::to_string(kMaxHistoryEvents) + "): the run would not fit in memory", ""};
  }
  return std::nullopt;
}

std::string fault_path(std::size_t i, const char* key) { return "fault[" + std::to_string(i) + "]." + key; }
std::string fault_field(std::size_t i, const char* key) { return "fault[" + std::to_string(i + 1) + "]." + key; }

// Written clock jumps: the total size per host.
std::optional<BoundProblem> check_written_clock_shifts(const Scenario& s) {
  std::map<std::string, Duration> shift;
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const FaultSpec& f = s.faults[i];
    if (fault_kind_info(f.kind).clock != ClockEffect::Step) continue;
    Duration& total = shift[f.target];
    total += magnitude(f.by);  // each |by| <= kMaxDuration, so the sum of two cannot overflow
    if (total > kMaxClockShift)
      return BoundProblem{f.line, fault_field(i, "by"),
                          "the clock jumps of " + f.target + " add up to more than " + hours(kMaxClockShift) +
                              " (the cap: the host's wall clock must stay within 64-bit nanoseconds)",
                          fault_path(i, "by")};
  }
  return std::nullopt;
}

// --- derived durations -------------------------------------------------

BoundProblem derived_over_cap(std::string path, std::string field, const std::string& what) {
  return BoundProblem{0, std::move(field),
                      what + " is over the cap of " + hours(kMaxDerivedDuration) +
                          " for a derived duration (it is added to the run's instants in 64-bit nanoseconds)",
                      std::move(path)};
}

// Generated faults are not read through Section, so their fields meet the
// written cap here (a parsed file's always do).
std::optional<BoundProblem> check_fault_fields(const Scenario& s) {
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const FaultSpec& f = s.faults[i];
    const std::pair<const char*, Duration> fields[] = {
        {"at", f.at}, {"duration", f.duration}, {"by", f.by}, {"restart_after", f.restart_after.value_or(Duration{0})}};
    for (const auto& [key, value] : fields)
      if (auto over = duration_over_cap(value)) return BoundProblem{0, fault_field(i, key), *over, fault_path(i, key)};
  }
  return std::nullopt;
}

// A tail packet is slowed up to 2^tail_max_shift times (sim::LatencyModel).
std::optional<BoundProblem> check_latency_tail(const Scenario& s) {
  const NetworkSpec& n = s.network;
  if (n.tail_per_mille == 0 || n.tail_max_shift == 0) return std::nullopt;
  if (derived_product(n.latency.max, std::int64_t{1} << n.tail_max_shift)) return std::nullopt;
  return derived_over_cap("network.tail_max_shift", "network.tail_max_shift",
                          "a tail packet's delay, the latency's maximum (" + duration_text(n.latency.max) + ") x 2^" +
                              std::to_string(n.tail_max_shift) + ",");
}

std::optional<BoundProblem> check_lock_and_clients(const Scenario& s) {
  if (!s.liveness && !derived_product(s.lock.ttl, 2))
    return derived_over_cap("lock.ttl", "lock.ttl", "the liveness bound, 2 x ttl,");
  for (std::size_t i = 0; i < s.clients.size(); ++i)
    if (!derived_sum({s.duration, s.lock.acquire_timeout, s.clients[i].work}))
      return derived_over_cap("client[" + std::to_string(i) + "].work", "client[" + std::to_string(i + 1) + "].work",
                              "a section begun at the run's end, duration + acquire_timeout + work,");
  return std::nullopt;
}

// A fault's last effect: its trigger (at most the run's end), its offset,
// its length and its restart.
std::optional<BoundProblem> check_fault_ends(const Scenario& s) {
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const FaultSpec& f = s.faults[i];
    if (!derived_sum({s.duration, f.at, f.duration, f.restart_after.value_or(Duration{0})}))
      return derived_over_cap(fault_path(i, "duration"), fault_field(i, "duration"),
                              "the fault's end, duration + at + duration + restart_after,");
  }
  return std::nullopt;
}

// The nemesis draws gaps of up to 2 x mean_interval and spans of up to
// max_duration (faults.cpp expand_nemesis, NemesisDraw::span).
std::optional<BoundProblem> check_nemesis_draws(const Scenario& s) {
  if (!s.nemesis) return std::nullopt;
  const auto gap = derived_product(s.nemesis->mean_interval, 2);
  if (gap && derived_sum({s.duration, *gap, s.nemesis->max_duration})) return std::nullopt;
  return derived_over_cap("nemesis.mean_interval", "nemesis.mean_interval",
                          "a drawn fault's end, duration + 2 x mean_interval + max_duration,");
}

// A duration a CP service derives from its table (its row's
// derived_overflow: etcd's request timeout, ZooKeeper's longest session).
std::optional<BoundProblem> check_cp_timeouts(const Scenario& s) {
  const CpServiceOps* cp = service_row(s.topology).cp;
  if (!cp) return std::nullopt;
  auto over = cp->derived_overflow(s.cp);
  if (!over) return std::nullopt;
  return derived_over_cap(over->first, over->first, over->second);
}

// A [nemesis] with clock jumps: its faults number about duration /
// mean_interval (twice that, allowing for the draw), each at most max_duration.
std::optional<BoundProblem> check_nemesis_clock_shifts(const Scenario& s, const toml::table& file) {
  if (!s.nemesis) return std::nullopt;
  const NemesisSpec& n = *s.nemesis;
  bool jumps = false;
  for (FaultKind k : n.kinds) jumps = jumps || fault_kind_info(k).clock == ClockEffect::Step;
  if (!jumps) return std::nullopt;
  const std::int64_t faults = 2 * (s.duration / n.mean_interval) + 2;
  if (faults <= kMaxClockShift / n.max_duration) return std::nullopt;
  return BoundProblem{line_at(file, "nemesis.max_duration"), "nemesis.max_duration",
                      "clock jumps of up to " + format_duration(n.max_duration) + " every " +
                          format_duration(n.mean_interval) + " could move a clock by more than " +
                          hours(kMaxClockShift) + " in " + format_duration(s.duration) +
                          " (the cap): use a shorter max_duration or a longer mean_interval", ""};
}

// Fields that do nothing on this topology: an error, like an unknown key.
std::optional<BoundProblem> check_fields_without_effect(const Scenario& s, const toml::table& file) {
  if (s.redis.replicas > 0) return std::nullopt;
  for (const char* key : {"failover_after", "replication_lag", "parallel_syncs", "failover_timeout"}) {
    const std::string path = std::string("redis.") + key;
    if (file.at_path(path))
      return BoundProblem{line_at(file, path), path,
                          "has no effect: [redis] replicas = 0 (set replicas, or remove it)", ""};
  }
  return std::nullopt;
}

// A lock option the lock the file names cannot read (its LockInfo::options). Checked only when the
// file names its `kind`: without one, the lock is chosen at run time, and a
// sweep runs every lock on the same file (each reads what it uses).
std::optional<BoundProblem> check_lock_options_without_effect(const Scenario& s, const toml::table& file) {
  if (!file.at_path("lock.kind")) return std::nullopt;
  const auto named = locks::find_lock(s.lock_kind);
  if (!named) return std::nullopt;  // an unknown kind is reported where it is resolved
  const auto reads = [](const locks::LockInfo& lock, std::string_view option) {
    return std::find(lock.options.begin(), lock.options.end(), option) != lock.options.end();
  };
  for (const std::string_view option : kLockSpecificOptions) {
    const std::string path = "lock." + std::string(option);
    if (!file.at_path(path) || reads(*named, option)) continue;
    std::string used_by;
    for (const auto& lock : locks::all_locks())
      if (reads(lock, option)) used_by += (used_by.empty() ? "" : ", ") + lock.name;
    return BoundProblem{line_at(file, path), path,
                        "has no effect for lock kind \"" + s.lock_kind + "\" (only " + used_by + " read it)", ""};
  }
  return std::nullopt;
}

}  // namespace

std::optional<BoundProblem> scenario_arithmetic_problem(const Scenario& s) {
  for (auto check : {check_fault_fields, check_written_clock_shifts, check_latency_tail, check_lock_and_clients,
                     check_fault_ends, check_nemesis_draws, check_cp_timeouts})
    if (auto problem = check(s)) return problem;
  return std::nullopt;
}

std::optional<BoundProblem> check_scenario_bounds(const Scenario& s, const toml::table& file) {
  for (auto check : {check_clients, check_history_estimate})
    if (auto problem = check(s, file)) return problem;
  if (auto problem = scenario_arithmetic_problem(s)) {
    if (problem->line == 0) problem->line = line_at(file, problem->path);
    return problem;
  }
  for (auto check : {check_nemesis_clock_shifts, check_fields_without_effect, check_lock_options_without_effect})
    if (auto problem = check(s, file)) return problem;
  return std::nullopt;
}

}  // namespace locksim::scenarios
