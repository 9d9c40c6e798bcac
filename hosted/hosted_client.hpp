// HostedClient: one simulated client host and the real process that runs
// on it in simulated time (issue 39) — the piece SimTimeBridge and the
// runner's library locks (hosted/process_lock_host.hpp) share.
//
// The process runs under liblocksim_simtime.so (ControlledProcess): its
// clocks are its host's local clocks, and each of its waits stops it. It
// reaches node n through a loopback socket of its own (SimSocketServer, one
// per node), at an address that is the same in every run (127.0.0.1:6379+n,
// mapped by its shim to the socket's ephemeral port); what it wrote there
// leaves its host as simulated commands (send_commands) to whichever host
// serves node n now (the directory: a
// failover is followed), and each reply is written back when it arrives.
// A wait's deadline is a sleep on the host (its drift applies, a pause
// defers it, a crash drops it); a pause of the host is a process that is
// simply not resumed. The owner drives it: run() while it may run, then
// send_commands(), then the world's next instant.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hosted/controlled_process.hpp"
#include "hosted/sim_socket_server.hpp"
#include "sim/host.hpp"

namespace locksim::hosted {

// How a client's process ended, if it did.
struct ClientEnd {
  std::optional<int> exit_status;  // waitpid status, when it exited
  std::string refused;             // why the mechanism refused it ("" if not)
};

class HostedClient {
 public:
  // Maps a node index to the host that serves it right now.
  using Directory = std::function<sim::HostId(std::size_t node)>;

  HostedClient(sim::Host& host, std::size_t nodes, Directory directory);
  ~HostedClient();
  HostedClient(const HostedClient&) = delete;
  HostedClient& operator=(const HostedClient&) = delete;

  // The real port of node n's socket, and the address the process is told
  // (127.0.0.1:6379+n, the same in every run; its shim maps one to the other).
  int port(std::size_t node) const { return servers_.at(node)->port(); }
  std::string address(std::size_t node) const;
  sim::Host& host() { return *host_; }
  // Starts the program now (forked from `zygote` when given); the clocks
  // and the seed are filled in here (the seed from the world's stream
  // `seed_stream`).
  void start(ProcessSpec spec, const std::string& seed_stream, ControlledProcess* zygote = nullptr);
  // Runs the process while it may (not while its host is paused); whether
  // it ran.
  bool run();
  bool runnable() const { return runnable_ && !ended_; }
  // What it wrote to its sockets leaves its host now, in node, connection
  // and byte order. Only a process that ran since the last call wrote
  // anything: otherwise the sockets are not even looked at (an accept or a
  // read that finds nothing costs a system call each, per instant).
  void send_commands();
  // Bytes were written to its fd `fd` (a pipe): a wait on it ends.
  void input_ready(int fd);
  // The host crashed: the process is killed and its sockets reset.
  void kill();

  const ClientEnd& end() const { return end_; }
  bool ended() const { return ended_; }
  const std::optional<Blocked>& blocked() const { return blocked_; }
  const ControlledProcess* process() const { return process_.get(); }

  // Called by the world's events (public for the coroutines in the .cpp).
  void deliver(std::size_t node, std::uint64_t connection, std::uint64_t seq, Reply reply);
  void deadline_passed(std::uint64_t wait);

 private:
  void run_once();
  void on_blocked(const Blocked& b);
  void resume(bool timed_out);

  sim::Host* host_;
  Directory directory_;
  std::vector<std::unique_ptr<SimSocketServer>> servers_;  // one per node
  std::unique_ptr<ControlledProcess> process_;
  std::optional<Blocked> blocked_;  // the wait it is in, if any
  struct Resumed {
    bool timed_out = false;
    std::vector<int> fds;  // ready, when not timed out
  };
  std::optional<Resumed> resumed_;  // a wait that ended, not yet told (resume)
  bool runnable_ = false;
  bool ran_ = false;  // since the last send_commands
  std::uint64_t wait_ = 0;                   // the current wait's number: a stale deadline is ignored
  std::optional<std::uint64_t> deadline_id_;  // the host task that ends the current wait
  ClientEnd end_;
  bool ended_ = true;  // no process yet
};

}  // namespace locksim::hosted
