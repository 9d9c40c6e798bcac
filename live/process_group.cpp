// fork/exec into a process group of its own, signals and reaping
// (process_group.hpp).
#include "live/process_group.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <cerrno>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

extern char** environ;

namespace locksim::live {

namespace {

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

long max_fd() { return std::min(::sysconf(_SC_OPEN_MAX), 65536L); }

// In a forked child (async-signal-safe): the parent's handlers back to their
// defaults, SIGINT ignored (Ctrl-C is locksim's to handle), a process group
// of its own, and the signal mask cleared (the forking thread blocked all).
void child_signals_and_group() {
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  ::signal(SIGINT, SIG_IGN);
  ::setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

// A group's watchdog (process_group.hpp): its pid and its end of the
// socket pair whose other end it reads; only this process holds this end.
struct Watchdog {
  pid_t pid = -1;
  int socket = -1;
};
std::mutex g_watchdogs_mutex;
std::map<pid_t, Watchdog> g_watchdogs;  // by the group it guards
std::vector<pid_t> g_released;          // watchdogs told to exit, not reaped yet

// Forks the watchdog of group `group`: in a process group of its own (no
// Ctrl-C from the terminal), without PR_SET_PDEATHSIG (it must outlive
// locksim), it blocks reading its socket. A byte is locksim releasing it (the
// group is stopped: it exits); end-of-file without one is locksim gone,
// however it died: it SIGKILLs the whole group, then exits.
Watchdog start_watchdog(pid_t group) {
  int fds[2];  // a socket pair, not a pipe: a send to a watchdog that is gone raises no SIGPIPE
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return {};
  const long fd_limit = max_fd();
  sigset_t all, parent_mask;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &parent_mask);
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls from here on
    child_signals_and_group();
    ::signal(SIGHUP, SIG_IGN);  // a closed terminal is no reason to leave the group running
    for (long fd = 0; fd < fd_limit; ++fd)  // another group's socket too: its watchdog must see its EOF
      if (fd != fds[0]) ::close(static_cast<int>(fd));
    char byte = 0;
    ssize_t n = 0;
    while ((n = ::read(fds[0], &byte, 1)) < 0 && errno == EINTR) {
    }
    if (n != 1) ::kill(-group, SIGKILL);
    ::_exit(0);
  }
  ::pthread_sigmask(SIG_SETMASK, &parent_mask, nullptr);
  ::close(fds[0]);
  if (pid < 0) {
    ::close(fds[1]);
    return {};
  }
  return {pid, fds[1]};
}

// Reaps the released watchdogs that have exited (never waits: a stop or a
// crash fault must not wait for another process to be scheduled).
void reap_released_watchdogs() {
  std::erase_if(g_released, [](pid_t w) { return ::waitpid(w, nullptr, WNOHANG) != 0; });
}

// Tells the watchdog of group `group`, if it has one, to exit without
// killing: the caller has killed the group itself.
void release_watchdog(pid_t group) {
  std::lock_guard<std::mutex> lock(g_watchdogs_mutex);
  const auto it = g_watchdogs.find(group);
  if (it == g_watchdogs.end()) return;
  const char byte = 'r';
  while (::send(it->second.socket, &byte, 1, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
  ::close(it->second.socket);
  g_released.push_back(it->second.pid);
  g_watchdogs.erase(it);
  reap_released_watchdogs();
}

// Whether the child has exited, leaving it unreaped (its group id stays ours).
bool exited(pid_t pid) {
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno == ECHILD;
  return info.si_pid == pid;
}

}  // namespace

pid_t spawn_process_group(const std::vector<std::string>& argv_in, const std::vector<std::string>* env_in,
                          const std::filesystem::path& log, ChildStdio stdio) {
  std::vector<std::string> argv_text = argv_in;
  std::vector<char*> argv = pointers(argv_text);
  std::vector<std::string> env_text = env_in ? *env_in : std::vector<std::string>{};
  std::vector<char*> envp = pointers(env_text);
  char** const child_env = env_in ? envp.data() : environ;
  const std::string out_path = log.string();
  const pid_t parent = ::getpid();
  const long fd_limit = max_fd();
  // Every signal is blocked across the fork: a stop (SIGTERM to the new
  // group) that lands before the child has reset the parent's handlers
  // stays pending until they are reset, instead of running the parent's
  // handler in the child (a test binary's Catch2 handler printed a failure
  // report from the child this way).
  sigset_t all, parent_mask;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &parent_mask);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::pthread_sigmask(SIG_SETMASK, &parent_mask, nullptr);
    return -1;
  }
  if (pid == 0) {  // only async-signal-safe calls from here on
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    child_signals_and_group();  // the mask last: a pending stop acts only once the handlers are reset
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int in = stdio.in >= 0 ? stdio.in : ::open("/dev/null", O_RDONLY);
    if (stdio.out >= 0 || out >= 0) ::dup2(stdio.out >= 0 ? stdio.out : out, 1);
    if (out >= 0) ::dup2(out, 2);
    if (in >= 0) ::dup2(in, 0);
    for (long fd = 3; fd < fd_limit; ++fd) ::close(static_cast<int>(fd));
    ::execve(argv[0], argv.data(), child_env);
    ::_exit(127);
  }
  ::pthread_sigmask(SIG_SETMASK, &parent_mask, nullptr);
  ::setpgid(pid, pid);  // also here: no race with the first signal
  const Watchdog watchdog = start_watchdog(pid);
  if (watchdog.pid < 0) {  // no process to spare: no server without its watchdog
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
  }
  std::lock_guard<std::mutex> lock(g_watchdogs_mutex);
  g_watchdogs[pid] = watchdog;
  return pid;
}

