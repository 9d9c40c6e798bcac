// A real client process whose time is simulated (issue 39): it runs with
// liblocksim_simtime.so preloaded (hosted/preload/simtime_preload.c), so its
// clocks read the instants set_clocks() publishes, and each wait it would
// make (a sleep, poll, select, epoll, a blocking socket read) stops it and
// comes back here as a Blocked: the fds and events it waits for and the
// simulated monotonic deadline. The owner decides when the wait ends
// (resume_ready / resume_timed_out), after moving the clocks; not resuming
// is a pause; kill() is a crash. What the shim cannot control (a second
// thread, another program, a real-time timer, a call that never blocks nor
// returns within the real-time bound) is a Refused with the reason. Two
// kernel waits the controller sees itself (/proc/<pid>/stat and syscall):
// a program asleep before the shim's hello did not load the shim (a static
// binary: Refused at once), and a read of the owner's empty stdin pipe past
// the shim (glibc's stdio) is a Blocked on fd 0 without a deadline.
// An exec of the process (env exec'ing node) stays under control: the
// shim announces it and the new program's hello is accepted.
//
// The process is started in its own process group with PR_SET_PDEATHSIG
// (SIGKILL), so none survives the thread that started it; the destructor
// kills and reaps it. Not thread-safe: one owner drives it.
//
// A zygote (FirstInput::zygote) runs a program's start once and forks
// there, on order, a child per process (the constructor taking a zygote):
// the child is this thread's child like a fresh start, with its own
// channel, clocks page and pipes, and it settles on its own seed and clocks
// (simtime_protocol.h), so what it does is what a fresh start with
// FirstInput::settle does.
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

// What the shim does at the program's first read of, or wait on, its stdin
// (simtime_protocol.h): nothing; settle (the start ran at kStartClocks and
// seed 0; there the run's clocks and `seed` take over); or serve forks.
enum class FirstInput { nothing, settle, zygote };

// The clocks a program's start sees when it settles at its first input.
inline constexpr std::int64_t kStartMonotonicNs = 0, kStartWallNs = 0;

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is the program's path
  // Added to (or replacing in) the caller's environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::string preload;  // liblocksim_simtime.so's path
  std::uint64_t seed = 0;
  std::int64_t monotonic_ns = 0, wall_ns = 0;  // the clocks at the start
  // The address map (simtime_protocol.h): a connect to 127.0.0.1:first
  // reaches 127.0.0.1:second.
  std::vector<std::pair<std::uint16_t, std::uint16_t>> ports;
  // -1: the caller's. A stdin of the owner's is also a wait the controller
  // sees without the shim: a libc-internal read of it (stdio).
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;
  // How long, in real time, the process may run without blocking or exiting.
  std::chrono::milliseconds bound{10000};
  FirstInput first_input = FirstInput::nothing;
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
  // The same program forked by `zygote` (serving_forks()) at its first
  // input; `spec` gives the pipes, seed, clocks and bound (its argv and
  // preload are the zygote's). A zygote that cannot fork throws.
  ControlledProcess(const ProcessSpec& spec, ControlledProcess& zygote);
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
  // A zygote that reached its first input (run_until_blocked returned
  // Blocked{.call = kForkServer}) and is alive.
  bool serving_forks() const { return serving_forks_ && pid_ > 0; }
  static constexpr const char* kForkServer = "the zygote's fork server";
  // The program's path the shim reported when it started (after an exec,
  // the exec'd one's).
  const std::string& program() const { return program_; }

 private:
  void spawn(const ProcessSpec& spec);
  void open_channel(const ProcessSpec& spec, int& child_channel, int& page);
  void adopt(pid_t pid);
  pid_t fork_child(int child_channel, int page, const ProcessSpec& spec);
  void release();
  std::string who() const;
  std::string never_loaded() const;
  void answer(std::uint32_t kind, const std::vector<int>& fds, std::uint64_t seed = 0);
  Stop receive();
  Stop refuse(std::string reason);
  Stop exited();
  std::optional<Stop> exec_hello(const std::string& path, std::int64_t shim_address);
  std::string stuck_reason() const;
  bool sleeps_in_kernel() const;
  bool hello_pending() const;
  std::optional<Blocked> stdin_read_wait();
  std::string unloaded_reason() const;
  std::string threads_problem() const;

  pid_t pid_ = -1;
  int channel_ = -1;  // our end of the SOCK_SEQPACKET pair
  int pidfd_ = -1;
  int stat_fd_ = -1;  // /proc/<pid>/stat: its thread count at each block
  void* clocks_ = nullptr;  // the mapped clocks page
  std::chrono::milliseconds bound_;
  bool waiting_ = false;  // the process is blocked, waiting for an answer
  bool serving_forks_ = false;
  // FirstInput::settle: what the first input's answer brings.
  std::uint64_t seed_ = 0;
  std::int64_t settle_monotonic_ns_ = 0, settle_wall_ns_ = 0;
  std::string program_;
  std::string preload_;
  bool owner_stdin_ = false;  // stdin is the owner's (spec.stdin_fd): only it writes there
  bool kernel_wait_ = false;  // the wait is stdin_read_wait's, not the shim's
  int helper_threads_ = 0;
  bool threads_checked_ = false;  // since the last hello (threads_problem)
  std::string exec_pending_;        // the program an exec reported, until its hello
  std::int64_t shim_address_ = 0;   // the shim's syscall function in the first program
};

}  // namespace locksim::hosted
