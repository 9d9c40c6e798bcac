// The workload (docs/architecture.md "Workload: what a client does").
//
// lock: for each iteration, acquire (the lock retries until its
// acquire_timeout; giving up is not a violation), then the critical section
// of `work` on the client's local clock with `writes` storage writes at
// work·i/(n+1), then release. The lock is asked `still_valid()` before each
// write (past a lease's validity deadline, or once a lock knows it lost the
// lease, it says no); then the client abandons the section and releases. gate: every client tries `SET key name NX PX
// ttl` once; a winner believes it won until the end of the run.
//
// Trigger points (`after = "A:acquired"` ...) fire here; when a fault is
// armed by one, the client yields for an instant so the fault acts first —
// e.g. a pause armed by "A:write" lands after the validity check and before
// the write is sent, exactly Kleppmann's scenario.
#include "scenarios/run_context.hpp"

namespace locksim::scenarios {

namespace {

using sim::Duration;
using sim::Task;

// Trigger a point and give armed faults the floor at this instant.
Task<void> reach(RunContext& ctx, std::size_t c, std::string_view event, int write_index = 0) {
  ClientState& client = ctx.clients[c];
  ctx.history.points.push_back({c, std::string(event), write_index, ctx.world.now()});
  if (fire_trigger(ctx, client.host->name(), event, write_index)) co_await client.host->sleep(Duration{0});
}

Task<void> sleep_until_local(sim::Host& host, sim::LocalInstant target) {
  const auto now = host.monotonic_now();
  co_await host.sleep(target > now ? target - now : Duration{0});
}

void begin_attempt(RunContext& ctx, std::size_t c) {
  ctx.clients[c].open_attempt = ctx.history.attempts.size();
  ctx.history.attempts.push_back({c, ctx.world.now(), std::nullopt, false});
  ++ctx.stats.attempts;
}

void end_attempt(RunContext& ctx, std::size_t c, bool acquired) {
  ClientState& client = ctx.clients[c];
  if (!client.open_attempt) return;
  Attempt& a = ctx.history.attempts[*client.open_attempt];
  a.end = ctx.world.now();
  a.acquired = acquired;
  client.open_attempt.reset();
  if (acquired) {
    ++ctx.stats.acquisitions;
    ctx.stats.acquire_latency_us.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(*a.end - a.start).count());
  } else {
    ++ctx.stats.gave_up;
  }
}

std::uint64_t begin_belief(RunContext& ctx, std::size_t c, const locks::Lease* lease) {
  ClientState& client = ctx.clients[c];
  Belief b{c, ctx.history.next_grant++, ctx.world.now(), std::nullopt, std::nullopt, std::nullopt, ""};
  if (lease) {
    b.fencing_token = lease->fencing_token;
    if (lease->valid_until) b.deadline = client.host->clock().true_when_monotonic(*lease->valid_until);
  }
  client.open_belief = ctx.history.beliefs.size();
  ctx.history.beliefs.push_back(b);
  std::string detail = "grant " + std::to_string(b.grant + 1);
  if (b.fencing_token) detail += " token " + std::to_string(*b.fencing_token);
  ctx.world.note(client.host->id(), "acquired", detail);
  return b.grant;
}

void end_belief(RunContext& ctx, std::size_t c, const char* reason) {
  ClientState& client = ctx.clients[c];
  if (!client.open_belief) return;
  Belief& b = ctx.history.beliefs[*client.open_belief];
  b.end = ctx.world.now();
  b.end_reason = reason;
  client.open_belief.reset();
  ctx.world.note(client.host->id(), reason, "grant " + std::to_string(b.grant + 1));
}

Task<void> storage_write(RunContext& ctx, std::size_t c, std::uint64_t grant, const locks::Lease& lease, int index) {
  ClientState& client = ctx.clients[c];
  sim::Argv argv{"WRITE", std::to_string(c), std::to_string(grant),
                 lease.fencing_token ? std::to_string(*lease.fencing_token) : "-", std::to_string(index)};
  auto& conn = ctx.world.network().connect(client.host->id(), ctx.storage->id());
  const sim::Reply reply = co_await conn.call(std::move(argv), ctx.scenario.network.timeout);
  ctx.world.note(client.host->id(), "write-reply", reply.to_string());
}

// One iteration of the lock workload: acquire, critical section, release.
Task<void> lock_iteration(RunContext& ctx, std::size_t c, locks::Lock& lock) {
  ClientState& client = ctx.clients[c];
  const ClientSpec& spec = *client.spec;
  begin_attempt(ctx, c);
  co_await reach(ctx, c, "acquiring");  // e.g. a clock step while the first SETs are in flight
  std::optional<locks::Lease> lease = co_await lock.try_acquire();
  end_attempt(ctx, c, lease.has_value());
  if (!lease) {
    ctx.world.note(client.host->id(), "gave-up", ctx.scenario.lock.key);
    co_return;
  }
  const std::uint64_t grant = begin_belief(ctx, c, &*lease);
  const sim::LocalInstant entered = client.host->monotonic_now();
  co_await reach(ctx, c, "acquired");
  bool abandoned = false;
  for (int i = 1; i <= spec.writes; ++i) {
    co_await sleep_until_local(*client.host, entered + spec.work * i / (spec.writes + 1));
    if (!lock.still_valid(*lease)) {  // true without a deadline unless the lock knows it lost the lease
      abandoned = true;
      break;
    }
    co_await reach(ctx, c, "write", i);
    co_await storage_write(ctx, c, grant, *lease, i);
  }
  if (!abandoned) co_await sleep_until_local(*client.host, entered + spec.work);
  end_belief(ctx, c, abandoned ? "abandon" : "release");
  (void)co_await lock.release(*lease);
  co_await reach(ctx, c, "released");
}

Task<void> gate_attempt(RunContext& ctx, std::size_t c) {
  ClientState& client = ctx.clients[c];
  begin_attempt(ctx, c);
  sim::Argv argv{"SET", ctx.scenario.lock.key, client.host->name(), "NX", "PX",
                 std::to_string(sim::to_ms(ctx.scenario.lock.ttl))};
  const sim::Reply reply = co_await client.runtime->conn(0).command(std::move(argv));
  ++ctx.stats.round_trips;
  end_attempt(ctx, c, reply.is_ok());
  if (reply.is_ok()) {
    begin_belief(ctx, c, nullptr);  // a winner believes it won until the end
    co_await reach(ctx, c, "acquired");
  }
}

}  // namespace

