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
#include <cerrno>
#include <thread>

extern char** environ;

namespace locksim::live {

namespace {

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

pid_t spawn_process_group(const std::vector<std::string>& argv_in, const std::vector<std::string>* env_in,
                          const std::filesystem::path& log) {
  std::vector<std::string> argv_text = argv_in;
  std::vector<char*> argv = pointers(argv_text);
  std::vector<std::string> env_text = env_in ? *env_in : std::vector<std::string>{};
  std::vector<char*> envp = pointers(env_text);
  char** const child_env = env_in ? envp.data() : environ;
  const std::string out_path = log.string();
  const pid_t parent = ::getpid();
  const long max_fd = std::min(::sysconf(_SC_OPEN_MAX), 65536L);
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
    for (int sig = 1; sig < NSIG; ++sig)
      if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
    ::signal(SIGINT, SIG_IGN);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::setpgid(0, 0);
    if (::getppid() != parent) ::_exit(127);
    sigset_t none;  // the forking thread's mask is inherited (all blocked here): clear it
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int in = ::open("/dev/null", O_RDONLY);
    if (out >= 0) ::dup2(out, 1), ::dup2(out, 2);
    if (in >= 0) ::dup2(in, 0);
    for (long fd = 3; fd < max_fd; ++fd) ::close(static_cast<int>(fd));
    ::execve(argv[0], argv.data(), child_env);
    ::_exit(127);
  }
  ::pthread_sigmask(SIG_SETMASK, &parent_mask, nullptr);
  ::setpgid(pid, pid);  // also here: no race with the first signal
  return pid;
}

bool reaped(pid_t pid) {
  int status = 0;
  const pid_t r = ::waitpid(pid, &status, WNOHANG);
  return r == pid || (r < 0 && errno == ECHILD);
}

void kill_process_group(pid_t& pid) {
  if (pid <= 0) return;
  ::kill(-pid, SIGKILL);
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
      ::kill(-pid, SIGKILL);  // what a wrapper script left in its group
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

}  // namespace locksim::live
