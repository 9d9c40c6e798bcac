// LiveRuntime: RealRuntime plus shard redirection, lock-entry recording by
// MULTI/EXEC probes, GC pauses and the end of the run (live_runtime.hpp).
#include "live/live_runtime.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "live/server_preload.hpp"

namespace locksim::live {

namespace {

using Kind = sim::redis::KeyEvent::Kind;

constexpr std::chrono::hours kLeapAfterEnd{1000};  // monotonic leap once the run has ended
constexpr std::size_t kProbeCommands = 10;  // MULTI, 8 queued, EXEC

// The first of the recorded lock keys the command names (nullptr: none).
const std::string* named_lock_key(const Argv& argv, const std::vector<std::string>& keys) {
  for (std::size_t i = 1; i < argv.size(); ++i)
    for (const std::string& key : keys)
      if (argv[i] == key) return &key;
  return nullptr;
}

// TIME's reply ["seconds", "microseconds"] as microseconds since the epoch.
std::int64_t server_time_us(const Reply& time) {
  if (time.type != Reply::Type::Array || time.elements.size() != 2) return 0;
  return std::stoll(time.elements[0].str) * 1'000'000 + std::stoll(time.elements[1].str);
}

const Reply kAbsent = Reply::nil();

// The entry's effect from the probes around the command (DUMP, PEXPIRETIME).
std::optional<Kind> effect(const Reply& dump_before, const Reply& ttl_before, const Reply& dump_after,
                           const Reply& ttl_after) {
  const bool before = !dump_before.is_nil() && !dump_before.is_error();
  const bool after = !dump_after.is_nil() && !dump_after.is_error();
  if (!before && after) return Kind::Created;
  if (before && !after) return Kind::Deleted;
  if (before && after && (dump_before != dump_after || ttl_before != ttl_after)) return Kind::Modified;
  return std::nullopt;
}

// Whether the command is a script. Inside EXEC every command decides expiry
// on the time cached when EXEC began, so DUMP before it sees the entry as the
// command does (server.c call(): fixed_time_expire; db.c keyIsExpired); a
// script decides on its own snapshot taken when it starts (script.c
// scriptPrepareForRun: snapshot_time = mstime()), which may be a millisecond
// boundary later.
bool is_script(const std::string& command) {
  return command.rfind("EVAL", 0) == 0 || command.rfind("FCALL", 0) == 0;
}

// Whether the entry DUMP showed before the command was gone for it: never
// for plain commands (see is_script); for a script, certainly when its
// PEXPIRETIME `deadline` was past at the transaction's first TIME, not when
// it was still ahead at the TIME right after the script, and in between
// (the deadline fell while the script started) when the script left no
// entry or another value — it cannot have replaced or removed a live one
// that is not its own without seeing it absent.
bool expired_for_command(const std::string& command, const Reply& deadline, std::int64_t before_us,
                         std::int64_t after_us, const Reply& dump_before, const Reply& dump_after) {
  if (!is_script(command) || deadline.type != Reply::Type::Integer || deadline.integer < 0) return false;
  if (deadline.integer < before_us / 1000) return true;
  if (deadline.integer >= after_us / 1000) return false;
  return dump_after.is_nil() || dump_after != dump_before;
}

// The probed transaction's replies (MULTI's, 9 QUEUED, EXEC's): records the
// entry's change and returns the command's own reply.
Reply record_probe(LiveWorld& world, const ProbedCommand& p, const std::vector<Reply>& replies) {
  for (std::size_t i = 0; i + 1 < replies.size(); ++i)
    if (replies[i].is_error()) return replies[i];  // not queued: EXEC aborts
  const Reply& r = replies.back();
  if (r.type != Reply::Type::Array || r.elements.size() != kProbeCommands - 2)
    return r.is_error() ? r : Reply::error("IOERR locksim: unexpected EXEC reply");
  const auto& e = r.elements;  // TIME INCR DUMP PEXPIRETIME <command> TIME DUMP PEXPIRETIME
  ServerStamp stamp{server_time_us(e[0]), e[1].integer};
  // An entry already expired for the command is gone for it (Redis expires
  // a key when it is accessed): record it as absent before, so the history
  // shows an expiry, not this command removing or replacing someone's lock.
  const bool expired_before = expired_for_command(p.command, e[3], stamp.time_us, server_time_us(e[5]), e[2], e[6]);
  const Reply& before = expired_before ? kAbsent : e[2];
  world.record_entry(p, effect(before, e[3], e[6], e[7]), !before.is_nil(), stamp);
  return e[4];
}

}  // namespace

// One shard's connection: follows the shard's current master.
class LiveRuntime::ShardConn final : public locks::RedisConn {
 public:
  ShardConn(LiveRuntime& rt, int shard) : rt_(rt), shard_(shard) {}

