// A live client's etcd and ZooKeeper connections as steps of that client:
// LiveEtcdConn and LiveZkConn wrap the real clients (EtcdHttpConn,
// ZkCClientConn) so that, as each Redis command of LiveRuntime's ShardConn
// is, every call is a point where the client's GC pause holds it (before
// the request and after the reply), where a crashed client unwinds, and
// which fails at once after the run has ended (so a lock's retry loop gives
// up promptly). The lock code (locks/etcd_*, locks/zk_*) calls them through
// Runtime::service<EtcdConn>() / service<ZkConn>() and cannot tell them from
// the simulated ones. The live service rows make them (live_service_table.hpp).
//
// The keep-alive loop of an etcd session runs on a spawned thread; its
// calls come through here too, so a pause of the client pauses its
// keep-alives, as a stopped process's would be. ZooKeeper's C client pings
// from its own I/O thread, which no step reaches: the live runner holds the
// paused client's links on every member's proxy instead (live_clients.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "live/live_runtime.hpp"
#include "locks/cp_client.hpp"

namespace locksim::live {

class LiveEtcdConn final : public locks::EtcdConn {
 public:
  LiveEtcdConn(LiveWorld& world, std::size_t client, std::unique_ptr<locks::EtcdConn> real)
      : world_(world), client_(client), real_(std::move(real)) {}

  Task<locks::EtcdWrite> put(std::string key, std::string value, std::int64_t lease) override;
  Task<locks::EtcdRange> range(std::string key, std::string range_end) override;
  Task<locks::EtcdWrite> delete_range(std::string key, std::string range_end) override;
  Task<locks::EtcdTxn> txn(std::vector<locks::EtcdCompare> compares, std::vector<locks::EtcdOp> success,
                                  std::vector<locks::EtcdOp> failure) override;
  Task<locks::EtcdLease> lease_grant(std::int64_t ttl_seconds) override;
  Task<locks::EtcdLease> lease_keep_alive_once(std::int64_t id) override;
  Task<locks::CpStatus> lease_revoke(std::int64_t id) override;
  Task<locks::EtcdDeleted> wait_delete(std::string key, std::string range_end, std::int64_t start_revision,
                                              Duration timeout) override;

 private:
  LiveWorld& world_;
  std::size_t client_;
  std::unique_ptr<locks::EtcdConn> real_;
};

class LiveZkConn final : public locks::ZkConn {
 public:
  LiveZkConn(LiveWorld& world, std::size_t client, std::unique_ptr<locks::ZkConn> real)
      : world_(world), client_(client), real_(std::move(real)) {}

  Task<locks::CpStatus> start(Duration session_timeout) override;
  locks::ZkState state() const override { return real_->state(); }
  std::int64_t session_id() const override { return real_->session_id(); }
  Task<locks::ZkCreated> create(std::string path, std::string data, std::string mode) override;
  Task<locks::CpStatus> remove(std::string path, std::int64_t version) override;
  Task<locks::ZkChildren> get_children(std::string path) override;
  Task<locks::ZkStat> exists(std::string path) override;
  Task<locks::CpStatus> wait_delete(std::string path, Duration timeout) override;

 private:
  LiveWorld& world_;
  std::size_t client_;
  std::unique_ptr<locks::ZkConn> real_;
};

}  // namespace locksim::live
