// Child processes of live mode, each the leader of its own process group:
// the fork/exec, signal and reap steps every live cluster uses (the Redis
// servers, etcd members, ZooKeeper members). A child gets PR_SET_PDEATHSIG
// (it dies with the forking thread, even if locksim is SIGKILLed: fork on
// the thread that outlives the cluster), a clean signal mask, SIGINT
// ignored (Ctrl-C is locksim's to handle; it tears the children down),
// stdin from /dev/null, stdout and stderr into a log file and no other
// inherited descriptor. Signals go to the whole group, so a wrapper script
// cannot leave its server behind. PR_SET_PDEATHSIG reaches only the child
// itself (a wrapper script's own children do not inherit it), so each group
// also has a watchdog: a small forked process that waits on a socket only
// locksim holds and SIGKILLs the whole group when it reads end-of-file —
// when locksim dies, even by SIGKILL. Stopping a group kills it from here
// and tells its watchdog to exit (a byte on the socket), without waiting.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace locksim::live {

// A child's stdin and stdout, when not /dev/null and the log: descriptors
// of this process (pipe ends, close-on-exec) that become its 0 and 1.
struct ChildStdio {
  int in = -1;
  int out = -1;
};

// Starts argv[0] (a path) with `env` (nullptr: this process's environment);
// the pid, or -1 if fork failed. An exec failure shows as exit code 127.
pid_t spawn_process_group(const std::vector<std::string>& argv, const std::vector<std::string>* env,
                          const std::filesystem::path& log, ChildStdio stdio = {});

// Whether the child has exited (and is reaped now, the rest of its group
// killed: what a wrapper script left); true for a pid that is not our child.
bool reaped(pid_t pid);

// SIGCONT (a stopped process cannot act on SIGTERM), SIGTERM, then SIGKILL
// once `grace` has passed; always reaps. pid becomes -1.
void stop_process_group(pid_t& pid, std::chrono::milliseconds grace);

// SIGSTOP to the group, returning once the leader's threads have all
// stopped (at most 2 s); SIGCONT to the group.
void pause_process_group(pid_t pid);
void resume_process_group(pid_t pid);

// SIGKILL to the group and reap; pid becomes -1.
void kill_process_group(pid_t& pid);

// The readiness probe of a child server: one request to 127.0.0.1:port
// with a 200 ms timeout per read, "" on any failure. The reply is what the
// first read returns (a server that keeps the connection, like Redis), or
// with `until_closed` everything until the server closes it (HTTP/1.0,
// ZooKeeper's four-letter words).
std::string loopback_roundtrip(int port, const std::string& request, bool until_closed = false);

// The last non-empty line of a child's log file, for an error message
// ("(empty log)" when there is none).
std::string last_log_line(const std::filesystem::path& log);

}  // namespace locksim::live
