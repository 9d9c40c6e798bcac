// RaftNode: the replication core of one simulated consensus member.
//
// A member (an etcd or ZooKeeper server) owns a RaftNode and is the host's
// network Service; it hands every raft message here and proposes its
// clients' commands. The algorithm follows etcd's raft package
// (raft/raft.go, v3.4) in the parts that matter for locks:
//  - time is ticks of `heartbeat` on the member's own monotonic clock
//    (tickElection / tickHeartbeat); a follower campaigns after a
//    randomized timeout in [election, 2·election) ticks drawn from the
//    member's own named RNG stream (resetRandomizedElectionTimeout);
//  - terms, votes (a vote goes to the first candidate whose log is at least
//    as up to date, Raft §5.4.1), a no-op entry appended by each new leader;
//  - check-quorum (etcd runs raft with CheckQuorum: true): a leader that has
//    not heard from a majority within an election timeout steps down, and a
//    follower that heard from a leader within one ignores vote requests
//    (Step's `inLease`). PreVote is off, as in etcd 3.4's default;
//  - commit when a majority stores an entry of the current term (§5.4.2);
//    a follower's proposal is forwarded to the leader (stepFollower MsgProp)
//    and dropped when no leader is known.
// ZooKeeper's start (finalize_wait > 0): a ZooKeeper server starts LOOKING
// (QuorumPeer.run) and runs FastLeaderElection.lookForLeader at once, not
// after an election timeout. Each starting member sends every peer a
// notification of its log (last term, last index: FLE's peerEpoch and
// zxid); a peer answers with its own and with whether it knows a leader.
// Told of a leader (a FOLLOWING/LEADING peer's notification), the member
// joins it: it waits for the leader's next append. Otherwise, once a quorum
// of notifications is in, it waits finalize_wait (finalizeWait = 200 ms)
// for more and then the best of them by (last term, last index, member
// id) — FLE's totalOrderPredicate: epoch, zxid, sid — campaigns; the
// others' votes go to it by raft's rules. If it fails, the ordinary
// election timeout follows.
// Durability: the hard state (term, vote, commit) and the log are written
// and, with `fsync` on (etcd's default), fsynced before any message that
// depends on them is sent (etcd's raftNode saves to the WAL before sending).
// A process crash keeps what was written; a power loss keeps what was
// fsynced. With `fsync` off (etcd's --unsafe-no-fsync) only the OS's
// writeback every 30 s reaches the disk. Each member replays its committed
// log into a fresh state machine when it restarts (no snapshots).
#pragma once

#include <cassert>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/host.hpp"
#include "sim/network.hpp"

namespace locksim::sim::consensus {

struct RaftConfig {
  Duration election_timeout = std::chrono::seconds(1);
  Duration heartbeat = std::chrono::milliseconds(100);
  bool fsync = true;
  // ZooKeeper's FastLeaderElection at start (above); zero: off (etcd).
  Duration finalize_wait{0};
  // Election timeout in heartbeat ticks (at least 2, as etcd requires more
  // than one tick between heartbeats and elections).
  std::uint64_t election_ticks() const;
};

// One log entry. `origin`/`request` name the member and its local request
// id that proposed it (etcd's request ID), so that member answers its client
// when it applies the entry. An empty command is the leader's no-op.
struct LogEntry {
  std::uint64_t term = 0;
  HostId origin = kNoHost;
  std::uint64_t request = 0;
  Argv command;
};

enum class RaftRole : std::uint8_t { Follower, Candidate, Leader };
const char* role_name(RaftRole role);

// What the member does with committed entries and leadership changes.
class RaftApplier {
 public:
  virtual ~RaftApplier() = default;
  // Called once per committed entry, in index order.
  virtual void apply(std::uint64_t index, const LogEntry& entry) = 0;
  // Leadership gained (true) or lost (false), when it happens.
  virtual void on_leadership(bool leader) = 0;
};

// Who won each term in one cluster, shared by its members' RaftNodes to
// assert Raft's Election Safety (§5.2, Figure 3: at most one leader per
// term). It holds only while every vote is on disk before it is answered
// (fsync on): with etcd's --unsafe-no-fsync a power loss can forget a vote,
// and two leaders of one term are the model's point, not a bug.
using TermLedger = std::map<std::uint64_t, HostId>;

class RaftNode {
 public:
  // `members`: every member's host, this one included, in a fixed order.
  RaftNode(Host& host, RaftConfig config, std::vector<HostId> members, RaftApplier& applier);
  RaftNode(const RaftNode&) = delete;
  RaftNode& operator=(const RaftNode&) = delete;

