// CpCluster: what the live etcd cluster (live/etcd_cluster.hpp) and the
// live ZooKeeper ensemble (live/zk_cluster.hpp) share — N member processes
// on free loopback ports, each with its own data directory inside one
// temporary directory, a TcpProxy per member for the clients, the process
// faults, and a stop that always reaps.
//
// It follows RedisCluster (live/redis_cluster.hpp): the temporary
// directory is `$TMPDIR/locksim-live-XXXXXX` with an owner file, so a later
// run removes it if this process is SIGKILLed (live/live_leftovers.hpp);
// every member runs in its own process group with PR_SET_PDEATHSIG, ignores
// SIGINT (Ctrl-C is locksim's: it tears the cluster down), and is stopped
// by SIGCONT, SIGTERM, SIGKILL after a grace period and waitpid. Every wait
// has a deadline. Members come up together (a quorum needs several), so a
// start spawns them all, then waits until every member says it serves
// clients; a member that exits first (a lost port race) makes the whole
// start retry on fresh ports.
//
// Peers talk to each other directly; clients reach member i through their
// own listener on its proxy (client_endpoints), so the proxy's delays and
// partitions act between clients and members, as for Redis.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "live/redis_cluster.hpp"  // LiveError, free_loopback_port
#include "live/tcp_proxy.hpp"
#include "locks/registry.hpp"
#include "vocab/result.hpp"

namespace locksim::live {

struct CpMember {
  std::string name;  // "etcd-1", "zk-1"
  int client_port = 0;
  int peer_port = 0;
  int election_port = 0;  // ZooKeeper's leader election port (0 for etcd)
  pid_t pid = -1;         // -1: down
  std::filesystem::path dir;
};

struct CpClusterOptions {
  int members = 1;
  std::vector<std::string> clients{};  // a proxy listener for each on every member
  // Three JVMs starting on a loaded 2-core machine (load ~25) once took
  // longer than 30 s; the deadline only matters when a member never serves.
  std::chrono::milliseconds start_deadline{60000};
  // Set (non-zero) by a signal handler: stop waiting for members at once.
  const std::atomic<int>* interrupted = nullptr;
};

// An executable named `name` on PATH, /usr/bin, /usr/sbin or
// /usr/local/bin, or `requested` if given; nullopt when there is none.
std::optional<std::filesystem::path> find_executable(const std::string& name, const std::filesystem::path& requested);

class CpCluster : public LiveServers {
 public:
  ~CpCluster() override;
  CpCluster(const CpCluster&) = delete;
  CpCluster& operator=(const CpCluster&) = delete;

  std::size_t size() const { return members_.size(); }
  const CpMember& member(std::size_t i) const { return members_[i]; }
  std::optional<std::size_t> find(const std::string& name) const override;
  // LiveServers (live_servers.hpp): the members; they talk to each other
  // directly, so no proxy carries a link between two of them.
  std::size_t server_count() const override { return members_.size(); }
  const std::string& server_name(std::size_t i) const override { return members_[i].name; }
  bool server_up(std::size_t i) const override { return members_[i].pid > 0; }
  std::optional<LinkRoute> server_link(std::size_t, std::size_t) const override { return std::nullopt; }
  // "127.0.0.1:port" of every member's client port (no proxy).
  std::vector<std::string> endpoints() const;
  // "127.0.0.1:port" of the client's listener on every member's proxy.
  std::vector<std::string> client_endpoints(const std::string& client) const;
  TcpProxy& proxy(std::size_t i) const override { return *proxies_[i]; }

  // Process faults (main thread only).
  void pause(std::size_t i) override;   // SIGSTOP
  void resume(std::size_t i) override;  // SIGCONT
  void kill9(std::size_t i) override;   // SIGKILL + reap
  // Starts the member again on its ports and data directory and waits until
  // it serves clients (with a majority of the others up).
  Result<bool, LiveError> restart(std::size_t i) override;

  // A member that exited although no fault killed it, if any.
  std::optional<std::string> died_unexpectedly() override;
  void stop_all() override;
  // The end of a live run, whose data directories go with the cluster:
  // SIGKILL every member at once. A graceful stop would cost seconds for
  // nothing — etcd's leader, on SIGTERM, first tries to hand its leadership
  // to peers that are stopping too (etcdserver TransferLeadership) until
  // the 5 s grace ends in SIGKILL anyway.
  void discard_all();
  std::vector<pid_t> pids() const;

 protected:
  CpCluster(CpClusterOptions options, locks::Topology topology, std::string what)
      : options_(std::move(options)), topology_(topology), what_(std::move(what)) {}
  // Creates the directory and members, starts them and their proxies.
  Result<bool, LiveError> start_all();

  // What a derived cluster says about its members.
  virtual bool needs_election_port() const = 0;
  // Writes the member's configuration files before each (re)start.
  virtual Result<bool, LiveError> prepare(const CpMember& m) = 0;
  virtual std::vector<std::string> command_line(const CpMember& m, bool restart) const = 0;
  // Whether the member answers as a member that serves clients.
  virtual bool serving(const CpMember& m) const = 0;
  // The last line of the member's log, for an error message.
  std::string log_tail(const CpMember& m) const;

  CpClusterOptions options_;
  std::vector<CpMember> members_;

 private:
  Result<bool, LiveError> start_members_once();
  bool spawn(CpMember& m, bool restart);
  bool wait_serving(const std::vector<std::size_t>& which, std::string& failed);
  void stop_member(CpMember& m);
  bool interrupted() const { return options_.interrupted && options_.interrupted->load() != 0; }

  locks::Topology topology_;  // Etcd or ZooKeeper: names the members as the simulator does
  std::string what_;    // "etcd", "ZooKeeper": for messages
  std::filesystem::path dir_;
  std::vector<std::unique_ptr<TcpProxy>> proxies_;
};

}  // namespace locksim::live
