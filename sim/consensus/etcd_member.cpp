// EtcdMember: proposals, linearizable reads, the leader's lessor, watches.
#include "sim/consensus/etcd_member.hpp"

#include "sim/world.hpp"

namespace locksim::sim::consensus {

namespace {

// lessor.go: runLoop checks every 500 ms; a revoke that did not go through
// is proposed again after expiredLeaseRetryInterval (3 s).
constexpr Duration kLessorPeriod = std::chrono::milliseconds(500);
constexpr Duration kRevokeRetry = std::chrono::seconds(3);
constexpr const char* kRenew = "lease-renew";
constexpr const char* kRenewed = "lease-renewed";

std::int64_t id_arg(const Argv& argv, std::size_t i) {
  return i < argv.size() ? parse_i64(argv[i]).value_or(0) : 0;
}

}  // namespace

std::int64_t EtcdConfig::min_lease_ttl() const {
  const auto min_ttl = std::chrono::duration_cast<std::chrono::milliseconds>(raft.election_timeout * 3 / 2).count();
  return (min_ttl + 999) / 1000;
}

EtcdMember::EtcdMember(Host& host, EtcdConfig config, std::vector<HostId> members)
    : host_(host),
      config_(config),
      store_(config.min_lease_ttl()),
      raft_(host, config.raft, std::move(members), *this) {
  host_.world().network().register_service(host_.id(), this);
  host_.set_main([this](Host&) { return main(); });
  host_.on_crash([this] { on_crash(); });
}

// ---- lifecycle ---------------------------------------------------------------

Task<void> EtcdMember::main() {
  store_.clear();
  raft_.restart();  // replays the committed log into the empty store
  if (!config_.raft.fsync) host_.spawn(raft_.writeback_loop());
  host_.spawn(lessor_loop());
  co_await raft_.tick_loop();
}

void EtcdMember::on_crash() {
  raft_.on_crash();
  pending_.clear();
  watches_.clear();
  primary_ = false;
  expiry_.clear();
  revoke_retry_.clear();
}

void EtcdMember::power_loss() {
  raft_.lose_unsynced();
  host_.crash();
}

// ---- requests ----------------------------------------------------------------

std::optional<Reply> EtcdMember::on_request(const Request& request) {
  const Argv& argv = request.argv;
  if (!argv.empty() && argv[0] == "LEASEKEEPALIVE") return keep_alive(request);
  if (!argv.empty() && argv[0] == "WATCHDELETE") return watch(request);
  if (auto bad = EtcdStore::validate(argv)) return Reply::error("etcdserver: " + *bad);
  const std::uint64_t token = wait_for(request);
  // Dropped when no leader is known: the request then times out, as in etcd.
  (void)raft_.propose(host_.id(), token, argv);
  return std::nullopt;
}

std::uint64_t EtcdMember::wait_for(const Request& request) {
  const std::uint64_t token = next_token_++;
  pending_.emplace(token, request);
  // ReqTimeout runs on this member's clock; the event is the host's, so a
  // pause defers it and a crash drops it.
  const TrueInstant at = host_.clock().true_when_monotonic(now() + config_.request_timeout());
  host_.world().scheduler().schedule(at, &EtcdMember::on_request_timeout, this, token, host_.id());
  return token;
}

void EtcdMember::answer(std::uint64_t token, Reply reply) {
  auto it = pending_.find(token);
  if (it == pending_.end()) return;
  host_.world().network().respond(it->second, std::move(reply));
  pending_.erase(it);
}

void EtcdMember::on_request_timeout(void* ctx, std::uint64_t token) {
  static_cast<EtcdMember*>(ctx)->answer(token, Reply::error(kErrRequestTimedOut));
}

void EtcdMember::apply(std::uint64_t index, const LogEntry& entry) {
  (void)index;
  if (entry.command.empty()) return;  // a leader's no-op
  const std::size_t deletes_before = store_.deletes().size();
  Reply reply = store_.apply(entry.command);
  const std::string& op = entry.command[0];
  if (op == "LEASEGRANT" && !reply.is_error() && primary_) {
    // lessor.Grant on the primary: refresh(0), expiry = now + TTL.
    const std::int64_t id = store_.last_granted();
    expiry_[id] = now() + std::chrono::seconds(store_.leases().at(id).ttl);
  } else if (op == "LEASEREVOKE") {
    expiry_.erase(id_arg(entry.command, 1));
    revoke_retry_.erase(id_arg(entry.command, 1));
  }
  if (store_.deletes().size() > deletes_before) deliver_watches(deletes_before);
  if (entry.origin == host_.id()) answer(entry.request, std::move(reply));
}

// ---- the lessor ----------------------------------------------------------------

void EtcdMember::on_leadership(bool leader) {
  primary_ = leader;
  expiry_.clear();
  revoke_retry_.clear();
  if (!leader) return;  // Demote: followers keep every lease forever
  // Promote(electionTimeout): every lease lives at least one more TTL.
  for (const auto& [id, lease] : store_.leases())
    expiry_[id] = now() + config_.raft.election_timeout + std::chrono::seconds(lease.ttl);
}

std::optional<LocalInstant> EtcdMember::lease_expiry(std::int64_t id) const {
  auto it = expiry_.find(id);
  if (!primary_ || it == expiry_.end()) return std::nullopt;
  return it->second;
}

Task<void> EtcdMember::lessor_loop() {
  for (;;) {
    co_await host_.sleep(kLessorPeriod);
    if (primary_) revoke_expired();
  }
}

void EtcdMember::revoke_expired() {
  const LocalInstant t = now();
  for (const auto& [id, deadline] : expiry_) {
    if (deadline > t) continue;
    auto retry = revoke_retry_.find(id);
    if (retry != revoke_retry_.end() && retry->second > t) continue;
    revoke_retry_[id] = t + kRevokeRetry;
    host_.world().note(host_.id(), "lease", "expired " + std::to_string(id));
    (void)raft_.propose(kNoHost, 0, {"LEASEREVOKE", std::to_string(id)});
  }
}

Reply EtcdMember::renew(std::int64_t id) {
  auto it = expiry_.find(id);
  // Not found, or expired and waiting for its revoke: TTL 0 to the client.
  if (!store_.leases().contains(id) || it == expiry_.end() || it->second <= now())
    return Reply::array({Reply::integer_of(id), Reply::integer_of(0)});
  const std::int64_t ttl = store_.leases().at(id).ttl;
  it->second = now() + std::chrono::seconds(ttl);  // refresh(0)
  return Reply::array({Reply::integer_of(id), Reply::integer_of(ttl)});
}

std::optional<Reply> EtcdMember::keep_alive(const Request& request) {
  if (request.argv.size() != 2 || !parse_i64(request.argv[1]))
    return Reply::error("etcdserver: LEASEKEEPALIVE id");
  const std::int64_t id = id_arg(request.argv, 1);
  if (primary_) return renew(id);
  const std::uint64_t token = wait_for(request);
  // "renewals don't go through raft; forward to leader manually"
  if (raft_.leader() != kNoHost)
    host_.world().network().send_message(host_.id(), raft_.leader(), {kRenew, std::to_string(token), std::to_string(id)});
  return std::nullopt;
}

void EtcdMember::on_message(HostId from, const Argv& message) {
  if (raft_.handle_message(from, message)) return;
  if (message.size() == 3 && message[0] == kRenew) {
    if (!primary_) return;  // the forwarder times out, the client retries
    const Reply r = renew(id_arg(message, 2));
    host_.world().network().send_message(host_.id(), from,
                                         {kRenewed, message[1], std::to_string(r.elements[1].integer)});
  } else if (message.size() == 3 && message[0] == kRenewed) {
    const std::uint64_t token = parse_u64(message[1]).value_or(0);
    auto it = pending_.find(token);
    if (it == pending_.end()) return;
    const std::int64_t id = id_arg(it->second.argv, 1);
    answer(token, Reply::array({Reply::integer_of(id), Reply::integer_of(id_arg(message, 2))}));
  }
}

// ---- watches -----------------------------------------------------------------

std::optional<Reply> EtcdMember::watch(const Request& request) {
  const Argv& a = request.argv;
  if (a.size() != 4 || !parse_i64(a[3])) return Reply::error("etcdserver: WATCHDELETE key range_end start_revision");
  Watch w{request, a[1], a[2], *parse_i64(a[3])};
  // An event the watch missed (it starts in the past) is delivered at once.
  for (const DeleteEvent& d : store_.deletes())
    if (d.revision >= w.start && EtcdStore::in_range(d.key, w.key, w.end))
      return Reply::array({Reply::integer_of(d.revision), Reply::bulk(d.key)});
  watches_.push_back(std::move(w));
  return std::nullopt;
}

void EtcdMember::deliver_watches(std::size_t first_new_delete) {
  const auto& deletes = store_.deletes();
  std::erase_if(watches_, [&](const Watch& w) {
    for (std::size_t i = first_new_delete; i < deletes.size(); ++i) {
      const DeleteEvent& d = deletes[i];
      if (d.revision < w.start || !EtcdStore::in_range(d.key, w.key, w.end)) continue;
      host_.world().network().respond(w.request, Reply::array({Reply::integer_of(d.revision), Reply::bulk(d.key)}));
      return true;
    }
    return false;
  });
}

// ---- cluster -----------------------------------------------------------------

EtcdCluster::EtcdCluster(World& world, std::size_t members, EtcdConfig config) {
  std::vector<Host*> hosts;
  std::vector<HostId> ids;
  for (std::size_t i = 0; i < members; ++i) {
    hosts.push_back(&world.add_host("etcd-" + std::to_string(i + 1)));
    ids.push_back(hosts.back()->id());
  }
  for (Host* h : hosts) members_.push_back(std::make_unique<EtcdMember>(*h, config, ids));
  for (Host* h : hosts) h->start();
}

EtcdMember* EtcdCluster::leader() {
  EtcdMember* best = nullptr;
  for (auto& m : members_) {
    if (!m->host().up() || !m->raft().is_leader()) continue;
    if (!best || m->raft().term() > best->raft().term()) best = m.get();
  }
  return best;
}

}  // namespace locksim::sim::consensus
