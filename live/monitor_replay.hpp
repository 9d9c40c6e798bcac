// MonitorReplay: which client changed which lock entry on the real Redis
// servers, seen from outside the clients — for a client library run in its
// own process (external_lock.hpp), whose commands locksim never sends.
//
// Every node's MONITOR stream (locks/hiredis/monitor_feed.hpp) is read on
// one thread; each command is attributed to the client whose proxy link
// carried it (TcpProxy::source_of_upstream_port: the address the server
// shows is the proxy's upstream connection) and run again on the node's
// KeyspaceReplay (scenarios/keyspace_replay.hpp), whose effects on the lock
// entries are the entry events. A server feeds its monitors only the
// commands it ran (not those it refused: READONLY, NOREPLICAS), so the
// replay runs what the server ran; a replica's stream also shows what it
// applied from its master (from the master link's address), replayed as a
// replica applies it and recorded as replicated.
//
// A restart's AOF is in no stream: when a node comes back, each lock key's
// replay takes what the server then holds (GET/PTTL), a lost entry
// recorded as expired.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "locks/hiredis/monitor_feed.hpp"
#include "scenarios/keyspace_replay.hpp"

namespace locksim::live {

class MonitorReplay {
 public:
  struct Node {
    std::string host;
    int port = 0;
    // The client (scenario index) a server-side port belongs to, if any.
    std::function<std::optional<std::size_t>(int port)> client_of_port;
    // Whether a server-side port is the node's link to its master.
    std::function<bool(int port)> is_master_link;
    // How far the node's wall clock (what MONITOR stamps) is ahead of the
    // real one now (a clock fault's step or drift); none: not at all.
    std::function<std::chrono::nanoseconds()> wall_offset;
  };
  struct Seen {
    std::size_t node = 0;
    scenarios::KeyspaceReplay::Effect effect;  // at the node's own wall time (its expiries follow it)
    std::int64_t real_time_us = 0;             // the same instant on the real wall clock, read as it arrived
  };

  MonitorReplay(std::vector<Node> nodes, const std::function<bool(const std::string&)>& is_lock_key);
  ~MonitorReplay();
  MonitorReplay(const MonitorReplay&) = delete;
  MonitorReplay& operator=(const MonitorReplay&) = delete;

  // Opens MONITOR on every node and starts reading. Error: why, one line.
  std::optional<std::string> start();
  // Stops reading and returns every lock entry event, per node in the
  // order the node ran the commands.
  std::vector<Seen> stop();

 private:
  struct Watched;
  void run();
  void drain(Watched& w);
  void replay(Watched& w, const locks::MonitoredCommand& c);
  void reopen(Watched& w);
  static std::int64_t offset_us(const Watched& w);

  std::vector<std::unique_ptr<Watched>> watched_;
  std::vector<Seen> seen_;  // the reading thread's until stop() joins it
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace locksim::live
