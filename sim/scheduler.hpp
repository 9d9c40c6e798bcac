// Scheduler: the discrete-event loop of one simulated world.
//
// Events are ordered by (TrueInstant, insertion seq), so same-instant events
// run in the order they were scheduled, always. An event is a plain function
// pointer with a context and a 64-bit argument (no allocation per event).
//
// Every event may belong to a host. The scheduler keeps each host's
// scheduling state: while a host is paused (GC stop-the-world) its events are
// deferred and re-queued in their original order when it resumes; a crash
// bumps the host's epoch, and events of an earlier epoch are dropped.
//
// Coroutines wait on *wait slots*: a slot holds a suspended handle and a
// generation, and at most one pending wake event (a sleep's end, a call's
// timeout). A reply resumes the slot directly and so races its timeout;
// the first wins. An awaiter frees its slot in its destructor, and freeing
// it cancels its pending wake (the event leaves the queue: a lost timeout
// is never popped), so a frame destroyed by a crash or a cancel can never
// be resumed by a stale event.
#pragma once

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <optional>
#include <vector>

#include "sim/activity.hpp"
#include "sim/trace.hpp"
#include "vocab/time.hpp"

namespace locksim::sim {

class Scheduler {
 public:
  using Callback = void (*)(void* ctx, std::uint64_t arg);
  static constexpr std::uint32_t kAnyEpoch = 0xffffffffu;

  explicit Scheduler(Trace& trace) : trace_(trace) {}
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  TrueInstant now() const { return now_; }
  std::uint64_t current_seq() const { return current_seq_; }
  Trace& trace() { return trace_; }

  // --- events ------------------------------------------------------------
  // Runs fn(ctx, arg) at t (>= now). With a host, the event is deferred while
  // the host is paused and dropped if the host crashed since (its epoch
  // changed), unless epoch is kAnyEpoch.
  void schedule(TrueInstant t, Callback fn, void* ctx, std::uint64_t arg, HostId host = kNoHost);
  void schedule_any_epoch(TrueInstant t, Callback fn, void* ctx, std::uint64_t arg, HostId host);

  // Runs every event due at or before t, then sets now = t.
  void run_until(TrueInstant t);
  // Runs until no event is left.
  void run_until_idle();
  bool idle() const { return queue_.empty(); }
  // When the next queued event is due (a paused host's too: it is deferred
  // then); nullopt when none is queued. For a driver that interleaves the
  // world with something outside it (hosted/: real processes).
  std::optional<TrueInstant> next_at() const {
    if (queue_.empty()) return std::nullopt;
    return queue_.front().at;
  }
  std::uint64_t events_run() const { return events_run_; }

  // A runaway world (an event loop that never ends) fails loudly: when more
  // than `limit` events have run, run_* throws StepLimitExceeded.
  void set_step_limit(std::uint64_t limit) { step_limit_ = limit; }
  struct StepLimitExceeded : std::exception {
    const char* what() const noexcept override { return "scheduler step limit exceeded"; }
  };

  // A stop request from outside the world (a sweep's Ctrl-C): every
  // kStopCheckEvery events, run_* throws Stopped if *stop is set. The flag
  // only ever ends a run early, and a stopped run's result is discarded, so
  // it cannot change a digest.
  static constexpr std::uint64_t kStopCheckEvery = 1024;
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }
  struct Stopped : std::exception {
    const char* what() const noexcept override { return "the run was stopped (interrupted)"; }
  };

  // Records into `activity` what ran where (sim/activity.hpp); null: nothing.
  void set_activity(Activity* activity) { activity_ = activity; }
  Activity* activity() const { return activity_; }

  // A root task ended with an exception: the run stops and rethrows it.
  void fail(std::exception_ptr error) {
    if (!failure_) failure_ = error;
  }

  // --- hosts -------------------------------------------------------------
  HostId add_host();
  std::uint32_t epoch(HostId h) const { return hosts_[h].epoch; }
  bool paused(HostId h) const { return hosts_[h].paused_until > now_; }
  TrueInstant paused_until(HostId h) const { return hosts_[h].paused_until; }
  void pause(HostId h, Duration d);  // defers the host's events until now + d
  void bump_epoch(HostId h);         // crash: drops queued and deferred events
  HostId current_host() const { return current_host_; }

