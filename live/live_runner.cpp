// The live runner (live_runner.hpp): the live WorkloadWorld. The workload
// itself is scenarios/workload.cpp, the one the simulator runs: each client
// thread runs its coroutine to completion (LiveRuntime's awaitables complete
// synchronously), and this file supplies what it runs on — real time on the
// client's ClientClock, the storage link (delays, partitions; the storage's
// fencing rule is scenarios/storage.cpp's), trigger points into the fault
// queue (each fault applied by its kind's applier, live_fault_appliers.cpp),
// and the record lock over the History.
//
// Threads: the main thread owns the cluster, runs due faults from a
// time-ordered queue, watches for servers that die and
// for SIGINT/SIGTERM, and ends the run; each client runs on its own thread
// and arms triggered faults (`after = "A:acquired"`) into the same queue.
// One mutex guards the History, the queue and the pause windows.
#include "live/live_runner.hpp"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "live/cp_cluster.hpp"
#include "live/etcd_cluster.hpp"
#include "live/etcd_http_client.hpp"
#include "live/external_lock.hpp"
#include "live/existing_servers.hpp"
#include "live/live_cp_conns.hpp"
#include "live/live_fault_appliers.hpp"
#include "live/live_faults.hpp"
#include "live/live_network.hpp"
#include "live/live_runtime.hpp"
#include "live/process_group.hpp"
#include "live/zk_c_client.hpp"
#include "live/zk_cluster.hpp"
#include "locks/registry.hpp"
#include "scenarios/inventory_workload.hpp"
#include "scenarios/repro.hpp"
#include "scenarios/storage.hpp"
#include "scenarios/workload.hpp"
#include "scenarios/workload_world.hpp"
#include "vocab/partition_mode.hpp"

