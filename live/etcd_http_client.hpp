// EtcdHttpConn: the CP client interface EtcdConn (locks/cp_client.hpp) over
// a real etcd's v3 JSON gateway (grpc-gateway on the client port), with
// libcurl — so etcd-mutex and etcd-fenced run unchanged against real etcd.
//
// Requests are POSTs of the protobuf messages in JSON (keys and values
// base64, int64 as strings; proto3 JSON leaves out zero fields, so a
// missing field reads as 0 / false / empty):
//   put          /v3/kv/put            range       /v3/kv/range
//   delete_range /v3/kv/deleterange    txn         /v3/kv/txn
//   lease_grant  /v3/lease/grant       lease_revoke /v3/lease/revoke
//   lease_keep_alive_once  /v3/lease/keepalive (one request, one answer;
//                          TTL 0 for a lease that is gone, as clientv3 sees)
//   wait_delete  /v3/watch: a streaming POST of a WatchCreateRequest
//                (start_revision, filters NOPUT); the stream is read until
//                its first DELETE event, then closed — a real watch, not
//                polling, so the revision of the deletion is etcd's own.
// An error answer is {"error": text, "code": n}: the text (e.g.
// "etcdserver: requested lease not found") becomes the reply's error, as
// clientv3 surfaces rpctypes errors. A transport failure (refused, reset,
// timeout) is an error "IOERR locksim: ..." and, like clientv3's balancer,
// moves the connection to the next endpoint; the request may have run.
// A watch that sees no deletion within its timeout answers
// kTimeoutError, as the simulated client does.
//
// Thread-safe: every call uses its own curl handle (a lock's keep-alive
// loop runs on another thread while the owner waits in a watch), so calls
// never queue behind each other.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "locks/cp_client.hpp"

namespace locksim::live {

class EtcdHttpConn final : public locks::EtcdConn {
 public:
  // endpoints: "127.0.0.1:port" of each member (or its proxy listener).
  EtcdHttpConn(std::vector<std::string> endpoints, std::chrono::milliseconds timeout);

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

  std::uint64_t calls() const { return calls_.load(); }

  // The reply body of one POST (or why there is none).
  struct Answer {
    std::string transport_error;  // empty = an HTTP answer came
    std::string body;
  };

 private:
  Answer post(const std::string& path, const std::string& json, std::chrono::milliseconds timeout);

  std::vector<std::string> endpoints_;
  std::chrono::milliseconds timeout_;
  std::atomic<std::size_t> current_{0};
  std::atomic<std::uint64_t> calls_{0};
};

}  // namespace locksim::live
