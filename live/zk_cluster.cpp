// ZkCluster: each member's zoo.cfg and myid, the JVM's command line and the
// `srvr` probe (zk_cluster.hpp).
#include "live/zk_cluster.hpp"

#include <fstream>

#include "live/process_group.hpp"

namespace locksim::live {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDebianJar = "/usr/share/java/zookeeper.jar";
constexpr const char* kSlf4jSimple = "/usr/share/java/slf4j-simple.jar";

}  // namespace

Result<ZkRuntimeFiles, LiveError> locate_zookeeper(const fs::path& java, const fs::path& jar) {
  ZkRuntimeFiles files;
  auto found = find_executable("java", java);
  if (!found) {
    if (!java.empty()) return failure(LiveError{kBadInput, java.string() + ": no executable java there"});
    return failure(LiveError{kBadInput,
                             "ZooKeeper needs a Java runtime: java not found on PATH (install default-jre-headless, "
                             "or run scripts/setup.sh)"});
  }
  files.java = *found;
  files.jar = jar.empty() ? fs::path(kDebianJar) : jar;
  std::error_code ec;
  if (!fs::is_regular_file(files.jar, ec))
    return failure(
        LiveError{kBadInput, files.jar.string() + " not found (install Debian's zookeeper, or run scripts/setup.sh)"});
  return files;
}

Result<std::unique_ptr<ZkCluster>, LiveError> ZkCluster::start(const ZkClusterSpec& spec) {
  auto files = locate_zookeeper(spec.java, spec.jar);
  if (!files) return failure(files.error());
  if (spec.cluster.members < 1) return failure(LiveError{kBadInput, "a ZooKeeper ensemble needs at least one member"});
  std::unique_ptr<ZkCluster> cluster(new ZkCluster(spec, *files));
  if (auto started = cluster->start_all(); !started) return failure(started.error());
  return cluster;
}

std::string ZkCluster::connect_string(const std::vector<std::string>& endpoints) {
  std::string out;
  for (const auto& e : endpoints) out += (out.empty() ? "" : ",") + e;
  return out;
}

Result<bool, LiveError> ZkCluster::prepare(const CpMember& m) {
  const std::size_t id = static_cast<std::size_t>(&m - members_.data()) + 1;
  std::ofstream cfg(m.dir / "zoo.cfg", std::ios::trunc);
  cfg << "tickTime=" << spec_.tick.count() << "\n"
      << "initLimit=10\nsyncLimit=5\n"
      << "dataDir=" << (m.dir / "data").string() << "\n"
      << "clientPort=" << m.client_port << "\nclientPortAddress=127.0.0.1\n"
      << "admin.enableServer=false\n4lw.commands.whitelist=srvr,ruok\n";
  if (members_.size() > 1)
    for (std::size_t i = 0; i < members_.size(); ++i)
      cfg << "server." << i + 1 << "=127.0.0.1:" << members_[i].peer_port << ":" << members_[i].election_port << "\n";
  fs::create_directories(m.dir / "data");
  std::ofstream myid(m.dir / "data" / "myid", std::ios::trunc);
  myid << id << "\n";
  if (!cfg || !myid) return failure(LiveError{kInternal, m.name + ": cannot write its zoo.cfg in " + m.dir.string()});
  return true;
}

std::vector<std::string> ZkCluster::command_line(const CpMember& m, bool) const {
  std::string classpath = files_.jar.string();
  std::error_code ec;
  if (fs::is_regular_file(kSlf4jSimple, ec)) classpath += std::string(":") + kSlf4jSimple;
  return {files_.java.string(),
          "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",  // small and quick to start: 2 shared cores
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
          "-Dzookeeper.admin.enableServer=false",
          "-cp", classpath,
          "org.apache.zookeeper.server.quorum.QuorumPeerMain", (m.dir / "zoo.cfg").string()};
}

bool ZkCluster::serving(const CpMember& m) const {
  return loopback_roundtrip(m.client_port, "srvr", true).find("Mode: ") != std::string::npos;
}

}  // namespace locksim::live
