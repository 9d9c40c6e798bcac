// What the parts of a live session (live_session.hpp) share: the run's one
// mutex and condition variable, its stop flag and first fatal error, its
// origin and time scale, the network's partition, and the queue of timed
// events the main thread runs. Each part takes it by reference; what is
// marked "requires mutex" is read or written only with `mutex` held.
//
// Threads: the main thread runs the queue's due events and ends the run;
// every client thread, and the thread of late replies, reads and records
// under `mutex`.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "live/live_network.hpp"
#include "live/live_servers.hpp"
#include "vocab/partition_mode.hpp"
#include "vocab/time.hpp"

namespace locksim::live {

struct LiveCore {
  using Clock = std::chrono::steady_clock;

  explicit LiveCore(std::int64_t time_scale_ppm) : ppm(time_scale_ppm) {}

  const std::int64_t ppm;                    // real time = scenario time x ppm / 10^6
  Clock::time_point origin;                  // the run's start (the simulator's true 0); set before any thread
  std::chrono::microseconds origin_wall{0};  // system_clock at origin (server TIME is mapped from it)
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable cv;
  std::optional<LiveError> fatal;               // requires mutex: the first error that ends the run
  PartitionMap partition;                       // requires mutex
  std::optional<PartitionMode> partition_mode;  // requires mutex; nullopt = healed

  // A real duration in scenario time.
  Duration in_scenario_time(Duration real) const { return real * 1'000'000 / ppm; }
  // Now in scenario time; requires mutex (keeps records in time order).
  TrueInstant now_true() const {
    return TrueInstant{in_scenario_time(std::chrono::duration_cast<Duration>(Clock::now() - origin))};
  }
  // A steady-clock reading (since its epoch) in scenario time.
  TrueInstant to_true(LocalInstant steady) const {
    return TrueInstant{
        in_scenario_time(steady.time_since_epoch() - std::chrono::duration_cast<Duration>(origin.time_since_epoch()))};
  }
  // A real wall-clock reading (system_clock, microseconds since its epoch)
  // in scenario time; a reading from before the origin is the origin.
  TrueInstant wall_to_true(std::chrono::microseconds wall) const {
    return TrueInstant{in_scenario_time(std::max(Duration{0}, std::chrono::duration_cast<Duration>(wall - origin_wall)))};
  }
  // Whether the partition cuts a from b; requires mutex.
  bool cut(const std::string& a, const std::string& b) const { return partition_mode && partition.cut(a, b); }
  void fail(LiveError e) {
    std::lock_guard lk(mutex);
    if (!fatal) fatal = std::move(e);
  }
};

// Timed events in (time, insertion) order: faults, their ends, storage
// messages on their way. Every call requires the core's mutex; the main
// thread takes an event out and runs it without.
class LiveEvents {
 public:
  using Clock = LiveCore::Clock;
  struct Due {
    std::uint64_t id;
    std::function<void()> run;
  };

  std::uint64_t schedule(Clock::time_point at, std::function<void()> run) {
    const std::uint64_t id = next_++;
    queue_.emplace(std::make_pair(at, id), std::move(run));
    pending_.insert(id);
    return id;
  }
  // The first event due by `now`, out of the queue (pending until done()).
  std::optional<Due> take_due(Clock::time_point now) {
    if (queue_.empty() || queue_.begin()->first.first > now) return std::nullopt;
    Due due{queue_.begin()->first.second, std::move(queue_.begin()->second)};
    queue_.erase(queue_.begin());
    return due;
  }
  void done(std::uint64_t id) { pending_.erase(id); }
  bool pending(std::uint64_t id) const { return pending_.count(id) != 0; }
  bool empty() const { return queue_.empty(); }
  // The next event's time, or `later` if that comes first.
  Clock::time_point next(Clock::time_point later) const {
    return queue_.empty() ? later : std::min(later, queue_.begin()->first.first);
  }

 private:
  std::multimap<std::pair<Clock::time_point, std::uint64_t>, std::function<void()>> queue_;
  std::uint64_t next_ = 0;
  std::set<std::uint64_t> pending_;  // ids queued and not yet run
};

}  // namespace locksim::live