  Task<Reply> command(Argv argv) override {
    co_return execute(argv, rt_.world_.command_timeout());
  }
  Task<Reply> command(Argv argv, Duration timeout) override {
    co_return execute(argv, std::chrono::ceil<std::chrono::milliseconds>(timeout));
  }

 private:
  Reply execute(const Argv& argv, std::chrono::milliseconds timeout) {
    rt_.world_.pause_point(rt_.client_);
    if (rt_.world_.stopping()) return Reply::error("IOERR locksim: the live run has ended");
    if (rt_.world_.crashed(rt_.client_)) return Reply::error("IOERR locksim: the client has crashed");
    std::lock_guard lock(mutex_);  // MULTI … EXEC must not interleave with a watchdog's command
    locks::HiredisConn& c = connection();
    const std::string* key = named_lock_key(argv, rt_.lock_keys_);
    Reply reply = key ? probed(c, argv, *key, timeout) : c.execute(argv, timeout);
    rt_.world_.pause_point(rt_.client_);
    return reply;
  }

  // MULTI TIME INCR <order> DUMP PEXPIRETIME <argv> TIME DUMP PEXPIRETIME EXEC in
  // one write (so a delayed link delays it whole, as the simulator delays
  // one request): the command's effect on the entry, when the server ran
  // it and in what order. A timed-out transaction's connection goes to
  // LateReplies, which records it if it runs after all.
  Reply probed(locks::HiredisConn& c, const Argv& argv, const std::string& key, std::chrono::milliseconds timeout) {
    const std::vector<Argv> commands = {{"MULTI"}, {"TIME"}, {"INCR", rt_.world_.order_key()}, {"DUMP", key}, {"PEXPIRETIME", key},
                                        argv,      {"TIME"}, {"DUMP", key}, {"PEXPIRETIME", key}, {"EXEC"}};
    locks::PipelineReplies got = c.execute_pipeline(commands, timeout);
    ProbedCommand probe{rt_.client_, node_, key, scenarios::entry_command_text(argv)};
    if (got.owed > 0) {
      rt_.late_.adopt(std::move(conn_), std::move(probe), std::move(got.replies));
      return got.error;
    }
    if (got.replies.size() != commands.size()) return got.error;
    return record_probe(rt_.world_, probe, got.replies);
  }

  // The connection to the shard's current master; a new one after a redirect.
  locks::HiredisConn& connection() {
    const std::uint64_t gen = rt_.cluster_->generation();
    if (!conn_ || gen != generation_) {
      locks::HiredisOptions o = locks::parse_endpoint(rt_.cluster_->client_endpoint(rt_.client_name_, shard_));
      o.connect_timeout = rt_.world_.command_timeout();
      o.command_timeout = rt_.world_.command_timeout();
      conn_ = std::make_unique<locks::HiredisConn>(o);
      node_ = rt_.cluster_->master_of(shard_);
      generation_ = gen;
    }
    return *conn_;
  }

