// The live runner (live_runner.hpp): the refusals before anything starts
// (live_refusals.hpp), the servers of the scenario's service
// (live_service.hpp), one LiveSession over them (live_session.hpp: the live
// WorkloadWorld, its parts and its event loop), and the judged result.
#include "live/live_runner.hpp"

#include <signal.h>

#include <atomic>
#include <csignal>
#include <mutex>

#include "live/existing_servers.hpp"
#include "live/external_lock.hpp"
#include "live/live_cp_service.hpp"
#include "live/live_faults.hpp"
#include "live/live_redis_service.hpp"
#include "live/live_session.hpp"
#include "scenarios/repro.hpp"

namespace locksim::live {

namespace {

using namespace std::chrono_literals;
using scenarios::FaultSpec;
using scenarios::Scenario;

std::atomic<int> g_interrupted{0};
extern "C" void on_interrupt(int sig) { g_interrupted.store(sig); }

// SIGINT/SIGTERM set g_interrupted while any live run is in flight. Runs
// may overlap (`sweep --live --jobs N`): the first guard installs the
// handlers (and clears the flag), the last puts the old ones back, so a
// signal during any of them stops every run in flight.
class InterruptGuard {
 public:
  InterruptGuard() {
    std::lock_guard lk(mutex());
    if (in_flight()++ > 0) return;
    g_interrupted.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int());
    ::sigaction(SIGTERM, &sa, &old_term());
  }
  ~InterruptGuard() {
    std::lock_guard lk(mutex());
    if (--in_flight() > 0) return;
    ::sigaction(SIGINT, &old_int(), nullptr);
    ::sigaction(SIGTERM, &old_term(), nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static int& in_flight() {
    static int n = 0;
    return n;
  }
  static struct sigaction& old_int() {
    static struct sigaction a {};
    return a;
  }
  static struct sigaction& old_term() {
    static struct sigaction a {};
    return a;
  }
};

// [nemesis] as the simulator draws it for this seed: plain [[fault]]s.
Scenario with_nemesis_faults(const Scenario& given, std::uint64_t seed) {
  Scenario s = given;
  for (FaultSpec& f : scenarios::nemesis_faults(given, seed)) s.faults.push_back(std::move(f));
  s.nemesis.reset();
  return s;
}

std::string scale_text(std::int64_t ppm) {
  std::string frac = std::to_string(1'000'000 + ppm % 1'000'000).substr(1);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return std::to_string(ppm / 1'000'000) + (frac.empty() ? "" : "." + frac);
}

// What `run` would have printed for this history, with live mode's notes.
struct Judged {
  const Scenario& given;
  const Scenario& scenario;
  const locks::LockInfo& lock;
  std::uint64_t seed;
  std::string source, time_scale;
  const std::vector<std::string>& endpoints;
};

LiveRun judged_live_run(const Judged& j, LiveRecorder& recorder, const std::string& what_ran) {
  LiveRun out;
  scenarios::RunResult& r = out.run;
  r = scenarios::judged_run(j.scenario, j.lock.name, j.seed, j.source, std::move(recorder.history()),
                            std::move(recorder.stats()));
  r.digest = scenarios::history_digest(r.history);
  r.events = scenarios::history_record_count(r.history);
  r.sim_time_ms = to_ms(j.scenario.duration);
  r.repro = scenarios::live_repro(r.source, j.lock.name, j.time_scale, j.endpoints,
                                  j.given.nemesis ? std::optional<std::uint64_t>(j.seed) : std::nullopt);
  for (const auto& n : r.history.nodes) r.host_names.push_back(n);
  for (const auto& c : r.history.clients) r.host_names.push_back(c.name);
  out.notes = {
      "live run against " + what_ran + " at time scale " + j.time_scale + " (times are shown in scenario time)",
      "not deterministic: the digest is a hash of this run's history, not a replayable trace digest"};
  return out;
}

// The notes after the first two: existing servers, how each fault was
// produced, then the session's own (in the order it wrote them).
void add_notes(LiveRun& out, const Judged& j, LiveRecorder& recorder) {
  if (!j.endpoints.empty())
    out.notes.push_back("existing servers: every key was under the prefix " + out.key_prefix +
                        "; the run's keys were deleted at the end");
  out.fault_mechanisms = live_run_fault_mechanisms(j.scenario,
                                                   !j.lock.library.empty());  // one line each in the text too
  for (const auto& m : out.fault_mechanisms) out.notes.push_back(scenarios::fault_mechanism_text(m));
  for (std::string& note : recorder.notes()) out.notes.push_back(std::move(note));
  if (j.given.nemesis)
    out.notes.push_back("[nemesis] drawn for seed " + std::to_string(j.seed) + " as `run` draws it: " +
                        std::to_string(j.scenario.faults.size() - j.given.faults.size()) + " faults");
}

}  // namespace

Scenario scale_scenario(const Scenario& in, std::int64_t ppm) {
  Scenario s = in;
  auto sc = [ppm](Duration& d) { d = scale(d, ppm); };
  sc(s.duration);
  sc(s.lock.ttl);
  s.lock.ttl = std::max<Duration>(s.lock.ttl, 1ms);
  sc(s.lock.retry);
  sc(s.lock.acquire_timeout);
  sc(s.lock.node_timeout);
  sc(s.lock.retry_jitter);
  sc(s.lock.renew_interval);
  sc(s.redis.replication_lag);
  sc(s.redis.failover_after);
  sc(s.cp.election_timeout);
  sc(s.cp.heartbeat);
  sc(s.cp.tick);
  sc(s.network.timeout);
  if (s.liveness) sc(*s.liveness);
  for (auto& c : s.clients) sc(c.start), sc(c.work);
  for (auto& f : s.faults) {
    sc(f.at);
    sc(f.duration);
    sc(f.by);
    if (f.restart_after) sc(*f.restart_after);
  }
  return s;
}

Result<LiveRun, LiveError> run_live(const Scenario& given, const LiveOptions& options) {
  register_library_locks();
  const Scenario scenario = with_nemesis_faults(given, options.seed);
  const std::string lock_kind = options.lock_kind.empty() ? scenario.lock_kind : options.lock_kind;
  const std::string time_scale = scale_text(options.time_scale_ppm);
  Scenario scaled = scale_scenario(scenario, options.time_scale_ppm);
  if (auto refused = live_refusal(scenario, scaled, lock_kind, options)) return failure(*refused);
  const locks::LockInfo lock = *locks::find_lock(lock_kind);
  const RunKeys keys = run_keys(scaled, !options.redis_endpoints.empty(), options.key_prefix);  // existing_servers.hpp
  InterruptGuard interrupts;
  const bool redis = scenario.topology == locks::Topology::Redis;
  auto service = redis ? start_redis_service(scenario, options, keys.touched, &g_interrupted)
                       : start_cp_service(scaled, &g_interrupted);
  if (!service) return failure(service.error());
  LiveSession session(scaled, scenario.duration, lock, options.time_scale_ppm, **service, keys.order_key,
                      g_interrupted);
  auto ran = session.run();
  const auto cleanup = (*service)->stop();
  if (!ran) return failure(ran.error());
  if (cleanup) return failure(LiveError{kInternal, *cleanup});
  // A signal that came while the servers were being stopped still ends the
  // caller (a `sweep --live` must not go on to the next cell).
  if (int sig = g_interrupted.load()) return failure(interrupted_error(sig, (*service)->stopped_text()));
  const Judged j{given,
                 scenario,
                 lock,
                 options.seed,
                 options.scenario_ref.empty() ? scenario.name : options.scenario_ref,
                 time_scale,
                 options.redis_endpoints};
  LiveRun out = judged_live_run(j, session.recorder(), (*service)->what_ran(lock));
  out.key_prefix = keys.prefix;
  add_notes(out, j, session.recorder());
  return out;
}

}  // namespace locksim::live
