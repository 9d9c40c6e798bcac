// The event loop, host pause/epoch bookkeeping and wait slots.
#include "sim/scheduler.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

#include "vocab/task.hpp"

namespace locksim::sim {

// The queue is a 4-ary min-heap on (at, seq): shallower than a binary heap,
// and its four children share a cache line or two. (at, seq) is a strict
// total order, so the pop order — and every digest — is the same as any
// other correct priority queue's.
namespace {
constexpr std::size_t kArity = 4;
}

// Records where a wake event now is (a heap position, kDeferred or
// kNotQueued) in its slot, so release_slot can cancel it: Slot::queued.
void Scheduler::note_wake_at(const Event& e, std::uint32_t where) {
  if (e.fn == &Scheduler::on_wake) slots_[wake_slot_index(e.arg)].queued = where;
}

// Writes e at heap position i.
void Scheduler::place(std::size_t i, const Event& e) {
  queue_[i] = e;
  note_wake_at(e, static_cast<std::uint32_t>(i));
}

void Scheduler::sift_up(std::size_t i, const Event& e) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!Later{}(queue_[parent], e)) break;
    place(i, queue_[parent]);
    i = parent;
  }
  place(i, e);
}

void Scheduler::sift_down(std::size_t i, const Event& e) {
  const std::size_t n = queue_.size();
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t end = std::min(first + kArity, n);
    for (std::size_t c = first + 1; c < end; ++c)
      if (Later{}(queue_[best], queue_[c])) best = c;
    if (!Later{}(e, queue_[best])) break;
    place(i, queue_[best]);
    i = best;
  }
  place(i, e);
}

void Scheduler::push(Event e) {
  queue_.push_back(e);
  sift_up(queue_.size() - 1, e);
}

Scheduler::Event Scheduler::pop() {
  assert(!queue_.empty());
  const Event top = queue_.front();
  note_wake_at(top, kNotQueued);
  const Event last = queue_.back();
  queue_.pop_back();
  if (!queue_.empty()) sift_down(0, last);
  return top;
}

// Removes the event at heap position i (a cancelled wake).
void Scheduler::remove_at(std::size_t i) {
  assert(i < queue_.size() && "a cancelled wake is still in the heap");
  const Event last = queue_.back();
  queue_.pop_back();
  if (i == queue_.size()) return;
  if (i > 0 && Later{}(queue_[(i - 1) / kArity], last)) sift_up(i, last);
  else sift_down(i, last);
}

void Scheduler::schedule(TrueInstant t, Callback fn, void* ctx, std::uint64_t arg, HostId host) {
  assert(t >= now_ && "cannot schedule in the past");
  assert((host == kNoHost || host < hosts_.size()) && "an event bound to a known host");
  const std::uint32_t ep = host == kNoHost ? kAnyEpoch : hosts_[host].epoch;
  push({t, next_seq_++, fn, ctx, arg, host, ep});
}

void Scheduler::schedule_any_epoch(TrueInstant t, Callback fn, void* ctx, std::uint64_t arg,
                                   HostId host) {
  assert(t >= now_ && "cannot schedule in the past");
  push({t, next_seq_++, fn, ctx, arg, host, kAnyEpoch});
}

bool Scheduler::step() {
  if (queue_.empty()) return false;
  if (stop_ && events_run_ % kStopCheckEvery == 0 && stop_->load(std::memory_order_relaxed)) throw Stopped{};
  Event e = pop();
  assert(e.at >= now_ && "event time never goes backwards");
  now_ = e.at;
  if (e.host != kNoHost) {
    HostState& hs = hosts_[e.host];
    if (e.epoch != kAnyEpoch && e.epoch != hs.epoch) return true;  // crashed since
    if (hs.paused_until > now_) {
      hs.deferred.push_back(e);
      note_wake_at(e, kDeferred);
      return true;
    }
  }
  dispatch(e);
  return true;
}