namespace locksim::live {

namespace {

using namespace std::chrono_literals;
using scenarios::FaultKind;
using scenarios::FaultSpec;
using scenarios::Scenario;
using Clock = std::chrono::steady_clock;
using Kind = sim::redis::KeyEvent::Kind;

constexpr const char* kProbeOnly = "(probe)";  // a probed command that left the entry as it was

std::atomic<int> g_interrupted{0};
extern "C" void on_interrupt(int sig) { g_interrupted.store(sig); }

// What a run's end stopped or cleaned: with --redis no server was started,
// so none was stopped.
std::string what_was_stopped(const Scenario& s, bool existing_servers) {
  if (existing_servers) return "this run's keys were deleted";
  if (s.topology == locks::Topology::Etcd) return "every etcd member was stopped";
  if (s.topology == locks::Topology::ZooKeeper) return "every ZooKeeper member was stopped";
  return "every redis-server was stopped";
}

LiveError interrupted_error(int sig, const std::string& stopped) {
  return LiveError{3, std::string("interrupted by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + "; " + stopped, true};
}

// Installs SIGINT/SIGTERM handlers for the run; restores the old ones after.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~InterruptGuard() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// d x ppm / 10^6, the product in 128 bits: a field of up to 10,000 h (the
// duration cap) at a scale of up to 10 is 3.6e23 before the division, far
// past int64 (any duration over 256 h overflowed at the default 0.01); the
// result, at most 100,000 h (scenarios::kMaxDerivedDuration), fits.
Duration scale(Duration d, std::int64_t ppm) {
  return Duration(static_cast<std::int64_t>(static_cast<__int128>(d.count()) * ppm / 1'000'000));
}

// A storage write on its way: applied when it reaches the storage, answered
// when the reply reaches the client (StorageLinks, PartitionMap).
struct PendingWrite {
  scenarios::WriteRequest request;
  std::int64_t reply = 0;  // set on arrival (Storage::serve: 1/0, or a read's stock)
  // Set when the reply reaches the client; shared with the waiting client.
  std::shared_ptr<std::optional<std::int64_t>> answer = std::make_shared<std::optional<std::int64_t>>();
};

struct ClientState {
  Clock::time_point paused_until{};
  scenarios::ClientProgress progress;  // the workload's
  // Crash and restart: the client thread runs one incarnation at a time;
  // a crash marks it down and bumps `incarnation`, so the running one is
  // stale and unwinds at its next step (ClientCrashed).
  std::thread::id thread{};
  bool down = false;
  // A crashed CP client's links drop what it sends until its frames are
  // gone (crash_client): its library's goodbye never reaches a member.
  bool severed = false;
  // The process group of the client library running its lock
  // (live/external_lock.hpp), -1 for a lock in locksim's own thread.
  pid_t adapter = -1;
  std::uint64_t incarnation = 0, running = 0;
  bool crashed() const { return down || running != incarnation; }
};

struct Event {
  Clock::time_point at;
  std::uint64_t id;
  std::function<void()> run;
};

class LiveSession final : public LiveWorld, public LiveFaultActions, public scenarios::WorkloadWorld {
 public:
  // `servers`: a RedisCluster, or the CpCluster of an etcd / ZooKeeper topology.
  LiveSession(const Scenario& original, const Scenario& scaled, const locks::LockInfo& lock, std::int64_t ppm,
              LiveServers& servers, std::string order_key)
      : original_(original),
        s_(scaled),
        lock_(lock),
        ppm_(ppm),
        servers_(servers),
        redis_(dynamic_cast<RedisCluster*>(&servers)),
        cp_(dynamic_cast<CpCluster*>(&servers)),
        order_key_(std::move(order_key)),
        storage_(scaled),
        storage_links_(scaled.clients.size()) {}

  Result<bool, LiveError> run();
  scenarios::History& history() { return history_; }
  scenarios::RunSummary& stats() { return stats_; }
  std::vector<std::string>& notes() { return notes_; }

  // --- LiveWorld ---
  bool stopping() const override { return stop_.load(); }
  bool wait_until(Clock::time_point deadline) override {
    std::unique_lock lk(mutex_);
    cv_.wait_until(lk, deadline, [&] { return stop_.load(); });
    return !stop_.load();
  }
  void pause_point(std::size_t c) override {
    std::unique_lock lk(mutex_);
    while (!stop_.load() && clients_[c].paused_until > Clock::now() && !clients_[c].crashed())
      cv_.wait_until(lk, clients_[c].paused_until, [&] { return stop_.load() || clients_[c].crashed(); });
    if (std::this_thread::get_id() == clients_[c].thread) check_alive(c);
  }
  bool crashed(std::size_t c) override {
    std::lock_guard lk(mutex_);
    return clients_[c].crashed();
  }
  void record_entry(const ProbedCommand& probe, std::optional<Kind> kind, bool present_before,
                    ServerStamp stamp) override;
  std::chrono::milliseconds command_timeout() const override {
    return std::max(50ms, std::chrono::ceil<std::chrono::milliseconds>(s_.network.timeout));
  }
  double time_scale() const override { return static_cast<double>(ppm_) / 1e6; }
  const std::string& order_key() const override { return order_key_; }
  void adapter_process(std::size_t c, pid_t pid, const std::string& label) override;
  bool paused(std::size_t c) override {
    std::lock_guard lk(mutex_);
    return clients_[c].paused_until > Clock::now();
  }
  void adapter_note(std::size_t c, const std::string& text) override;
  std::vector<std::string> adapter_servers(std::size_t c) const override;
  ClientClock* client_clock(std::size_t c) override { return client_clocks_[c].get(); }
  std::unique_ptr<ExternalClient> take_adapter(std::size_t c) override {
    std::lock_guard lk(mutex_);
    if (clients_[c].running != 0 || c >= prestarted_.size()) return nullptr;
    return std::move(prestarted_[c]);
  }

  // --- scenarios::WorkloadWorld (each call on the client's own thread) ---
  const Scenario& scenario() const override { return s_; }
  const locks::LockInfo& lock() const override { return lock_; }
  const std::string& client_name(std::size_t c) const override { return s_.clients[c].name; }
  std::uint64_t incarnation(std::size_t c) const override { return clients_[c].running; }  // written on c's thread
  LocalInstant monotonic_now(std::size_t c) override {
    return LocalInstant{std::chrono::duration_cast<Duration>(Clock::now().time_since_epoch())} +
           client_clocks_[c]->monotonic_offset();
  }
  Task<void> sleep_until(std::size_t c, LocalInstant target) override;
  Task<void> await_start(std::size_t c, Duration start) override;
  // A reading of c's own (drifting) clock placed in real time through that clock.
  TrueInstant true_when_monotonic(std::size_t c, LocalInstant local) override {
    return to_true(LocalInstant{client_clocks_[c]->real_when_monotonic(local.time_since_epoch())});
  }
  std::int64_t latency_us(Duration true_elapsed) const override {  // real latency, not scaled back
    return (std::chrono::duration_cast<std::chrono::microseconds>(true_elapsed) * ppm_ / 1'000'000).count();
  }
  Task<Reply> send_write(std::size_t c, scenarios::WriteRequest w) override;
  Task<void> reach(std::size_t c, scenarios::TriggerEvent event, int write_index) override;
  bool ended() const override { return stop_.load(); }
  scenarios::ClientProgress& progress(std::size_t c) override { return clients_[c].progress; }
  // Live keeps no trace: the History is its whole record.
  void note(std::size_t, std::string_view, std::string_view) override {}

 protected:
  void record_with(std::size_t c, void (*call)(void*, const scenarios::Ledger&), void* fn) override {
    std::lock_guard lk(mutex_);
    if (!stop_.load() && std::this_thread::get_id() == clients_[c].thread) check_alive(c);
    call(fn, ledger_locked(c));
  }

 private:
  TrueInstant now_true() const {  // requires mutex_ (keeps records in time order)
    const auto real = std::chrono::duration_cast<Duration>(Clock::now() - origin_);
    return TrueInstant{real * 1'000'000 / ppm_};
  }
  TrueInstant to_true(LocalInstant steady) const {
    const auto real = steady.time_since_epoch() - std::chrono::duration_cast<Duration>(origin_.time_since_epoch());
    return TrueInstant{real * 1'000'000 / ppm_};
  }
  // Client threads (one per client; each runs scenarios::client_main).
  void check_alive(std::size_t c) const {  // requires mutex_; on c's thread
    if (clients_[c].crashed()) throw ClientCrashed{};
  }
  scenarios::Ledger ledger_locked(std::size_t c) {  // requires mutex_
    return {history_, stats_, clients_[c].progress, now_true(), stop_.load()};
  }
  void client_thread(std::size_t c);
  void work_until(std::size_t c, Clock::time_point deadline);
  void crash_client(const FaultSpec& f, std::size_t c);
  void restart_client(std::size_t c);
  void note_restart(const std::string& host);  // a crash's restart_after, recorded as the simulator does
  std::size_t client_index(const std::string& name) const {
    std::size_t c = 0;
    while (c + 1 < s_.clients.size() && s_.clients[c].name != name) ++c;
    return c;
  }
  // The real time client c's own (drifting) clock takes to show d, as a
  // simulated client's work runs on its host's clock.
  Clock::duration on_client_clock(std::size_t c, Duration d) const {
    return std::chrono::duration_cast<Clock::duration>(client_clocks_[c]->real_for(d));
  }
  void deliver_write(PendingWrite w);  // requires mutex_
  void answer_write(const PendingWrite& w);  // requires mutex_
  // Network faults (live_network.hpp).
  void delay_link(const FaultSpec& f);
  void partition(const PartitionMap& map, std::optional<PartitionMode> mode);
  void emulate_replication_lag();
  // Faults (main thread; arming from any thread).
  std::uint64_t schedule(Clock::time_point at, std::function<void()> run);  // requires mutex_
  // Arms the faults waiting for this trigger; returns those due at once.
  std::vector<std::uint64_t> fire_trigger(const std::string& host, scenarios::TriggerEvent event,
                                          int write_index);   // requires mutex_
  std::uint64_t arm(const FaultSpec& f, Clock::time_point at);  // requires mutex_
  void apply(const FaultSpec& f);

  // LiveFaultActions: what the appliers (live_fault_appliers.cpp) act through.
  void note_fault(const FaultSpec& f, std::optional<Duration> until) override;
  void after(Duration after, std::function<void()> then) override;
  std::optional<std::size_t> find_server(const std::string& host) override { return servers_.find(host); }
  bool server_down(std::size_t node) override { return !servers_.server_up(node); }
  void server_pause(std::size_t node, Duration d) override;
  void server_crash(const FaultSpec& f, std::size_t node, bool power_loss) override { crash_node(f, node, power_loss); }
  void server_restart(std::size_t node) override { restart_node(node); }
  // Redis nodes only: live_faults.cpp refuses these faults on CP members.
  void server_promote(std::size_t node) override { promote_shard(redis_->node(node).shard); }
  void server_clock_step(std::size_t node, Duration by) override { redis_->step_clock(node, by); }
  void server_clock_drift(std::size_t node, std::int64_t ppm) override { redis_->set_clock_drift(node, ppm); }
  void server_stall_fsync(std::size_t node, Duration d) override { redis_->stall_fsync(node, d); }
  void client_pause(const std::string& client, Duration d) override;
  void client_crash(const FaultSpec& f) override { crash_client(f, client_index(f.target)); }
  void client_restart(const std::string& client) override { restart_client(client_index(client)); }
  void client_clock_step(const std::string& client, Duration by) override {
    client_clocks_[client_index(client)]->step(by);
  }
  void client_clock_drift(const std::string& client, std::int64_t ppm) override {
    client_clocks_[client_index(client)]->set_drift(ppm);
  }
  void network_delay(const FaultSpec& f) override { delay_link(f); }
  void network_partition(const std::vector<std::vector<std::string>>& groups, PartitionMode mode) override {
    partition(PartitionMap(groups), mode);
  }
  void network_heal() override { partition({}, std::nullopt); }

  void crash_node(const FaultSpec& f, std::size_t node, bool power_loss);
  void crash_redis_node(std::size_t node, bool power_loss);
  // A CP client's links on every member's proxy: held while it is paused
  // (its client library's threads, e.g. ZooKeeper's pings, stop with it),
  // else as the partition says. Requires mutex_.
  void set_client_links(std::size_t c);
  void sever_crashed_links(std::size_t c);
  void mend_crashed_links(std::size_t c);
  void client_thread_cp(std::size_t c);
  std::string stopped_text() const { return what_was_stopped(s_, redis_ && redis_->external()); }
  void note_power_cut(const std::string& node, const std::vector<PowerCut>& cuts);
  void restart_node(std::size_t node);
  void promote_shard(int shard);
  void follow_sentinel();
  void fail(LiveError e);
  Result<bool, LiveError> prestart_adapters();
  void finish_entries();
  bool run_due_events();
  bool story_over();
  std::string story_over_note(Clock::duration real) const;

  const Scenario& original_;
  const Scenario& s_;
  const locks::LockInfo& lock_;
  std::int64_t ppm_;
  LiveServers& servers_;
  RedisCluster* redis_;  // on a Redis topology, else nullptr
  CpCluster* cp_;        // on an etcd / ZooKeeper topology, else nullptr
  std::string order_key_;
  Clock::time_point origin_;
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> clients_done_{0};  // client threads whose workload ended (not by the run's end)
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<ClientState> clients_;
  std::vector<std::unique_ptr<ClientClock>> client_clocks_;  // per client, across its restarts
  scenarios::History history_;
  scenarios::RunSummary stats_;
  std::vector<std::string> notes_;
  std::size_t adapter_notes_ = 0;  // adapter_note calls so far
  std::vector<std::unique_ptr<ExternalClient>> prestarted_;  // per client, until its first lock takes it
  std::chrono::microseconds origin_wall_{0};  // system_clock at origin_ (server TIME is mapped from it)
  std::vector<bool> entry_before_;            // per history_.entries slot: entry present before the command
  std::multimap<std::pair<Clock::time_point, std::uint64_t>, std::function<void()>> queue_;
  std::uint64_t next_event_ = 0;
  std::set<std::uint64_t> pending_;  // ids queued and not yet run
  std::set<const FaultSpec*> fired_;  // triggered faults armed already
  std::optional<LiveError> fatal_;
  scenarios::Storage storage_;  // requires mutex_
  StorageLinks storage_links_;
  PartitionMap partition_;
  std::optional<PartitionMode> partition_mode_;  // nullopt = healed
  std::vector<PendingWrite> held_writes_;             // held by a partition, in arrival order
  LateReplies late_{*this};                           // last: its thread reads the rest
};

// ---------------------------------------------------------------- records

// Entries arrive in reply order, not execution order: they are kept with the
// server's stamp and put in order at the end (finish_entries).
void LiveSession::record_entry(const ProbedCommand& p, std::optional<Kind> kind, bool present_before, ServerStamp stamp) {
  std::lock_guard lk(mutex_);
  if (stop_.load()) return;
  // TIME shows the node's own wall clock (stepped or drifting under a clock
  // fault): take its offset off to place the command in real time.
  const auto real = std::chrono::microseconds(stamp.time_us) - origin_wall_ -
                    std::chrono::duration_cast<std::chrono::microseconds>(redis_->wall_offset(p.node));
  const TrueInstant at{std::max(Duration{0}, std::chrono::duration_cast<Duration>(real)) * 1'000'000 / ppm_};
  const auto node = static_cast<sim::HostId>(p.node);
  if (kind)
    history_.entries.push_back({at, static_cast<std::uint64_t>(stamp.order), node, p.client, false, *kind, p.key,
                                p.command});
  else  // a probe that changed nothing still tells whether the entry was there
    history_.entries.push_back({at, static_cast<std::uint64_t>(stamp.order), node, p.client, false, Kind::Expired,
                                p.key, kProbeOnly});
  entry_before_.push_back(present_before);
}

// Execution order per node (server TIME, then the INCR counter); a probe
// that found no entry where the previous one left it present means the
// server expired it in between: an Expired event (time: when it was noticed).
void LiveSession::finish_entries() {
  std::vector<std::size_t> idx(history_.entries.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  auto& es = history_.entries;
  std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) {
    return std::tie(es[a].at, es[a].seq) < std::tie(es[b].at, es[b].seq);
  });
  std::vector<scenarios::EntryEvent> out;
  std::map<std::pair<sim::HostId, std::string>, bool> present;  // per node and lock key
  for (auto i : idx) {
    scenarios::EntryEvent e = es[i];
    bool& was_present = present[{e.node, e.key}];
    if (!entry_before_[i] && was_present)
      out.push_back({e.at, e.seq, e.node, std::nullopt, false, Kind::Expired, e.key, "(expired)"});
    if (e.command == kProbeOnly) {
      was_present = entry_before_[i];
      continue;
    }
    was_present = e.kind != Kind::Deleted;
    out.push_back(std::move(e));
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].seq = i;
  es = std::move(out);
}

// A write is a request to the storage host: it travels the client's link
// (delay, partition), is applied on arrival, and the client waits for the
// reply or its command timeout, whichever comes first — a timed-out write
// may still arrive and be applied later, as in the simulator. Then a step
// (a pause holds, a crash unwinds).
Task<Reply> LiveSession::send_write(std::size_t c, scenarios::WriteRequest request) {
  std::optional<std::int64_t> answer;
  {
    std::unique_lock lk(mutex_);
    if (stop_.load()) co_return Reply::error("IOERR locksim: the live run has ended");
    check_alive(c);
    PendingWrite w;
    w.request = request;
    auto answered = w.answer;
    const auto now = Clock::now();
    const auto due = storage_links_.due(c, true, now);
    if (due <= now) {
      deliver_write(std::move(w));
    } else {
      schedule(due, [this, w] {
        std::lock_guard inner(mutex_);
        deliver_write(w);
      });
      cv_.notify_all();  // the main thread's next wake-up may be this
    }
    cv_.wait_until(lk, now + command_timeout(),
                   [&] { return answered->has_value() || stop_.load() || clients_[c].crashed(); });
    answer = *answered;
  }
  pause_point(c);
  co_return answer ? Reply::integer_of(*answer) : Reply::error(kTimeoutError);
}

// The protected storage (scenarios::Storage: its fencing rule) behind the
// client's link to it.
void LiveSession::deliver_write(PendingWrite w) {
  if (stop_.load()) return;
  const std::string& client = s_.clients[w.request.client].name;
  if (partition_mode_ && partition_.cut(client, kStorageHost)) {
    if (*partition_mode_ == PartitionMode::Hold) held_writes_.push_back(std::move(w));
    return;  // Drop: lost
  }
  w.reply = storage_.serve(history_, now_true(), w.request);
  const auto now = Clock::now();
  const auto reply_due = storage_links_.due(w.request.client, false, now);
  if (reply_due <= now) return answer_write(w);
  schedule(reply_due, [this, w] {
    std::lock_guard inner(mutex_);
    answer_write(w);
  });
}

void LiveSession::answer_write(const PendingWrite& w) {
  const std::string& client = s_.clients[w.request.client].name;
  if (partition_mode_ && partition_.cut(client, kStorageHost)) return;  // the reply is lost or held: a timeout
  *w.answer = w.reply;
  cv_.notify_all();
}

// ---------------------------------------------------------------- the clients' world

// Fires a trigger point; a fault armed with no delay acts before we go on
// (as the simulated client yields for an instant), then a pause holds us.
Task<void> LiveSession::reach(std::size_t c, scenarios::TriggerEvent event, int write_index) {
  std::unique_lock lk(mutex_);
  check_alive(c);
  const std::vector<std::uint64_t> now_due = fire_trigger(s_.clients[c].name, event, write_index);
  cv_.notify_all();
  cv_.wait_for(lk, 2s, [&] {
    return stop_.load() || std::none_of(now_due.begin(), now_due.end(), [&](auto id) { return pending_.count(id); });
  });
  lk.unlock();
  pause_point(c);
  co_return;
}

Task<void> LiveSession::sleep_until(std::size_t c, LocalInstant target) {
  const auto now = monotonic_now(c);
  work_until(c, Clock::now() + on_client_clock(c, target > now ? target - now : Duration{0}));
  co_return;
}

// The run's start is its origin in real time (the simulator's true 0).
Task<void> LiveSession::await_start(std::size_t c, Duration start) {
  work_until(c, origin_ + std::chrono::duration_cast<Clock::duration>(start));
  co_return;
}

// A client's wait (its start, its critical section's work): until
// `deadline`, the end of the run or a crash, then a step (a pause holds, a
// crash unwinds).
void LiveSession::work_until(std::size_t c, Clock::time_point deadline) {
  {
    std::unique_lock lk(mutex_);
    cv_.wait_until(lk, deadline, [&] { return stop_.load() || clients_[c].crashed(); });
  }
  pause_point(c);
}

// One incarnation after another: a crashed one unwinds (its lock object,
// watchdog and connections go with its frames) and, once restarted, a new
// one runs scenarios::client_main again with a fresh runtime — a new
// process, as the simulated client restarts.
void LiveSession::client_thread(std::size_t c) {
  {
    std::lock_guard lk(mutex_);
    clients_[c].thread = std::this_thread::get_id();
  }
  for (;;) {
    {
      std::unique_lock lk(mutex_);
      while (!stop_.load() && clients_[c].down) cv_.wait_for(lk, 50ms);
      if (stop_.load()) return;
      clients_[c].running = clients_[c].incarnation;
    }
    try {
      if (cp_) {
        client_thread_cp(c);
      } else {
        LiveRuntime rt(*this, late_, *redis_, c, s_.clients[c].name, scenarios::lock_keys(s_), *client_clocks_[c]);
        sync_wait(scenarios::client_main(*this, c, rt));
      }
      clients_done_.fetch_add(1);  // its runtime (and any CP session) is closed by now
      return;
    } catch (const ClientCrashed&) {
      // its frames are gone; wait for a restart
      if (cp_) mend_crashed_links(c);
    } catch (const AdapterFailure& e) {  // the adapter broke the protocol: the run cannot be judged
      fail(LiveError{2, e.what()});
      return;
    }
  }
}

// Client c's own links on the proxies: on Redis one per shard (its
// master), on etcd / ZooKeeper one per member, member (c mod N) first as
// the simulated client tries them (scenarios/runner.cpp connect_cp).
std::vector<std::string> LiveSession::adapter_servers(std::size_t c) const {
  const std::string& name = s_.clients[c].name;
  std::vector<std::string> out;
  if (cp_) {
    out = cp_->client_endpoints(name);
    std::rotate(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(c % out.size()), out.end());
    return out;
  }
  for (int shard = 0; shard < redis_->shards(); ++shard) out.push_back(redis_->client_endpoint(name, shard));
  return out;
}

// One incarnation on an etcd / ZooKeeper topology: its own connection to
// the members through its links on their proxies (adapter_servers). The
// connection outlives the runtime (whose destructor joins the session's
// keep-alive thread). A library lock (external_lock.hpp) connects from its
// adapter's process: none here, which would open a session of its own.
void LiveSession::client_thread_cp(std::size_t c) {
  const std::vector<std::string> endpoints = adapter_servers(c);
  const bool own_client = lock_.library.empty();
  std::unique_ptr<LiveEtcdConn> etcd;
  std::unique_ptr<LiveZkConn> zk;
  if (own_client && s_.topology == locks::Topology::Etcd)
    etcd = std::make_unique<LiveEtcdConn>(*this, c, std::make_unique<EtcdHttpConn>(endpoints, command_timeout()));
  else if (own_client)
    zk = std::make_unique<LiveZkConn>(*this, c, std::make_unique<ZkCClientConn>(ZkCluster::connect_string(endpoints)));
  LiveRuntime rt(*this, late_, LiveCpConns{etcd.get(), zk.get()}, c, s_.clients[c].name, *client_clocks_[c]);
  sync_wait(scenarios::client_main(*this, c, rt));
}

// ---------------------------------------------------------------- faults

std::uint64_t LiveSession::schedule(Clock::time_point at, std::function<void()> run) {
  const std::uint64_t id = next_event_++;
  queue_.emplace(std::make_pair(at, id), std::move(run));
  pending_.insert(id);
  return id;
}

std::vector<std::uint64_t> LiveSession::fire_trigger(const std::string& host, scenarios::TriggerEvent event,
                                                     int write_index) {
  std::vector<std::uint64_t> due;
  for (const FaultSpec& f : s_.faults) {
    if (!f.after || !f.after->fired_by(host, event, write_index)) continue;
    if (!fired_.insert(&f).second) continue;  // a trigger fires once (scenarios/faults.cpp)
    const auto id = arm(f, Clock::now() + std::chrono::duration_cast<Clock::duration>(f.at));
    if (f.at == Duration{0}) due.push_back(id);
  }
  return due;
}

std::uint64_t LiveSession::arm(const FaultSpec& f, Clock::time_point at) {
  return schedule(at, [this, &f] { apply(f); });
}

void LiveSession::note_fault(const FaultSpec& f, std::optional<Duration> until) {
  std::lock_guard lk(mutex_);
  const auto at = now_true();
  std::optional<TrueInstant> end;
  if (until) end = at + *until * 1'000'000 / ppm_;
  FaultSpec shown = f;  // durations back in scenario time, as every other time shown
  shown.duration = f.duration * 1'000'000 / ppm_;
  shown.by = f.by * 1'000'000 / ppm_;
  history_.faults.push_back({at, f.kind, scenarios::fault_kind_info(f.kind).describe(shown),
                             scenarios::fault_record_target(f), end});
}

void LiveSession::apply(const FaultSpec& f) { apply_live_fault(*this, f); }

void LiveSession::after(Duration after, std::function<void()> then) {
  std::lock_guard lk(mutex_);
  schedule(Clock::now() + std::chrono::duration_cast<Clock::duration>(after), std::move(then));
}

void LiveSession::server_pause(std::size_t node, Duration d) {
  servers_.pause(node);
  after(d, [this, node] { servers_.resume(node); });
}

// On a CP topology the paused client's links are held too (set_client_links),
// until the last pause covering it ends.
void LiveSession::client_pause(const std::string& client, Duration d) {
  const std::size_t c = client_index(client);
  {
    std::lock_guard lk(mutex_);
    clients_[c].paused_until =
        std::max(clients_[c].paused_until, Clock::now() + std::chrono::duration_cast<Clock::duration>(d));
    pause_process_group(clients_[c].adapter);  // its library's timers stop too
    if (!cp_ && clients_[c].adapter <= 0) return;
    if (cp_) set_client_links(c);
  }
  after(d, [this, c] {
    std::lock_guard lk(mutex_);
    if (cp_) set_client_links(c);
    // The last pause covering it has ended (a restarted process was never stopped).
    if (clients_[c].paused_until <= Clock::now()) resume_process_group(clients_[c].adapter);
  });
}

// The process a client's lock runs in: faults signal it from now on, and
// the run's output says which process ran which client.
void LiveSession::adapter_process(std::size_t c, pid_t pid, const std::string& label) {
  std::lock_guard lk(mutex_);
  clients_[c].adapter = pid;
  if (pid > 0)
    notes_.push_back("external client: " + label + " ran as process " + std::to_string(pid) + " (incarnation " +
                     std::to_string(clients_[c].running) + ")");
}

// What a library said (an exception it raised), one note each; after 40, a count.
void LiveSession::adapter_note(std::size_t c, const std::string& text) {
  (void)c;
  constexpr std::size_t kShownNotes = 40;
  std::lock_guard lk(mutex_);
  if (++adapter_notes_ <= kShownNotes) notes_.push_back(text);
  else if (adapter_notes_ == kShownNotes + 1) notes_.push_back("(further notes from the client libraries not shown)");
}

void LiveSession::set_client_links(std::size_t c) {
  const std::string& client = s_.clients[c].name;
  const bool paused = clients_[c].paused_until > Clock::now();
  for (std::size_t n = 0; n < servers_.server_count(); ++n) {
    std::optional<PartitionMode> mode;
    if (clients_[c].severed) mode = PartitionMode::Drop;
    else if (paused) mode = PartitionMode::Hold;
    else if (partition_mode_ && partition_.cut(servers_.server_name(n), client)) mode = partition_mode_;
    servers_.proxy(n).cut(client, mode);
  }
}

// A process that dies sends nothing more: the kernel closes its sockets,
// so a member sees the connection end, and nothing the dying client's
// library says on the way out gets through — the ZooKeeper C client's
// zookeeper_close sends closeSession, which would end the session at once
// where a crashed process's session expires after its timeout
// (ZooKeeperServer: a closed connection leaves the session to the
// SessionTracker). The links drop from the crash on and their connections
// are reset; an etcd lease has no goodbye (calls of a crashed client are
// refused: live_cp_conns.cpp) and simply stops being kept alive.
void LiveSession::sever_crashed_links(std::size_t c) {
  clients_[c].severed = true;
  set_client_links(c);
  for (std::size_t n = 0; n < servers_.server_count(); ++n) servers_.proxy(n).reset(s_.clients[c].name);
}

// The crashed incarnation's frames are gone (its handle closed): what it
// left in the links is dropped with their connections, and a restarted
// incarnation connects afresh.
void LiveSession::mend_crashed_links(std::size_t c) {
  std::lock_guard lk(mutex_);
  for (std::size_t n = 0; n < servers_.server_count(); ++n) servers_.proxy(n).reset(s_.clients[c].name);
  clients_[c].severed = false;
  set_client_links(c);
}

void LiveSession::note_restart(const std::string& host) {
  FaultSpec restart;
  restart.kind = FaultKind::Restart;
  restart.target = host;
  note_fault(restart, std::nullopt);
}

// A client process dies: it believes nothing more, its attempt ends, and
// its thread unwinds at its next step (a command it already sent may
// still run on the server, as simulated).
void LiveSession::crash_client(const FaultSpec& f, std::size_t c) {
  {
    std::lock_guard lk(mutex_);
    if (clients_[c].down) return;
  }
  note_fault(f, std::nullopt);
  std::lock_guard lk(mutex_);
  ClientState& client = clients_[c];
  client.down = true;
  ++client.incarnation;
  if (client.adapter > 0) ::kill(-client.adapter, SIGKILL);  // its library dies with it; the owner thread reaps
  if (cp_) sever_crashed_links(c);
  scenarios::record_crash(ledger_locked(c), c);
  fire_trigger(f.target, scenarios::TriggerEvent::Crash, 0);
  if (f.restart_after)
    schedule(Clock::now() + std::chrono::duration_cast<Clock::duration>(*f.restart_after), [this, c] {
      note_restart(s_.clients[c].name);
      restart_client(c);
    });
  cv_.notify_all();
}

// A restart of a running client crashes it first (sim::Host::restart).
void LiveSession::restart_client(std::size_t c) {
  bool up = false;
  {
    std::lock_guard lk(mutex_);
    up = !clients_[c].down;
  }
  if (up) {
    FaultSpec crash;
    crash.kind = FaultKind::Crash;
    crash.target = s_.clients[c].name;
    crash_client(crash, c);
  }
  std::lock_guard lk(mutex_);
  clients_[c].down = false;
  fire_trigger(s_.clients[c].name, scenarios::TriggerEvent::Restart, 0);
  cv_.notify_all();
}

// A server's crash: SIGKILL (a Redis node's power loss: observed, see
// crash_redis_node), then its restart when the scenario asks for it. A
// Redis master's automatic failover is the Sentinel quorum's own doing
// (follow_sentinel sees it).
void LiveSession::crash_node(const FaultSpec& f, std::size_t node, bool power_loss) {
  if (redis_) crash_redis_node(node, power_loss);
  else servers_.kill9(node);  // live_faults.cpp refuses a member's power loss
  std::lock_guard lk(mutex_);
  fire_trigger(f.target, scenarios::TriggerEvent::Crash, 0);
  if (f.restart_after)
    schedule(Clock::now() + std::chrono::duration_cast<Clock::duration>(*f.restart_after), [this, node] {
      note_restart(servers_.server_name(node));
      restart_node(node);
    });
}

void LiveSession::crash_redis_node(std::size_t node, bool power_loss) {
  // What the master had not replicated yet dies with it (the simulator's
  // replication buffer): its replicas' links lose the bytes still lagging.
  // First, before the kill and its reaping: the lag may be under a ms.
  for (const auto& source : redis_->proxy(node).sources())
    if (redis_->find(source)) redis_->proxy(node).reset(source);
  if (power_loss) note_power_cut(redis_->node(node).name, redis_->power_loss(node));
  else redis_->kill9(node);
}

void LiveSession::restart_node(std::size_t node) {
  auto restarted = servers_.restart(node);
  if (!restarted) return fail(restarted.error());
  std::lock_guard lk(mutex_);
  fire_trigger(servers_.server_name(node), scenarios::TriggerEvent::Restart, 0);
}

// The `failover` fault: what Sentinel does when asked (SENTINEL FAILOVER);
// follow_sentinel records what it then did. A refusal (-NOGOODSLAVE,
// -INPROG) changes nothing, as the simulated Sentinel's.
void LiveSession::promote_shard(int shard) {
  SentinelQuorum* quorum = redis_->sentinel();
  if (!quorum) return;  // no replica: nothing to promote (the simulated Sentinel watches none either)
  if (auto asked = quorum->failover(shard); !asked) {
    std::lock_guard lk(mutex_);
    notes_.push_back("SENTINEL FAILOVER " + SentinelQuorum::master_name(shard) + " refused: " + asked.error());
  }
}

// Clients follow the master the Sentinel quorum names (SENTINEL MASTER, the
// answer with the newest configuration epoch), as a Sentinel-aware client
// asks get-master-addr-by-name: from the moment the leader has seen its
// replica promoted (sentinelGetCurrentMasterAddress). The fault record
// says which replica Sentinel promoted, when locksim saw it.
void LiveSession::follow_sentinel() {
  SentinelQuorum* quorum = redis_ ? redis_->sentinel() : nullptr;
  if (!quorum) return;
  for (int shard = 0; shard < redis_->shards(); ++shard) {
    const auto view = quorum->master(shard);
    const auto node = view ? redis_->node_announcing(view->port) : std::nullopt;
    if (!node || *node == redis_->master_of(shard)) continue;
    redis_->redirect(shard, *node);
    const std::string& name = redis_->node(*node).name;
    std::lock_guard lk(mutex_);
    history_.faults.push_back({now_true(), FaultKind::Failover,
                               "failover to " + name + " (Sentinel, epoch " + std::to_string(view->config_epoch) + ")",
                               name, std::nullopt});
  }
}

// `delay from -> to`: the next bytes (or storage message) on that link wait
// d more, and everything behind them too.
void LiveSession::delay_link(const FaultSpec& f) {
  const auto d = std::chrono::duration_cast<Clock::duration>(f.duration);
  if (f.from == kStorageHost || f.to == kStorageHost) {
    const std::string& client = f.from == kStorageHost ? f.to : f.from;
    std::lock_guard lk(mutex_);
    for (std::size_t c = 0; c < s_.clients.size(); ++c)
      if (s_.clients[c].name == client) storage_links_.delay_next(c, f.to == kStorageHost, d);
    return;
  }
  if (auto link = route(servers_, f.from, f.to)) servers_.proxy(link->node).delay_next(link->source, link->flow, d);
}

// A new partition replaces the last one (as sim::Network::partition does);
// held storage writes that may now pass are delivered in order.
void LiveSession::partition(const PartitionMap& map, std::optional<PartitionMode> mode) {
  live::apply_partition(servers_, map, mode);  // live_network.hpp
  std::lock_guard lk(mutex_);
  partition_ = map;
  partition_mode_ = mode;
  if (cp_)  // a paused client's links stay held
    for (std::size_t c = 0; c < clients_.size(); ++c) set_client_links(c);
  std::vector<PendingWrite> held = std::move(held_writes_);
  held_writes_.clear();
  for (auto& w : held) deliver_write(std::move(w));
}

// The scenario's replication_lag as a constant delay on every master ->
// replica link (a real master on loopback replicates in microseconds).
void LiveSession::emulate_replication_lag() {
  for (std::size_t n = 0; n < redis_->node_count(); ++n) {
    const auto& node = redis_->node(n);
    if (node.replica == 0) continue;
    const std::size_t master = redis_->master_of(node.shard);
    redis_->proxy(master).set_latency(node.name, Flow::ToSource, s_.redis.replication_lag);
  }
}

// What a power loss cut, as observed from the server's own fsyncs.
void LiveSession::note_power_cut(const std::string& node, const std::vector<PowerCut>& cuts) {
  std::string text = "power-loss " + node + " observed: ";
  if (cuts.empty()) text += "every AOF byte was fsynced, nothing lost";
  for (std::size_t i = 0; i < cuts.size(); ++i)
    text += (i ? ", " : "") + cuts[i].file + " cut from " + std::to_string(cuts[i].written) + " to " +
            std::to_string(cuts[i].kept) + " bytes";
  std::lock_guard lk(mutex_);
  notes_.push_back(text);
}

void LiveSession::fail(LiveError e) {
  std::lock_guard lk(mutex_);
  if (!fatal_) fatal_ = std::move(e);
}

// Runs every due event; false when the run must end early.
bool LiveSession::run_due_events() {
  for (;;) {
    std::function<void()> event;
    std::uint64_t id = 0;
    {
      std::lock_guard lk(mutex_);
      if (fatal_) return false;
      if (queue_.empty() || queue_.begin()->first.first > Clock::now()) return true;
      id = queue_.begin()->first.second;
      event = std::move(queue_.begin()->second);
      queue_.erase(queue_.begin());
    }
    event();
    std::lock_guard lk(mutex_);
    pending_.erase(id);
    cv_.notify_all();
  }
}

// Nothing can happen to the history once every client's workload has
// ended, no fault, restart or delivery is queued, no write is held by a
// partition and no late reply is owed: the run stops there instead of
// sleeping to the scenario's end (the history still ends at `duration`, as
// the simulator's does). A client that crashed for good never ends its
// workload, so its run goes on to the end.
bool LiveSession::story_over() {
  if (clients_done_.load() < clients_.size() || !late_.idle()) return false;
  std::lock_guard lk(mutex_);
  return queue_.empty() && held_writes_.empty() && !fatal_;
}

std::string LiveSession::story_over_note(Clock::duration real) const {
  const auto scenario_time = std::chrono::floor<std::chrono::milliseconds>(
      std::chrono::duration_cast<Duration>(real) * 1'000'000 / ppm_);
  return "the story was over at " + format_duration(std::min<Duration>(scenario_time, original_.duration)) +
         " (every client finished, no fault or delivery pending): the live run stopped there, not at " +
         format_duration(original_.duration);
}

// A library lock's client processes start before the run's origin, all
// side by side: an interpreter's start-up (a second or more on a loaded
// machine) is not part of the story. A restarted client starts its own.
Result<bool, LiveError> LiveSession::prestart_adapters() {
  if (lock_.library.empty()) return true;
  try {
    for (std::size_t c = 0; c < s_.clients.size(); ++c) {
      prestarted_.push_back(std::make_unique<ExternalClient>(*this, c, s_.clients[c].name, adapter_servers(c), s_.lock,
                                                             adapter_command(lock_.name, s_.lock)));
    }
    for (auto& client : prestarted_) client->finish_hello();
  } catch (const AdapterFailure& e) {
    prestarted_.clear();
    return failure(LiveError{2, e.what()});
  }
  return true;
}

Result<bool, LiveError> LiveSession::run() {
  history_.nodes.clear();
  history_.sale = scenarios::sale_terms(s_);
  for (std::size_t n = 0; n < servers_.server_count(); ++n) history_.nodes.push_back(servers_.server_name(n));
  for (std::size_t c = 0; c < s_.clients.size(); ++c) {
    clients_.emplace_back();
    client_clocks_.push_back(std::make_unique<ClientClock>(s_.clients[c].clock_drift_ppm));
    history_.clients.push_back({s_.clients[c].name, static_cast<sim::HostId>(servers_.server_count() + c), {}, {}});
  }
  if (redis_) {
    // The stock, as if set before the sale opened (before the lag is emulated).
    if (auto preloaded = preload_data(*redis_, scenarios::redis_stock_preload(s_), s_.redis.replicas); !preloaded)
      return failure(preloaded.error());
    emulate_replication_lag();
    if (s_.redis.background_writes_per_second > 0)
      redis_->start_background_load(scale(Duration{1s}, ppm_) / s_.redis.background_writes_per_second);
  }
  if (auto started = prestart_adapters(); !started) return started;
  origin_ = Clock::now();
  origin_wall_ = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  const auto end = origin_ + std::chrono::duration_cast<Clock::duration>(s_.duration);
  {
    std::lock_guard lk(mutex_);
    for (const FaultSpec& f : s_.faults)
      if (!f.after) arm(f, origin_ + std::chrono::duration_cast<Clock::duration>(f.at));
  }
  std::vector<std::thread> threads;
  for (std::size_t c = 0; c < clients_.size(); ++c) threads.emplace_back([this, c] { client_thread(c); });
  std::optional<LiveError> error;
  while (Clock::now() < end) {
    if (int sig = g_interrupted.load()) {
      error = interrupted_error(sig, stopped_text());
      break;
    }
    if (auto dead = servers_.died_unexpectedly()) {
      error = LiveError{3, *dead};
      break;
    }
    if (!run_due_events()) break;
    follow_sentinel();
    if (story_over()) {
      notes_.push_back(story_over_note(Clock::now() - origin_));
      break;
    }
    std::unique_lock lk(mutex_);
    auto wake = std::min(end, Clock::now() + 20ms);
    if (!queue_.empty()) wake = std::min(wake, queue_.begin()->first.first);
    cv_.wait_until(lk, wake);
  }
  {
    std::lock_guard lk(mutex_);
    stop_.store(true);
    if (!error && fatal_) error = fatal_;
    cv_.notify_all();
  }
  for (std::size_t n = 0; n < servers_.server_count(); ++n) servers_.resume(n);  // let hung commands finish
  for (auto& t : threads) t.join();
  late_.stop();
  prestarted_.clear();  // those no lock took (a client that crashed first)
  if (const std::uint64_t lines = take_zk_client_log_lines())
    notes_.push_back("ZooKeeper C client: " + std::to_string(lines) +
                     " error log lines (connection timeouts, lost servers: what the faults do) not shown");
  if (error) return failure(*error);
  history_.end = TrueInstant{original_.duration};
  finish_entries();
  return true;
}

std::string scale_text(std::int64_t ppm) {
  std::string frac = std::to_string(1'000'000 + ppm % 1'000'000).substr(1);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return std::to_string(ppm / 1'000'000) + (frac.empty() ? "" : "." + frac);
}

}  // namespace

// A library lock needs its adapter's command, and clock faults its runtime
// can take (adapter_clock_refusal, external_lock.hpp).
static std::optional<std::string> library_lock_refusal(const Scenario& s, const locks::LockInfo& lock) {
  if (lock.library.empty()) return std::nullopt;
  if (lock.name == "external" && s.lock.command.empty())
    return "lock external needs its adapter's command: --client \"CMD ARGS\" or [lock] command = [...]";
  return adapter_clock_refusal(s, lock);
}

std::optional<std::string> live_unsupported(const Scenario& s, const locks::LockInfo& lock) {
  if (auto why = scenarios::unsupported_lock(s, lock)) return why;
  if (lock.needs_redis84 || s.redis.redis84) return "lock " + lock.name + " needs Redis 8.4 commands (DELEX/IFEQ): unsupported in live mode";
  if (auto why = library_lock_refusal(s, lock)) return why;
  for (const FaultSpec& f : s.faults) {
    const std::string where = (f.line > 0 ? "fault (line " + std::to_string(f.line) + ") "
                                          : "[nemesis] fault at " + format_duration(f.at) + " ") +
                              std::string(scenarios::fault_kind_name(f.kind));
    if (auto why = live_fault_refusal(s, f)) return where + *why;
  }
  return std::nullopt;
}

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

namespace {

// [nemesis] as the simulator draws it for this seed: plain [[fault]]s.
Scenario with_nemesis_faults(const Scenario& given, std::uint64_t seed) {
  Scenario s = given;
  for (FaultSpec& f : scenarios::nemesis_faults(given, seed)) s.faults.push_back(std::move(f));
  s.nemesis.reset();
  return s;
}

// min-replicas-max-lag: the simulated node's 10 s scaled, in whole seconds,
// at least 1 (replicas ACK once a real second, whatever the time scale).
int min_replicas_max_lag_s(std::int64_t ppm) {
  const auto lag = scale(sim::redis::NodeConfig{}.min_replicas_max_lag, ppm);
  return static_cast<int>(std::max<std::int64_t>(1, std::chrono::ceil<std::chrono::seconds>(lag).count()));
}

// The Sentinel quorum's settings, scaled: down-after-milliseconds is
// failover_after (0, no automatic failover: longer than the whole run).
SentinelSpec sentinel_spec(const Scenario& scenario, std::int64_t ppm) {
  const auto real_ms = [ppm](Duration d) {
    return std::max(1ms, std::chrono::ceil<std::chrono::milliseconds>(scale(d, ppm)));
  };
  SentinelSpec spec;
  spec.down_after = scenario.redis.failover_after > Duration{0} ? real_ms(scenario.redis.failover_after)
                                                                 : real_ms(scenario.duration) + 1h;
  spec.failover_timeout = real_ms(scenario.redis.failover_timeout);
  spec.parallel_syncs = scenario.redis.parallel_syncs;
  spec.time_scale_ppm = ppm;
  return spec;
}

Result<std::unique_ptr<RedisCluster>, LiveError> start_cluster(const Scenario& scenario, const LiveOptions& options) {
  auto binary = locate_redis_server(options.redis_server);
  if (!binary) return failure(binary.error());
  auto preload = locate_preload_library({});
  if (!preload) return failure(preload.error());
  ClusterSpec spec{*binary, *preload, scenario.redis.masters, scenario.redis.replicas, scenario.redis.appendonly,
                   scenario.redis.appendfsync == sim::redis::Fsync::Always  ? "always"
                   : scenario.redis.appendfsync == sim::redis::Fsync::No ? "no"
                                                                           : "everysec"};
  spec.interrupted = &g_interrupted;
  for (const auto& c : scenario.clients) spec.clients.push_back(c.name);
  spec.min_replicas_to_write = scenario.redis.min_replicas_to_write;
  spec.min_replicas_max_lag_s = min_replicas_max_lag_s(options.time_scale_ppm);
  if (scenario.redis.replicas > 0) spec.sentinel = sentinel_spec(scenario, options.time_scale_ppm);
  return RedisCluster::start(spec);
}

// Existing servers: proxies in front of them, after checking that none of
// the run's keys is there already (they would not be ours to delete).
Result<std::unique_ptr<RedisCluster>, LiveError> attach_existing(const Scenario& scenario, const LiveOptions& options,
                                                                 const std::vector<std::string>& keys) {
  std::vector<std::string> clients;
  for (const auto& c : scenario.clients) clients.push_back(c.name);
  auto cluster = RedisCluster::attach(options.redis_endpoints, clients);
  if (!cluster) return failure(cluster.error());
  // The order key is locksim's own counter: one left by a killed run would
  // only make this run refuse (touched_keys: the last key).
  if (auto dropped = drop_stale_order_key(**cluster, keys); !dropped) return failure(dropped.error());
  if (auto absent = check_keys_absent(**cluster, keys); !absent) return failure(absent.error());
  return cluster;
}

// What an etcd / ZooKeeper member takes at this time scale (the scenario
// already scaled), or why it cannot: etcd grants leases in whole seconds
// (its heartbeat and election timeout are floored, below); ZooKeeper takes
// its tickTime in whole milliseconds.
std::optional<std::string> cp_scale_refusal(const Scenario& scaled) {
  const auto shown = [](Duration d) { return format_duration(d); };
  if (scaled.topology == locks::Topology::Etcd && scaled.lock.ttl % Duration{1s} != Duration{0})
    return "etcd grants leases in whole seconds: ttl x time-scale (" + shown(scaled.lock.ttl) +
           ") must be whole seconds (e.g. --time-scale 0.1 for a 10 s ttl)";
  if (scaled.topology == locks::Topology::ZooKeeper && scaled.cp.tick < Duration{1ms})
    return "tick x time-scale (" + shown(scaled.cp.tick) +
           ") is under the 1 ms ZooKeeper's tickTime takes as its least unit: use a larger --time-scale";
  return std::nullopt;
}

// The least heartbeat and election timeout live etcd members get (real
// time), as the client command timeout is floored: below them a loaded
// machine's elections thrash (a vote waits for a WAL fsync), and the cluster
// never elects a leader. The default 0.1 scale gives 10 ms / 100 ms.
constexpr std::chrono::milliseconds kEtcdHeartbeatFloor{50}, kEtcdElectionFloor{500};

std::chrono::milliseconds whole_ms(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d); }

// The note a run gets when the floor above applied, or nullopt.
std::optional<std::string> etcd_floor_note(const Scenario& scaled) {
  if (scaled.topology != locks::Topology::Etcd ||
      (scaled.cp.heartbeat >= kEtcdHeartbeatFloor && scaled.cp.election_timeout >= kEtcdElectionFloor))
    return std::nullopt;
  return "etcd members run with heartbeat " + format_duration(std::max<Duration>(scaled.cp.heartbeat, kEtcdHeartbeatFloor)) +
         " and election timeout " +
         format_duration(std::max<Duration>(scaled.cp.election_timeout, kEtcdElectionFloor)) +
         " real (scaled: " + format_duration(scaled.cp.heartbeat) + " / " +
         format_duration(scaled.cp.election_timeout) + "): shorter ones make elections thrash on a loaded machine";
}

// The etcd cluster or ZooKeeper ensemble of the (scaled) scenario, one
// proxy listener per client on every member.
Result<std::unique_ptr<CpCluster>, LiveError> start_cp_cluster(const Scenario& scaled) {
  CpClusterOptions cluster;
  cluster.members = scaled.cp.members;
  cluster.interrupted = &g_interrupted;
  for (const auto& c : scaled.clients) cluster.clients.push_back(c.name);
  const auto ms = whole_ms;
  if (scaled.topology == locks::Topology::Etcd) {
    auto etcd = EtcdCluster::start(EtcdClusterSpec{cluster, {}, std::max(ms(scaled.cp.heartbeat), kEtcdHeartbeatFloor),
                                                   std::max(ms(scaled.cp.election_timeout), kEtcdElectionFloor)});
    if (!etcd) return failure(etcd.error());
    return std::unique_ptr<CpCluster>(std::move(*etcd));
  }
  auto zk = ZkCluster::start(ZkClusterSpec{cluster, {}, {}, ms(scaled.cp.tick)});
  if (!zk) return failure(zk.error());
  return std::unique_ptr<CpCluster>(std::move(*zk));
}

// What the run ran against, for its first note.
std::string what_ran(const Scenario& s, const locks::LockInfo& lock) {
  const std::string n = std::to_string(s.cp.members);
  const bool library = !lock.library.empty();  // its own client, in the adapter's process
  if (s.topology == locks::Topology::Etcd)
    return "a real etcd cluster (" + n + " etcd processes; clients through " +
           (library ? lock.library : "the v3 JSON gateway with libcurl") + ")";
  if (s.topology == locks::Topology::ZooKeeper)
    return "a real ZooKeeper ensemble (" + n + " JVMs; clients through " +
           (library ? lock.library : "the C client libzookeeper_mt") + ")";
  return "real redis-server processes";
}

}  // namespace

Result<LiveRun, LiveError> run_live(const Scenario& given, const LiveOptions& options) {
  register_library_locks();
  const Scenario scenario = with_nemesis_faults(given, options.seed);
  const std::string lock_kind = options.lock_kind.empty() ? scenario.lock_kind : options.lock_kind;
  auto info = locks::find_lock(lock_kind);
  if (!info) return failure(LiveError{2, locks::unknown_lock_message(lock_kind)});
  if (auto why = live_unsupported(scenario, *info)) return failure(LiveError{2, *why});
  if (options.time_scale_ppm < kMinTimeScalePpm || options.time_scale_ppm > kMaxTimeScalePpm)
    return failure(LiveError{2, "--time-scale must be between 0.001 and 10"});
  Scenario scaled = scale_scenario(scenario, options.time_scale_ppm);
  if (lock_kind == "setnx-expire" && scaled.lock.ttl % Duration{1s} != Duration{0})
    return failure(LiveError{2, "setnx-expire sets its TTL with EXPIRE in whole seconds: ttl x time-scale (" +
                                    format_duration(scaled.lock.ttl) +
                                    ") must be whole seconds (e.g. --time-scale 1)"});
  const bool existing = !options.redis_endpoints.empty();
  const bool cp = scenario.topology != locks::Topology::Redis;
  if (cp && existing)
    return failure(LiveError{2, "--redis names Redis servers: scenario " + scenario.name + " has an [" +
                                    std::string(locks::topology_name(scenario.topology)) + "] topology"});
  if (auto why = cp ? cp_scale_refusal(scaled) : std::nullopt) return failure(LiveError{2, *why});
  if (existing) {
    auto endpoints = check_endpoints(options.redis_endpoints, options.allow_remote);
    if (!endpoints) return failure(endpoints.error());
    if (auto why = unsupported_on_existing(scenario, options.redis_endpoints.size())) return failure(LiveError{2, *why});
  }
  const std::string prefix = existing && options.key_prefix.empty() ? random_key_prefix() : options.key_prefix;
  prefix_keys(scaled, prefix);
  const std::string order_key = prefix + "locksim:live:order";
  const std::vector<std::string> keys = touched_keys(scaled, order_key);
  InterruptGuard interrupts;
  std::unique_ptr<LiveServers> servers;
  RedisCluster* redis = nullptr;
  CpCluster* cp_members = nullptr;
  if (cp) {
    auto members = start_cp_cluster(scaled);
    if (!members) return failure(members.error());
    cp_members = members->get();
    servers = std::move(*members);
  } else {
    auto cluster = existing ? attach_existing(scenario, options, keys) : start_cluster(scenario, options);
    if (!cluster) return failure(cluster.error());
    redis = cluster->get();
    servers = std::move(*cluster);
  }
  LiveSession run(scenario, scaled, *info, options.time_scale_ppm, *servers, order_key);
  auto ran = run.run();
  if (cp_members) cp_members->discard_all();  // their data goes with them
  else servers->stop_all();
  const auto cleanup = existing ? delete_keys(*redis, keys) : std::nullopt;
  if (!ran) return failure(ran.error());
  if (cleanup) return failure(LiveError{3, *cleanup});
  // A signal that came while the servers were being stopped still ends the
  // caller (a `sweep --live` must not go on to the next cell).
  if (int sig = g_interrupted.load()) return failure(interrupted_error(sig, what_was_stopped(scenario, existing)));

  LiveRun out;
  out.key_prefix = prefix;
  scenarios::RunResult& r = out.run;
  r = scenarios::judged_run(scenario, lock_kind, options.seed,
                            options.scenario_ref.empty() ? scenario.name : options.scenario_ref,
                            std::move(run.history()), std::move(run.stats()));
  r.digest = scenarios::history_digest(r.history);
  r.events = scenarios::history_record_count(r.history);
  r.sim_time_ms = to_ms(scenario.duration);
  r.repro = scenarios::live_repro(r.source, lock_kind, scale_text(options.time_scale_ppm), options.redis_endpoints,
                                  given.nemesis ? std::optional<std::uint64_t>(options.seed) : std::nullopt);
  for (const auto& n : r.history.nodes) r.host_names.push_back(n);
  for (const auto& c : r.history.clients) r.host_names.push_back(c.name);
  out.notes = {"live run against " + what_ran(scenario, *info) + " at time scale " +
                   scale_text(options.time_scale_ppm) + " (times are shown in scenario time)",
               "not deterministic: the digest is a hash of this run's history, not a replayable trace digest"};
  if (existing)
    out.notes.push_back("existing servers: every key was under the prefix " + prefix +
                        "; the run's keys were deleted at the end");
  out.fault_mechanisms = live_run_fault_mechanisms(scenario, !info->library.empty());  // one line each in the text too
  for (const auto& m : out.fault_mechanisms) out.notes.push_back(scenarios::fault_mechanism_text(m));
  if (auto floored = etcd_floor_note(scaled)) out.notes.push_back(*floored);
  for (std::string& note : run.notes()) out.notes.push_back(std::move(note));
  if (given.nemesis)
    out.notes.push_back("[nemesis] drawn for seed " + std::to_string(options.seed) + " as `run` draws it: " +
                        std::to_string(scenario.faults.size() - given.faults.size()) + " faults");
  return out;
}

}  // namespace locksim::live
