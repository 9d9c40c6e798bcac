// EtcdCluster: etcd's command line for each member and its /health probe
// (etcd_cluster.hpp).
#include "live/etcd_cluster.hpp"

#include "live/process_group.hpp"

namespace locksim::live {

namespace fs = std::filesystem;

Result<fs::path, LiveError> locate_etcd(const fs::path& requested) {
  if (auto found = find_executable("etcd", requested)) return *found;
  if (!requested.empty()) return failure(LiveError{kBadInput, requested.string() + ": no executable etcd there"});
  return failure(
      LiveError{kBadInput, "etcd not found on PATH (install Debian's etcd-server, or run scripts/setup.sh)"});
}

Result<std::unique_ptr<EtcdCluster>, LiveError> EtcdCluster::start(const EtcdClusterSpec& spec) {
  auto binary = locate_etcd(spec.binary);
  if (!binary) return failure(binary.error());
  if (spec.cluster.members < 1) return failure(LiveError{kBadInput, "an etcd cluster needs at least one member"});
  std::unique_ptr<EtcdCluster> cluster(new EtcdCluster(spec, *binary));
  if (auto started = cluster->start_all(); !started) return failure(started.error());
  return cluster;
}

std::vector<std::string> EtcdCluster::command_line(const CpMember& m, bool) const {
  const auto url = [](int port) { return "http://127.0.0.1:" + std::to_string(port); };
  std::string initial;
  for (const auto& peer : members_) initial += (initial.empty() ? "" : ",") + peer.name + "=" + url(peer.peer_port);
  return {binary_.string(),
          "--name", m.name,
          "--data-dir", (m.dir / "data").string(),
          "--listen-client-urls", url(m.client_port),
          "--advertise-client-urls", url(m.client_port),
          "--listen-peer-urls", url(m.peer_port),
          "--initial-advertise-peer-urls", url(m.peer_port),
          "--initial-cluster", initial,
          "--initial-cluster-state", "new",
          "--initial-cluster-token", "locksim-live",
          "--heartbeat-interval", std::to_string(spec_.heartbeat.count()),
          "--election-timeout", std::to_string(spec_.election_timeout.count())};
}

bool EtcdCluster::serving(const CpMember& m) const {
  const std::string reply = loopback_roundtrip(m.client_port, "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", true);
  return reply.find("\"health\":\"true\"") != std::string::npos;
}

}  // namespace locksim::live
