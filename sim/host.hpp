// Host: one simulated process (a client, a Redis node, the storage service).
//
// A host owns its root tasks: `main` (run at start and again on restart) and
// whatever it spawns. `pause(d)` is a GC stop-the-world: every event of the
// host (timers, deliveries) waits until it resumes, in order. `crash()`
// destroys every frame it owns, drops its queued events (a new epoch) and
// tells listeners (the network resets its connections; a Redis node loses
// its memory); `restart()` runs main again. Each host has its own clock and
// its own RNG stream forked from the world's seed by name.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/clock.hpp"
#include "sim/rng.hpp"
#include "sim/scheduler.hpp"
#include "vocab/task.hpp"

namespace locksim::sim {

class World;

class Host {
 public:
  using Main = std::function<Task<void>(Host&)>;

  Host(World& world, HostId id, std::string name, Rng rng);
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;
  ~Host();

  HostId id() const { return id_; }
  const std::string& name() const { return name_; }
  World& world() { return world_; }
  Scheduler& scheduler();
  HostClock& clock() { return clock_; }
  Rng& rng() { return rng_; }

  LocalInstant monotonic_now() const;
  LocalInstant wall_now() const;
  // Sleeps on this host's monotonic clock (drift applies, wall steps do not).
  SleepAwaiter sleep(Duration d);
  // Calls tick every `period` of this host's monotonic clock, the first one
  // `period` from now: the very events (instants, order, digest) of a root
  // `for (;;) { co_await sleep(period); tick(); }`, without a coroutine
  // resume per tick — the background loops of servers (a Redis node's
  // active expiry, Sentinel) tick thousands of times a run. Deferred while
  // the host is paused; a crash ends it (the events carry the epoch).
  void every(Duration period, std::function<void()> tick);

  // Main runs when the host starts and again after each restart.
  void set_main(Main main) { main_ = std::move(main); }
  void start();
  // Spawns a root task; it starts by an event at the current instant (never
  // inline). Returns an id for cancel().
  std::uint64_t spawn(Task<void> task);
  void cancel(std::uint64_t root_id);  // destroys the task's frames
  std::size_t live_roots() const;

  void pause(Duration d);
  bool paused() const;
  void crash();
  void restart();
  bool up() const { return up_; }
  std::uint32_t incarnation() const { return incarnation_; }

  // Called (in registration order) when the host crashes, after its frames
  // are destroyed.
  void on_crash(std::function<void()> listener) { crash_listeners_.push_back(std::move(listener)); }

 private:
  static void on_start_root(void* ctx, std::uint64_t root_id);
  static void on_periodic(void* ctx, std::uint64_t index);
  TrueInstant wake_after(Duration d) const;  // true time of a monotonic sleep of d from now
  void reap_finished();

  World& world_;
  HostId id_;
  std::string name_;
  Rng rng_;
  HostClock clock_;
  Main main_;
  bool up_ = true;
  std::uint32_t incarnation_ = 0;
  std::uint64_t next_root_id_ = 1;
  std::map<std::uint64_t, Task<void>> roots_;  // ordered: deterministic teardown
  std::vector<std::function<void()>> crash_listeners_;
  struct Periodic {
    Duration period;
    std::function<void()> tick;
  };
  std::vector<Periodic> periodic_;  // this incarnation's (a crash clears them)
};

}  // namespace locksim::sim
