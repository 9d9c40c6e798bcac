// SimEtcdConn and SimZkConn: the CP client interfaces (locks/cp_client.hpp)
// over the simulated members of sim/consensus/, from a client host.
//
// SimEtcdConn sends each call to one member and, like clientv3's balancer,
// moves to the next endpoint when the connection fails (the call itself
// returns the error: the request may have executed).
//
// SimZkConn is the ZooKeeper client library's session logic, ZooKeeper
// 3.8's ClientCnxn (SendThread.run, onConnected, startConnect;
// StaticHostProvider.next). The C client (zookeeper.c zookeeper_interest)
// and kazoo (protocol/connection.py _connect_attempt) keep the same times:
//  - start() connects to a server and negotiates the session timeout T,
//    waiting connectTimeout = T / (number of servers) for each server;
//  - readTimeout = 2/3 T: the connection is lost when nothing has been
//    RECEIVED for readTimeout (any reply, ping answer or watch event
//    counts), whatever was sent meanwhile;
//  - a ping when nothing has been SENT for readTimeout/2 (a request is a
//    ping too); the send thread does not wait for its answer. A server that
//    stops answering (frozen, cut off) is therefore noticed readTimeout/2 ..
//    readTimeout after it stopped;
//  - a lost connection fails the calls waiting on it with ConnectionLoss
//    (cleanAndNotifyState: ClientCnxn has no per-request timeout; a request
//    waits for its answer or the connection's loss) and the handle is
//    Disconnected (KeeperState.Disconnected; Curator and kazoo: SUSPENDED).
//    Here a call waits until the read deadline it was sent under, and an
//    answer that comes after the loss is not heard. Simplification: a call
//    still unanswered at that deadline loses the connection even if other
//    answers came meanwhile (a write the server has not committed yet: the
//    real client would wait on), and a connection lost for another reason
//    (a ping answered ConnectionLoss) lets the calls on it wait out their
//    deadline instead of failing at once;
//  - it reconnects to the next server with its session id: a 1 s pause once
//    every server was tried since the last connection (StaticHostProvider
//    spinDelay), then a random 0..999 ms (startConnect, from the client's
//    own stream), then connectTimeout for the answer;
//  - a reconnect answered with negotiated timeout 0 means the session
//    expired (onConnected): the handle is Expired (Curator and kazoo: LOST)
//    and every call fails with SessionExpired; a ping answered
//    SessionExpired (the server dropped an expired session's connection)
//    expires it the same way. The client never decides expiry itself
//    (ZooKeeper 3.9's client-side expirationTimeout is not in 3.8);
//  - start() on an Expired handle makes a new session, as Curator's
//    ConnectionState.handleExpiredSession and kazoo's
//    KazooClient._session_callback (LOST, then _reset) do.
// So a client learns of its session's loss only when it can talk to the
// ensemble again, as with the real client. A paused client host pauses its
// send thread too. Both must be destroyed before their host.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "locks/cp_client.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

namespace locksim::locks {


class SimEtcdConn final : public EtcdConn {
 public:
  // `first`: the member this client talks to first.
  SimEtcdConn(sim::Host& client, std::vector<sim::HostId> members, Duration timeout, std::size_t first = 0);

  Task<EtcdWrite> put(std::string key, std::string value, std::int64_t lease) override;
  Task<EtcdRange> range(std::string key, std::string range_end) override;
  Task<EtcdWrite> delete_range(std::string key, std::string range_end) override;
  Task<EtcdTxn> txn(std::vector<EtcdCompare> compares, std::vector<EtcdOp> success,
                    std::vector<EtcdOp> failure) override;
  Task<EtcdLease> lease_grant(std::int64_t ttl_seconds) override;
  Task<EtcdLease> lease_keep_alive_once(std::int64_t id) override;
  Task<CpStatus> lease_revoke(std::int64_t id) override;
  Task<EtcdDeleted> wait_delete(std::string key, std::string range_end, std::int64_t start_revision,
                                Duration timeout) override;

  std::uint64_t calls() const { return calls_; }

 private:
  Task<Reply> call(Argv argv, Duration timeout);

  sim::Host& client_;
  std::vector<sim::HostId> members_;
  Duration timeout_;
  std::size_t current_;
  std::uint64_t calls_ = 0;
};

class SimZkConn final : public ZkConn {
 public:
  SimZkConn(sim::Host& client, std::vector<sim::HostId> members, std::size_t first = 0);
  ~SimZkConn() override;
  SimZkConn(const SimZkConn&) = delete;
  SimZkConn& operator=(const SimZkConn&) = delete;

  Task<CpStatus> start(Duration session_timeout) override;
  ZkState state() const override { return state_; }
  std::int64_t session_id() const override { return session_; }
  Task<ZkCreated> create(std::string path, std::string data, std::string mode) override;
  Task<CpStatus> remove(std::string path, std::int64_t version) override;
  Task<ZkChildren> get_children(std::string path) override;
  Task<ZkStat> exists(std::string path) override;
  Task<CpStatus> wait_delete(std::string path, Duration timeout) override;

  std::uint64_t calls() const { return calls_; }
  Duration session_timeout() const { return std::chrono::milliseconds(negotiated_ms_); }
  // ClientCnxn's int milliseconds: readTimeout = T * 2 / 3, pings after readTimeout / 2.
  Duration read_timeout() const { return std::chrono::milliseconds(negotiated_ms_ * 2 / 3); }
  Duration ping_interval() const { return std::chrono::milliseconds(std::max<std::int64_t>(negotiated_ms_ * 2 / 3 / 2, 1)); }
  Duration connect_timeout() const;

 private:
  // A request under the session: fails fast unless Connected; a network
  // failure or ConnectionLoss loses the connection.
  Task<Reply> request(Argv argv);
  // To the current server, counted; notes the last send and, for an answer
  // on the current connection, the last receive.
  Task<Reply> send(Argv argv, Duration timeout);
  Task<Reply> connect_to_current(std::int64_t session, std::int64_t timeout_ms);
  Task<void> send_thread();
  Task<void> ping(std::uint64_t ticket);
  Task<void> reconnect();
  void connected(std::int64_t session, std::int64_t negotiated_ms);
  // readTimeout after the last receive, from now (<= 0: past it).
  Duration until_read_deadline() const;
  // Connected -> Disconnected; what is answered on the old connection from
  // now on is not heard.
  void lose_connection(const std::string& why);
  // A call of connection `generation` failed: lose it and reconnect now.
  void connection_failed(std::uint64_t generation, const std::string& why);
  void expire(const std::string& why);
  void stop_background();
  static std::optional<std::string> failure_of(const Reply& r);

  sim::Host& client_;
  std::vector<sim::HostId> members_;
  std::size_t current_;
  std::size_t last_connected_ = 0;  // StaticHostProvider's lastIndex
  sim::Rng rng_;
  ZkState state_ = ZkState::NotStarted;
  std::int64_t session_ = 0;
  std::int64_t negotiated_ms_ = 0;
  std::uint64_t generation_ = 0;  // one per connection: a stale answer changes nothing
  LocalInstant last_send_{}, last_recv_{};
  std::uint64_t send_thread_ = 0;
  std::map<std::uint64_t, std::uint64_t> pings_;  // ticket -> root id, while in flight
  std::uint64_t next_ping_ = 0;
  std::uint64_t calls_ = 0;
};

}  // namespace locksim::locks
