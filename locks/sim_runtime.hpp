// SimRuntime: the Runtime a lock sees inside the simulator.
//
// Clocks are the client host's local clocks (drift, steps), sleeps run on its
// monotonic clock, tokens and jitter come from its own RNG streams, and each
// command travels the simulated network to whichever host is *currently*
// node i (so clients follow a failover), with the scenario's command
// timeout. A network failure comes back as an error reply.
#pragma once

#include <functional>
#include <vector>

#include "locks/runtime.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

namespace locksim::locks {

class SimRuntime final : public Runtime {
 public:
  // Maps a node index to the host that serves it right now.
  using Directory = std::function<sim::HostId(std::size_t node)>;

  SimRuntime(sim::Host& client, std::size_t nodes, Directory directory, Duration command_timeout);

  LocalInstant monotonic_now() override { return client_.monotonic_now(); }
  LocalInstant wall_now() override { return client_.wall_now(); }
  Task<void> sleep(Duration d) override;
  std::string random_token() override;
  void append_random_token(std::string& out) override;
  std::uint64_t random_below(std::uint64_t n) override { return jitter_.below(n); }
  RedisConn& conn(std::size_t node) override { return conns_[node]; }
  std::size_t node_count() const override { return conns_.size(); }
  std::uint64_t spawn(Task<void> task) override { return client_.spawn(std::move(task)); }
  void cancel(std::uint64_t id) override { client_.cancel(id); }

  // The client's connection to the scenario's service on a CP topology
  // (made by the service's row, owned by the caller, outliving this runtime).
  void attach_service(ServiceConn* conn) { service_ = conn; }
  ServiceConn* service_conn() override { return service_; }

  sim::Host& host() { return client_; }
  // The host that serves node `node` right now (it follows a failover).
  sim::HostId node_host(std::size_t node) const { return directory_(node); }
  Duration command_timeout() const { return timeout_; }

 private:
  class Conn final : public RedisConn {
   public:
    Conn(SimRuntime& rt, std::size_t node) : rt_(&rt), node_(node) {}
    Task<Reply> command(Argv argv) override { return command(std::move(argv), rt_->timeout_); }
    Task<Reply> command(Argv argv, Duration timeout) override;

   private:
    SimRuntime* rt_;
    std::size_t node_;
  };

  sim::Host& client_;
  Directory directory_;
  Duration timeout_;
  sim::Rng tokens_;
  sim::Rng jitter_;
  std::vector<Conn> conns_;
  ServiceConn* service_ = nullptr;
};

}  // namespace locksim::locks
