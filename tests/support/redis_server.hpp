// RedisServerProcess: a real redis-server for tests (differential tests of
// the simulated node, lock code on RealRuntime, `locksim live`-style checks).
//
// Each instance runs its own redis-server (found on PATH, in /usr/sbin or
// /usr/bin, or at $LOCKSIM_REDIS_SERVER) bound to 127.0.0.1 on a free port,
// in a fresh temporary directory, without RDB snapshots and in the
// foreground. The constructor returns once the server logged that it is
// ready and answers PING (or throws std::runtime_error with the log's tail).
// No orphans: the destructor stops it (SIGTERM, then SIGKILL, then waitpid)
// and removes the directory, also when a test fails by exception; and the
// child is started with PR_SET_PDEATHSIG, so the kernel kills it if the test
// process itself dies (a crash, SIGKILL). Because that signal follows the
// forking *thread*, create servers on a thread that outlives them. The
// directories of a test process that was killed outright are removed by the
// next fixture created on the machine (each records its owner's pid).
//
// Tests that need a server call skip_without_redis_server() first: without a
// redis-server binary it prints a SKIPPED line and exits with code 77, which
// ctest reports as skipped (SKIP_RETURN_CODE in tests/CMakeLists.txt) —
// except under CI=true, where it fails (ctest ci_requires_redis_server).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace locksim::tests {

struct RedisServerOptions {
  bool appendonly = false;
  std::string appendfsync = "everysec";  // always | everysec | no
  std::optional<int> replicaof_port;     // a replica of 127.0.0.1:<port>
  std::vector<std::string> extra_args;   // more config, e.g. {"--requirepass", "secret"}
  std::chrono::milliseconds start_deadline{15000};
};

// The redis-server binary to use, if there is one.
std::optional<std::filesystem::path> find_redis_server();

// Exits the test binary with 77 (SKIPPED) when no redis-server exists, or
// with 1 (a failure) when CI=true: CI must never skip the real-Redis suites.
void skip_without_redis_server();

class RedisServerProcess {
 public:
  explicit RedisServerProcess(RedisServerOptions options = {});
  ~RedisServerProcess();
  RedisServerProcess(const RedisServerProcess&) = delete;
  RedisServerProcess& operator=(const RedisServerProcess&) = delete;

  int port() const { return port_; }
  const std::filesystem::path& dir() const { return dir_; }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  void kill9();    // SIGKILL now (a process crash: the OS keeps what was written)
  void stop();     // SIGTERM, SIGKILL after a grace period; reaps the process
  void restart();  // stop if running, then start again on the same port and dir
  void pause();    // SIGSTOP: the server hangs with its connections open
  void resume();   // SIGCONT

  // The server's log file (for failure messages).
  std::string log() const;

 private:
  bool start_once();  // spawn and wait until ready; false if it exited early
  pid_t spawn() const;
  bool wait_ready();
  std::vector<std::string> arguments() const;

  RedisServerOptions options_;
  std::filesystem::path binary_;
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::size_t log_offset_ = 0;  // redis.log size when the current process started
};

}  // namespace locksim::tests
