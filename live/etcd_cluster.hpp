// EtcdCluster: a real etcd cluster for live mode and the tests — N `etcd`
// processes (members etcd-1..etcd-N) on free loopback ports, each with its
// own data directory, peers connected directly, clients through a proxy
// per member (live/cp_cluster.hpp has the process and proxy contract).
//
// Members are started as `etcd --name etcd-i --initial-cluster ...
// --initial-cluster-state new` with the scenario's heartbeat and election
// timeout (etcd's --heartbeat-interval / --election-timeout, ms); a member
// serves clients once its /health says true (etcd 3.4
// etcdserver/api/etcdhttp/metrics.go: a leader is known and a no-op
// request went through). A restart keeps the data directory, so the member
// rejoins with its WAL (etcd ignores --initial-cluster for an existing
// data dir). Clients use the v3 JSON gateway on the client port
// (live/etcd_http_client.hpp).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>

#include "live/cp_cluster.hpp"

namespace locksim::live {

struct EtcdClusterSpec {
  CpClusterOptions cluster{};
  std::filesystem::path binary{};  // empty: `etcd` on PATH
  std::chrono::milliseconds heartbeat{100};
  std::chrono::milliseconds election_timeout{1000};
};

// The etcd binary, or exit 2 naming what is missing.
Result<std::filesystem::path, LiveError> locate_etcd(const std::filesystem::path& requested);

class EtcdCluster final : public CpCluster {
 public:
  static Result<std::unique_ptr<EtcdCluster>, LiveError> start(const EtcdClusterSpec& spec);
  ~EtcdCluster() override = default;

 private:
  EtcdCluster(EtcdClusterSpec spec, std::filesystem::path binary)
      : CpCluster(spec.cluster, locks::Topology::Etcd, "etcd"), spec_(std::move(spec)), binary_(std::move(binary)) {}
  bool needs_election_port() const override { return false; }
  Result<bool, LiveError> prepare(const CpMember&) override { return true; }
  std::vector<std::string> command_line(const CpMember& m, bool restart) const override;
  bool serving(const CpMember& m) const override;

  EtcdClusterSpec spec_;
  std::filesystem::path binary_;
};

}  // namespace locksim::live
