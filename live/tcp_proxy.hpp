// TcpProxy: the network between live clients and one Redis node, with the
// simulator's link semantics (sim/network.hpp) applied to real TCP bytes.
//
// One proxy per Redis node, one loopback listener per *source* host (each
// client, each replica of the node): a connection accepted on a source's
// listener is that source's link to the node, so faults can name links the
// way a scenario does (`from = "A" to = "redis-1"`). Each link has two
// directions, ToServer (source -> node) and ToSource (node -> source):
//  - latency: a constant extra delay for every byte (replication lag);
//  - delay_next(d): the next bytes read on that direction wait d more and
//    everything behind them waits too (head-of-line, FIFO kept: a chunk is
//    released at max(read time + latency + delay, the previous release));
//  - cut(Hold): bytes due while cut stay buffered until heal; cut(Drop): they
//    are discarded (the sender sees a timeout, as in the simulator — no reset);
//    the cut is checked when the bytes are due, as the simulator checks it at
//    delivery;
//  - reset: closes the link's connections and loses what they buffered (a
//    master's replication buffer dies with the master).
// A connection whose one side closed stays open until the bytes queued
// toward the other side are delivered: a request held by a partition still
// arrives and runs after the client gave up, as on the simulated network.
//
// One thread runs a poll() loop over non-blocking sockets; a mutex guards the
// state, an eventfd wakes the loop on a control call. stop() (also the
// destructor) joins the thread and closes every fd; nothing in it blocks
// for long (the upstream connect is non-blocking too).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vocab/partition_mode.hpp"
#include "vocab/result.hpp"

namespace locksim::live {

enum class Flow { ToServer, ToSource };

// One more listener, shared by sources told apart by the address they
// connect from (each redis-server connects out from its own loopback
// address, `bind-source-addr`): the port a node announces
// (`replica-announce-port`), which Redis Sentinel hands to the other nodes.
// A connection from an address not listed is `otherwise`'s link.
struct SharedListener {
  std::vector<std::pair<std::string, std::string>> by_address;  // IPv4 address, source
  std::string otherwise;
};

class TcpProxy {
 public:
  // Binds a listener per source on 127.0.0.1 and starts forwarding to
  // upstream_host:upstream_port. Error: why (one line).
  static Result<std::unique_ptr<TcpProxy>, std::string> start(const std::string& upstream_host, int upstream_port,
                                                              const std::vector<std::string>& sources,
                                                              const std::optional<SharedListener>& shared = std::nullopt);
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  // The listening port of a source's link (0 if the source is unknown).
  int port(const std::string& source) const;
  bool has_source(const std::string& source) const;
  int shared_port() const;  // 0 without a SharedListener
  std::vector<std::string> sources() const;
  // Whose link a connection to the server came from, by the local port the
  // proxy's upstream connection had (the address the server shows for it,
  // e.g. in MONITOR); "" if no connection of this proxy had that port.
  std::string source_of_upstream_port(int port) const;

  void set_latency(const std::string& source, Flow flow, std::chrono::nanoseconds latency);
  void delay_next(const std::string& source, Flow flow, std::chrono::nanoseconds extra);
  // nullopt heals the link.
  void cut(const std::string& source, std::optional<PartitionMode> mode);
  void reset(const std::string& source);
  void stop();

 private:
  class Impl;
  explicit TcpProxy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace locksim::live
