// MonitorFeed: one redis-server's MONITOR stream, command by command — what
// live mode reads to see which connection ran which command on a server it
// does not drive itself (a client library's own connections).
//
// Each line is what redis-server 7.0 writes in replicationFeedMonitors
// (src/replication.c): "<sec>.<usec> [<db> <client address>] "arg" ...",
// the address "lua" for a command a script ran, every argument escaped by
// sdscatrepr — split back here by hiredis's sdssplitargs, its inverse. A
// server feeds its monitors from call(), so a command it refused before
// running it (READONLY on a replica, NOREPLICAS, OOM) is not in the stream;
// what a replica applies from its master is, from the master link's
// address; a script's EVAL comes before the commands it ran (all checked
// against redis-server 7.0.15 in tests/test_external.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "vocab/reply.hpp"
#include "vocab/result.hpp"

struct redisContext;

namespace locksim::locks {

struct MonitoredCommand {
  std::int64_t time_us = 0;  // the server's own wall clock (gettimeofday) when it ran
  std::string source;        // "127.0.0.1:54321", or "lua" inside a script
  Argv argv;
  // The client's local port when the source is a TCP address, else 0.
  int source_port() const;
};

// One line as MONITOR sends it (without the leading '+'); nullopt if it is
// not one (the "OK" that answers MONITOR itself, say).
std::optional<MonitoredCommand> parse_monitor_line(std::string_view line);

class MonitorFeed {
 public:
  // Connects and sends MONITOR. Error: why, one line.
  static Result<std::unique_ptr<MonitorFeed>, std::string> open(const std::string& host, int port,
                                                                std::chrono::milliseconds connect_timeout);
  ~MonitorFeed();
  MonitorFeed(const MonitorFeed&) = delete;
  MonitorFeed& operator=(const MonitorFeed&) = delete;

  // The next command, waiting at most `timeout` (nullopt: none came).
  // Error: the connection ended (the server died or closed it).
  Result<std::optional<MonitoredCommand>, std::string> next(std::chrono::milliseconds timeout);
  // The socket, to poll several feeds at once.
  int fd() const;

 private:
  explicit MonitorFeed(redisContext* context) : context_(context) {}
  redisContext* context_;
};

}  // namespace locksim::locks
