// The live session (live_session.hpp): the workload's world on real time
// and the run's event loop.
#include "live/live_session.hpp"

#include <signal.h>

#include <algorithm>
#include <thread>

#include "live/zk_c_client.hpp"

namespace locksim::live {

namespace {

using namespace std::chrono_literals;
using Clock = LiveCore::Clock;
using scenarios::FaultSpec;

}  // namespace

LiveError interrupted_error(int sig, const std::string& stopped) {
  return LiveError{kInternal, std::string("interrupted by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + "; " + stopped,
                   true};
}

LiveSession::LiveSession(const scenarios::Scenario& scaled, Duration duration, const locks::LockInfo& lock,
                         std::int64_t ppm, LiveService& service, std::string order_key,
                         const std::atomic<int>& interrupted)
    : s_(scaled),
      duration_(duration),
      lock_(lock),
      service_(service),
      order_key_(std::move(order_key)),
      interrupted_(interrupted),
      core_(ppm),
      storage_(core_, events_, recorder_, scaled),
      clients_(core_, events_, recorder_, service, scaled, lock),
      actions_(FaultTargets{core_, events_, timeline_, recorder_, service, clients_, storage_}) {}

// The client threads are joined before the late replies' thread stops.
LiveSession::~LiveSession() {
  {
    std::lock_guard lk(core_.mutex);
    core_.stop.store(true);
    core_.cv.notify_all();
  }
  clients_.join();
}

bool LiveSession::wait_until(Clock::time_point deadline) {
  std::unique_lock lk(core_.mutex);
  core_.cv.wait_until(lk, deadline, [&] { return core_.stop.load(); });
  return !core_.stop.load();
}

std::chrono::milliseconds LiveSession::command_timeout() const {
  return std::max(50ms, std::chrono::ceil<std::chrono::milliseconds>(s_.network.timeout));
}

void LiveSession::record_with(std::size_t c, void (*call)(void*, const scenarios::Ledger&), void* fn) {
  std::lock_guard lk(core_.mutex);
  if (!core_.stop.load() && clients_.on_own_thread(c)) clients_.check_alive(c);
  call(fn, recorder_.ledger(clients_.progress(c)));
}

LocalInstant LiveSession::monotonic_now(std::size_t c) {
  return LocalInstant{std::chrono::duration_cast<Duration>(Clock::now().time_since_epoch())} +
         clients_.clock(c).monotonic_offset();
}

Task<void> LiveSession::sleep_until(std::size_t c, LocalInstant target) {
  const auto now = monotonic_now(c);
  const Duration d = target > now ? target - now : Duration{0};
  // The real time client c's own (drifting) clock takes to show d, as a
  // simulated client's work runs on its host's clock.
  clients_.work_until(c, Clock::now() + std::chrono::duration_cast<Clock::duration>(clients_.clock(c).real_for(d)));
  co_return;
}

// The run's start is its origin in real time (the simulator's true 0).
Task<void> LiveSession::await_start(std::size_t c, Duration start) {
  clients_.work_until(c, core_.origin + std::chrono::duration_cast<Clock::duration>(start));
  co_return;
}

// A write is a request to the storage host (LiveStorageLink); the client
// waits for the reply or its command timeout, whichever comes first. Then
// a step (a pause holds, a crash unwinds).
Task<Reply> LiveSession::send_write(std::size_t c, scenarios::WriteRequest request) {
  std::optional<std::int64_t> answer;
  {
    std::unique_lock lk(core_.mutex);
    if (core_.stop.load()) co_return Reply::error("IOERR locksim: the live run has ended");
    clients_.check_alive(c);
    const auto answered = storage_.send(c, request);
    core_.cv.wait_until(lk, Clock::now() + command_timeout(),
                        [&] { return answered->has_value() || core_.stop.load() || clients_.crashed_locked(c); });
    answer = *answered;
  }
  clients_.pause_point(c);
  co_return answer ? Reply::integer_of(*answer) : Reply::error(kTimeoutError);
}

// Fires a trigger point; a fault armed with no delay acts before we go on
// (as the simulated client yields for an instant), then a pause holds us.
Task<void> LiveSession::reach(std::size_t c, scenarios::TriggerEvent event, int write_index) {
  std::unique_lock lk(core_.mutex);
  clients_.check_alive(c);
  std::vector<std::uint64_t> now_due;
  for (std::size_t e : timeline_.reach(s_.clients[c].name, event, write_index))
    if (timeline_.fault(e).at == Duration{0}) now_due.push_back(timeline_events_[e]);
  core_.cv.notify_all();
  core_.cv.wait_for(lk, 2s, [&] {
    return core_.stop.load() ||
           std::none_of(now_due.begin(), now_due.end(), [&](auto id) { return events_.pending(id); });
  });
  lk.unlock();
  clients_.pause_point(c);
  co_return;
}

// --- the fault timeline's world: real time since the origin, the event
// queue, and the appliers (run by the event, outside the mutex).

Duration LiveSession::now() const { return std::chrono::duration_cast<Duration>(Clock::now() - core_.origin); }

void LiveSession::schedule(Duration at, std::size_t event) {
  if (timeline_events_.size() <= event) timeline_events_.resize(event + 1);
  timeline_events_[event] = events_.schedule(core_.origin + std::chrono::duration_cast<Clock::duration>(at),
                                             [this, event] {
                                               const FaultSpec* fault = nullptr;
                                               {
                                                 std::lock_guard lk(core_.mutex);
                                                 timeline_.act(event);
                                                 fault = std::exchange(applying_, nullptr);
                                               }
                                               apply_live_fault(actions_, *fault);
                                             });
}

// Runs every due event; false when the run must end early.
bool LiveSession::run_due_events() {
  for (;;) {
    std::optional<LiveEvents::Due> due;
    {
      std::lock_guard lk(core_.mutex);
      if (core_.fatal) return false;
      due = events_.take_due(Clock::now());
      if (!due) return true;
    }
    due->run();
    std::lock_guard lk(core_.mutex);
    events_.done(due->id);
    core_.cv.notify_all();
  }
}

// Nothing can happen to the history once every client's workload has
// ended, no fault, restart or delivery is queued, no write is held by a
// partition and no late reply is owed: the run stops there instead of
// sleeping to the scenario's end (the history still ends at `duration`, as
// the simulator's does). A client that crashed for good never ends its
// workload, so its run goes on to the end.
bool LiveSession::story_over() {
  if (!clients_.all_done() || !late_.idle()) return false;
  std::lock_guard lk(core_.mutex);
  return events_.empty() && timeline_.pending() == 0 && storage_.holds_nothing() && !core_.fatal;
}

std::string LiveSession::story_over_note(Clock::duration real) const {
  const auto scenario_time = std::chrono::floor<std::chrono::milliseconds>(
      core_.in_scenario_time(std::chrono::duration_cast<Duration>(real)));
  return "the story was over at " + format_duration(std::min<Duration>(scenario_time, duration_)) +
         " (every client finished, no fault or delivery pending): the live run stopped there, not at " +
         format_duration(duration_);
}

// The main thread's loop until the end, an interruption, a server that
// died, a fatal error or the story's end.
std::optional<LiveError> LiveSession::loop(Clock::time_point end) {
  while (Clock::now() < end) {
    if (int sig = interrupted_.load()) return interrupted_error(sig, service_.stopped_text());
    if (auto dead = service_.servers().died_unexpectedly()) return LiveError{kInternal, *dead};
    if (!run_due_events()) return std::nullopt;
    service_.follow_servers(recorder_);
    if (story_over()) {
      recorder_.note(story_over_note(Clock::now() - core_.origin));
      return std::nullopt;
    }
    std::unique_lock lk(core_.mutex);
    core_.cv.wait_until(lk, events_.next(std::min(end, Clock::now() + 20ms)));
  }
  return std::nullopt;
}

Result<bool, LiveError> LiveSession::run() {
  recorder_.start(s_, service_.servers());
  if (auto prepared = service_.prepare(s_, recorder_); !prepared) return prepared;
  if (auto started = clients_.prestart_adapters(*this); !started) return started;
  core_.origin = Clock::now();
  core_.origin_wall = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  {
    std::lock_guard lk(core_.mutex);
    timeline_.start(s_.faults);
  }
  clients_.start(*this, *this, late_);
  std::optional<LiveError> error = loop(core_.origin + std::chrono::duration_cast<Clock::duration>(s_.duration));
  {
    std::lock_guard lk(core_.mutex);
    core_.stop.store(true);
    if (!error && core_.fatal) error = core_.fatal;
    core_.cv.notify_all();
  }
  LiveServers& servers = service_.servers();
  for (std::size_t n = 0; n < servers.server_count(); ++n) servers.resume(n);  // let hung commands finish
  clients_.join();
  late_.stop();
  service_.collect_observed(recorder_);
  if (const std::uint64_t lines = take_zk_client_log_lines())
    recorder_.note("ZooKeeper C client: " + std::to_string(lines) +
                   " error log lines (connection timeouts, lost servers: what the faults do) not shown");
  if (error) return failure(*error);
  recorder_.finish(duration_);
  return true;
}

}  // namespace locksim::live
