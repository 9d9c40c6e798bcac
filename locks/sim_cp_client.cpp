// SimEtcdConn / SimZkConn: the wire format of sim/consensus/ (etcd_store.hpp,
// zk_tree.hpp) turned into typed replies, plus the ZooKeeper client's
// session keeping (ClientCnxn).
#include "locks/sim_cp_client.hpp"

#include "sim/consensus/etcd_store.hpp"
#include "sim/world.hpp"

namespace locksim::locks {

std::string etcd_prefix_end(const std::string& prefix) { return sim::consensus::EtcdStore::prefix_end(prefix); }

const char* zk_state_name(ZkState s) {
  switch (s) {
    case ZkState::NotStarted: return "not-started";
    case ZkState::Connected: return "connected";
    case ZkState::Disconnected: return "disconnected";
    case ZkState::Expired: return "expired";
  }
  return "?";
}

namespace {

bool is_network_error(const Reply& r) { return r.is_error() && r.str.rfind("IOERR", 0) == 0; }

// A reply of an unexpected shape is an error value, never a crash.
bool shaped(const Reply& r, std::size_t at_least) {
  return r.type == Reply::Type::Array && r.elements.size() >= at_least;
}

std::string error_of(const Reply& r) {
  if (r.is_error()) return r.str;
  return "unexpected reply " + r.to_string();
}

EtcdRange decode_range(const Reply& r) {
  EtcdRange out;
  if (!shaped(r, 2) || r.elements[1].type != Reply::Type::Array) {
    out.error = error_of(r);
    return out;
  }
  out.revision = r.elements[0].integer;
  for (const Reply& kv : r.elements[1].elements) {
    if (!shaped(kv, 6)) continue;
    out.kvs.push_back({kv.elements[0].str, kv.elements[1].str, kv.elements[2].integer, kv.elements[3].integer,
                       kv.elements[4].integer, kv.elements[5].integer});
  }
  return out;
}

EtcdWrite decode_write(const Reply& r) {
  EtcdWrite out;
  if (!shaped(r, 1)) out.error = error_of(r);
  else out.revision = r.elements[0].integer;
  if (shaped(r, 2)) out.deleted = r.elements[1].integer;
  return out;
}

EtcdLease decode_lease(const Reply& r) {
  EtcdLease out;
  if (!shaped(r, 2)) out.error = error_of(r);
  else out = {{}, r.elements[0].integer, r.elements[1].integer};
  return out;
}

const char* target_name(EtcdCompare::Target t) {
  switch (t) {
    case EtcdCompare::Target::Create: return "create";
    case EtcdCompare::Target::Mod: return "mod";
    case EtcdCompare::Target::Version: return "version";
    case EtcdCompare::Target::Value: return "value";
  }
  return "?";
}

void put_ops(Argv& argv, const std::vector<EtcdOp>& ops) {
  argv.push_back(std::to_string(ops.size()));
  for (const EtcdOp& op : ops) {
    switch (op.kind) {
      case EtcdOp::Kind::Put: argv.insert(argv.end(), {"put", op.key, op.value_or_end, std::to_string(op.lease)}); break;
      case EtcdOp::Kind::Range: argv.insert(argv.end(), {"range", op.key, op.value_or_end, "-"}); break;
      case EtcdOp::Kind::Delete: argv.insert(argv.end(), {"delete", op.key, op.value_or_end, "-"}); break;
    }
  }
}

Argv txn_argv(const std::vector<EtcdCompare>& compares, const std::vector<EtcdOp>& success,
              const std::vector<EtcdOp>& failure) {
  Argv argv{"TXN", std::to_string(compares.size())};
  for (const EtcdCompare& c : compares) argv.insert(argv.end(), {target_name(c.target), c.key, c.op, c.operand});
  put_ops(argv, success);
  put_ops(argv, failure);
  return argv;
}

}  // namespace

// ---- etcd ----------------------------------------------------------------------

SimEtcdConn::SimEtcdConn(sim::Host& client, std::vector<sim::HostId> members, Duration timeout, std::size_t first)
    : client_(client), members_(std::move(members)), timeout_(timeout), current_(first % members_.size()) {}

Task<Reply> SimEtcdConn::call(Argv argv, Duration timeout) {
  ++calls_;
  sim::Connection& c = client_.world().network().connect(client_.id(), members_[current_]);
  Reply r = co_await c.call(std::move(argv), timeout);
  if (is_network_error(r)) current_ = (current_ + 1) % members_.size();  // the next endpoint
  co_return r;
}

Task<EtcdWrite> SimEtcdConn::put(std::string key, std::string value, std::int64_t lease) {
  Argv argv{"PUT", std::move(key), std::move(value), std::to_string(lease)};
  co_return decode_write(co_await call(std::move(argv), timeout_));
}

Task<EtcdRange> SimEtcdConn::range(std::string key, std::string range_end) {
  Argv argv{"RANGE", std::move(key), std::move(range_end)};
  co_return decode_range(co_await call(std::move(argv), timeout_));
}

Task<EtcdWrite> SimEtcdConn::delete_range(std::string key, std::string range_end) {
  Argv argv{"DELETERANGE", std::move(key), std::move(range_end)};
  co_return decode_write(co_await call(std::move(argv), timeout_));
}

Task<EtcdTxn> SimEtcdConn::txn(std::vector<EtcdCompare> compares, std::vector<EtcdOp> success,
                               std::vector<EtcdOp> failure) {
  const Reply r = co_await call(txn_argv(compares, success, failure), timeout_);
  EtcdTxn out;
  if (!shaped(r, 3)) {
    out.error = error_of(r);
    co_return out;
  }
  out.revision = r.elements[0].integer;
  out.succeeded = r.elements[1].integer == 1;
  const std::vector<EtcdOp>& taken = out.succeeded ? success : failure;
  const auto& replies = r.elements[2].elements;
  for (std::size_t i = 0; i < taken.size() && i < replies.size(); ++i)
    out.ranges.push_back(taken[i].kind == EtcdOp::Kind::Range ? decode_range(replies[i]) : EtcdRange{});
  co_return out;
}

Task<EtcdLease> SimEtcdConn::lease_grant(std::int64_t ttl_seconds) {
  Argv argv{"LEASEGRANT", std::to_string(ttl_seconds)};
  co_return decode_lease(co_await call(std::move(argv), timeout_));
}

Task<EtcdLease> SimEtcdConn::lease_keep_alive_once(std::int64_t id) {
  Argv argv{"LEASEKEEPALIVE", std::to_string(id)};
  co_return decode_lease(co_await call(std::move(argv), timeout_));
}

Task<CpStatus> SimEtcdConn::lease_revoke(std::int64_t id) {
  Argv argv{"LEASEREVOKE", std::to_string(id)};
  const EtcdWrite w = decode_write(co_await call(std::move(argv), timeout_));
  co_return CpStatus{w.error};
}

Task<EtcdDeleted> SimEtcdConn::wait_delete(std::string key, std::string range_end, std::int64_t start_revision,
                                           Duration timeout) {
  Argv argv{"WATCHDELETE", std::move(key), std::move(range_end), std::to_string(start_revision)};
  const Reply r = co_await call(std::move(argv), timeout);
  EtcdDeleted out;
  if (!shaped(r, 2)) out.error = error_of(r);
  else out = {{}, r.elements[0].integer, r.elements[1].str};
  co_return out;
}

// ---- ZooKeeper -----------------------------------------------------------------

SimZkConn::SimZkConn(sim::Host& client, std::vector<sim::HostId> members, std::size_t first)
    : client_(client), members_(std::move(members)), current_(first % members_.size()), rng_(client.rng().fork("zk-client")) {}

SimZkConn::~SimZkConn() { stop_background(); }

void SimZkConn::stop_background() {
  if (send_thread_ != 0) client_.cancel(send_thread_);
  send_thread_ = 0;
  for (const auto& [ticket, root] : pings_) client_.cancel(root);
  pings_.clear();
}

Duration SimZkConn::connect_timeout() const {
  return std::chrono::milliseconds(negotiated_ms_ / static_cast<std::int64_t>(members_.size()));
}

std::optional<std::string> SimZkConn::failure_of(const Reply& r) {
  if (is_network_error(r) || (r.is_error() && r.str == kZkConnectionLoss)) return std::string(kZkConnectionLoss);
  return std::nullopt;
}

Task<Reply> SimZkConn::send(Argv argv, Duration timeout) {
  ++calls_;
  const std::uint64_t generation = generation_;
  last_send_ = client_.monotonic_now();
  sim::Connection& c = client_.world().network().connect(client_.id(), members_[current_]);
  Reply r = co_await c.call(std::move(argv), timeout);
  if (generation == generation_ && !is_network_error(r)) last_recv_ = client_.monotonic_now();
  co_return r;
}

Task<Reply> SimZkConn::connect_to_current(std::int64_t session, std::int64_t timeout_ms) {
  Argv argv{"CONNECT", std::to_string(session), std::to_string(timeout_ms)};
  co_return co_await send(std::move(argv), connect_timeout());
}

void SimZkConn::connected(std::int64_t session, std::int64_t negotiated_ms) {
  session_ = session;
  negotiated_ms_ = negotiated_ms;
  state_ = ZkState::Connected;
  ++generation_;
  last_connected_ = current_;
  last_send_ = last_recv_ = client_.monotonic_now();
}

Task<CpStatus> SimZkConn::start(Duration session_timeout) {
  if (state_ == ZkState::Connected || state_ == ZkState::Disconnected) co_return CpStatus{};
  stop_background();  // an Expired handle: a new session (Curator, kazoo)
  session_ = 0;
  const std::int64_t wanted = to_ms(session_timeout);
  // Until the server says otherwise: connectTimeout = sessionTimeout / number of servers.
  negotiated_ms_ = wanted;
  for (std::size_t attempt = 0; attempt < 3 * members_.size(); ++attempt) {
    const Reply r = co_await connect_to_current(0, wanted);
    if (shaped(r, 2) && r.elements[1].integer > 0) {
      connected(r.elements[0].integer, r.elements[1].integer);
      send_thread_ = client_.spawn(send_thread());
      co_return CpStatus{};
    }
    current_ = (current_ + 1) % members_.size();
    co_await client_.sleep(std::chrono::milliseconds(rng_.below(1000)));
  }
  state_ = ZkState::NotStarted;
  co_return CpStatus{kZkConnectionLoss};
}

Duration SimZkConn::until_read_deadline() const {
  return last_recv_ + read_timeout() - client_.monotonic_now();
}

void SimZkConn::lose_connection(const std::string& why) {
  if (state_ != ZkState::Connected) return;
  state_ = ZkState::Disconnected;
  ++generation_;
  client_.world().note(client_.id(), "zk-client", "disconnected: " + why);
}

void SimZkConn::connection_failed(std::uint64_t generation, const std::string& why) {
  if (generation != generation_ || state_ != ZkState::Connected) return;
  lose_connection(why);
  // The send thread sleeps until its next ping or read deadline; the real
  // one sees the socket fail at once and reconnects now.
  if (send_thread_ != 0) client_.cancel(send_thread_);
  send_thread_ = client_.spawn(send_thread());
}

void SimZkConn::expire(const std::string& why) {
  if (state_ == ZkState::Expired) return;
  state_ = ZkState::Expired;
  ++generation_;
  client_.world().note(client_.id(), "zk-client", "session expired: " + why);
}

// ClientCnxn.SendThread.run: the read deadline from the last receive, a
// ping from the last send; sleeps until the earlier of the two.
Task<void> SimZkConn::send_thread() {
  while (state_ != ZkState::Expired) {
    if (state_ == ZkState::Disconnected) {
      co_await reconnect();
      continue;
    }
    const LocalInstant now = client_.monotonic_now();
    if (now - last_recv_ >= read_timeout()) {
      lose_connection("nothing received for " + std::to_string(to_ms(now - last_recv_)) + " ms");
      continue;
    }
    if (now - last_send_ >= ping_interval()) {
      last_send_ = now;
      const std::uint64_t ticket = next_ping_++;
      pings_[ticket] = client_.spawn(ping(ticket));
    }
    co_await client_.sleep(std::min(last_recv_ + read_timeout(), last_send_ + ping_interval()) - now);
  }
}

// Unanswered by the read deadline, a ping changes nothing: the send thread
// loses the connection then.
Task<void> SimZkConn::ping(std::uint64_t ticket) {
  const std::uint64_t generation = generation_;
  Argv argv{"PING", std::to_string(session_)};
  const Reply r = co_await send(std::move(argv), until_read_deadline());
  pings_.erase(ticket);
  if (generation != generation_ || (r.is_error() && r.str == kTimeoutError)) co_return;
  if (r.is_error() && r.str == kZkSessionExpired) expire("the server closed the session");
  else if (failure_of(r)) connection_failed(generation, "ping failed: " + r.str);
}

Task<void> SimZkConn::reconnect() {
  while (state_ == ZkState::Disconnected) {
    current_ = (current_ + 1) % members_.size();
    // StaticHostProvider.next(1000): every server tried since the last connection.
    if (current_ == last_connected_) co_await client_.sleep(std::chrono::seconds(1));
    co_await client_.sleep(std::chrono::milliseconds(rng_.below(1000)));  // startConnect
    const Reply r = co_await connect_to_current(session_, negotiated_ms_);
    if (shaped(r, 2) && r.elements[1].integer == 0) {
      // "Unable to reconnect to ZooKeeper service, session ... has expired"
      expire("told on reconnect");
      co_return;
    }
    if (shaped(r, 2)) connected(session_, r.elements[1].integer);
  }
}

// ClientCnxn has no per-request timeout: a request waits for its answer
// or for the connection's loss, which fails every pending request
// (cleanAndNotifyState). Here the call waits until the read deadline it was
// sent under; unanswered then, the connection is lost (at the very instant
// the send thread would say so, when nothing else came meanwhile).
Task<Reply> SimZkConn::request(Argv argv) {
  if (state_ == ZkState::Expired) co_return Reply::error(kZkSessionExpired);
  if (state_ != ZkState::Connected) co_return Reply::error(kZkConnectionLoss);
  const std::uint64_t generation = generation_;
  Reply r = co_await send(std::move(argv), until_read_deadline());
  if (state_ == ZkState::Expired) co_return Reply::error(kZkSessionExpired);
  if (generation != generation_) co_return Reply::error(kZkConnectionLoss);  // an answer after the loss is not heard
  if (auto lost = failure_of(r)) {
    connection_failed(generation, "request failed: " + r.str);
    co_return Reply::error(*lost);
  }
  if (r.is_error() && r.str == kZkSessionExpired) expire("a request was refused");
  co_return r;
}

Task<ZkCreated> SimZkConn::create(std::string path, std::string data, std::string mode) {
  Argv argv{"CREATE", std::to_string(session_), std::move(path), std::move(data), std::move(mode)};
  const Reply r = co_await request(std::move(argv));
  ZkCreated out;
  if (!shaped(r, 2)) out.error = error_of(r);
  else out = {{}, r.elements[0].str, r.elements[1].integer};
  co_return out;
}

Task<CpStatus> SimZkConn::remove(std::string path, std::int64_t version) {
  Argv argv{"DELETE", std::to_string(session_), std::move(path), std::to_string(version)};
  const Reply r = co_await request(std::move(argv));
  co_return CpStatus{shaped(r, 1) ? "" : error_of(r)};
}

Task<ZkChildren> SimZkConn::get_children(std::string path) {
  Argv argv{"GETCHILDREN", std::to_string(session_), std::move(path)};
  const Reply r = co_await request(std::move(argv));
  ZkChildren out;
  if (r.type != Reply::Type::Array) out.error = error_of(r);
  else
    for (const Reply& e : r.elements) out.names.push_back(e.str);
  co_return out;
}

Task<ZkStat> SimZkConn::exists(std::string path) {
  Argv argv{"EXISTS", std::to_string(session_), std::move(path)};
  const Reply r = co_await request(std::move(argv));
  ZkStat out;
  if (r.is_nil()) co_return out;
  if (!shaped(r, 4)) out.error = error_of(r);
  else out = {{}, true, r.elements[0].integer, r.elements[1].integer, r.elements[2].integer, r.elements[3].integer};
  co_return out;
}

Task<CpStatus> SimZkConn::wait_delete(std::string path, Duration timeout) {
  if (state_ == ZkState::Expired) co_return CpStatus{kZkSessionExpired};
  if (state_ != ZkState::Connected) co_return CpStatus{kZkConnectionLoss};
  const std::uint64_t generation = generation_;
  // A watch is no request with a deadline: waiting it out is not a failure.
  // The wait ends at the read deadline too (the watcher hears Disconnected):
  // the caller looks at state() and waits again if still connected.
  Argv argv{"WATCHDELETE", std::to_string(session_), std::move(path)};
  const Reply r = co_await send(std::move(argv), std::min(timeout, until_read_deadline()));
  if (state_ == ZkState::Expired) co_return CpStatus{kZkSessionExpired};
  if (generation != generation_) co_return CpStatus{kZkConnectionLoss};
  if (r.is_error() && r.str == kTimeoutError) {
    if (until_read_deadline() <= Duration::zero()) {
      lose_connection("nothing received for " + std::to_string(to_ms(read_timeout())) + " ms");
      co_return CpStatus{kZkConnectionLoss};
    }
    co_return CpStatus{kZkWaitTimedOut};
  }
  if (failure_of(r)) {
    connection_failed(generation, "watch failed: " + r.str);
    co_return CpStatus{kZkConnectionLoss};
  }
  co_return CpStatus{shaped(r, 1) ? "" : error_of(r)};
}

}  // namespace locksim::locks