  // --- wait slots --------------------------------------------------------
  struct SlotRef {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;
  };
  SlotRef acquire_slot(std::coroutine_handle<> h, HostId host);
  void release_slot(SlotRef ref);
  // Wakes the slot at t with an outcome code (first wake wins).
  void wake_at(TrueInstant t, SlotRef ref, std::uint32_t outcome);
  // Resumes the slot's coroutine now, inside the current event (used by a
  // delivery event of the same host); a stale or fired slot is left alone.
  void resume_slot(SlotRef ref, std::uint32_t outcome);
  bool slot_live(SlotRef ref) const;
  std::uint32_t slot_outcome(SlotRef ref) const { return slots_[ref.index].outcome; }
  std::size_t live_slots() const { return slots_.size() - free_slots_.size(); }

 private:
  struct Event {
    TrueInstant at;
    std::uint64_t seq;
    Callback fn;
    void* ctx;
    std::uint64_t arg;
    HostId host;
    std::uint32_t epoch;
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
  };
  struct HostState {
    std::uint32_t epoch = 0;
    TrueInstant paused_until{};
    std::vector<Event> deferred;
  };
  // Where a slot's pending wake is: a heap position, or one of these.
  static constexpr std::uint32_t kNotQueued = 0xffffffffu;
  static constexpr std::uint32_t kDeferred = 0xfffffffeu;  // in its paused host's deferred list
  struct Slot {
    std::coroutine_handle<> handle;
    std::uint32_t generation = 0;
    std::uint32_t outcome = 0;
    HostId host = kNoHost;
    std::uint32_t queued = kNotQueued;
    bool fired = false;
  };
  static std::uint32_t wake_slot_index(std::uint64_t arg) { return static_cast<std::uint32_t>((arg >> 8) & 0xffffff); }

  void push(Event e);
  Event pop();  // the earliest event; the queue must not be empty
  void note_wake_at(const Event& e, std::uint32_t where);
  void place(std::size_t i, const Event& e);
  void sift_up(std::size_t i, const Event& e);
  void sift_down(std::size_t i, const Event& e);
  void remove_at(std::size_t i);
  void cancel_wake(std::uint32_t slot_index);
  bool step();  // runs one event; false if the queue is empty
  void dispatch(Event& e);
  static void on_resume_host(void* ctx, std::uint64_t host);
  static void on_wake(void* ctx, std::uint64_t arg);

  Trace& trace_;
  TrueInstant now_{};
  std::uint64_t next_seq_ = 0;
  std::uint64_t current_seq_ = 0;
  std::uint64_t events_run_ = 0;
  std::uint64_t step_limit_ = UINT64_MAX;
  const std::atomic<bool>* stop_ = nullptr;
  Activity* activity_ = nullptr;
  HostId current_host_ = kNoHost;
  std::exception_ptr failure_;
  std::vector<Event> queue_;  // a 4-ary min-heap on (at, seq)
  std::vector<HostState> hosts_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
};

// co_await sleep_until(sched, host, t): resumes at true time t (deferred by
// the host's pauses, never resumed after a crash).
class SleepAwaiter {
 public:
  SleepAwaiter(Scheduler& s, HostId host, TrueInstant t) : sched_(s), host_(host), at_(t) {}
  SleepAwaiter(const SleepAwaiter&) = delete;
  SleepAwaiter& operator=(const SleepAwaiter&) = delete;
  ~SleepAwaiter() {
    if (armed_) sched_.release_slot(slot_);
  }
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    slot_ = sched_.acquire_slot(h, host_);
    armed_ = true;
    sched_.wake_at(at_, slot_, 0);
  }
  void await_resume() noexcept {}

 private:
  Scheduler& sched_;
  HostId host_;
  TrueInstant at_;
  Scheduler::SlotRef slot_{};
  bool armed_ = false;
};

}  // namespace locksim::sim
