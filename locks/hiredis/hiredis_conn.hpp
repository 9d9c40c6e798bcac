// HiredisConn: a RedisConn over one blocking hiredis connection to a real
// redis-server (docs/architecture.md, "One lock implementation, two runtimes").
//
// This file pair and monitor_feed.* are the only places that include
// <hiredis/hiredis.h>. Failures never throw and never hang: a refused
// connection, a command timeout, a reset or EOF comes back as an error reply
// (text "IOERR locksim: ...") and the connection is dropped, to be reopened
// lazily by the next command. A timed-out command may still have executed
// on the server, exactly as on the simulated network.
//
// Authentication follows redis-cli: if the environment variable
// REDISCLI_AUTH is set, `AUTH <password>` is sent after every (re)connect.
// Passwords are never taken from argv.
//
// One mutex per connection serialises commands, so a background task on
// another thread (RealRuntime::spawn) may share it. command() completes
// synchronously: the returned Task never suspends, so locksim::sync_wait runs it.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "locks/runtime.hpp"

struct redisContext;  // hiredis' connection type, kept out of this header

namespace locksim::locks {

struct HiredisOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::chrono::milliseconds connect_timeout{1000};
  std::chrono::milliseconds command_timeout{1000};
};

// The replies of a pipeline, in order; fewer than sent when it failed.
struct PipelineReplies {
  std::vector<Reply> replies;
  Reply error;           // why it stopped early (nil when every reply came)
  std::size_t owed = 0;  // replies still due after a timeout (read_owed collects them)
};

class HiredisConn final : public RedisConn {
 public:
  explicit HiredisConn(HiredisOptions options);
  ~HiredisConn() override;
  HiredisConn(const HiredisConn&) = delete;
  HiredisConn& operator=(const HiredisConn&) = delete;

  Task<Reply> command(Argv argv) override;
  // With a per-call timeout (Redlock's short per-node timeout) in place of
  // the connection's command timeout, rounded up to whole milliseconds; it
  // also caps the connect timeout and bounds AUTH when it has to reconnect.
  Task<Reply> command(Argv argv, Duration timeout) override;

  // The same, without the coroutine: sends argv and returns the reply.
  Reply execute(const Argv& argv);
  Reply execute(const Argv& argv, std::chrono::milliseconds timeout);

  // Sends every command in one write and reads the replies. On a timeout
  // the connection is kept with the rest owed: read_owed() may collect them
  // later (a request held in the network still runs); any other command
  // drops the connection first.
  PipelineReplies execute_pipeline(const std::vector<Argv>& commands, std::chrono::milliseconds timeout);
  PipelineReplies read_owed(std::chrono::milliseconds timeout);

  // Drops the connection now; the next command reconnects.
  void disconnect();

  const HiredisOptions& options() const { return options_; }

  // Prefix of every error reply this class makes up itself (as opposed to
  // the server's own errors), so callers and tests can tell them apart.
  static constexpr const char* io_error_prefix = "IOERR locksim: ";

 private:
  // All require mutex_ held.
  void drop_connection();
  // "" when connected, else why not.
  std::string ensure_connected(std::chrono::milliseconds connect_timeout,
                               std::chrono::milliseconds timeout);
  Reply io_error(const std::string& what);
  Reply send(const Argv& argv, std::chrono::milliseconds connect_timeout,
             std::chrono::milliseconds timeout);
  bool set_timeout(std::chrono::milliseconds timeout);
  void read_replies(PipelineReplies& out, std::size_t count);

  std::size_t owed_ = 0;  // replies of a timed-out pipeline not read yet

  HiredisOptions options_;
  std::mutex mutex_;
  redisContext* context_ = nullptr;
  std::chrono::milliseconds current_timeout_{0};  // what the socket is set to now
};

}  // namespace locksim::locks