bool reaped(pid_t pid) {
  if (!exited(pid)) return false;
  ::kill(-pid, SIGKILL);  // what a wrapper script left in its group (the leader unreaped: the id is still ours)
  release_watchdog(pid);
  ::waitpid(pid, nullptr, WNOHANG);
  return true;
}

namespace {

// Whether every thread of `pid` is stopped ('T' in /proc/PID/task/*/stat).
bool all_threads_stopped(pid_t pid) {
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  bool any = false;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto paren = stat.rfind(')');  // the command name may hold spaces
    if (paren == std::string::npos || paren + 2 >= stat.size()) return false;
    const char state = stat[paren + 2];
    if (state != 'T' && state != 't') return false;
    any = true;
  }
  return any && !ec;
}

}  // namespace

void pause_process_group(pid_t pid) {
  if (pid <= 0) return;
  ::kill(-pid, SIGSTOP);
  // kill() returns before every thread has stopped; a fault is in effect
  // only once it has (a request sent at once could otherwise still be
  // answered). Bounded: a process that died meanwhile never shows 'T'.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!all_threads_stopped(pid) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void resume_process_group(pid_t pid) {
  if (pid > 0) ::kill(-pid, SIGCONT);
}

void kill_process_group(pid_t& pid) {
  if (pid <= 0) return;
  ::kill(-pid, SIGKILL);
  release_watchdog(pid);
  ::waitpid(pid, nullptr, 0);
  pid = -1;
}

void stop_process_group(pid_t& pid, std::chrono::milliseconds grace) {
  if (pid <= 0) return;
  ::kill(-pid, SIGCONT);
  ::kill(-pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (reaped(pid)) {
      pid = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill_process_group(pid);
}

std::string loopback_roundtrip(int port, const std::string& request, bool until_closed) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  timeval tv{0, 200'000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0 && reply.size() < 65536;) {
      reply.append(buf, static_cast<std::size_t>(n));
      if (!until_closed) break;
    }
  }
  ::close(fd);
  return reply;
}

std::string last_log_line(const std::filesystem::path& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last.empty() ? "(empty log)" : last;
}

}  // namespace locksim::live