  LiveRuntime& rt_;
  int shard_;
  std::mutex mutex_;
  std::unique_ptr<locks::HiredisConn> conn_;
  std::size_t node_ = 0;
  std::uint64_t generation_ = 0;
};

namespace {
std::vector<std::string> endpoints(const RedisCluster& cluster) {
  std::vector<std::string> out;
  for (int s = 0; s < cluster.shards(); ++s) out.push_back(cluster.master_endpoint(s));
  return out;
}
}  // namespace

ClientClock::ClientClock(std::int64_t drift_ppm) : base_(std::chrono::steady_clock::now()), ppm_(drift_ppm) {}

ClientClock::~ClientClock() {
  if (!process_) return;
  const std::filesystem::path file = process_->file();
  process_.reset();
  std::error_code ignored;
  std::filesystem::remove(file, ignored);
}

std::string ClientClock::process_control(std::string* why) {
  static std::atomic<std::uint64_t> next_id{0};
  std::lock_guard lk(mutex_);
  if (!process_) {
    const auto file = std::filesystem::temp_directory_path() / ("locksim-client-clock-" + std::to_string(::getpid()) +
                                                                "-" + std::to_string(next_id.fetch_add(1)) + ".ctl");
    process_ = ServerClock::create(file, why);
    if (!process_) return "";
    const auto now = std::chrono::steady_clock::now();
    process_->set(stepped_, drift_locked(now), ppm_);
  }
  return process_->file().string();
}

std::chrono::nanoseconds ClientClock::drift_locked(std::chrono::steady_clock::time_point now) const {
  const auto since = std::chrono::duration_cast<std::chrono::nanoseconds>(now - base_);
  return drifted_ + std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<__int128>(since.count()) * ppm_ / 1'000'000));
}

void ClientClock::step(std::chrono::nanoseconds by) {
  std::lock_guard lk(mutex_);
  stepped_ += by;
  if (process_) process_->step(by);
}

void ClientClock::set_drift(std::int64_t ppm) {
  std::lock_guard lk(mutex_);
  const auto now = std::chrono::steady_clock::now();
  drifted_ = drift_locked(now);
  base_ = now;
  ppm_ = ppm;
  if (process_) process_->set_drift(ppm);
}

std::chrono::nanoseconds ClientClock::monotonic_offset() const {
  std::lock_guard lk(mutex_);
  return drift_locked(std::chrono::steady_clock::now());
}

std::chrono::nanoseconds ClientClock::wall_offset() const {
  std::lock_guard lk(mutex_);
  return drift_locked(std::chrono::steady_clock::now()) + stepped_;
}

std::chrono::nanoseconds ClientClock::real_for(std::chrono::nanoseconds d) const {
  std::lock_guard lk(mutex_);
  return std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<__int128>(d.count()) * 1'000'000 / (1'000'000 + ppm_)));
}

// local = real + drifted_ + (real - base_)·ppm/10^6, solved for real.
std::chrono::nanoseconds ClientClock::real_when_monotonic(std::chrono::nanoseconds local) const {
  std::lock_guard lk(mutex_);
  const auto base = std::chrono::duration_cast<std::chrono::nanoseconds>(base_.time_since_epoch());
  const auto ahead = local - base - drifted_;
  const __int128 real_ahead = static_cast<__int128>(ahead.count()) * 1'000'000 / (1'000'000 + ppm_);
  // A clock at 1 ppm of real speed puts a long wait past 64-bit nanoseconds:
  // after the run's end at most (kBeyondAnyRun, vocab/time.hpp).
  return base + std::chrono::nanoseconds(static_cast<std::int64_t>(std::min<__int128>(real_ahead, kBeyondAnyRun.count())));
}

