// EtcdMember: one simulated etcd server on a host — the v3 KV, lease and
// watch API over a RaftNode (sim/consensus/member.hpp) and an EtcdStore —
// and EtcdCluster, N members on hosts etcd-1 … etcd-N.
//
// How a request is served (etcd v3.4, etcdserver/v3_server.go):
//  - Put, Range, DeleteRange, Txn, LeaseGrant and LeaseRevoke are proposed
//    to raft with this member's request id (a follower forwards the
//    proposal to the leader); the member answers when it applies the entry
//    (etcd's wait.Wait on the request ID), or "etcdserver: request timed
//    out" after ReqTimeout = 5 s + 2 · election timeout on its own clock.
//    Reads go through the log too, so they are linearizable wherever they
//    are sent. (etcd 3.4 serves linearizable reads with ReadIndex instead,
//    which orders them the same way without a log entry; the revision is
//    not changed by a read either way.)
//  - LeaseKeepAlive does not go through raft (LeaseRenew): the leader's
//    lessor renews the lease; a follower forwards the renewal to the leader.
//    An unknown or already expired lease gets TTL 0 (v3rpc/lease.go turns
//    ErrLeaseNotFound into TTL = 0).
//  - Lease expiry is decided by the leader alone, on its monotonic clock
//    (lease/lessor.go): Grant applied on the leader sets expiry = now + TTL,
//    followers keep leases forever; every 500 ms the leader proposes a
//    LeaseRevoke for each expired lease (runLoop, revokeExpiredLeases) and
//    retries one that did not go through after 3 s
//    (expiredLeaseRetryInterval). A new leader refreshes every lease to
//    now + election timeout + TTL (lessor.Promote(electionTimeout())), a
//    leader that steps down forgets expiries (Demote).
//  - A watch is served by the member it is sent to, from its own applied
//    store (mvcc watchable store), so it sees a deletion when that member
//    applies it. WATCHDELETE key range_end start_revision answers the first
//    deletion in range at a revision >= start_revision: [revision, key].
// The requests are the EtcdStore wire format plus
//   LEASEKEEPALIVE id                      -> [id, ttl]
//   WATCHDELETE key range_end start_rev    -> [revision, key] (when it happens)
// Not modelled: compaction, snapshots, membership changes, auth, the
// ReadIndex path, lease checkpoints (off by default in 3.4).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/consensus/etcd_store.hpp"
#include "sim/consensus/member.hpp"

namespace locksim::sim::consensus {

inline constexpr const char* kErrRequestTimedOut = "etcdserver: request timed out";

struct EtcdConfig {
  RaftConfig raft;
  // etcd's ServerConfig.ReqTimeout: 5 s + 2 · election timeout.
  Duration request_timeout() const { return std::chrono::seconds(5) + 2 * raft.election_timeout; }
  // etcd's MinLeaseTTL: ceil(1.5 · election timeout) in whole seconds, in
  // heartbeat ticks as etcd counts it (etcdserver/server.go NewServer).
  std::int64_t min_lease_ttl() const;
};

class EtcdMember final : public ConsensusMember {
 public:
  EtcdMember(Host& host, EtcdConfig config, std::vector<HostId> members);

  const EtcdStore& store() const { return store_; }
  // The leader's expiry deadline for a lease on this member's monotonic
  // clock; nullopt when this member is not the primary lessor or has none.
  std::optional<LocalInstant> lease_expiry(std::int64_t id) const;

  void on_leadership(bool leader) override;

 private:
  std::optional<Reply> handle_request(const Request& request) override;
  void handle_peer_message(HostId from, const Argv& message) override;
  Reply apply_command(std::uint64_t index, const LogEntry& entry) override;
  void clear_state() override { store_.clear(); }
  void forget_volatile() override;
  void spawn_background() override { host_.spawn(lessor_loop()); }

  Task<void> lessor_loop();
  std::optional<Reply> keep_alive(const Request& request);
  std::optional<Reply> watch(const Request& request);
  Reply renew(std::int64_t id);
  void revoke_expired();
  void deliver_watches(std::size_t first_new_delete);

  struct Watch {
    Request request;
    std::string key, end;
    std::int64_t start;
  };

  EtcdConfig config_;
  EtcdStore store_;
  std::vector<Watch> watches_;  // in registration order
  bool primary_ = false;
  std::map<std::int64_t, LocalInstant> expiry_;        // primary only
  std::map<std::int64_t, LocalInstant> revoke_retry_;  // revoke proposed; propose again after this
};

using EtcdCluster = MemberCluster<EtcdMember>;

}  // namespace locksim::sim::consensus
