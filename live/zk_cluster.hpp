// ZkCluster: a real ZooKeeper ensemble for live mode and the tests — N
// JVMs running org.apache.zookeeper.server.quorum.QuorumPeerMain (members
// zk-1..zk-N) on free loopback ports, each with its own zoo.cfg, myid and
// data directory; peers talk directly (quorum and election ports), clients
// through a proxy per member (live/cp_cluster.hpp has the process and
// proxy contract).
//
// One member runs standalone (no server.N lines, as zkServer.sh would);
// more form an ensemble (server.N=127.0.0.1:quorum:election). tickTime is
// the scenario's tick, so the session timeouts the ensemble negotiates are
// clamped to 2..20 ticks as in ZooKeeper (ZooKeeperServer
// minSessionTimeout/maxSessionTimeout defaults). A member serves clients
// once the `srvr` four-letter word names its mode (leader, follower or
// standalone; before that it answers "not currently serving requests").
// The admin HTTP server is off. Debian's zookeeper.jar carries its
// dependencies in its manifest's Class-Path; slf4j-simple, if present,
// makes warnings reach the member's log.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>

#include "live/cp_cluster.hpp"

namespace locksim::live {

struct ZkClusterSpec {
  CpClusterOptions cluster{};
  std::filesystem::path java{};  // empty: `java` on PATH
  std::filesystem::path jar{};   // empty: /usr/share/java/zookeeper.jar
  std::chrono::milliseconds tick{2000};
};

struct ZkRuntimeFiles {
  std::filesystem::path java, jar;
};

// java and zookeeper.jar, or exit 2 naming what is missing.
Result<ZkRuntimeFiles, LiveError> locate_zookeeper(const std::filesystem::path& java, const std::filesystem::path& jar);

class ZkCluster final : public CpCluster {
 public:
  static Result<std::unique_ptr<ZkCluster>, LiveError> start(const ZkClusterSpec& spec);
  ~ZkCluster() override = default;
  // "127.0.0.1:p1,127.0.0.1:p2,...": a connect string for the C client.
  static std::string connect_string(const std::vector<std::string>& endpoints);

 private:
  ZkCluster(ZkClusterSpec spec, ZkRuntimeFiles files)
      : CpCluster(spec.cluster, locks::Topology::ZooKeeper, "ZooKeeper"), spec_(std::move(spec)), files_(std::move(files)) {}
  bool needs_election_port() const override { return members_.size() > 1; }
  Result<bool, LiveError> prepare(const CpMember& m) override;
  std::vector<std::string> command_line(const CpMember& m, bool restart) const override;
  bool serving(const CpMember& m) const override;

  ZkClusterSpec spec_;
  ZkRuntimeFiles files_;
};

}  // namespace locksim::live
