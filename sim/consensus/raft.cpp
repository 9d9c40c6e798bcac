// RaftNode: elections, replication, commit, check-quorum (etcd raft/raft.go).
#include "sim/consensus/raft.hpp"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <tuple>

#include "sim/world.hpp"

namespace locksim::sim::consensus {

std::string u64(std::uint64_t v) { return std::to_string(v); }

std::optional<std::uint64_t> parse_u64(const std::string& s) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_i64(const std::string& s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

namespace {

// Raft messages travel as Argv; entries are flattened as
// term, origin, request, argc, args... .
constexpr const char* kVote = "raft-vote";
constexpr const char* kVoteResp = "raft-vote-resp";
constexpr const char* kApp = "raft-app";
constexpr const char* kAppResp = "raft-app-resp";
constexpr const char* kProp = "raft-prop";
// FastLeaderElection's notification: reply, knows_leader, last_index, last_term.
constexpr const char* kLook = "raft-look";
// At most this many entries per append message (etcd: MaxSizePerMsg).
constexpr std::uint64_t kMaxEntriesPerMessage = 64;
// Linux writes dirty pages back after 30 s (dirty_expire_centisecs = 3000).
constexpr Duration kWriteback = std::chrono::seconds(30);

// Reads an internal message field by field; these messages come only from
// other members, so a malformed one is a bug (asserted), not input.
class Reader {
 public:
  Reader(const Argv& m, std::size_t from) : m_(m), at_(from) {}
  std::uint64_t number() {
    assert(at_ < m_.size());
    const auto v = parse_u64(m_[at_++]);
    assert(v.has_value());
    return v.value_or(0);
  }
  LogEntry entry() {
    LogEntry e;
    e.term = number();
    e.origin = static_cast<HostId>(number());
    e.request = number();
    const std::uint64_t argc = number();
    assert(at_ + argc <= m_.size());
    e.command.assign(m_.begin() + static_cast<std::ptrdiff_t>(at_),
                     m_.begin() + static_cast<std::ptrdiff_t>(at_ + argc));
    at_ += argc;
    return e;
  }

 private:
  const Argv& m_;
  std::size_t at_;
};

void put_entry(Argv& out, const LogEntry& e) {
  out.push_back(u64(e.term));
  out.push_back(u64(e.origin));
  out.push_back(u64(e.request));
  out.push_back(u64(e.command.size()));
  out.insert(out.end(), e.command.begin(), e.command.end());
}

}  // namespace

const char* role_name(RaftRole role) {
  switch (role) {
    case RaftRole::Follower: return "follower";
    case RaftRole::Candidate: return "candidate";
    case RaftRole::Leader: return "leader";
  }
  return "?";
}

std::uint64_t RaftConfig::election_ticks() const {
  const auto ticks = static_cast<std::uint64_t>(election_timeout / heartbeat);
  return std::max<std::uint64_t>(ticks, 2);
}

RaftNode::RaftNode(Host& host, RaftConfig config, std::vector<HostId> members, RaftApplier& applier)
    : host_(host), config_(config), members_(std::move(members)), applier_(applier), rng_(host.rng().fork("raft")) {}

// ---- lifecycle ---------------------------------------------------------------

void RaftNode::restart() {
  role_ = RaftRole::Follower;
  leader_ = kNoHost;
  votes_.clear();
  progress_.clear();
  heartbeat_elapsed_ = 0;
  reset_election_timer();
  // The state machine is rebuilt by replaying the committed log.
  applied_ = 0;
  commit_ = std::min<std::uint64_t>(commit_, log_.size());
  apply_committed();
  assert(applied_ == commit_ && "a restart replays the whole committed log");
  if (config_.finalize_wait > Duration::zero()) start_looking();
}

void RaftNode::on_crash() {
  const bool was_leader = is_leader();
  looking_ = false;
  role_ = RaftRole::Follower;
  leader_ = kNoHost;
  if (was_leader) applier_.on_leadership(false);
}

void RaftNode::lose_unsynced() {
  term_ = synced_term_;
  voted_for_ = synced_vote_;
  commit_ = synced_commit_;
  log_.resize(synced_len_);
  assert(commit_ <= log_.size() && "the commit index and the log reach the disk together");
}

Task<void> RaftNode::tick_loop() {
  for (;;) {
    co_await host_.sleep(config_.heartbeat);
    tick();
  }
}

Task<void> RaftNode::writeback_loop() {
  if (config_.fsync) co_return;
  for (;;) {
    co_await host_.sleep(kWriteback);
    synced_term_ = term_;
    synced_vote_ = voted_for_;
    synced_commit_ = commit_;
    synced_len_ = log_.size();
  }
}

// ---- time --------------------------------------------------------------------

void RaftNode::reset_election_timer() {
  election_elapsed_ = 0;
  const std::uint64_t ticks = config_.election_ticks();
  randomized_timeout_ = ticks + rng_.below(ticks);  // [election, 2·election)
}

void RaftNode::tick() {
  if (role_ != RaftRole::Leader) {  // tickElection
    if (++election_elapsed_ >= randomized_timeout_) campaign();
    return;
  }
  // tickHeartbeat, with the check-quorum step every election timeout.
  ++heartbeat_elapsed_;
  if (++election_elapsed_ >= config_.election_ticks()) {
    election_elapsed_ = 0;
    std::size_t active = 1;  // itself
    for (auto& [peer, p] : progress_) {
      active += p.recent_active ? 1 : 0;
      p.recent_active = false;
    }
    if (active < quorum()) {
      note("steps down: heard from " + std::to_string(active) + " of " + std::to_string(members_.size()));
      become_follower(term_, kNoHost);
      return;
    }
  }
  if (heartbeat_elapsed_ >= 1) {
    heartbeat_elapsed_ = 0;
    broadcast_append();
  }
}

bool RaftNode::in_lease() const {
  return leader_ != kNoHost && election_elapsed_ < config_.election_ticks();
}

// ---- ZooKeeper's look for a leader at start (FastLeaderElection) -------------

void RaftNode::start_looking() {
  looking_ = true;
  finalizing_ = false;
  ++look_round_;
  notifications_.clear();
  notifications_[host_.id()] = {last_term(), last_index()};
  for (HostId peer : members_)
    if (peer != host_.id()) send(peer, {kLook, "0", "0", u64(last_index()), u64(last_term())});
  if (notifications_.size() >= quorum()) {
    finalizing_ = true;
    host_.spawn(finalize_after_wait(look_round_));
  }
}

void RaftNode::on_look(HostId from, const Argv& m) {
  Reader r(m, 1);
  const bool reply = r.number() == 1;
  const bool knows_leader = r.number() == 1;
  const std::uint64_t li = r.number();
  const std::uint64_t lt = r.number();
  if (!reply) send(from, {kLook, "1", leader_ != kNoHost ? "1" : "0", u64(last_index()), u64(last_term())});
  if (!looking_) return;
  if (knows_leader) {  // lookForLeader, case FOLLOWING/LEADING: join it
    looking_ = false;
    note("joins the established ensemble");
    return;
  }
  notifications_[from] = {lt, li};
  if (finalizing_ || notifications_.size() < quorum()) return;
  finalizing_ = true;  // voteSet.hasAllQuorums(): wait finalizeWait for more
  host_.spawn(finalize_after_wait(look_round_));
}

Task<void> RaftNode::finalize_after_wait(std::uint64_t round) {
  co_await host_.sleep(config_.finalize_wait);
  if (round != look_round_ || !looking_) co_return;
  looking_ = false;
  if (leader_ == kNoHost && role_ == RaftRole::Follower && best_notification()) campaign();
}

bool RaftNode::best_notification() const {
  // totalOrderPredicate: higher epoch, then higher zxid, then higher sid.
  auto key = [](const auto& kv) { return std::tuple(kv.second.last_term, kv.second.last_index, kv.first); };
  const auto best = std::max_element(notifications_.begin(), notifications_.end(),
                                     [&](const auto& a, const auto& b) { return key(a) < key(b); });
  return best->first == host_.id();
}

// ---- roles -------------------------------------------------------------------

void RaftNode::campaign() {
  assert(role_ != RaftRole::Leader && "a leader never campaigns");
  looking_ = false;
  role_ = RaftRole::Candidate;
  ++term_;
  voted_for_ = host_.id();
  leader_ = kNoHost;
  reset_election_timer();
  votes_.clear();
  votes_[host_.id()] = true;
  persist();
  note("campaigns for term " + u64(term_));
  if (quorum() == 1) {
    become_leader();
    return;
  }
  for (HostId peer : members_)
    if (peer != host_.id()) send(peer, {kVote, u64(term_), u64(last_index()), u64(last_term())});
}

void RaftNode::become_follower(std::uint64_t term, HostId leader) {
  assert(term >= term_ && "a member's term never goes backwards");
  const bool was_leader = is_leader();
  if (term != term_) {
    term_ = term;
    voted_for_ = kNoHost;
    persist();
  }
  role_ = RaftRole::Follower;
  leader_ = leader;
  progress_.clear();
  reset_election_timer();
  if (was_leader) applier_.on_leadership(false);
}

void RaftNode::become_leader() {
  assert(role_ == RaftRole::Candidate && voted_for_ == host_.id() && "only a candidate that voted for itself wins");
  role_ = RaftRole::Leader;
  leader_ = host_.id();
  heartbeat_elapsed_ = 0;
  election_elapsed_ = 0;
  progress_.clear();
  for (HostId peer : members_)
    if (peer != host_.id()) progress_[peer] = Progress{0, last_index() + 1, false};
  note("leader for term " + u64(term_));
  check_one_leader_per_term();
  applier_.on_leadership(true);
  append_local(LogEntry{term_, kNoHost, 0, {}});  // the new leader's no-op
  maybe_commit();
  broadcast_append();
}

// ---- messages ----------------------------------------------------------------

bool RaftNode::handle_message(HostId from, const Argv& m) {
  if (m.empty() || m[0].rfind("raft-", 0) != 0) return false;
  if (m[0] == kProp) {
    on_proposal(m);
    return true;
  }
  if (m[0] == kLook) {
    on_look(from, m);
    return true;
  }
  const std::uint64_t term = Reader(m, 1).number();
  const bool from_leader = m[0] == kApp;
  if (term > term_) {
    // Step: a vote request within the leader's lease is ignored outright.
    if (m[0] == kVote && in_lease()) return true;
    step_higher_term(from, term, from_leader);
  } else if (term < term_) {
    // A stale leader learns the new term from our answer and steps down.
    if (from_leader) send(from, {kAppResp, u64(term_), "0", "0"});
    else if (m[0] == kVote) send(from, {kVoteResp, u64(term_), "0"});
    return true;
  }
  Reader r(m, 2);
  if (m[0] == kVote) {
    const std::uint64_t li = r.number();
    on_vote(from, term, li, r.number());
  } else if (m[0] == kVoteResp) {
    on_vote_response(from, term, r.number() == 1);
  } else if (m[0] == kApp) {
    on_append(from, m);
  } else if (m[0] == kAppResp) {
    const bool ok = r.number() == 1;
    on_append_response(from, term, ok, r.number());
  }
  return true;
}

void RaftNode::step_higher_term(HostId from, std::uint64_t term, bool from_leader) {
  assert(term > term_);
  become_follower(term, from_leader ? from : kNoHost);
}

void RaftNode::on_vote(HostId from, std::uint64_t term, std::uint64_t li, std::uint64_t lt) {
  // etcd: canVote = Vote == From || (Vote == None && lead == None).
  const bool can_vote = voted_for_ == from || (voted_for_ == kNoHost && leader_ == kNoHost);
  const bool up_to_date = lt > last_term() || (lt == last_term() && li >= last_index());
  const bool grant = can_vote && up_to_date;
  if (grant) {
    assert(role_ == RaftRole::Follower && "a candidate or leader of this term voted for itself");
    voted_for_ = from;
    persist();  // the vote is on disk before the answer leaves
    reset_election_timer();
  }
  send(from, {kVoteResp, u64(term), grant ? "1" : "0"});
}

void RaftNode::on_vote_response(HostId from, std::uint64_t term, bool granted) {
  if (role_ != RaftRole::Candidate || term != term_) return;
  votes_[from] = granted;
  std::size_t yes = 0;
  std::size_t no = 0;
  for (const auto& [member, v] : votes_) (v ? yes : no) += 1;
  assert(yes + no <= members_.size() && "one vote per member");
  if (yes >= quorum()) become_leader();
  else if (no >= quorum()) become_follower(term_, kNoHost);
}

void RaftNode::on_append(HostId from, const Argv& m) {
  looking_ = false;
  if (role_ != RaftRole::Follower || leader_ != from) become_follower(term_, from);
  election_elapsed_ = 0;
  Reader r(m, 2);
  const std::uint64_t prev_index = r.number();
  const std::uint64_t prev_term = r.number();
  const std::uint64_t leader_commit = r.number();
  const std::uint64_t n = r.number();
  if (prev_index > last_index() || term_at(prev_index) != prev_term) {
    // Reject with a hint: where our log could match (etcd's RejectHint).
    send(from, {kAppResp, u64(term_), "0", u64(std::min(prev_index - 1, last_index()))});
    return;
  }
  std::uint64_t index = prev_index;
  bool changed = false;
  for (std::uint64_t i = 0; i < n; ++i) {
    LogEntry e = r.entry();
    ++index;
    if (index <= last_index()) {
      if (term_at(index) == e.term) {  // already have it
        check_log_matches(index, e);
        continue;
      }
      assert(index > commit_ && "a committed entry never conflicts");
      log_.resize(index - 1);  // a conflicting suffix from an old term
      synced_len_ = std::min<std::uint64_t>(synced_len_, log_.size());
    }
    assert(e.term >= last_term() && e.term <= term_ && "a log's terms never decrease nor pass the leader's");
    log_.push_back(std::move(e));
    changed = true;
  }
  // Commit what the leader committed, up to what this message proved we hold.
  const std::uint64_t new_commit = std::min(leader_commit, index);
  if (new_commit > commit_) {
    commit_ = new_commit;
    changed = true;
  }
  assert(commit_ <= last_index() && "the commit index never passes the log");
  if (changed) persist();
  send(from, {kAppResp, u64(term_), "1", u64(index)});
  apply_committed();
}

void RaftNode::on_append_response(HostId from, std::uint64_t term, bool success, std::uint64_t index) {
  if (!is_leader() || term != term_) return;
  auto it = progress_.find(from);
  if (it == progress_.end()) return;
  Progress& p = it->second;
  p.recent_active = true;
  if (success) {
    // The follower holds what this leader sent it in this term (without
    // fsync, a power loss can bring a member back to an old term it led).
    assert((!config_.fsync || index <= last_index()) && "a follower never matches past the leader's log");
    p.match = std::max(p.match, index);
    p.next = p.match + 1;
    maybe_commit();
    if (p.match < last_index()) send_append(from);
  } else {
    // Probe backwards (the hint says where the follower's log ends).
    p.next = std::max<std::uint64_t>(1, std::min(p.next - 1, index + 1));
    send_append(from);
  }
}

void RaftNode::on_proposal(const Argv& m) {
  Reader r(m, 1);
  LogEntry e = r.entry();
  if (!is_leader()) return;  // not the leader (any more): dropped
  e.term = term_;
  append_local(std::move(e));
  broadcast_append();
}

// ---- replication -------------------------------------------------------------

bool RaftNode::propose(HostId origin, std::uint64_t request, Argv command) {
  LogEntry e{term_, origin, request, std::move(command)};
  if (is_leader()) {
    append_local(std::move(e));
    maybe_commit();  // a one-member cluster commits at once
    broadcast_append();
    return true;
  }
  if (leader_ == kNoHost) return false;  // etcd raft: ErrProposalDropped
  Argv m{kProp};
  put_entry(m, e);
  send(leader_, std::move(m));
  return true;
}

void RaftNode::append_local(LogEntry entry) {
  assert(is_leader() && entry.term == term_ && "only a leader appends, in its own term");
  log_.push_back(std::move(entry));
  persist();
}

void RaftNode::broadcast_append() {
  for (HostId peer : members_)
    if (peer != host_.id()) send_append(peer);
}

void RaftNode::send_append(HostId peer) {
  const Progress& p = progress_.at(peer);
  assert(p.next >= 1 && p.next - 1 <= last_index() && "a peer's progress within the log");
  const std::uint64_t prev = p.next - 1;
  const std::uint64_t n = std::min(last_index() - prev, kMaxEntriesPerMessage);
  // etcd's heartbeats carry min(match, committed) so a follower never
  // commits past what it is known to hold; our appends prove it themselves.
  Argv m{kApp, u64(term_), u64(prev), u64(term_at(prev)), u64(commit_), u64(n)};
  for (std::uint64_t i = 1; i <= n; ++i) put_entry(m, entry(prev + i));
  send(peer, std::move(m));
}

void RaftNode::maybe_commit() {
  assert(is_leader() && progress_.size() + 1 == members_.size() && "a leader tracks every peer");
  // The highest index stored on a majority (the leader counts itself).
  std::vector<std::uint64_t> matches{last_index()};
  for (const auto& [peer, p] : progress_) matches.push_back(p.match);
  std::sort(matches.begin(), matches.end(), std::greater<>());
  const std::uint64_t majority_index = matches[quorum() - 1];
  // Only an entry of the current term commits by counting (Raft §5.4.2).
  if (majority_index > commit_ && term_at(majority_index) == term_) advance_commit(majority_index);
}

void RaftNode::advance_commit(std::uint64_t index) {
  assert(index > commit_ && index <= last_index() && "the commit index only grows, and never past the log");
  commit_ = index;
  persist();
  apply_committed();
}

void RaftNode::apply_committed() {
  assert(commit_ <= last_index() && "the commit index never passes the log");
  while (applied_ < commit_) {
    ++applied_;
    applier_.apply(applied_, entry(applied_));
  }
}

// Raft's Election Safety (§5.2) across the cluster, from the shared ledger.
void RaftNode::check_one_leader_per_term() const {
  if (ledger_ == nullptr || !config_.fsync) return;
  const auto [it, first] = ledger_->emplace(term_, host_.id());
  assert((first || it->second == host_.id()) && "one leader per term");
  (void)first;
  (void)it;
}

// Log Matching (§5.3): an entry this member already holds at `index` with
// the leader's term is the leader's entry, command and proposer alike.
// Like Election Safety, it rests on votes being durable (fsync on).
void RaftNode::check_log_matches(std::uint64_t index, const LogEntry& sent) const {
  if (!config_.fsync) return;
  const LogEntry& held = entry(index);
  assert(held.origin == sent.origin && held.request == sent.request && held.command == sent.command &&
         "log matching: same index and term, same entry");
  (void)held;
  (void)sent;
}

void RaftNode::persist() {
  if (!config_.fsync) return;
  synced_term_ = term_;
  synced_vote_ = voted_for_;
  synced_commit_ = commit_;
  synced_len_ = log_.size();
}

void RaftNode::send(HostId to, Argv message) {
  host_.world().network().send_message(host_.id(), to, std::move(message));
}

void RaftNode::note(std::string detail) { host_.world().note(host_.id(), "raft", detail); }

}  // namespace locksim::sim::consensus