Task<void> client_main(RunContext& ctx, std::size_t c) {
  ClientState& client = ctx.clients[c];
  const ClientSpec& spec = *client.spec;
  // A restarted client is a new process: it waits for nothing and runs
  // the iterations it has left, with a fresh lock object.
  if (client.host->incarnation() == 0) co_await client.host->sleep(spec.start);
  if (ctx.scenario.workload == WorkloadKind::Gate) {
    if (client.iterations_done == 0) co_await gate_attempt(ctx, c);
    client.iterations_done = 1;
  } else {
    auto lock = ctx.lock.factory(*client.runtime, ctx.scenario.lock);
    const std::uint64_t trips_before = lock->round_trips();
    while (client.iterations_done < spec.iterations) {
      co_await lock_iteration(ctx, c, *lock);
      ++client.iterations_done;
    }
    ctx.stats.round_trips += lock->round_trips() - trips_before;
  }
  ctx.history.clients[c].finished = ctx.world.now();
  ctx.world.note(client.host->id(), "finished", "");
}

void on_client_crash(RunContext& ctx, std::size_t c) {
  ctx.history.clients[c].crashes.push_back(ctx.world.now());
  end_belief(ctx, c, "crash");
  ClientState& client = ctx.clients[c];
  if (client.open_attempt) {
    ctx.history.attempts[*client.open_attempt].end = ctx.world.now();
    client.open_attempt.reset();
  }
}

}  // namespace locksim::scenarios
