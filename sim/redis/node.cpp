// The simulated redis-server: requests, AOF, replication, WAIT, expiry cycle.
//
// The AOF follows Redis 7.0.15 src/aof.c flushAppendOnlyFile, which Redis
// calls from beforeSleep (server.c) on every event-loop turn, i.e. after
// each command and before its reply, and from serverCron (hz 10) while a
// flush is postponed:
//  - the AOF buffer is written with write(2); then with everysec, if the
//    wall-clock second server.unixtime (refreshed per command by call() and
//    per serverCron by updateCachedTime) is later than aof_last_fsync, a
//    background fsync starts at once (aof_background_fsync ->
//    bioCreateFsyncJob) and aof_last_fsync = that second;
//  - with an empty buffer it still starts that fsync when the written size
//    passed the last fsync's (aof_last_incr_fsync_offset): the catch-up at
//    the first event-loop turn of a later second;
//  - while an fsync is in flight (aofFsyncInProgress) a write is postponed
//    (aof_flush_postponed_start) and retried at every serverCron, for less
//    than 2 s; then it is written anyway (aof_delayed_fsync) and that turn
//    starts no fsync (sync_in_progress) but still sets aof_last_fsync;
//  - aof_last_fsync starts as time(NULL) at boot (server.c initServerConfig).
// Remaining simplifications:
//  - the buffer holds whole effects; a write(2) is never short or failing
//    (no aof_last_write_status error path), and fsync never fails;
//  - the fsync covers exactly what was written when it started, and a power
//    loss while it runs keeps none of it (a disk might keep part);
//  - every background fsync takes `fsync_duration` (longer only under a
//    stall); a stall holds every fsync until it ends, a real slow disk varies;
//  - appendfsync always fsyncs in the main thread (flushAppendOnlyFile's
//    AOF_FSYNC_ALWAYS branch calls redis_fsync, i.e. fdatasync, itself):
//    instantly, unless a stall holds it — then the whole event loop waits in
//    it (fsync_in_main_thread): the command's reply, other clients'
//    commands, cron ticks and the replication stream all wait, and a power
//    loss meanwhile loses the write nobody was told of;
//  - serverCron ticks every 100 ms on the monotonic clock from 1 ms after
//    boot (initServer's first timer) without its own processing time, and
//    only while a catch-up or a postponed flush is pending (an idle tick
//    changes nothing);
//  - event-loop turns happen only for commands and cron ticks (one command
//    per turn: no batching of several clients' commands into one write);
//  - appendfsync no: the kernel flushes every 30 s from boot (Linux's
//    dirty_expire_centisecs writeback, simplified to a fixed period);
//  - a restart treats the whole loaded AOF as durable, and a full sync's
//    rewritten AOF is durable at once; no AOF rewrite, no multi-part files;
//  - the background write load is evenly spaced `SET` of one unrelated key,
//    applied by the node itself (not seen by checkers or the trace).
#include "sim/redis/node.hpp"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <utility>

#include "sim/world.hpp"

