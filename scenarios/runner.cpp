// Building a world from a scenario, running it, judging it.
#include "scenarios/runner.hpp"

#include <algorithm>

#include "scenarios/inventory_workload.hpp"
#include "scenarios/process_locks.hpp"
#include "scenarios/repro.hpp"
#include "scenarios/run_context.hpp"
#include "scenarios/services.hpp"
#include "scenarios/sim_workload_world.hpp"
#include "scenarios/workload.hpp"

namespace locksim::scenarios {

namespace {

using sim::redis::RedisNode;

// Observes every node and keeps the changes to the lock entries (the
// scenario's key, or an inventory's segment keys).
class LockKeyObserver final : public sim::redis::NodeObserver {
 public:
  explicit LockKeyObserver(RunContext& ctx) : ctx_(ctx) {}
  void on_command(const sim::redis::CommandSeen& seen) override {
    const bool replay = seen.argv.size() == 1 && seen.argv[0] == "(aof-replay)";
    for (const auto& e : seen.key_events) {
      if (!is_lock_key(ctx_.scenario, e.key)) continue;
      std::optional<std::size_t> client;
      if (seen.client != sim::kNoHost) client = ctx_.history.client_of(seen.client);
      // An entry a restart brings back from the AOF is its creator's again.
      if (replay && e.kind == sim::redis::KeyEvent::Kind::Created) client = creators_[seen.node];
      if (e.kind == sim::redis::KeyEvent::Kind::Created && !replay) creators_[seen.node] = client;
      ctx_.history.entries.push_back({seen.at, ctx_.world.scheduler().current_seq(), seen.node, client,
                                      seen.replicated, e.kind, e.key, entry_command_text(seen.argv)});
      ctx_.history.entries.back().deadline = key_deadline(seen, e.key);
    }
  }

 private:
  // The lock entry's expiry on the node that saw the command, in true time:
  // its PX/PEXPIRE deadline (Engine::inspect, read-only) less the node's
  // wall clock now, added to the true time now.
  std::optional<TrueInstant> key_deadline(const sim::redis::CommandSeen& seen, const std::string& key) const {
    for (const auto& node : ctx_.nodes) {
      if (node->id() != seen.node) continue;
      const auto view = node->engine().inspect(key);
      if (!view || !view->expire_at_ms) return std::nullopt;
      return seen.at + std::chrono::milliseconds(*view->expire_at_ms - to_ms(node->host().wall_now()));
    }
    return std::nullopt;
  }

