// Scenario bounds (see scenario_bounds.hpp for why each cap exists).
#include "scenarios/scenario_bounds.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "locks/registry.hpp"
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
                                       std::to_string(kMaxClients) + "): the run would not fit in memory"};
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
                            std::to_string(kMaxHistoryEvents) + "): the run would not fit in memory"};
  }
  return std::nullopt;
}

// Written clock jumps: the total size per host.
std::optional<BoundProblem> check_written_clock_shifts(const Scenario& s, const toml::table&) {
  std::map<std::string, Duration> shift;
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const FaultSpec& f = s.faults[i];
    if (f.kind != FaultKind::ClockJump) continue;
    Duration& total = shift[f.target];
    total += magnitude(f.by);  // each |by| <= kMaxDuration, so the sum of two cannot overflow
    if (total > kMaxClockShift)
      return BoundProblem{f.line, "fault[" + std::to_string(i + 1) + "].by",
                          "the clock jumps of " + f.target + " add up to more than " + hours(kMaxClockShift) +
                              " (the cap: the host's wall clock must stay within 64-bit nanoseconds)"};
  }
  return std::nullopt;
}

// A [nemesis] with clock jumps: its faults number about duration /
// mean_interval (twice that, allowing for the draw), each at most max_duration.
std::optional<BoundProblem> check_nemesis_clock_shifts(const Scenario& s, const toml::table& file) {
  if (!s.nemesis) return std::nullopt;
  const NemesisSpec& n = *s.nemesis;
  bool jumps = false;
  for (FaultKind k : n.kinds) jumps = jumps || k == FaultKind::ClockJump;
  if (!jumps) return std::nullopt;
  const std::int64_t faults = 2 * (s.duration / n.mean_interval) + 2;
  if (faults <= kMaxClockShift / n.max_duration) return std::nullopt;
  return BoundProblem{line_at(file, "nemesis.max_duration"), "nemesis.max_duration",
                      "clock jumps of up to " + format_duration(n.max_duration) + " every " +
                          format_duration(n.mean_interval) + " could move a clock by more than " +
                          hours(kMaxClockShift) + " in " + format_duration(s.duration) +
                          " (the cap): use a shorter max_duration or a longer mean_interval"};
}

// Fields that do nothing on this topology: an error, like an unknown key.
std::optional<BoundProblem> check_fields_without_effect(const Scenario& s, const toml::table& file) {
  if (s.redis.replicas > 0) return std::nullopt;
  for (const char* key : {"failover_after", "replication_lag"}) {
    const std::string path = std::string("redis.") + key;
    if (file.at_path(path))
      return BoundProblem{line_at(file, path), path,
                          "has no effect: [redis] replicas = 0 (set replicas, or remove it)"};
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
                        "has no effect for lock kind \"" + s.lock_kind + "\" (only " + used_by + " read it)"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<BoundProblem> check_scenario_bounds(const Scenario& s, const toml::table& file) {
  for (auto check : {check_clients, check_history_estimate, check_written_clock_shifts, check_nemesis_clock_shifts,
                     check_fields_without_effect, check_lock_options_without_effect})
    if (auto problem = check(s, file)) return problem;
  return std::nullopt;
}

}  // namespace locksim::scenarios
