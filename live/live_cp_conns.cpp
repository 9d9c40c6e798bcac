// Each CP call a step of its client (live_cp_conns.hpp): a pause holds it
// before the request and after the reply, a crashed client unwinds, and
// after the end of the run nothing more is sent.
#include "live/live_cp_conns.hpp"

#include <utility>

namespace locksim::live {

namespace {

// Why the call must not go out (the run ended, the client crashed), or "".
// The pause point first: a paused client sends nothing.
std::string refusal(LiveWorld& world, std::size_t client) {
  world.pause_point(client);
  if (world.stopping()) return "IOERR locksim: the live run has ended";
  if (world.crashed(client)) return "IOERR locksim: the client has crashed";
  return "";
}

// `call` is lazy: it runs only if the client may send it.
template <class Reply>
Task<Reply> step(LiveWorld& world, std::size_t client, Task<Reply> call) {
  if (std::string why = refusal(world, client); !why.empty()) {
    Reply refused;
    refused.error = std::move(why);
    co_return refused;
  }
  Reply reply = co_await std::move(call);
  world.pause_point(client);
  co_return reply;
}

}  // namespace

Task<locks::EtcdWrite> LiveEtcdConn::put(std::string key, std::string value, std::int64_t lease) {
  return step(world_, client_, real_->put(std::move(key), std::move(value), lease));
}
Task<locks::EtcdRange> LiveEtcdConn::range(std::string key, std::string range_end) {
  return step(world_, client_, real_->range(std::move(key), std::move(range_end)));
}
Task<locks::EtcdWrite> LiveEtcdConn::delete_range(std::string key, std::string range_end) {
  return step(world_, client_, real_->delete_range(std::move(key), std::move(range_end)));
}
Task<locks::EtcdTxn> LiveEtcdConn::txn(std::vector<locks::EtcdCompare> compares,
                                              std::vector<locks::EtcdOp> success, std::vector<locks::EtcdOp> failure) {
  return step(world_, client_, real_->txn(std::move(compares), std::move(success), std::move(failure)));
}
Task<locks::EtcdLease> LiveEtcdConn::lease_grant(std::int64_t ttl_seconds) {
  return step(world_, client_, real_->lease_grant(ttl_seconds));
}
Task<locks::EtcdLease> LiveEtcdConn::lease_keep_alive_once(std::int64_t id) {
  return step(world_, client_, real_->lease_keep_alive_once(id));
}
Task<locks::CpStatus> LiveEtcdConn::lease_revoke(std::int64_t id) {
  return step(world_, client_, real_->lease_revoke(id));
}
Task<locks::EtcdDeleted> LiveEtcdConn::wait_delete(std::string key, std::string range_end,
                                                          std::int64_t start_revision, Duration timeout) {
  return step(world_, client_, real_->wait_delete(std::move(key), std::move(range_end), start_revision, timeout));
}

Task<locks::CpStatus> LiveZkConn::start(Duration session_timeout) {
  return step(world_, client_, real_->start(session_timeout));
}
Task<locks::ZkCreated> LiveZkConn::create(std::string path, std::string data, std::string mode) {
  return step(world_, client_, real_->create(std::move(path), std::move(data), std::move(mode)));
}
Task<locks::CpStatus> LiveZkConn::remove(std::string path, std::int64_t version) {
  return step(world_, client_, real_->remove(std::move(path), version));
}
Task<locks::ZkChildren> LiveZkConn::get_children(std::string path) {
  return step(world_, client_, real_->get_children(std::move(path)));
}
Task<locks::ZkStat> LiveZkConn::exists(std::string path) {
  return step(world_, client_, real_->exists(std::move(path)));
}
Task<locks::CpStatus> LiveZkConn::wait_delete(std::string path, Duration timeout) {
  return step(world_, client_, real_->wait_delete(std::move(path), timeout));
}

}  // namespace locksim::live
