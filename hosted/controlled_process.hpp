// A real client process whose time is simulated (issue 39): it runs with
// liblocksim_simtime.so preloaded (hosted/preload/simtime_preload.c), so its
// clocks read the instants set_clocks() publishes, and each wait it would
// make (a sleep, poll, select, epoll, a blocking socket read) stops it and
// comes back here as a Blocked: the fds and events it waits for and the
// simulated monotonic deadline. The owner decides when the wait ends
// (resume_ready / resume_timed_out), after moving the clocks; not resuming
// is a pause; kill() is a crash. What the shim cannot control (a second
// thread, another process, a real-time timer, a call that never blocks nor
// returns within the real-time bound) is a Refused with the reason. An exec
// of the process (env exec'ing node) stays under control: the shim
// announces it and the new program's hello is accepted.
//
// The process is started in its own process group with PR_SET_PDEATHSIG
// (SIGKILL), so none survives the thread that started it; the destructor
// kills and reaps it. Not thread-safe: one owner drives it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace locksim::hosted {

// One fd a blocked process waits on, with poll(2) events.
struct WaitFd {
  int fd = -1;
  short events = 0;
  bool operator==(const WaitFd&) const = default;
};

struct Blocked {
  std::vector<WaitFd> fds;                 // the process's own fd numbers
  std::optional<std::int64_t> deadline_ns;  // simulated monotonic; none = forever
  std::string call;                         // the call that waits: "clock_nanosleep", "poll", ...
};

struct Exited {
  int status = 0;  // as waitpid(2) reports it
};

struct Refused {
  std::string reason;
};

using Stop = std::variant<Blocked, Exited, Refused>;

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is the program's path
  // Added to (or replacing in) the caller's environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::string preload;  // liblocksim_simtime.so's path
  std::uint64_t seed = 0;
  std::int64_t monotonic_ns = 0, wall_ns = 0;  // the clocks at the start
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;  // -1: the caller's
  // How long, in real time, the process may run without blocking or exiting.
  std::chrono::milliseconds bound{10000};
  // How many of the runtime's helper threads (V8's platform workers,
  // Node's delayed-task scheduler) may run beside the main thread, which
  // alone is serialised: their waits are real, their socket calls and
  // random draws refused (simtime_preload.c, "helper threads"), and a
  // process found running more threads at a block is refused (a thread
  // pool or a worker started on the way, whose results the controller
  // would not order). 0: any second thread is refused.
  int helper_threads = 0;
};

class ControlledProcess {
 public:
  // Starts the program; it runs until its first wait (run_until_blocked).
  // A program that ends or waits without the shim's hello (a static binary,
  // a runtime ignoring LD_PRELOAD, an exec that failed) is a Refused.
  explicit ControlledProcess(const ProcessSpec& spec);
  ~ControlledProcess();
  ControlledProcess(const ControlledProcess&) = delete;
  ControlledProcess& operator=(const ControlledProcess&) = delete;

  // Lets the process run until it blocks, exits or is refused (then it is
  // killed). Called after the start and after each resume.
  Stop run_until_blocked();
  // The instants the process's clocks show from now on.
  void set_clocks(std::int64_t monotonic_ns, std::int64_t wall_ns);
  // Ends the current wait: these fds are ready (the shim checks), or the
  // deadline passed (set the clocks to it first).
  void resume_ready(const std::vector<int>& fds);
  void resume_timed_out();
  // SIGKILL to the process group, then reap. Idempotent.
  void kill();

  pid_t pid() const { return pid_; }
  // The program's path the shim reported when it started (after an exec,
  // the exec'd one's).
  const std::string& program() const { return program_; }

 private:
  void spawn(const ProcessSpec& spec);
  void release();
  std::string who() const;
  std::string never_loaded() const;
  void answer(std::uint32_t kind, const std::vector<int>& fds);
  Stop receive();
  Stop refuse(std::string reason);
  Stop exited();
  std::optional<Stop> exec_hello(const std::string& path, std::int64_t shim_address);
  std::string stuck_reason() const;
  std::string threads_problem() const;

  pid_t pid_ = -1;
  int channel_ = -1;  // our end of the SOCK_SEQPACKET pair
  int pidfd_ = -1;
  int stat_fd_ = -1;  // /proc/<pid>/stat: its thread count at each block
  void* clocks_ = nullptr;  // the mapped clocks page
  std::chrono::milliseconds bound_;
  bool waiting_ = false;  // the process is blocked, waiting for an answer
  std::string program_;
  std::string preload_;
  int helper_threads_ = 0;
  std::string exec_pending_;        // the program an exec reported, until its hello
  std::int64_t shim_address_ = 0;   // the shim's syscall function in the first program
};

}  // namespace locksim::hosted
