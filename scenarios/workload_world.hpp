// WorkloadWorld: what the workload (scenarios/workload.cpp) needs from the
// world it runs in — FoundationDB's INetwork idea one level above the locks.
// The workload is written once against this interface; the simulator
// implements it over sim::World (scenarios/sim_workload_world.*), live mode
// over real time, client threads, hiredis and its TCP proxy
// (live/live_session.hpp). It holds no lock-specific and no Redis-specific
// call: a second workload kind runs against the same world.
//
// Threads: the simulator calls everything on one thread. Live mode calls it
// from every client thread and the fault thread; `record` is the one door to
// the shared History, and the world that implements it owns the mutex
// behind it (the workload never locks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "locks/registry.hpp"
#include "scenarios/history.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/storage.hpp"
#include "vocab/reply.hpp"
#include "vocab/task.hpp"
#include "vocab/time.hpp"

namespace locksim::scenarios {

// What a client's workload keeps across its restarts (indices into the
// History's beliefs and attempts that are still open).
struct ClientProgress {
  int iterations_done = 0;
  std::optional<std::size_t> open_belief;
  std::optional<std::size_t> open_attempt;
};

// Everything a record may touch, handed out under the world's record lock:
// the History, the run's counters, the client's progress and the true
// instant of the record. Once the run has `ended` (live: clients still
// unwind) the History takes nothing more; the counters still count.
struct Ledger {
  History& history;
  RunSummary& stats;
  ClientProgress& client;
  TrueInstant now;
  bool ended = false;
};

class WorkloadWorld {
 public:
  virtual ~WorkloadWorld() = default;

  virtual const Scenario& scenario() const = 0;
  virtual const locks::LockInfo& lock() const = 0;

  // Client c's host: its name, and how many times it has restarted (0 =
  // its first process).
  virtual const std::string& client_name(std::size_t c) const = 0;
  virtual std::uint64_t incarnation(std::size_t c) const = 0;

  // Time on client c's own clocks. `sleep_until` waits until its monotonic
  // clock shows `target` (a zero sleep if it does already);
  // `true_when_monotonic` is the true instant its clock will show `local`.
  virtual LocalInstant monotonic_now(std::size_t c) = 0;
  virtual Task<void> sleep_until(std::size_t c, LocalInstant target) = 0;
  // c's first process waits until `start` after the run began.
  virtual Task<void> await_start(std::size_t c, Duration start) = 0;
  virtual TrueInstant true_when_monotonic(std::size_t c, LocalInstant local) = 0;
  // An acquire's latency as reported (the simulator: true time; live: the
  // real time it took, not scaled back).
  virtual std::int64_t latency_us(Duration true_elapsed) const = 0;

  // The storage link: sends the write and waits for the storage's answer
  // (the integer 1 accepted / 0 rejected) or the client's command timeout.
  virtual Task<Reply> send_write(std::size_t c, WriteRequest w) = 0;

  // A trigger point of client c (acquired, write #i ...): arms the
  // faults waiting for it and lets those due now act before the client
  // goes on (e.g. a pause armed by "A:write" lands before the write).
  virtual Task<void> reach(std::size_t c, TriggerEvent event, int write_index) = 0;

  // True once the run has ended (live: the clients still unwind and stop
  // early; the simulator simply stops resuming them).
  virtual bool ended() const = 0;
  // The progress client c's workload keeps across its restarts.
  // iterations_done is touched only by c's own task; the open indices only
  // inside `record` (a crash closes them from the fault side).
  virtual ClientProgress& progress(std::size_t c) = 0;
  // Runs f(const Ledger&) under the world's record lock. Live throws
  // ClientCrashed here on a crashed client's own thread, so its frames
  // unwind at this step.
  template <class F>
  void record(std::size_t c, F&& f) {
    record_with(c, [](void* fn, const Ledger& l) { (*static_cast<std::remove_reference_t<F>*>(fn))(l); }, &f);
  }
  // A line in the run's trace (the simulator's digest; live keeps no trace).
  virtual void note(std::size_t c, std::string_view kind, std::string_view detail) = 0;

 protected:
  virtual void record_with(std::size_t c, void (*call)(void*, const Ledger&), void* fn) = 0;
};

}  // namespace locksim::scenarios
