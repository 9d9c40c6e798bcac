// SimEtcdConn and SimZkConn: the CP client interfaces (locks/cp_client.hpp)
// over the simulated members of sim/consensus/, from a client host.
//
// SimEtcdConn sends each call to one member and, like clientv3's balancer,
// moves to the next endpoint when the connection fails (the call itself
// returns the error: the request may have executed).
//
// SimZkConn is the ZooKeeper client library's session logic (ClientCnxn):
//  - start() connects to a server and negotiates the session timeout;
//  - readTimeout = 2/3 of the negotiated timeout; a ping every
//    readTimeout/2 on the client's monotonic clock (ClientCnxn.SendThread:
//    `timeToNextPing = readTimeout / 2 - idleSend`);
//  - a ping or request that fails, or gets no answer within readTimeout,
//    disconnects the handle (KeeperState.Disconnected; Curator: SUSPENDED)
//    and it reconnects to the next server with its session id, waiting up
//    to 1 s between attempts as ClientCnxn does (a random sleep from the
//    client's own stream);
//  - a reconnect answered with negotiated timeout 0 means the session
//    expired (ClientCnxn.onConnected): the handle is Expired for good and
//    every call fails with SessionExpired;
//  - a ping answered SessionExpired (the server dropped an expired
//    session's connection) expires the handle the same way;
//  - while Disconnected, calls fail with ConnectionLoss.
// So a client learns of its session's loss only when it can talk to the
// ensemble again, as with the real client. A paused client host pauses its
// pings too. Both must be destroyed before their host.
#pragma once

#include <cstdint>
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
  Duration read_timeout() const { return std::chrono::milliseconds(negotiated_ms_ * 2 / 3); }

 private:
  // A request under the session: fails fast unless Connected; a network
  // failure or ConnectionLoss disconnects the handle.
  Task<Reply> request(Argv argv, Duration timeout);
  Task<Reply> send(Argv argv, Duration timeout);  // to the current server, counted
  Task<void> ping_loop();
  Task<void> reconnect();
  void disconnect();
  static std::optional<std::string> failure_of(const Reply& r);

  sim::Host& client_;
  std::vector<sim::HostId> members_;
  std::size_t current_;
  sim::Rng rng_;
  ZkState state_ = ZkState::NotStarted;
  std::int64_t session_ = 0;
  std::int64_t negotiated_ms_ = 0;
  std::uint64_t ping_root_ = 0;
  std::uint64_t calls_ = 0;
};

}  // namespace locksim::locks
