// ZkMember: one simulated ZooKeeper server on a host — sessions, the data
// tree and deletion watches over a RaftNode (sim/consensus/member.hpp) and a
// ZkTree — and ZkCluster, N members on hosts zk-1 … zk-N.
//
// The ensemble's atomic broadcast is the shared Raft core: one leader,
// commit on a majority, a leader that loses its quorum steps down. (ZAB and
// its fast leader election differ in mechanism, not in what a client can
// observe: a totally ordered, majority-committed log and at most one
// serving leader per epoch.) Timing is ZooKeeper's: the leader pings
// followers every tickTime/2 (Leader.lead) and a follower or leader that
// hears nothing for syncLimit ticks drops out (Leader.getTickOfNextAckDeadline),
// so heartbeat = tick/2 and election timeout = syncLimit · tick. A server
// starts LOOKING and elects at once, as FastLeaderElection does: the
// ensemble's first leader is up finalizeWait (200 ms) after the start, and
// a restarted member joins the leader it is told of (RaftNode's
// finalize_wait, raft.hpp).
// Clients:
//  - CONNECT session timeout_ms: session 0 creates a session, the timeout
//    clamped to [2, 20] ticks (ZooKeeperServer.processConnectRequest with
//    the default min/max session timeouts); a known session is revalidated
//    and touched; an unknown (expired) one answers negotiated timeout 0,
//    which the client library reports as Expired (ClientCnxn.onConnected).
//    A follower revalidates against its own applied tree (ZooKeeper asks
//    the leader; the trees differ only by in-flight commits).
//  - Every request with a session touches it; PING session only touches,
//    and answers SessionExpired for a session that is gone (the server
//    closes an expired session's connection and the client's reconnect
//    hears it expired: folded into one answer).
//    The leader's SessionTrackerImpl keeps each session's deadline in
//    tick-wide buckets (ExpiryQueue.roundToNextInterval) on its monotonic
//    clock and, when a bucket's time comes, proposes CLOSESESSION, which
//    deletes the session's ephemerals everywhere. A follower passes touches
//    on to the leader (LearnerSessionTracker). A new leader starts every
//    session afresh with its full timeout (SessionTrackerImpl built from
//    the database's sessions with their timeouts).
//  - A server that knows no leader does not serve: requests get
//    ConnectionLoss (a follower shuts its ZooKeeperServer down when it
//    loses the leader).
//  - Writes and reads are committed through the log and answered by the
//    server the client talks to, so reads here are as if each were preceded
//    by sync(): linearizable (real ZooKeeper reads are served locally and
//    may be stale; the lock recipes do not depend on that).
//  - WATCHDELETE session path: answers [path] when this server applies the
//    path's deletion (a one-shot data watch set by exists/getData, served
//    by the connected server); NoNode at once if the path is absent.
// The tree's wire format is in zk_tree.hpp; CONNECT -> [session, timeout_ms],
// PING -> [0].
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/consensus/member.hpp"
#include "sim/consensus/zk_tree.hpp"

namespace locksim::sim::consensus {

inline constexpr const char* kErrConnectionLoss = "ConnectionLoss";

struct ZkConfig {
  Duration tick = std::chrono::seconds(2);  // tickTime
  std::int64_t sync_limit = 5;              // zoo_sample.cfg
  bool fsync = true;                        // forceSync=yes
  RaftConfig raft() const;
  Duration min_session_timeout() const { return 2 * tick; }
  Duration max_session_timeout() const { return 20 * tick; }
};

class ZkMember final : public ConsensusMember {
 public:
  ZkMember(Host& host, ZkConfig config, std::vector<HostId> members);

  const ZkTree& tree() const { return tree_; }
  // The leader's deadline for a session on its monotonic clock; nullopt
  // when this member is not the leader or does not track it.
  std::optional<LocalInstant> session_expiry(std::int64_t session) const;

  void on_leadership(bool leader) override;

 private:
  std::optional<Reply> handle_request(const Request& request) override;
  void handle_peer_message(HostId from, const Argv& message) override;
  Reply apply_command(std::uint64_t index, const LogEntry& entry) override;
  void clear_state() override { tree_.clear(); }
  void forget_volatile() override;
  void spawn_background() override { host_.spawn(session_tracker_loop()); }

  std::optional<Reply> connect(const Request& request);
  std::optional<Reply> watch(const Request& request);
  void touch(std::int64_t session);
  void track(std::int64_t session, std::int64_t timeout_ms);
  LocalInstant round_to_next_tick(LocalInstant t) const;
  Task<void> session_tracker_loop();
  void expire_due();
  void deliver_watches(std::size_t first_new_delete);

  struct Watch {
    Request request;
    std::string path;
  };

  ZkConfig config_;
  ZkTree tree_;
  std::vector<Watch> watches_;
  bool leading_ = false;
  std::map<std::int64_t, LocalInstant> expiry_;  // leader only
  std::set<std::int64_t> closing_;               // expired, CLOSESESSION proposed
};

using ZkCluster = MemberCluster<ZkMember>;

}  // namespace locksim::sim::consensus
