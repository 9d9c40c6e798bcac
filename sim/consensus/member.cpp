// ConsensusMember: lifecycle and the propose-then-answer-on-apply request path.
#include "sim/consensus/member.hpp"

#include <cassert>

namespace locksim::sim::consensus {

ConsensusMember::ConsensusMember(Host& host, RaftConfig raft, std::vector<HostId> members, Duration request_timeout,
                                 std::string timeout_error)
    : host_(host),
      raft_(host, raft, std::move(members), *this),
      request_timeout_(request_timeout),
      timeout_error_(std::move(timeout_error)) {
  host_.world().network().register_service(host_.id(), this);
  host_.set_main([this](Host&) { return main(); });
  host_.on_crash([this] { on_crash(); });
}

Task<void> ConsensusMember::main() {
  clear_state();
  raft_.restart();  // replays the committed log into the empty state machine
  if (!raft_.config().fsync) host_.spawn(raft_.writeback_loop());
  spawn_background();
  co_await raft_.tick_loop();
}

void ConsensusMember::on_crash() {
  raft_.on_crash();
  pending_.clear();
  forget_volatile();
}

void ConsensusMember::power_loss() {
  raft_.lose_unsynced();
  host_.crash();
}

void ConsensusMember::on_message(HostId from, const Argv& message) {
  if (!raft_.handle_message(from, message)) handle_peer_message(from, message);
}

void ConsensusMember::apply(std::uint64_t index, const LogEntry& entry) {
  assert(index <= raft_.commit_index() && "only a committed entry is applied");
  if (entry.command.empty()) return;  // a leader's no-op
  Reply reply = apply_command(index, entry);
  if (entry.origin == host_.id()) answer(entry.request, std::move(reply));
}

std::optional<Reply> ConsensusMember::propose_request(const Request& request) {
  return propose_request(request, request.argv);
}

std::optional<Reply> ConsensusMember::propose_request(const Request& request, Argv command) {
  const std::uint64_t token = wait_for(request);
  // Dropped when no leader is known: the request then times out, as in etcd.
  (void)raft_.propose(host_.id(), token, std::move(command));
  return std::nullopt;
}

std::uint64_t ConsensusMember::wait_for(const Request& request) {
  const std::uint64_t token = next_token_++;
  const bool fresh = pending_.emplace(token, request).second;
  assert(fresh && "a request token is never reused");
  (void)fresh;
  // The event is the host's: a pause defers it, a crash drops it.
  host_.world().scheduler().schedule(true_after(request_timeout_), &ConsensusMember::on_request_timeout, this, token,
                                     host_.id());
  return token;
}

const Request* ConsensusMember::waiting(std::uint64_t token) const {
  auto it = pending_.find(token);
  return it == pending_.end() ? nullptr : &it->second;
}

void ConsensusMember::answer(std::uint64_t token, Reply reply) {
  auto it = pending_.find(token);
  if (it == pending_.end()) return;
  host_.world().network().respond(it->second, std::move(reply));
  pending_.erase(it);
}

void ConsensusMember::on_request_timeout(void* ctx, std::uint64_t token) {
  auto* self = static_cast<ConsensusMember*>(ctx);
  self->answer(token, Reply::error(self->timeout_error_));
}

void ConsensusMember::send_peer(HostId to, Argv message) {
  host_.world().network().send_message(host_.id(), to, std::move(message));
}

TrueInstant ConsensusMember::true_after(Duration d) const {
  return host_.clock().true_when_monotonic(host_.monotonic_now() + d);
}

}  // namespace locksim::sim::consensus