void Scheduler::dispatch(Event& e) {
  assert(e.at == now_ && "an event runs at its own time");
  if (++events_run_ > step_limit_) throw StepLimitExceeded{};
  current_seq_ = e.seq;
  trace_.fold_event(e.at, e.seq, e.host);
  if (activity_) activity_->note_dispatch(e.host, now_);
  current_host_ = e.host;
  e.fn(e.ctx, e.arg);
  current_host_ = kNoHost;
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void Scheduler::run_until(TrueInstant t) {
  while (!queue_.empty() && queue_.front().at <= t) step();
  if (t > now_) now_ = t;
}

void Scheduler::run_until_idle() {
  while (step()) {
  }
}

HostId Scheduler::add_host() {
  hosts_.emplace_back();
  return static_cast<HostId>(hosts_.size() - 1);
}

void Scheduler::pause(HostId h, Duration d) {
  assert(h < hosts_.size() && d >= Duration::zero() && "a pause of a known host, forward in time");
  HostState& hs = hosts_[h];
  const TrueInstant until = now_ + d;
  if (until <= hs.paused_until) return;  // already paused longer
  hs.paused_until = until;
  schedule(until, &Scheduler::on_resume_host, this, h);
}

void Scheduler::on_resume_host(void* ctx, std::uint64_t host) {
  auto& self = *static_cast<Scheduler*>(ctx);
  HostState& hs = self.hosts_[host];
  if (hs.paused_until > self.now_) return;  // the pause was extended
  // Re-queue at now, in the order the events were originally due.
  std::vector<Event> deferred = std::move(hs.deferred);
  hs.deferred.clear();
  for (Event e : deferred) {
    assert(e.at <= self.now_ && "a deferred event was due during the pause");
    e.at = self.now_;
    e.seq = self.next_seq_++;
    self.push(e);
  }
}

void Scheduler::bump_epoch(HostId h) {
  HostState& hs = hosts_[h];
  ++hs.epoch;
  for (const Event& e : hs.deferred) note_wake_at(e, kNotQueued);
  hs.deferred.clear();
  hs.paused_until = now_;
}

Scheduler::SlotRef Scheduler::acquire_slot(std::coroutine_handle<> h, HostId host) {
  std::uint32_t index;
  if (!free_slots_.empty()) {
    index = free_slots_.back();
    free_slots_.pop_back();
  } else {
    // release_slot runs as frames are torn down, in destructors: its push
    // must not allocate (a std::bad_alloc there is a terminate), so the room
    // for every slot's return is made here.
    if (free_slots_.capacity() <= slots_.size()) free_slots_.reserve(2 * slots_.size() + 16);
    index = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[index];
  assert(!s.handle && s.queued == kNotQueued && "a free slot has no waiter and no wake");
  s.handle = h;
  s.host = host;
  s.fired = false;
  s.outcome = 0;
  return {index, s.generation};
}

void Scheduler::release_slot(SlotRef ref) {
  Slot& s = slots_[ref.index];
  assert(s.generation == ref.generation);
  cancel_wake(ref.index);
  ++s.generation;
  s.handle = {};
  free_slots_.push_back(ref.index);
}

// A wait that lost (its reply came first, or its frame is gone) takes its
// wake with it: the event leaves the queue (or the paused host's deferred
// list) instead of being popped later as a no-op. Digest format 2.
void Scheduler::cancel_wake(std::uint32_t index) {
  Slot& s = slots_[index];
  if (s.queued == kDeferred) {
    std::erase_if(hosts_[s.host].deferred,
                  [&](const Event& e) { return e.fn == &Scheduler::on_wake && wake_slot_index(e.arg) == index; });
  } else if (s.queued != kNotQueued) {
    remove_at(s.queued);
  }
  s.queued = kNotQueued;
}

bool Scheduler::slot_live(SlotRef ref) const {
  const Slot& s = slots_[ref.index];
  return s.generation == ref.generation && !s.fired;
}

void Scheduler::wake_at(TrueInstant t, SlotRef ref, std::uint32_t outcome) {
  // Packs (generation, index, outcome) into the event argument: slots are
  // recycled, so the generation tells a stale wake from a live one.
  assert(outcome < 256 && ref.index < (1u << 24));
  assert(slots_[ref.index].queued == kNotQueued && "one pending wake per slot");
  const std::uint64_t arg = (static_cast<std::uint64_t>(ref.generation) << 32) |
                            (static_cast<std::uint64_t>(ref.index) << 8) | outcome;
  schedule_any_epoch(t, &Scheduler::on_wake, this, arg, slots_[ref.index].host);
}

void Scheduler::on_wake(void* ctx, std::uint64_t arg) {
  auto& self = *static_cast<Scheduler*>(ctx);
  const auto generation = static_cast<std::uint32_t>(arg >> 32);
  self.resume_slot({wake_slot_index(arg), generation}, static_cast<std::uint32_t>(arg & 0xff));
}

void Scheduler::resume_slot(SlotRef ref, std::uint32_t outcome) {
  Slot& s = slots_[ref.index];
  if (s.generation != ref.generation || s.fired || !s.handle) return;
  s.fired = true;
  s.outcome = outcome;
  resume_chain(s.handle);  // vocab/task.hpp: the trampoline, never a bare resume()
}

}  // namespace locksim::sim
