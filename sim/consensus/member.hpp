// ConsensusMember: what every simulated consensus server (etcd, ZooKeeper)
// shares around its RaftNode — the network Service, the host lifecycle
// (crash, restart, power loss), and the request path: a client request is
// proposed to raft with this member's token (a follower's proposal is
// forwarded to the leader) and answered when this member applies the entry,
// or with a timeout error after the server's request timeout on its own
// clock (etcd's wait.Wait on the request ID and ReqTimeout; ZooKeeper's
// CommitProcessor answering from the server the client is connected to).
// MemberCluster<M> puts N members on hosts <prefix>-1 … <prefix>-N.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/consensus/raft.hpp"
#include "sim/world.hpp"

namespace locksim::sim::consensus {

class ConsensusMember : public Service, public RaftApplier {
 public:
  ConsensusMember(Host& host, RaftConfig raft, std::vector<HostId> members, Duration request_timeout,
                  std::string timeout_error);
  ConsensusMember(const ConsensusMember&) = delete;
  ConsensusMember& operator=(const ConsensusMember&) = delete;

  Host& host() { return host_; }
  HostId id() const { return host_.id(); }
  RaftNode& raft() { return raft_; }
  // A machine crash: only what raft fsynced survives.
  void power_loss();

  std::optional<Reply> on_request(const Request& request) final { return handle_request(request); }
  void on_message(HostId from, const Argv& message) final;
  void apply(std::uint64_t index, const LogEntry& entry) final;

 protected:
  // A client request: answer now, or return nullopt and answer later.
  virtual std::optional<Reply> handle_request(const Request& request) = 0;
  // A member-to-member message that is not raft's.
  virtual void handle_peer_message(HostId from, const Argv& message) = 0;
  // Applies one committed client command to the state machine.
  virtual Reply apply_command(std::uint64_t index, const LogEntry& entry) = 0;
  // Before the committed log is replayed at (re)start: an empty state machine.
  virtual void clear_state() = 0;
  // On a crash: volatile state (watches, the leader's timers) is gone.
  virtual void forget_volatile() = 0;
  // Background tasks the member runs besides raft's ticks (spawned at start).
  virtual void spawn_background() {}

  // Proposes the request's command (or `command` on its behalf) and answers
  // the request when this member applies it.
  std::optional<Reply> propose_request(const Request& request);
  std::optional<Reply> propose_request(const Request& request, Argv command);
  // Registers a request answered later (with the timeout armed); its token.
  std::uint64_t wait_for(const Request& request);
  const Request* waiting(std::uint64_t token) const;
  void answer(std::uint64_t token, Reply reply);
  void send_peer(HostId to, Argv message);
  // The instant `d` from now on this member's monotonic clock, in true time.
  TrueInstant true_after(Duration d) const;
  LocalInstant now() const { return host_.monotonic_now(); }

  Host& host_;
  RaftNode raft_;

 private:
  Task<void> main();
  void on_crash();
  static void on_request_timeout(void* ctx, std::uint64_t token);

  Duration request_timeout_;
  std::string timeout_error_;
  std::uint64_t next_token_ = 1;
  std::map<std::uint64_t, Request> pending_;  // by token
};

// N members of kind M (constructed as M(host, config, member ids)), started.
template <class M>
class MemberCluster {
 public:
  template <class Config>
  MemberCluster(World& world, const std::string& prefix, std::size_t members, const Config& config) {
    std::vector<Host*> hosts;
    std::vector<HostId> ids;
    for (std::size_t i = 0; i < members; ++i) {
      hosts.push_back(&world.add_host(prefix + "-" + std::to_string(i + 1)));
      ids.push_back(hosts.back()->id());
    }
    for (Host* h : hosts) members_.push_back(std::make_unique<M>(*h, config, ids));
    for (auto& m : members_) m->raft().share_ledger(*ledger_);
    for (Host* h : hosts) h->start();
  }

  std::size_t size() const { return members_.size(); }
  M& member(std::size_t i) { return *members_[i]; }
  // The up member that believes it leads in the highest term, if any.
  M* leader() {
    M* best = nullptr;
    for (auto& m : members_) {
      if (!m->host().up() || !m->raft().is_leader()) continue;
      if (!best || m->raft().term() > best->raft().term()) best = m.get();
    }
    return best;
  }

 private:
  std::unique_ptr<TermLedger> ledger_ = std::make_unique<TermLedger>();  // stays put if the cluster moves
  std::vector<std::unique_ptr<M>> members_;
};

}  // namespace locksim::sim::consensus
