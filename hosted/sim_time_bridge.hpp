// SimTimeBridge: real client processes against simulated Redis nodes, all
// in simulated time (issue 39's model, Shadow's: "the CPU is infinitely
// fast"). Each client is a simulated host ("A", "B", ...) and one real
// process run under liblocksim_simtime.so (ControlledProcess): its clocks
// are its host's local clocks, and each of its waits stops it. The client
// reaches node n through a loopback socket of its own (SimSocketServer, one
// per client and node), so every command it sends leaves its own host and
// travels the simulated network (latency, delays, partitions, its host's
// pauses act on it); the reply is written to its socket when it arrives.
//
// Each client is a HostedClient (hosted_client.hpp). The loop: every
// process that may run runs until it blocks (client order);
// the commands it wrote are sent at the current simulated instant; then
// the world runs its next instant's events (a reply, a deadline, a fault),
// which make processes runnable again. Simulated time moves only when
// every process is blocked. A process's deadline is a sleep on its host
// (a pause defers it, a crash drops it); a pause of the host is a process
// that is simply not resumed. Same seed, same program: same trace digest.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hosted/hosted_client.hpp"
#include "hosted/wire_bridge.hpp"
#include "sim/redis/node.hpp"
#include "sim/world.hpp"

namespace locksim::hosted {

// The world's settings as the real-time bridge's, and the shim's.
struct SimTimeBridgeOptions : WireBridgeOptions {
  std::string preload;                     // liblocksim_simtime.so
  std::chrono::milliseconds bound{10000};  // real time a process may run without blocking
};

class SimTimeBridge {
 public:
  explicit SimTimeBridge(SimTimeBridgeOptions options);
  ~SimTimeBridge();
  SimTimeBridge(const SimTimeBridge&) = delete;
  SimTimeBridge& operator=(const SimTimeBridge&) = delete;

  // A client host and its sockets (one per node); its process starts with start().
  std::size_t add_client(const std::string& name);
  int port(std::size_t client, std::size_t node) const;
  // Starts the client's program now (argv, env as ProcessSpec; the clocks,
  // seed, preload and bound are the bridge's).
  void start(std::size_t client, std::vector<std::string> argv,
             std::vector<std::pair<std::string, std::string>> env = {}, int stdout_fd = -1);

  // Runs until every process has ended, a process was refused, or `until`.
  void run(TrueInstant until);
  const ClientEnd& end(std::size_t client) const;
  bool refused() const;

  sim::World& world() { return world_; }
  sim::Host& client_host(std::size_t client);
  sim::redis::RedisNode& node(std::size_t i) { return *nodes_.at(i); }

 private:
  SimTimeBridgeOptions options_;
  sim::World world_;
  std::vector<std::unique_ptr<sim::redis::RedisNode>> nodes_;
  std::vector<std::unique_ptr<HostedClient>> clients_;
};

}  // namespace locksim::hosted