LiveRuntime::LiveRuntime(LiveWorld& world, LateReplies& late, const RedisCluster& cluster, std::size_t client,
                         std::string client_name, std::vector<std::string> lock_keys, const ClientClock& clock)
    : world_(world),
      late_(late),
      cluster_(&cluster),
      client_(client),
      client_name_(std::move(client_name)),
      lock_keys_(std::move(lock_keys)),
      clock_(clock) {
  real_ = std::make_unique<locks::RealRuntime>(endpoints(cluster));  // its own connections stay unused
  for (int s = 0; s < cluster.shards(); ++s) conns_.push_back(std::make_unique<ShardConn>(*this, s));
}

LiveRuntime::LiveRuntime(LiveWorld& world, LateReplies& late, locks::ServiceConn* service, std::size_t client,
                         std::string client_name, const ClientClock& clock)
    : world_(world), late_(late), service_(service), client_(client), client_name_(std::move(client_name)), clock_(clock) {
  real_ = std::make_unique<locks::RealRuntime>(std::vector<std::string>{});  // clocks, sleeps, spawn only
}

LiveRuntime::~LiveRuntime() { real_.reset(); }  // join spawned tasks before their connections go

LocalInstant LiveRuntime::monotonic_now() {
  const auto now = real_->monotonic_now() + clock_.monotonic_offset();
  return world_.stopping() ? now + kLeapAfterEnd : now;
}

LocalInstant LiveRuntime::wall_now() {
  const auto now = real_->wall_now() + clock_.wall_offset();
  return world_.stopping() ? now + kLeapAfterEnd : now;
}

Task<void> LiveRuntime::sleep(Duration d) {
  if (world_.stopping()) co_return;
  co_await real_->sleep(clock_.real_for(d));  // a fast clock wakes early in real time
  world_.pause_point(client_);
}

std::string LiveRuntime::random_token() { return real_->random_token(); }
std::uint64_t LiveRuntime::random_below(std::uint64_t n) { return real_->random_below(n); }
locks::RedisConn& LiveRuntime::conn(std::size_t node) { return *conns_.at(node); }
std::size_t LiveRuntime::node_count() const { return conns_.size(); }
std::uint64_t LiveRuntime::spawn(Task<void> task) { return real_->spawn(std::move(task)); }
void LiveRuntime::cancel(std::uint64_t id) { real_->cancel(id); }

// ---------------------------------------------------------------- LateReplies

struct LateReplies::Waiting {
  std::unique_ptr<locks::HiredisConn> conn;
  ProbedCommand probe;
  std::vector<Reply> replies;
};

LateReplies::LateReplies(LiveWorld& world) : world_(world), thread_([this] { run(); }) {}

LateReplies::~LateReplies() { stop(); }

void LateReplies::adopt(std::unique_ptr<locks::HiredisConn> conn, ProbedCommand probe, std::vector<Reply> replies) {
  std::lock_guard lk(mutex_);
  outstanding_.fetch_add(1);
  incoming_.push_back(std::make_unique<Waiting>(Waiting{std::move(conn), std::move(probe), std::move(replies)}));
}

void LateReplies::stop() {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
}

// Polls each waiting connection briefly until the run ends; a transaction
// whose last reply came is recorded, one whose connection failed is dropped.
void LateReplies::run() {
  std::vector<std::unique_ptr<Waiting>> waiting;
  while (!stopping_.load() && !world_.stopping()) {
    {
      std::lock_guard lk(mutex_);
      for (auto& w : incoming_) waiting.push_back(std::move(w));
      incoming_.clear();
    }
    if (waiting.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (auto& w : waiting) {
      locks::PipelineReplies got = w->conn->read_owed(std::chrono::milliseconds(2));
      for (auto& r : got.replies) w->replies.push_back(std::move(r));
      if (got.owed > 0) continue;
      if (w->replies.size() == kProbeCommands) record_probe(world_, w->probe, w->replies);
      w.reset();
      outstanding_.fetch_sub(1);
    }
    std::erase(waiting, nullptr);
  }
}

}  // namespace locksim::live