  RunContext& ctx_;
  std::map<sim::HostId, std::optional<std::size_t>> creators_;  // last creator of the lock key per node
};

sim::redis::NodeConfig node_config(const Scenario& s, const locks::LockInfo& lock) {
  sim::redis::NodeConfig c;
  c.appendonly = s.redis.appendonly;
  c.appendfsync = s.redis.appendfsync;
  c.fsync_duration = s.redis.fsync_duration;
  c.background_writes_per_second = s.redis.background_writes_per_second;
  c.replication_lag = s.redis.replication_lag;
  c.min_replicas_to_write = s.redis.min_replicas_to_write;
  // A lock that needs Redis 8.4 gets it: the scenario is about its faults.
  c.engine.redis84_ifeq = s.redis.redis84 || lock.needs_redis84;
  return c;
}

void build_redis(RunContext& ctx, LockKeyObserver& observer) {
  const Scenario& s = ctx.scenario;
  const auto config = node_config(s, ctx.lock);
  std::vector<sim::redis::Sentinel::Shard> shards;
  for (int m = 1; m <= s.redis.masters; ++m) {
    ctx.nodes.push_back(std::make_unique<RedisNode>(ctx.world.add_host(redis_host_name(m)), config));
    ctx.masters.push_back(ctx.nodes.back().get());
    shards.push_back({ctx.masters.back(), {}});
    for (int r = 1; r <= s.redis.replicas; ++r) {
      ctx.nodes.push_back(
          std::make_unique<RedisNode>(ctx.world.add_host(redis_host_name(m, r)), config));
      ctx.masters.back()->attach_replica(*ctx.nodes.back());
      shards.back().replicas.push_back(ctx.nodes.back().get());
    }
  }
  const auto preload = redis_stock_preload(s);
  for (auto& node : ctx.nodes) {
    node->add_observer(&observer);
    if (!preload.empty()) node->preload(preload);
    // A crashed node holds no entry any more: a key on a node that never
    // restarts blocks nobody. A restart that replays the AOF brings the
    // entry back (an "(aof-replay)" event, credited to its creator).
    RedisNode* n = node.get();
    n->host().on_crash([&ctx, n] {
      for (const std::string& key : lock_keys(ctx.scenario))
        ctx.history.entries.push_back({ctx.world.now(), ctx.world.scheduler().current_seq(), n->id(), std::nullopt,
                                       false, sim::redis::KeyEvent::Kind::Expired, key, "(node crashed)"});
    });
    ctx.history.nodes.resize(node->id() + 1);
    ctx.history.nodes[node->id()] = node->host().name();
  }
  if (s.redis.replicas > 0)
    ctx.sentinel = std::make_unique<sim::redis::Sentinel>(
        ctx.world.add_host(kSentinelHost), std::move(shards),
        sim::redis::SentinelConfig{s.redis.failover_after, s.redis.parallel_syncs, s.redis.failover_timeout});
}

// The CP members on hosts etcd-1.. / zk-1.., each an ordinary host, made by
// the service's row (services.hpp): the fault appliers pause, crash,
// restart and partition them by name, and a member answers a crash through
// the host hook it registers itself (ConsensusMember: raft keeps what it
// wrote; power_loss what it fsynced).
void build_cp(RunContext& ctx) {
  const Scenario& s = ctx.scenario;
  std::vector<sim::Host*> hosts;
  std::vector<sim::HostId> ids;
  for (const std::string& name : cp_member_hosts(s.topology, s.cp.members)) {
    hosts.push_back(&ctx.world.add_host(name));
    ids.push_back(hosts.back()->id());
  }
  const CpServiceOps& service = *service_row(s.topology).cp;
  for (sim::Host* h : hosts) {
    ctx.members.push_back(service.member(*h, s, ids));
    ctx.history.nodes.resize(h->id() + 1);
    ctx.history.nodes[h->id()] = h->name();
  }
}

// A CP client's connection for this incarnation of its process (the
// service row's client), talking to member (client index mod N) first so
// clients spread over the members.
void connect_cp(RunContext& ctx, std::size_t c) {
  ClientState& client = ctx.clients[c];
  std::vector<sim::HostId> ids;
  for (const auto& m : ctx.members) ids.push_back(m->id());
  client.service.reset();
  client.service = service_row(ctx.scenario.topology).cp->client(*client.host, std::move(ids), ctx.scenario, c);
  client.runtime->attach_service(client.service.get());
}

void build_clients(RunContext& ctx) {
  const Scenario& s = ctx.scenario;
  ctx.clients.reserve(s.clients.size());
  for (const ClientSpec& spec : s.clients) {
    sim::Host& host = ctx.world.add_host(spec.name);
    if (spec.clock_drift_ppm != 0) host.clock().set_drift(ctx.world.now(), spec.clock_drift_ppm);
    auto directory = [&ctx](std::size_t node) {
      return ctx.sentinel ? ctx.sentinel->master_of(node).id() : ctx.masters[node]->id();
    };
    auto runtime = std::make_unique<locks::SimRuntime>(host, ctx.masters.size(), directory, s.network.timeout);
    ClientState state;
    state.spec = &spec;
    state.host = &host;
    state.runtime = std::move(runtime);
    ctx.clients.push_back(std::move(state));
    ctx.history.clients.push_back({spec.name, host.id(), {}, std::nullopt});
    ctx.history.clients.back().clock_drift_ppm = spec.clock_drift_ppm;
  }
  ctx.workload_world = std::make_unique<SimWorkloadWorld>(ctx);
  WorkloadWorld& world = *ctx.workload_world;
  for (std::size_t c = 0; c < ctx.clients.size(); ++c) {
    sim::Host& host = *ctx.clients[c].host;
    host.set_main([&world, &ctx, c](sim::Host&) { return client_main(world, c, *ctx.clients[c].runtime); });
    host.on_crash([&world, c] { on_client_crash(world, c); });
    if (!ctx.members.empty()) {
      connect_cp(ctx, c);
      host.on_crash([&ctx, c] { connect_cp(ctx, c); });  // frames are gone by now (Host::crash)
    }
  }
}

// Nothing can change the history once every client's workload has ended
// and left no task behind, no fault (nor a restart or heal) is due, no
// packet is in transit or held, no host is paused, every Redis node is up
// and holds no key with a TTL (an expiry is an entry in the history). The
// run stops there instead of ticking its background loops (active expiry,
// Sentinel) to the end; its history still ends at `duration`, judged the
// same (digest format 2; live mode stops the same way, live_session.cpp
// story_over). A consensus topology never qualifies: its heartbeats keep
// packets in transit.
bool story_over(RunContext& ctx) {
  if (ctx.timeline->pending() > 0 || ctx.world.network().packets_in_transit() > 0) return false;
  for (std::size_t c = 0; c < ctx.clients.size(); ++c)
    if (!ctx.history.clients[c].finished || ctx.clients[c].host->live_roots() > 0) return false;
  for (std::size_t h = 0; h < ctx.world.host_count(); ++h)
    if (ctx.world.host(static_cast<sim::HostId>(h)).paused()) return false;
  return std::all_of(ctx.nodes.begin(), ctx.nodes.end(), [](const auto& node) {
    return node->host().up() && !node->engine().has_expiring_keys();
  });
}

// Runs to the scenario's end, or to the first 100 ms step after the story
// is over (the check is pure: where it stops changes no event before it).
void run_story(RunContext& ctx) {
  constexpr Duration kStep = std::chrono::milliseconds(100);
  const TrueInstant end = true_epoch + ctx.scenario.duration;
  sim::Scheduler& sched = ctx.world.scheduler();
  while (sched.now() < end) {
    sched.run_until(std::min(end, sched.now() + kStep));
    if (story_over(ctx) || ctx.world.trace().full()) break;
  }
}

// With client processes (a library lock): instant by instant, the
// processes running before each one (SimTimeBridge::run's loop), so that
// simulated time moves only when every process is blocked.
void run_story_with_processes(RunContext& ctx, ProcessLocks& processes) {
  const TrueInstant end = true_epoch + ctx.scenario.duration;
  sim::Scheduler& sched = ctx.world.scheduler();
  for (;;) {
    processes.run_processes();
    const auto next = sched.next_at();
    if (!next || *next > end) {
      if (sched.now() < end) sched.run_until(end);
      return;
    }
    sched.run_until(*next);
    if (story_over(ctx) || ctx.world.trace().full()) return;
  }
}

// A library lock's factory: the client's process, made by `processes`.
void use_processes(RunContext& ctx, ProcessLocks& processes) {
  ctx.lock.factory = [&ctx, &processes](locks::Runtime& rt, const locks::LockConfig& config) {
    std::size_t c = 0;
    while (c < ctx.clients.size() && ctx.clients[c].runtime.get() != &rt) ++c;
    return processes.make_lock(c, *ctx.clients.at(c).runtime, config);
  };
}

// Why a recorded run stopped early: its trace reached the cap.
std::string trace_full_message(RunContext& ctx) {
  return "the run's trace reached " + std::to_string(ctx.world.trace().record_limit()) +
         " records at " + format_duration(ctx.world.now() - true_epoch) + " of " +
         format_duration(ctx.scenario.duration) +
         " simulated (the cap on a trace kept in memory, for --trace, --store and a report's timelines): the "
         "run was stopped; run it without them, or with a shorter duration";
}

}  // namespace

std::optional<std::string> unsupported_lock(const Scenario& s, const locks::LockInfo& lock) {
  if (auto why = locks::topology_mismatch(lock, s.topology)) return why;
  if (s.topology == locks::Topology::Redis && static_cast<std::size_t>(s.redis.masters) < lock.min_nodes)
    return "lock " + lock.name + " needs at least " + std::to_string(lock.min_nodes) + " Redis masters; scenario " +
           s.name + " has " + std::to_string(s.redis.masters);
  return std::nullopt;
}

RedisNode* RunContext::node_by_name(std::string_view name) {
  for (auto& n : nodes)
    if (n->host().name() == name) return n.get();
  return nullptr;
}

sim::consensus::ConsensusMember* RunContext::member_by_name(std::string_view name) {
  for (auto& m : members)
    if (m->host().name() == name) return m.get();
  return nullptr;
}

std::set<std::string> RunResult::violation_kinds() const {
  std::set<std::string> kinds;
  for (const Violation& v : violations) kinds.insert(v.kind);
  return kinds;
}

namespace {

ProcessLocksFactory& installed_factory() {
  static ProcessLocksFactory factory;
  return factory;
}

// One run; `processes` runs a library lock's clients (null for the others).
Result<RunResult, std::string> run_once(const Scenario& scenario, const RunOptions& options,
                                        const locks::LockInfo& info, ProcessLocks* processes) {
  const std::string& lock_kind = info.name;
  RunContext ctx(scenario, info, options.seed);
  ctx.world.trace().set_recording(options.record_trace, options.trace_limit);
  ctx.world.scheduler().set_stop_flag(options.stop);
  ctx.world.scheduler().set_activity(options.activity);
  const auto& lat = scenario.network.latency;
  ctx.world.network().set_latency({lat.min, lat.max, scenario.network.tail_per_mille, scenario.network.tail_max_shift});
  LockKeyObserver observer(ctx);
  if (service_row(scenario.topology).cp) build_cp(ctx);
  else build_redis(ctx, observer);
  StorageService storage(ctx.world, ctx.history, scenario);
  ctx.history.sale = sale_terms(scenario);
  ctx.storage = &ctx.world.add_host(kStorageHost);
  ctx.world.network().register_service(ctx.storage->id(), &storage);
  if (processes) use_processes(ctx, *processes);
  build_clients(ctx);
  schedule_faults(ctx);
  if (options.activity) {  // every host is built: their clocks record into it
    options.activity->wall_reads.resize(ctx.world.host_count());
    for (std::size_t h = 0; h < ctx.world.host_count(); ++h)
      ctx.world.host(static_cast<sim::HostId>(h)).clock().record_wall_reads(&options.activity->wall_reads[h]);
  }

  for (auto& node : ctx.nodes) node->host().start();
  for (auto& member : ctx.members) member->host().start();
  if (ctx.sentinel) ctx.world.find_host(kSentinelHost)->start();
  for (ClientState& c : ctx.clients) c.host->start();
  try {
    if (processes) run_story_with_processes(ctx, *processes);
    else run_story(ctx);
  } catch (const ProcessFailure& e) {
    return failure(std::string(e.what()));
  }
  if (ctx.world.trace().full()) return failure(trace_full_message(ctx));
  ctx.history.end = true_epoch + scenario.duration;

  const std::string ref = options.scenario_ref.empty() ? scenario.name : options.scenario_ref;
  RunResult r = judged_run(scenario, lock_kind, options.seed, ref, std::move(ctx.history), std::move(ctx.stats));
  r.digest = ctx.world.trace().digest();
  r.events = ctx.world.trace().event_count();
  r.sim_time_ms = to_ms(scenario.duration);  // the span judged, also when the story was over sooner
  r.repro = run_repro(ref, lock_kind, options.seed, options.program);
  for (std::size_t h = 0; h < ctx.world.host_count(); ++h) r.host_names.push_back(ctx.world.host_name(static_cast<sim::HostId>(h)));
  r.trace = ctx.world.trace().records();
  if (processes) r.mechanism = processes->mechanism();
  return r;
}

// One run with processes of its own for a library lock: the caller's
// (RunOptions::process_locks), else the installed factory's.
Result<RunResult, std::string> run_with_processes(const Scenario& scenario, const RunOptions& options,
                                                  const locks::LockInfo& info) {
  if (info.library.empty()) return run_once(scenario, options, info, nullptr);
  if (options.process_locks) return run_once(scenario, options, info, options.process_locks);
  try {
    const auto processes = installed_factory()(scenario, info);
    return run_once(scenario, options, info, processes.get());
  } catch (const ProcessFailure& e) {
    return failure(std::string(e.what()));
  }
}

std::string verify_side(const Result<RunResult, std::string>& run) {
  return run ? "digest " + sim::Trace::hex(run->digest) : "failed (" + run.error() + ")";
}

}  // namespace

void set_process_locks_factory(ProcessLocksFactory factory) { installed_factory() = std::move(factory); }
const ProcessLocksFactory& process_locks_factory() { return installed_factory(); }

Result<RunResult, std::string> run_scenario(const Scenario& scenario, const RunOptions& options) {
  const std::string lock_kind = options.lock_kind.empty() ? scenario.lock_kind : options.lock_kind;
  auto info = locks::find_lock(lock_kind);
  if (!info) return failure(locks::unknown_lock_message(lock_kind));
  if (auto why = unsupported_lock(scenario, *info)) return failure(*why);
  if (!info->library.empty() && !options.process_locks && !installed_factory())  // scenarios/process_locks.hpp
    return failure("lock " + info->name + " runs a client library in its own process (" + info->library +
                   "): the simulator runs it only through the hosted mechanism (liblocksim_simtime.so, "
                   "which the locksim program installs: scenarios/process_locks.hpp), or `locksim live`");
  if (!info->library.empty() && scenario.topology != locks::Topology::Redis)  // hosted/sim_socket_server.hpp
    return failure("lock " + info->name + " talks to " + std::string(locks::topology_name(scenario.topology)) +
                   ": the hosted mechanism serves simulated Redis nodes only; run it with `locksim live`");

  if (options.verify && options.process_locks)  // the second run needs processes of its own
    return failure(std::string("--verify runs each run twice: give no RunOptions::process_locks"));
  auto first = run_with_processes(scenario, options, *info);
  if (!options.verify) return first;
  // The determinism self-check (--verify): the same run again, in a fresh
  // world with fresh processes; any difference is a nondeterministic run.
  const auto second = run_with_processes(scenario, options, *info);
  if (static_cast<bool>(first) != static_cast<bool>(second) || (first && first->digest != second->digest) ||
      (first && first->mechanism.size() != second->mechanism.size()))
    throw NondeterministicRun("nondeterministic run: scenario " + scenario.name + ", lock " + info->name + ", seed " +
                              std::to_string(options.seed) + ": the first run's " + verify_side(first) +
                              ", the second's " + verify_side(second) + " (--verify)");
  return first;
}

}  // namespace locksim::scenarios
