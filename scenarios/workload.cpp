// The workload (docs/architecture.md "Workload: what a client does"), the
// one copy the simulator and live mode both run (workload.hpp).
//
// lock: for each iteration, acquire (the lock retries until its
// acquire_timeout; giving up is not a violation), then the critical section
// of `work` on the client's local clock with `writes` storage writes at
// work·i/(n+1), then release. The lock is asked `still_valid()` before each
// write (past a lease's validity deadline, or once a lock knows it lost the
// lease, it says no); then the client abandons the section and releases. A
// client with `extends` first extends the lock before each write (abandoning
// if that fails).
// gate: every client tries `SET key name NX PX ttl` once; a winner believes
// it won until the end of the run and writes its order to the storage (the
// sale's one slot: inventory_workload.hpp).
//
// Trigger points (`after = "A:acquired"` ...) are reached here; the world
// lets a fault armed by one act first — e.g. a pause armed by "A:write"
// lands after the validity check and before the write is sent, exactly
// Kleppmann's scenario.
#include "scenarios/workload.hpp"

#include <chrono>
#include <utility>

#include "scenarios/inventory_workload.hpp"
#include "scenarios/workload_records.hpp"

namespace locksim::scenarios {


namespace {
std::string grant_text(std::uint64_t grant) { return "grant " + std::to_string(grant + 1); }

}  // namespace

// A trigger point, recorded before the world fires what it arms (`locksim
// check` places faults at the points a fault-free run reaches). A plain
// call, not a coroutine: no frame per point.
void note_point(WorkloadWorld& world, std::size_t c, TriggerEvent event, int write_index) {
  world.record(c, [&](const Ledger& l) {
    if (!l.ended) l.history.points.push_back({c, event, write_index, l.now});
  });
}

void begin_attempt(WorkloadWorld& world, std::size_t c) {
  world.record(c, [c](const Ledger& l) {
    if (l.ended) return;
    l.client.open_attempt = l.history.attempts.size();
    l.history.attempts.push_back({c, l.now, std::nullopt, false});
    ++l.stats.attempts;
  });
}

void end_attempt(WorkloadWorld& world, std::size_t c, bool acquired) {
  world.record(c, [&world, acquired](const Ledger& l) {
    if (l.ended || !l.client.open_attempt) return;
    Attempt& a = l.history.attempts[*std::exchange(l.client.open_attempt, std::nullopt)];
    a.end = l.now;
    a.acquired = acquired;
    if (!acquired) {
      ++l.stats.gave_up;
      return;
    }
    ++l.stats.acquisitions;
    l.stats.acquire_latency_us.push_back(world.latency_us(*a.end - a.start));
  });
}

std::uint64_t begin_belief(WorkloadWorld& world, std::size_t c, const locks::Lease* lease, const std::string& key) {
  Belief b{c, 0, {}, std::nullopt, std::nullopt, std::nullopt, "", key};
  if (lease) {
    b.fencing_token = lease->fencing_token;
    if (lease->valid_until) b.deadline = world.true_when_monotonic(c, *lease->valid_until);
  }
  bool opened = false;
  world.record(c, [&](const Ledger& l) {
    if (l.ended) return;
    b.grant = l.history.next_grant++;
    b.start = l.now;
    l.client.open_belief = l.history.beliefs.size();
    l.history.beliefs.push_back(b);
    opened = true;
  });
  if (!opened) return 0;
  std::string detail = grant_text(b.grant);
  if (b.fencing_token) detail += " token " + std::to_string(*b.fencing_token);
  if (!key.empty()) detail += " on " + key;
  world.note(c, "acquired", detail);
  return b.grant;
}

namespace {
// Ends the client's open belief; its grant, or nullopt if none was open.
std::optional<std::uint64_t> close_belief(const Ledger& l, const char* reason) {
  if (l.ended || !l.client.open_belief) return std::nullopt;
  Belief& b = l.history.beliefs[*std::exchange(l.client.open_belief, std::nullopt)];
  b.end = l.now;
  b.end_reason = reason;
  return b.grant;
}

}  // namespace

void end_belief(WorkloadWorld& world, std::size_t c, const char* reason) {
  std::optional<std::uint64_t> grant;
  world.record(c, [&](const Ledger& l) { grant = close_belief(l, reason); });
  if (grant) world.note(c, reason, grant_text(*grant));
}

namespace {

// A successful extension: the open belief's validity deadline is the
// lease's new one (an extension claims the lock was held all along).
void extend_belief(WorkloadWorld& world, std::size_t c, const locks::Lease& lease) {
  std::optional<TrueInstant> deadline;
  if (lease.valid_until) deadline = world.true_when_monotonic(c, *lease.valid_until);
  world.record(c, [&](const Ledger& l) {
    if (!l.ended && l.client.open_belief) l.history.beliefs[*l.client.open_belief].deadline = deadline;
  });
  world.note(c, "extended", lease.key);
}

// One iteration of the lock workload: acquire, critical section, release.
Task<void> lock_iteration(WorkloadWorld& world, std::size_t c, locks::Lock& lock) {
  const ClientSpec& spec = world.scenario().clients[c];
  begin_attempt(world, c);
  note_point(world, c, TriggerEvent::Acquiring, 0);
  co_await world.reach(c, TriggerEvent::Acquiring, 0);  // e.g. a clock step while the first SETs are in flight
  std::optional<locks::Lease> lease = co_await lock.try_acquire();
  end_attempt(world, c, lease.has_value());
  if (!lease) {
    world.note(c, "gave-up", world.scenario().lock.key);
    co_return;
  }
  if (world.ended()) co_return;  // live: granted after the end, believed by nobody
  const std::uint64_t grant = begin_belief(world, c, &*lease, "");
  const LocalInstant entered = world.monotonic_now(c);
  note_point(world, c, TriggerEvent::Acquired, 0);
  co_await world.reach(c, TriggerEvent::Acquired, 0);
  bool abandoned = false;
  for (int i = 1; i <= spec.writes && !world.ended(); ++i) {
    co_await world.sleep_until(c, entered + spec.work * i / (spec.writes + 1));
    if (spec.extends) {  // "I need more time": extend, and abandon if that fails
      if (!co_await lock.extend(*lease)) {
        abandoned = true;
        break;
      }
      extend_belief(world, c, *lease);
    }
    if (!lock.still_valid(*lease)) {  // true without a deadline unless the lock knows it lost the lease
      abandoned = true;
      break;
    }
    note_point(world, c, TriggerEvent::Write, i);
    co_await world.reach(c, TriggerEvent::Write, i);
    // A named request: GCC frees a braced temporary with a string member
    // twice when it is a coroutine's argument inside co_await.
    WriteRequest request{c, grant, lease->fencing_token, i};
    const Reply reply = co_await world.send_write(c, std::move(request));
    world.note(c, "write-reply", reply.to_string());
  }
  if (!abandoned) co_await world.sleep_until(c, entered + spec.work);
  end_belief(world, c, abandoned ? "abandon" : "release");
  (void)co_await lock.release(*lease);
  note_point(world, c, TriggerEvent::Released, 0);
  co_await world.reach(c, TriggerEvent::Released, 0);
}

// The gate's one command: SET key <name> NX PX ttl.
Argv gate_command(WorkloadWorld& world, std::size_t c) {
  const Scenario& s = world.scenario();
  return {"SET", s.lock.key, world.client_name(c), "NX", "PX", std::to_string(to_ms(s.lock.ttl))};
}

// The gate's reply recorded; true if this client won (it then believes it
// won until the end of the run).
bool gate_won(WorkloadWorld& world, std::size_t c, const Reply& reply) {
  world.record(c, [](const Ledger& l) { ++l.stats.round_trips; });
  end_attempt(world, c, reply.is_ok());
  if (!reply.is_ok()) return false;
  begin_belief(world, c, nullptr, "");
  record_purchase(world, c);  // told it won: the gate's one slot is its purchase
  return true;
}

}  // namespace

Task<void> client_main(WorkloadWorld& world, std::size_t c, locks::Runtime& runtime) {
  const Scenario& s = world.scenario();
  const ClientSpec& spec = s.clients[c];
  ClientProgress& progress = world.progress(c);
  if (world.incarnation(c) == 0) co_await world.await_start(c, spec.start);
  if (s.workload == WorkloadKind::Gate) {
    // Inline, not a child task: one attempt needs no frame of its own.
    if (progress.iterations_done == 0) {
      begin_attempt(world, c);
      const Reply reply = co_await runtime.conn(0).command(gate_command(world, c));
      if (gate_won(world, c, reply)) {
        note_point(world, c, TriggerEvent::Acquired, 0);
        co_await world.reach(c, TriggerEvent::Acquired, 0);
        co_await gate_winner_order(world, c);
      }
    }
    progress.iterations_done = 1;
  } else if (s.workload == WorkloadKind::Inventory) {
    co_await inventory_buyer(world, c, runtime);
  } else {
    auto lock = world.lock().factory(runtime, s.lock);
    const std::uint64_t trips_before = lock->round_trips();
    while (progress.iterations_done < spec.iterations && !world.ended()) {
      co_await lock_iteration(world, c, *lock);
      ++progress.iterations_done;
    }
    const std::uint64_t trips = lock->round_trips() - trips_before;
    world.record(c, [trips](const Ledger& l) { l.stats.round_trips += trips; });
  }
  world.record(c, [c](const Ledger& l) {
    if (!l.ended) l.history.clients[c].finished = l.now;
  });
  world.note(c, "finished", "");
}

std::optional<std::uint64_t> record_crash(const Ledger& ledger, std::size_t c) {
  ledger.history.clients[c].crashes.push_back(ledger.now);
  const auto grant = close_belief(ledger, "crash");
  if (ledger.client.open_attempt)
    ledger.history.attempts[*std::exchange(ledger.client.open_attempt, std::nullopt)].end = ledger.now;
  return grant;
}

void on_client_crash(WorkloadWorld& world, std::size_t c) {
  std::optional<std::uint64_t> grant;
  world.record(c, [&](const Ledger& l) { grant = record_crash(l, c); });
  if (grant) world.note(c, "crash", grant_text(*grant));
}

}  // namespace locksim::scenarios
