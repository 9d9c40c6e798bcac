// ZkMember: connect/revalidate, session touches and expiry on the leader,
// deletion watches (ZooKeeperServer, SessionTrackerImpl, ExpiryQueue).
#include "sim/consensus/zk_member.hpp"

#include <algorithm>

namespace locksim::sim::consensus {

namespace {

constexpr const char* kTouch = "zk-touch";

std::int64_t session_arg(const Argv& argv) { return argv.size() > 1 ? parse_i64(argv[1]).value_or(0) : 0; }

bool has_session(const Argv& argv) {
  return !argv.empty() && argv[0] != "CREATESESSION" && argv[0] != "CLOSESESSION";
}

}  // namespace

RaftConfig ZkConfig::raft() const {
  RaftConfig r;
  r.heartbeat = tick / 2;
  r.election_timeout = sync_limit * tick;
  r.fsync = fsync;
  r.finalize_wait = std::chrono::milliseconds(200);  // FastLeaderElection.finalizeWait
  return r;
}

ZkMember::ZkMember(Host& host, ZkConfig config, std::vector<HostId> members)
    : ConsensusMember(host, config.raft(), std::move(members), config.max_session_timeout(), kErrConnectionLoss),
      config_(config) {}

void ZkMember::forget_volatile() {
  watches_.clear();
  leading_ = false;
  expiry_.clear();
  closing_.clear();
}

// ---- requests ----------------------------------------------------------------

std::optional<Reply> ZkMember::handle_request(const Request& request) {
  const Argv& argv = request.argv;
  if (raft_.leader() == kNoHost) return Reply::error(kErrConnectionLoss);
  if (argv.empty()) return Reply::error("BadArguments empty request");
  if (argv[0] == "CONNECT") return connect(request);
  if (argv[0] == "PING") {
    const std::int64_t session = session_arg(argv);
    // The server closes the connection of an expired session; the client's
    // reconnect is then told it expired: one answer here.
    if (!tree_.sessions().contains(session) || closing_.contains(session)) return Reply::error("SessionExpired");
    touch(session);
    return Reply::array({Reply::integer_of(0)});
  }
  if (argv[0] == "WATCHDELETE") return watch(request);
  if (!has_session(argv)) return Reply::error("BadArguments " + argv[0] + " is the server's");
  if (auto bad = ZkTree::validate(argv)) return Reply::error("BadArguments " + *bad);
  touch(session_arg(argv));
  return propose_request(request);
}

std::optional<Reply> ZkMember::connect(const Request& request) {
  const Argv& a = request.argv;
  const auto parsed_session = a.size() == 3 ? parse_i64(a[1]) : std::nullopt;
  const auto parsed_timeout = a.size() == 3 ? parse_i64(a[2]) : std::nullopt;
  if (!parsed_session || !parsed_timeout) return Reply::error("BadArguments CONNECT session timeout_ms");
  // Plain values from here: reading the optionals' payloads inside the
  // inlined map lookup below made GCC 12 warn (-Wmaybe-uninitialized)
  // when compiled with a profile (cmake/Pgo.cmake).
  const std::int64_t session = *parsed_session, wanted = *parsed_timeout;
  if (session == 0) {
    // processConnectRequest: the timeout is clamped to [min, max].
    const std::int64_t lo = to_ms(config_.min_session_timeout());
    const std::int64_t hi = to_ms(config_.max_session_timeout());
    return propose_request(request, {"CREATESESSION", std::to_string(std::clamp(wanted, lo, hi))});
  }
  auto it = tree_.sessions().find(session);
  if (it == tree_.sessions().end() || closing_.contains(session))
    return Reply::array({Reply::integer_of(session), Reply::integer_of(0)});  // expired
  touch(session);
  return Reply::array({Reply::integer_of(session), Reply::integer_of(it->second.timeout_ms)});
}

Reply ZkMember::apply_command(std::uint64_t index, const LogEntry& entry) {
  const auto zxid = static_cast<std::int64_t>((entry.term << 32) | (index & 0xffffffffu));
  const std::size_t deletes_before = tree_.deletes().size();
  Reply reply = tree_.apply(entry.command, zxid);
  const std::string& op = entry.command[0];
  if (op == "CREATESESSION" && !reply.is_error() && leading_) {
    track(reply.elements[0].integer, reply.elements[1].integer);
  } else if (op == "CLOSESESSION") {
    expiry_.erase(session_arg(entry.command));
    closing_.erase(session_arg(entry.command));
  }
  if (tree_.deletes().size() > deletes_before) deliver_watches(deletes_before);
  return reply;
}

// ---- sessions ------------------------------------------------------------------

LocalInstant ZkMember::round_to_next_tick(LocalInstant t) const {
  // ExpiryQueue.roundToNextInterval: (time / interval + 1) * interval.
  const auto interval = config_.tick.count();
  return LocalInstant(Duration((t.time_since_epoch().count() / interval + 1) * interval));
}

void ZkMember::track(std::int64_t session, std::int64_t timeout_ms) {
  expiry_[session] = round_to_next_tick(now() + std::chrono::milliseconds(timeout_ms));
}

void ZkMember::touch(std::int64_t session) {
  if (!leading_) {
    if (raft_.leader() != kNoHost && session != 0) send_peer(raft_.leader(), {kTouch, std::to_string(session)});
    return;
  }
  auto it = tree_.sessions().find(session);
  if (it == tree_.sessions().end() || closing_.contains(session)) return;  // touchSession: false
  track(session, it->second.timeout_ms);
}

void ZkMember::handle_peer_message(HostId from, const Argv& message) {
  (void)from;
  if (message.size() == 2 && message[0] == kTouch && leading_) touch(session_arg(message));
}

void ZkMember::on_leadership(bool leader) {
  leading_ = leader;
  expiry_.clear();
  closing_.clear();
  if (!leader) return;
  for (const auto& [id, s] : tree_.sessions()) track(id, s.timeout_ms);
}

std::optional<LocalInstant> ZkMember::session_expiry(std::int64_t session) const {
  auto it = expiry_.find(session);
  if (!leading_ || it == expiry_.end()) return std::nullopt;
  return it->second;
}

Task<void> ZkMember::session_tracker_loop() {
  for (;;) {
    // Wake at the next bucket boundary, as SessionTrackerImpl.run does.
    co_await host_.sleep(round_to_next_tick(now()) - now());
    if (leading_) expire_due();
  }
}

void ZkMember::expire_due() {
  const LocalInstant t = now();
  std::vector<std::int64_t> due;
  for (const auto& [id, deadline] : expiry_)
    if (deadline <= t && !closing_.contains(id)) due.push_back(id);
  // A one-member ensemble applies CLOSESESSION inside propose, which erases
  // from expiry_: hence the list first.
  for (const std::int64_t id : due) {
    closing_.insert(id);  // setSessionClosing: touches fail from now on
    host_.world().note(host_.id(), "session", "expired " + std::to_string(id));
    (void)raft_.propose(kNoHost, 0, {"CLOSESESSION", std::to_string(id)});
  }
}

// ---- watches -------------------------------------------------------------------

std::optional<Reply> ZkMember::watch(const Request& request) {
  const Argv& a = request.argv;
  if (a.size() != 3 || !parse_i64(a[1])) return Reply::error("BadArguments WATCHDELETE session path");
  touch(session_arg(a));
  if (!tree_.nodes().contains(a[2])) return Reply::error("NoNode");
  watches_.push_back({request, a[2]});
  return std::nullopt;
}

void ZkMember::deliver_watches(std::size_t first_new_delete) {
  const auto& deletes = tree_.deletes();
  std::erase_if(watches_, [&](const Watch& w) {
    for (std::size_t i = first_new_delete; i < deletes.size(); ++i) {
      if (deletes[i] != w.path) continue;
      host_.world().network().respond(w.request, Reply::array({Reply::bulk(w.path)}));
      return true;
    }
    return false;
  });
}

}  // namespace locksim::sim::consensus
