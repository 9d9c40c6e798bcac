// WireBridge: simulated Redis nodes answering real client processes, in
// real time — the groundwork of issue 39 before a client's clocks are put
// under the simulator.
//
// It owns a sim::World with `nodes` RedisNodes, each behind a
// SimSocketServer on its own loopback port. Each socket connection becomes
// a simulated client host ("wire-<node>-<connection>") with its own
// simulated Connection to the node, so CLIENT ID/SETNAME are per socket as
// on a real server. step() reads the sockets, sends each new command over
// the simulated network at the current simulated time (latency, delays and
// partitions act on it), advances simulated time to the real time elapsed
// since the bridge started, and writes every reply that arrived, in order.
// A reset (the node crashed, or a connection reset in the simulated network)
// resets the socket. The bridge is single-threaded: the test or tool that
// owns it calls step() in a loop.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "hosted/sim_socket_server.hpp"
#include "sim/redis/node.hpp"
#include "sim/world.hpp"

namespace locksim::hosted {

struct WireBridgeOptions {
  std::uint64_t seed = 1;
  std::size_t nodes = 1;
  sim::redis::NodeConfig node;
  sim::LatencyModel latency = sim::LatencyModel::fixed(std::chrono::microseconds(100));
};

class WireBridge {
 public:
  explicit WireBridge(WireBridgeOptions options = {});
  ~WireBridge();
  WireBridge(const WireBridge&) = delete;
  WireBridge& operator=(const WireBridge&) = delete;

  int port(std::size_t node) const { return servers_.at(node)->port(); }
  sim::World& world() { return world_; }
  sim::redis::RedisNode& node(std::size_t i) { return *nodes_.at(i); }
  // One round: sockets in, simulated time forward to real elapsed time,
  // replies out. Waits up to max_wait_ms for socket activity first.
  void step(int max_wait_ms);
  // A process crash of node i: its sockets are reset, and it restarts.
  void crash_node(std::size_t i);
  std::uint64_t commands_forwarded() const { return forwarded_; }
  // The simulated client host of a socket connection, once it sent a
  // command (for faults: partitions, delays, pauses act on its packets).
  std::optional<sim::HostId> client_of(std::size_t node, std::uint64_t connection) const;

  // Where a command's reply goes (public for the forwarding coroutine).
  struct Destination {
    std::size_t node;
    std::uint64_t connection;
    std::uint64_t seq;
  };
  void deliver(const Destination& to, const Argv& argv, Reply reply);

 private:
  void forward(std::size_t node, WireCommand command);
  sim::Host& client_host(std::size_t node, std::uint64_t connection);

  sim::World world_;
  std::vector<std::unique_ptr<sim::redis::RedisNode>> nodes_;
  std::vector<std::unique_ptr<SimSocketServer>> servers_;
  std::map<std::pair<std::size_t, std::uint64_t>, sim::HostId> clients_;
  std::chrono::steady_clock::time_point started_;
  std::uint64_t forwarded_ = 0;
};

}  // namespace locksim::hosted