namespace locksim::sim::redis {

namespace {

std::optional<std::int64_t> parse_int(const std::string& s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// `word` is `name` (lower case) in any case, as Redis reads command names and options.
bool word_is(const std::string& word, std::string_view name) {
  if (word.size() != name.size()) return false;
  return std::equal(name.begin(), name.end(), word.begin(),
                    [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

bool is_command(const Argv& argv, std::string_view name) { return !argv.empty() && word_is(argv[0], name); }

// The AOF, an RDB transfer and the replication stream hold deadlines as
// absolute wall-clock times: expireGenericCommand (expire.c) propagates
// PEXPIREAT and setGenericCommand (t_string.c) SET ... PXAT. So a load never
// moves a key's deadline — time ran while the node was down, and a key whose
// deadline passed meanwhile is loaded expired and removed lazily or by the
// expiry cycle (checkAlreadyExpired is false while loading), never revived.
// A relative form here would restart the TTL at load time: a bug.
bool has_relative_expiry(const Argv& argv) {
  if (is_command(argv, "expire") || is_command(argv, "pexpire") || is_command(argv, "expireat")) return true;
  if (!is_command(argv, "set")) return false;
  for (std::size_t i = 3; i < argv.size(); ++i)
    if (word_is(argv[i], "ex") || word_is(argv[i], "px") || word_is(argv[i], "exat")) return true;
  return false;
}

const Argv kActiveExpire{"(active-expire)"};

}  // namespace

RedisNode::RedisNode(Host& host, NodeConfig config)
    : host_(host), config_(config), engine_(config.engine) {
  host_.world().network().register_service(host_.id(), this);
  host_.set_main([this](Host&) { return main(); });
  host_.on_crash([this] { on_crash(); });
}

// ---- lifecycle ---------------------------------------------------------------

Task<void> RedisNode::main() {
  // Load: the AOF if there is one, else start empty.
  engine_.flush_all();
  dataset_log_.clear();
  if (config_.appendonly) {
    // Observers learn which keys came back from the AOF (one event list).
    std::vector<KeyEvent> replayed;
    for (const Argv& argv : aof_) {
      assert(!has_relative_expiry(argv) && "the AOF holds absolute deadlines: a load never moves a TTL");
      engine_.apply(argv, now_ms());
      if (!observers_.empty()) {
        const auto& events = engine_.last_key_events();
        replayed.insert(replayed.end(), events.begin(), events.end());
      }
    }
    (void)engine_.take_effects();
    if (!replayed.empty()) {
      static const Argv kReplay{"(aof-replay)"};
      const Reply ok = Reply::ok();
      for (NodeObserver* o : observers_)
        o->on_command({host_.world().now(), host_.id(), kNoHost, false, kReplay, ok, replayed});
    }
    dataset_log_ = aof_;
    aof_fsynced_ = aof_.size();  // what survived is on disk now
  }
  if (!std::exchange(booted_, true)) apply_preload();
  aof_fsync_offset_ = aof_.size();
  aof_last_fsync_ = wall_second();  // initServerConfig: time(NULL)
  boot_monotonic_ = host_.monotonic_now();
  offset_ = 0;
  // A restart starts a new history (a new replication id, no backlog): its
  // replicas resync fully.
  new_replid();
  has_backlog_ = !replicas_.empty() || master_ != nullptr;
  replid2_ = 0;
  second_replid_offset_ = 0;
  backlog_.clear();
  backlog_offset_ = 1;
  backlog_bytes_ = 0;
  for (ReplicaLink& r : replicas_) {
    r.node->full_sync_from(*this);
    r.acked = offset_;
    r.ack_second = wall_second();
    r.online = true;
  }
  if (master_ && master_->host().up()) {
    full_sync_from(*master_);
    master_->link_online(*this);
  }
  running_ = true;
  if (config_.appendonly && config_.appendfsync == Fsync::No) host_.spawn(os_flush_loop());
  if (config_.background_writes_per_second > 0) host_.spawn(background_write_loop());
  if (master_ && !acking_) host_.spawn(replica_ack_loop());
  host_.every(config_.active_expire_interval, [this] { active_expiry_cycle(); });
  co_return;
}

void RedisNode::apply_preload() {
  for (const Argv& argv : preload_) engine_.apply(argv, now_ms());
  for (Argv& effect : engine_.take_effects()) {
    dataset_log_.push_back(effect);
    if (config_.appendonly) aof_.push_back(std::move(effect));
  }
  if (config_.appendonly) aof_fsynced_ = aof_.size();
}

void RedisNode::on_crash() {
  running_ = false;
  acking_ = false;
  engine_.flush_all();
  dataset_log_.clear();
  outbox_.clear();
  waits_.clear();
  aof_buf_.clear();  // acknowledged but postponed writes die with the process
  aof_flush_postponed_start_.reset();
  fsync_in_flight_ = false;
  main_fsync_target_.reset();  // the process is gone: nothing is owed
  held_replies_.clear();
  held_ack_ = false;
  aof_cron_running_ = false;
  sessions_.clear();  // every connection is gone; CLIENT IDs start again at 1
  next_client_id_ = 0;
  if (!config_.appendonly) aof_.clear();
}

// The connection's state (CLIENT ID, name, RESP version): one per simulated
// connection and client incarnation, created by its first command (a
// restarted client is a new TCP connection with a new id).
ClientSession& RedisNode::session_for(const Request& request) {
  if (request.conn >= sessions_.size()) sessions_.resize(request.conn + 1);
  Session& s = sessions_[request.conn];
  if (!s.open || s.client_incarnation != request.client_incarnation) {
    s = Session{true, request.client_incarnation, ClientSession{}};
    s.state.id = ++next_client_id_;
  }
  return s.state;
}

void RedisNode::power_loss() {
  assert(aof_fsynced_ <= aof_.size() && "only what was written can be fsynced");
  aof_.resize(aof_fsynced_);  // what was written but not fsynced is gone
  host_.crash();
}

void RedisNode::stall_fsync(Duration d) {
  fsync_stall_until_ = std::max(fsync_stall_until_, host_.world().now() + d);
}

// serverCron's activeExpireCycle, every active_expire_interval (hz 10) of
// the node's monotonic clock, from boot (a Host::every timer).
void RedisNode::active_expiry_cycle() {
  if (engine_.role() != Role::Master) return;
  engine_.active_expire(now_ms());
  if (engine_.last_key_events().empty()) return;
  const Reply none = Reply::nil();
  notify(kNoHost, false, kActiveExpire, none);
  record_effects(kNoHost);
}

// ---- AOF (src/aof.c flushAppendOnlyFile) -------------------------------------

std::int64_t RedisNode::wall_second() const {
  const std::int64_t ms = now_ms();
  return ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);  // floor, as time(NULL) counts
}

void RedisNode::flush_aof() {
  if (!config_.appendonly) return;
  const bool everysec = config_.appendfsync == Fsync::Everysec;
  if (aof_buf_.empty()) {
    // The empty-buffer catch-up: fsync what earlier writes left behind.
    if (everysec && aof_fsync_offset_ != aof_.size() && wall_second() > aof_last_fsync_ && !fsync_in_flight_)
      try_fsync(false);
    return;
  }
  const bool sync_in_progress = everysec && fsync_in_flight_;
  if (sync_in_progress) {
    if (!aof_flush_postponed_start_) {
      aof_flush_postponed_start_ = wall_second();
      ensure_aof_cron();
      return;
    }
    if (wall_second() - *aof_flush_postponed_start_ < 2) return;
    ++delayed_fsyncs_;  // "Asynchronous AOF fsync is taking too long"
  }
  aof_.insert(aof_.end(), std::make_move_iterator(aof_buf_.begin()), std::make_move_iterator(aof_buf_.end()));
  aof_buf_.clear();
  aof_flush_postponed_start_.reset();
  try_fsync(sync_in_progress);
}

void RedisNode::try_fsync(bool sync_in_progress) {
  if (config_.appendfsync == Fsync::Always) {
    fsync_in_main_thread();  // redis_fsync before the replies go out
    aof_fsync_offset_ = aof_.size();
    aof_last_fsync_ = wall_second();
  } else if (config_.appendfsync == Fsync::Everysec && wall_second() > aof_last_fsync_) {
    if (!sync_in_progress) start_background_fsync();
    aof_last_fsync_ = wall_second();
  }
  if (aof_catch_up_pending()) ensure_aof_cron();
}

void RedisNode::start_background_fsync() {
  assert(!fsync_in_flight_ && "one background fsync at a time (aofFsyncInProgress)");
  fsync_in_flight_ = true;
  fsync_target_ = aof_.size();
  aof_fsync_offset_ = aof_.size();
  Scheduler& sched = host_.world().scheduler();
  if (Activity* a = sched.activity()) a->note_disk_check(host_.id(), sched.now());  // the stall is read here
  const TrueInstant done = std::max(sched.now() + config_.fsync_duration, fsync_stall_until_);
  // Host-bound: a crash ends the bio thread; its fsync no longer matters.
  sched.schedule(done, &RedisNode::on_fsync_done, this, ++fsync_generation_, host_.id());
}

void RedisNode::on_fsync_done(void* ctx, std::uint64_t generation) {
  auto& self = *static_cast<RedisNode*>(ctx);
  if (!self.fsync_in_flight_ || generation != self.fsync_generation_) return;
  Scheduler& sched = self.host_.world().scheduler();
  if (Activity* a = sched.activity()) a->note_disk_check(self.host_.id(), sched.now());  // and here
  if (sched.now() < self.fsync_stall_until_) {  // a stall that began while it ran
    sched.schedule(self.fsync_stall_until_, &RedisNode::on_fsync_done, ctx, generation, self.host_.id());
    return;
  }
  self.fsync_in_flight_ = false;
  self.aof_fsynced_ = std::max(self.aof_fsynced_, std::min(self.fsync_target_, self.aof_.size()));
  assert(self.aof_fsynced_ <= self.aof_.size() && "only what was written can be fsynced");
}

// appendfsync always: flushAppendOnlyFile (beforeSleep, before
// handleClientsWithPendingWrites) fsyncs in the main thread. Unstalled it
// is instant; held by a stall, the node is paused until the stall ends (its
// deliveries, timers and replication wait, in order), and what it ran is
// durable and answered only then (on_main_fsync_done).
void RedisNode::fsync_in_main_thread() {
  Scheduler& sched = host_.world().scheduler();
  if (Activity* a = sched.activity()) a->note_disk_check(host_.id(), sched.now());  // the stall is read here
  if (sched.now() >= fsync_stall_until_) {
    aof_fsynced_ = aof_.size();
    return;
  }
  main_fsync_target_ = aof_.size();
  wait_out_stall();
}

// The event loop stays in the fsync until the stall ends. The done event is
// host-bound (a crash drops it) and due before the pause's own resume event
// (scheduled next): the held replies go out before the deliveries that
// waited behind them.
void RedisNode::wait_out_stall() {
  Scheduler& sched = host_.world().scheduler();
  sched.schedule(fsync_stall_until_, &RedisNode::on_main_fsync_done, this, 0, host_.id());
  host_.pause(fsync_stall_until_ - sched.now());
}

void RedisNode::on_main_fsync_done(void* ctx, std::uint64_t) {
  auto& self = *static_cast<RedisNode*>(ctx);
  if (!self.main_fsync_target_) return;
  Scheduler& sched = self.host_.world().scheduler();
  if (sched.now() < self.fsync_stall_until_) {  // the stall was extended while the fsync waited
    self.wait_out_stall();
    return;
  }
  if (Activity* a = sched.activity()) a->note_disk_check(self.host_.id(), sched.now());  // and here
  self.aof_fsynced_ = std::max(self.aof_fsynced_, std::min(*self.main_fsync_target_, self.aof_.size()));
  self.main_fsync_target_.reset();
  Network& net = self.host_.world().network();
  for (auto& [request, reply] : std::exchange(self.held_replies_, {})) net.respond(request, std::move(reply));
  if (std::exchange(self.held_ack_, false) && self.master_)
    net.send_message(self.host_.id(), self.master_->id(), {"ACK", std::to_string(self.offset_)});
}

// serverCron has work only when a postponed flush or a catch-up fsync waits.
bool RedisNode::aof_catch_up_pending() const {
  if (!config_.appendonly || config_.appendfsync != Fsync::Everysec) return false;
  return aof_flush_postponed_start_.has_value() || aof_fsync_offset_ != aof_.size();
}

void RedisNode::ensure_aof_cron() {
  if (aof_cron_running_ || !running_) return;
  aof_cron_running_ = true;
  host_.spawn(aof_cron_loop());
}

// serverCron's AOF part at hz 10, ticking 1 ms + k x 100 ms after boot on
// the monotonic clock; beforeSleep after each tick flushes too.
Task<void> RedisNode::aof_cron_loop() {
  constexpr Duration kFirst = std::chrono::milliseconds(1);
  constexpr Duration kPeriod = std::chrono::milliseconds(100);
  while (aof_catch_up_pending()) {
    const Duration since_first = host_.monotonic_now() - (boot_monotonic_ + kFirst);
    const std::int64_t ticks = since_first < Duration{0} ? 0 : since_first / kPeriod + 1;
    co_await host_.sleep(boot_monotonic_ + kFirst + ticks * kPeriod - host_.monotonic_now());
    flush_aof();
  }
  aof_cron_running_ = false;
}

// appendfsync no: Redis never fsyncs; the kernel writes dirty pages back.
Task<void> RedisNode::os_flush_loop() {
  for (;;) {
    co_await host_.sleep(std::chrono::seconds(30));
    aof_fsynced_ = aof_.size();
  }
}

// Other clients' writes to an unrelated key, evenly spaced, on a master.
Task<void> RedisNode::background_write_loop() {
  const Duration gap = Duration(std::chrono::seconds(1)) / config_.background_writes_per_second;
  static const std::string kKey = "locksim:background-load";
  for (;;) {
    co_await host_.sleep(gap);
    if (engine_.role() != Role::Master) continue;
    (void)engine_.execute({"SET", kKey, std::to_string(++background_writes_)}, now_ms());
    record_effects(kNoHost);
  }
}

Task<void> RedisNode::replica_ack_loop() {
  acking_ = true;
  while (master_) {
    co_await host_.sleep(std::chrono::seconds(1));
    if (engine_.role() == Role::Replica && master_)
      host_.world().network().send_message(host_.id(), master_->id(), {"ACK", std::to_string(offset_)});
  }
  acking_ = false;
}

// ---- commands ----------------------------------------------------------------

std::optional<Reply> RedisNode::on_request(const Request& request) {
  if (is_command(request.argv, "wait")) {
    std::optional<Reply> reply = wait_command(request);
    if (reply && reply->is_error()) annotate_refusal(request.client, request.argv, *reply);
    return reply;
  }
  Reply reply = execute(request);
  if (blocked_in_fsync()) {  // its fsync holds the event loop: answered when it returns
    held_replies_.emplace_back(request, std::move(reply));
    return std::nullopt;
  }
  return reply;
}

Reply RedisNode::execute(const Request& request) {
  const Argv& argv = request.argv;
  // processCommand's checkGoodReplicasStatus: refused before it runs.
  if (engine_.role() == Role::Master && config_.min_replicas_to_write > 0 &&
      Engine::is_write_command(argv) && good_replicas() < config_.min_replicas_to_write) {
    Reply refused = Reply::error("NOREPLICAS Not enough good replicas to write.");
    annotate_refusal(request.client, argv, refused);
    static const std::vector<KeyEvent> none;
    for (NodeObserver* o : observers_)
      o->on_command({host_.world().now(), host_.id(), request.client, false, argv, refused, none});
    return refused;
  }
  ClientSession& session = session_for(request);
  Reply reply = engine_.execute(argv, now_ms(), session);
  if (session.close_after_reply) sessions_[request.conn].open = false;  // QUIT
  if (host_.world().trace().recording()) annotate_command(request.client, argv, reply);
  notify(request.client, false, argv, reply);
  record_effects(request.client);
  return reply;
}

// A command refused before it ran (issue 36): in `--trace` like one that
// ran, as an annotation, so the digest is the same with or without it.
void RedisNode::annotate_refusal(HostId client, const Argv& argv, const Reply& reply) {
  if (host_.world().trace().recording()) annotate_command(client, argv, reply);
}

void RedisNode::annotate_command(HostId client, const Argv& argv, const Reply& reply) {
  std::string text = host_.world().host_name(client) + ":";
  for (std::size_t i = 0; i < argv.size() && i < 8; ++i) {
    std::string word = argv[i];
    if (word.size() > 40) word = word.substr(0, 37) + "...";
    text += " " + word;
  }
  if (argv.size() > 8) text += " ...";
  text += " -> " + reply.to_string();
  World& w = host_.world();
  w.trace().annotate(w.now(), w.scheduler().current_seq(), host_.id(), "command", text);
}

void RedisNode::notify(HostId client, bool replicated, const Argv& argv, const Reply& reply) {
  if (observers_.empty()) return;
  const CommandSeen seen{host_.world().now(), host_.id(), client, replicated,
                         argv, reply, engine_.last_key_events()};
  for (NodeObserver* o : observers_) o->on_command(seen);
}

void RedisNode::record_effects(HostId origin) {
  std::vector<Argv> effects = engine_.take_effects();
  if (effects.empty()) return;
  for (const Argv& e : effects) {
    dataset_log_.push_back(e);
    if (config_.appendonly) aof_buf_.push_back(e);
    to_backlog(e, offset_ + 1 + static_cast<std::uint64_t>(&e - effects.data()));
  }
  flush_aof();  // beforeSleep: the AOF write (and an fsync) before the reply
  const std::uint64_t first = offset_ + 1;
  offset_ += effects.size();
  if (!replicas_.empty()) replicate({std::move(effects), origin, first});
}

// ---- replication -------------------------------------------------------------

void RedisNode::replicate(Batch batch_effects) {
  const std::uint64_t batch = next_batch_++;
  outbox_.emplace(batch, std::move(batch_effects));
  Scheduler& sched = host_.world().scheduler();
  // Host-bound: a crash before it is due loses the batch; a pause delays it.
  sched.schedule(sched.now() + config_.replication_lag, &RedisNode::on_replication_due, this, batch, host_.id());
}

void RedisNode::on_replication_due(void* ctx, std::uint64_t batch) {
  auto& self = *static_cast<RedisNode*>(ctx);
  auto it = self.outbox_.find(batch);
  if (it == self.outbox_.end()) return;
  const Batch b = std::move(it->second);
  self.outbox_.erase(it);
  std::uint64_t at = b.first_offset;
  for (const Argv& e : b.effects) {
    // REPL <origin client> <offset after this effect> <effect argv...>
    Argv message{"REPL", std::to_string(b.origin), std::to_string(at++)};
    message.insert(message.end(), e.begin(), e.end());
    for (const ReplicaLink& r : self.replicas_)
      if (r.online) self.host_.world().network().send_message(self.host_.id(), r.node->id(), message);
  }
}

void RedisNode::on_message(HostId from, const Argv& message) {
  if (message.size() >= 4 && message[0] == "REPL") {
    if (master_ && master_->id() == from && engine_.role() == Role::Replica) apply_stream(message);
  } else if (message.size() == 2 && message[0] == "ACK") {
    if (auto offset = parse_int(message[1])) on_ack(from, static_cast<std::uint64_t>(*offset));
  }
}

void RedisNode::apply_stream(const Argv& message) {
  const auto origin = static_cast<HostId>(parse_int(message[1]).value_or(kNoHost));
  const auto offset = static_cast<std::uint64_t>(parse_int(message[2]).value_or(0));
  // Already here: sent before this node's sync covered it (a batch waiting
  // out the replication lag when the sync completed).
  if (offset <= offset_) return;
  assert(engine_.role() == Role::Replica && "only a replica applies its master's stream");
  const Argv argv(message.begin() + 3, message.end());
  engine_.apply(argv, now_ms());
  (void)engine_.take_effects();
  dataset_log_.push_back(argv);
  to_backlog(argv, offset);
  if (config_.appendonly) aof_buf_.push_back(argv);
  flush_aof();  // a replica feeds its own AOF the same way
  offset_ = offset;
  notify(origin, true, argv, Reply::ok());
  if (blocked_in_fsync()) held_ack_ = true;  // sent when the fsync returns
  else host_.world().network().send_message(host_.id(), master_->id(), {"ACK", std::to_string(offset_)});
}

void RedisNode::on_ack(HostId from, std::uint64_t offset) {
  for (ReplicaLink& r : replicas_) {
    if (r.node->id() != from || !r.online) continue;
    r.acked = std::max(r.acked, offset);
    r.ack_second = wall_second();  // repl_ack_time = server.unixtime
  }
  answer_waits();
}

// replication.c refreshGoodSlavesCount: online replicas whose last ACK is at
// most min-replicas-max-lag old, in the master's whole wall-clock seconds
// (server.unixtime - repl_ack_time). A max lag of 0 turns the check off
// (checkGoodReplicasStatus). Counted when a write needs it, where Redis
// refreshes the count each replicationCron second and when a replica comes
// online: the same count, except within that second.
int RedisNode::good_replicas() const {
  const auto max_lag = std::chrono::duration_cast<std::chrono::seconds>(config_.min_replicas_max_lag).count();
  if (max_lag == 0) return config_.min_replicas_to_write;
  const std::int64_t now = wall_second();
  int good = 0;
  for (const ReplicaLink& r : replicas_) good += (r.online && now - r.ack_second <= max_lag) ? 1 : 0;
  return good;
}

std::int64_t RedisNode::acked_replicas(std::uint64_t target) const {
  std::int64_t n = 0;
  for (const ReplicaLink& r : replicas_) n += (r.online && r.acked >= target) ? 1 : 0;
  return n;
}

void RedisNode::attach_replica(RedisNode& replica) {
  assert(&replica != this && replica.master_ == nullptr && "a node replicates one master, not itself");
  // A node that becomes a replica while it runs (a demoted old master)
  // starts acking; one that starts as a replica spawns the loop in main().
  if (!replica.acking_ && replica.running_) replica.host().spawn(replica.replica_ack_loop());
  replica.master_ = this;
  replica.engine_.set_role(Role::Replica);
  replica.full_sync_from(*this);
  has_backlog_ = true;
  replicas_.push_back({&replica, offset_, wall_second(), true});
}

void RedisNode::full_sync_from(const RedisNode& master) {
  // The RDB transfer, instantaneous: replace the dataset with the master's.
  engine_.flush_all();
  for (const Argv& argv : master.dataset_log_) {
    assert(!has_relative_expiry(argv) && "an RDB holds absolute deadlines: a load never moves a TTL");
    engine_.apply(argv, now_ms());
  }
  (void)engine_.take_effects();
  dataset_log_ = master.dataset_log_;
  if (config_.appendonly) {
    aof_ = dataset_log_;  // the replica rewrites its AOF after a full sync
    aof_buf_.clear();
    aof_fsynced_ = aof_.size();
    aof_fsync_offset_ = aof_.size();
  }
  offset_ = master.offset_;
  // The master's history from here on (replicationCreateMasterClient: its
  // replid; a fresh backlog).
  replid_ = master.replid_;
  has_backlog_ = true;
  replid2_ = 0;
  second_replid_offset_ = 0;
  backlog_.clear();
  backlog_offset_ = offset_ + 1;
  backlog_bytes_ = 0;
}

void RedisNode::promote() {
  if (master_) {
    std::erase_if(master_->replicas_, [&](const ReplicaLink& r) { return r.node == this; });
    master_ = nullptr;
  }
  ++sync_generation_;  // a sync in progress ends here
  // shiftReplicationId: the old history stays valid up to this offset.
  replid2_ = replid_;
  second_replid_offset_ = offset_ + 1;
  new_replid();
  engine_.set_role(Role::Master);
}

// ---- WAIT --------------------------------------------------------------------

std::optional<Reply> RedisNode::wait_command(const Request& request) {
  const Argv& argv = request.argv;
  if (argv.size() != 3) return Reply::error("ERR wrong number of arguments for 'wait' command");
  if (engine_.role() == Role::Replica)
    return Reply::error(
        "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a "
        "replica is configured to be writable (which is not the default) writes to replicas are just "
        "local and are not propagated.");
  const auto needed = parse_int(argv[1]);
  const auto timeout_ms = parse_int(argv[2]);
  if (!needed || !timeout_ms) return Reply::error("ERR value is not an integer or out of range");
  if (*timeout_ms < 0) return Reply::error("ERR timeout is negative");
  const std::int64_t acked = acked_replicas(offset_);
  if (acked >= *needed) return Reply::integer_of(acked);
  const std::uint64_t id = next_wait_++;
  assert(*needed > acked && "WAIT blocks only when too few replicas acked");
  waits_.push_back({request, offset_, *needed, id});
  if (*timeout_ms > 0) {
    const HostClock& clock = host_.clock();
    Scheduler& sched = host_.world().scheduler();
    const TrueInstant due = clock.true_when_monotonic(clock.monotonic(sched.now()) +
                                                      std::chrono::milliseconds(*timeout_ms));
    sched.schedule(std::max(due, sched.now()), &RedisNode::on_wait_timeout, this, id, host_.id());
  }
  return std::nullopt;  // answered later
}

void RedisNode::answer_waits() {
  std::vector<PendingWait> still;
  for (PendingWait& w : waits_) {
    const std::int64_t acked = acked_replicas(w.target);
    if (acked >= w.needed) host_.world().network().respond(w.request, Reply::integer_of(acked));
    else still.push_back(std::move(w));
  }
  waits_ = std::move(still);
}

void RedisNode::on_wait_timeout(void* ctx, std::uint64_t wait_id) {
  auto& self = *static_cast<RedisNode*>(ctx);
  auto it = std::find_if(self.waits_.begin(), self.waits_.end(),
                         [&](const PendingWait& w) { return w.id == wait_id; });
  if (it == self.waits_.end()) return;
  const Reply reply = Reply::integer_of(self.acked_replicas(it->target));
  self.host_.world().network().respond(it->request, reply);
  self.waits_.erase(it);
}

}  // namespace locksim::sim::redis

namespace locksim::sim::redis {

// ---- REPLICAOF, PSYNC (replication.c) ----------------------------------------

bool RedisNode::link_up() const {
  if (!master_) return false;
  for (const ReplicaLink& r : master_->replicas_)
    if (r.node == this) return r.online;
  return false;
}

// feedReplicationBuffer: the backlog keeps the last repl-backlog-size bytes.
// A master creates it when a replica first attaches
// (createReplicationBacklog); a node that never had one keeps none.
void RedisNode::to_backlog(const Argv& effect, std::uint64_t at) {
  if (!has_backlog_) {
    backlog_.clear();
    backlog_bytes_ = 0;
    backlog_offset_ = at + 1;
    return;
  }
  std::size_t bytes = 0;
  for (const std::string& a : effect) bytes += a.size();
  backlog_.push_back(effect);
  backlog_bytes_ += bytes;
  while (backlog_bytes_ > config_.repl_backlog_size && backlog_.size() > 1) {
    for (const std::string& a : backlog_.front()) backlog_bytes_ -= a.size();
    backlog_.pop_front();
    ++backlog_offset_;
  }
}

// masterTryPartialResynchronization: the id is this node's replid, or its
// replid2 up to second_replid_offset, and the backlog still holds the offset.
bool RedisNode::can_continue(std::uint64_t replid, std::uint64_t psync_offset) const {
  if (replid == 0) return false;
  const bool same_history = replid == replid_ || (replid == replid2_ && psync_offset <= second_replid_offset_);
  return same_history && psync_offset >= backlog_offset_ && psync_offset <= backlog_offset_ + backlog_.size();
}

void RedisNode::replicaof(RedisNode& master) {
  if (master_ == &master || &master == this) return;
  if (master_) std::erase_if(master_->replicas_, [&](const ReplicaLink& r) { return r.node == this; });
  // No chained replication here: this node's replicas follow `master` too.
  for (ReplicaLink& r : std::exchange(replicas_, {}))
    if (r.node != &master) r.node->replicaof(master);
  master_ = &master;
  engine_.set_role(Role::Replica);
  master.replicas_.push_back({this, 0, master.wall_second(), false});
  master.has_backlog_ = true;
  has_backlog_ = true;
  ++sync_generation_;
  if (!acking_ && running_) host_.spawn(replica_ack_loop());
  sync_with_master();
}

// connectWithMaster + the PSYNC handshake: a master that is down or cut off
// is retried each second (replicationCron).
void RedisNode::sync_with_master() {
  RedisNode& m = *master_;
  Scheduler& sched = host_.world().scheduler();
  if (!m.running_ || !m.host().up() || host_.world().network().cut(host_.id(), m.id())) {
    sched.schedule(sched.now() + std::chrono::seconds(1), &RedisNode::on_sync_due, this, sync_generation_, host_.id());
    return;
  }
  if (m.can_continue(replid_, offset_ + 1)) {
    continue_from(m);
    return;
  }
  // +FULLRESYNC: the RDB goes out after repl-diskless-sync-delay.
  sched.schedule(sched.now() + m.config_.full_sync_delay, &RedisNode::on_full_sync_due, this, sync_generation_,
                 host_.id());
}

void RedisNode::on_sync_due(void* ctx, std::uint64_t generation) {
  auto& self = *static_cast<RedisNode*>(ctx);
  if (generation == self.sync_generation_ && self.master_) self.sync_with_master();
}

void RedisNode::on_full_sync_due(void* ctx, std::uint64_t generation) {
  auto& self = *static_cast<RedisNode*>(ctx);
  if (generation != self.sync_generation_ || !self.master_) return;
  RedisNode& m = *self.master_;
  if (!m.running_ || !m.host().up() || self.host_.world().network().cut(self.host_.id(), m.id())) {
    self.sync_with_master();  // the transfer broke: retry
    return;
  }
  self.full_sync_from(m);
  ++self.full_syncs_;
  ++self.sync_generation_;
  m.link_online(self);
  self.host_.world().trace().annotate(self.host_.world().now(), self.host_.world().scheduler().current_seq(),
                                      self.host_.id(), "full-resync", "from " + m.host().name());
}

// +CONTINUE: the missing effects from the master's backlog; the replica
// takes the master's replid and keeps its own as replid2.
void RedisNode::continue_from(RedisNode& m) {
  const std::uint64_t from = offset_ + 1;
  // A partial resync only moves forward, from effects the backlog still
  // holds (a full resync is the one way an offset goes back).
  assert(from >= m.backlog_offset_ && from <= m.offset_ + 1 && "the master's backlog holds what is missing");
  for (std::uint64_t at = from; at <= m.offset_; ++at) {
    assert(at - m.backlog_offset_ < m.backlog_.size() && "the master's backlog holds every missing effect");
    const Argv& argv = m.backlog_[at - m.backlog_offset_];
    engine_.apply(argv, now_ms());
    (void)engine_.take_effects();
    dataset_log_.push_back(argv);
    if (config_.appendonly) aof_buf_.push_back(argv);
    to_backlog(argv, at);
  }
  flush_aof();
  offset_ = m.offset_;
  replid2_ = replid_;
  second_replid_offset_ = from;
  replid_ = m.replid_;
  ++partial_syncs_;
  ++sync_generation_;
  m.link_online(*this);
  World& w = host_.world();
  w.trace().annotate(w.now(), w.scheduler().current_seq(), host_.id(), "partial-resync",
                     "from " + m.host().name() + " at offset " + std::to_string(from));
}

// The replica is online (replicaPutOnline / a PSYNC accepted): repl_ack_time
// = now, "to prevent a false timeout".
void RedisNode::link_online(RedisNode& replica) {
  for (ReplicaLink& r : replicas_) {
    if (r.node != &replica) continue;
    r.online = true;
    r.acked = replica.offset_;
    r.ack_second = wall_second();
  }
}

}  // namespace locksim::sim::redis
