// EtcdMember: proposals, linearizable reads, the leader's lessor, watches.
#include "sim/consensus/etcd_member.hpp"

#include <algorithm>

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

// etcdserver/server.go NewServer: minTTL = (3 * ElectionTicks) / 2 heartbeats,
// ElectionTicks = ElectionMs / TickMs (both integer divisions), then
// math.Ceil(minTTL.Seconds()).
std::int64_t EtcdConfig::min_lease_ttl() const {
  const std::int64_t heartbeat_ms = std::max<std::int64_t>(to_ms(raft.heartbeat), 1);
  const std::int64_t election_ticks = to_ms(raft.election_timeout) / heartbeat_ms;
  const std::int64_t min_ttl_ms = (3 * election_ticks) / 2 * heartbeat_ms;
  return (min_ttl_ms + 999) / 1000;
}

EtcdMember::EtcdMember(Host& host, EtcdConfig config, std::vector<HostId> members)
    : ConsensusMember(host, config.raft, std::move(members), config.request_timeout(), kErrRequestTimedOut),
      config_(config),
      store_(config.min_lease_ttl()) {}

void EtcdMember::forget_volatile() {
  watches_.clear();
  primary_ = false;
  expiry_.clear();
  revoke_retry_.clear();
}

// ---- requests ----------------------------------------------------------------

std::optional<Reply> EtcdMember::handle_request(const Request& request) {
  const Argv& argv = request.argv;
  if (!argv.empty() && argv[0] == "LEASEKEEPALIVE") return keep_alive(request);
  if (!argv.empty() && argv[0] == "WATCHDELETE") return watch(request);
  if (auto bad = EtcdStore::validate(argv)) return Reply::error("etcdserver: " + *bad);
  return propose_request(request);
}

Reply EtcdMember::apply_command(std::uint64_t index, const LogEntry& entry) {
  (void)index;
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
  return reply;
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
  // A copy: on a one-member cluster the proposal commits, and its revoke
  // erases from expiry_, at once.
  const auto due = expiry_;
  for (const auto& [id, deadline] : due) {
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
    send_peer(raft_.leader(), {kRenew, std::to_string(token), std::to_string(id)});
  return std::nullopt;
}

void EtcdMember::handle_peer_message(HostId from, const Argv& message) {
  if (message.size() == 3 && message[0] == kRenew) {
    if (!primary_) return;  // the forwarder times out, the client retries
    const Reply r = renew(id_arg(message, 2));
    send_peer(from, {kRenewed, message[1], std::to_string(r.elements[1].integer)});
  } else if (message.size() == 3 && message[0] == kRenewed) {
    const std::uint64_t token = parse_u64(message[1]).value_or(0);
    const Request* renewal = waiting(token);
    if (!renewal) return;
    const std::int64_t id = id_arg(renewal->argv, 1);
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

}  // namespace locksim::sim::consensus