  // The member's main calls this when the host (re)starts: volatile state is
  // reset and the committed log is applied again from index 1.
  void restart();
  // Ticks forever on the host's monotonic clock (the member spawns it).
  Task<void> tick_loop();
  // Writeback of an unsynced log (fsync off); returns at once with fsync on.
  Task<void> writeback_loop();
  // A raft message? Then it is handled and true is returned.
  bool handle_message(HostId from, const Argv& message);
  // Appends (leader) or forwards (follower with a leader) a new entry.
  // False when it was dropped: no leader is known.
  bool propose(HostId origin, std::uint64_t request, Argv command);

  // Shares the cluster's ledger of leaders per term (MemberCluster does).
  void share_ledger(TermLedger& ledger) { ledger_ = &ledger; }
  // The host crashed: volatile state is gone (called by the member).
  void on_crash();
  // A machine crash: only fsynced state survives. Call before Host::crash().
  void lose_unsynced();

  RaftRole role() const { return role_; }
  bool is_leader() const { return role_ == RaftRole::Leader; }
  std::uint64_t term() const { return term_; }
  HostId leader() const { return leader_; }
  std::uint64_t commit_index() const { return commit_; }
  std::uint64_t last_index() const { return log_.size(); }
  std::uint64_t synced_index() const { return synced_len_; }
  const LogEntry& entry(std::uint64_t index) const {
    assert(index >= 1 && index <= log_.size() && "an entry index within the log");
    return log_[index - 1];
  }
  std::size_t quorum() const { return members_.size() / 2 + 1; }
  const RaftConfig& config() const { return config_; }

 private:
  struct Progress {
    std::uint64_t match = 0;
    std::uint64_t next = 1;
    bool recent_active = false;
  };

  void tick();
  void campaign();
  void start_looking();
  void on_look(HostId from, const Argv& m);
  Task<void> finalize_after_wait(std::uint64_t round);
  bool best_notification() const;
  void become_follower(std::uint64_t term, HostId leader);
  void become_leader();
  void reset_election_timer();
  bool in_lease() const;
  void step_higher_term(HostId from, std::uint64_t term, bool from_leader);

  void on_vote(HostId from, std::uint64_t term, std::uint64_t last_index, std::uint64_t last_term);
  void on_vote_response(HostId from, std::uint64_t term, bool granted);
  void on_append(HostId from, const Argv& m);
  void on_append_response(HostId from, std::uint64_t term, bool success, std::uint64_t index);
  void on_proposal(const Argv& m);

  void append_local(LogEntry entry);
  void broadcast_append();
  void send_append(HostId peer);
  void maybe_commit();
  void advance_commit(std::uint64_t index);
  void apply_committed();
  void persist();  // the WAL write (+ fsync when configured)
  void send(HostId to, Argv message);
  void note(std::string detail);

  std::uint64_t last_term() const { return log_.empty() ? 0 : log_.back().term; }
  std::uint64_t term_at(std::uint64_t index) const {
    assert(index <= log_.size() && "a term asked of an index within the log");
    return index == 0 ? 0 : log_[index - 1].term;
  }
  void check_one_leader_per_term() const;
  void check_log_matches(std::uint64_t index, const LogEntry& sent) const;

  Host& host_;
  RaftConfig config_;
  std::vector<HostId> members_;
  RaftApplier& applier_;
  Rng rng_;
  TermLedger* ledger_ = nullptr;

  // Persistent state (the WAL), as written.
  std::uint64_t term_ = 0;
  HostId voted_for_ = kNoHost;
  std::uint64_t commit_ = 0;
  std::vector<LogEntry> log_;
  // What of it has reached the disk.
  std::uint64_t synced_term_ = 0;
  HostId synced_vote_ = kNoHost;
  std::uint64_t synced_commit_ = 0;
  std::uint64_t synced_len_ = 0;

  // Volatile state.
  RaftRole role_ = RaftRole::Follower;
  HostId leader_ = kNoHost;
  std::uint64_t applied_ = 0;
  std::uint64_t election_elapsed_ = 0;
  std::uint64_t heartbeat_elapsed_ = 0;
  std::uint64_t randomized_timeout_ = 0;
  std::map<HostId, bool> votes_;         // candidate: who answered, granted or not
  std::map<HostId, Progress> progress_;  // leader: per peer
  // Looking for a leader at start (finalize_wait > 0).
  struct Notification {
    std::uint64_t last_term = 0;
    std::uint64_t last_index = 0;
  };
  bool looking_ = false;
  bool finalizing_ = false;
  std::uint64_t look_round_ = 0;
  std::map<HostId, Notification> notifications_;  // this round's, its own included
};

// Argv helpers shared by the consensus members' wire formats.
std::string u64(std::uint64_t v);
std::optional<std::uint64_t> parse_u64(const std::string& s);
std::optional<std::int64_t> parse_i64(const std::string& s);

}  // namespace locksim::sim::consensus
