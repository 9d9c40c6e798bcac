#include "hosted/controlled_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "hosted/preload/simtime_protocol.h"

extern char** environ;

namespace locksim::hosted {

namespace {

using Clock = std::chrono::steady_clock;
// How often the controller, waiting for a report, looks whether the program
// sleeps in the kernel in a wait the shim did not report (before its hello:
// unloaded_reason; a read of its stdin: stdin_read_wait).
constexpr std::int64_t kLookSliceMs = 5;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("hosted process: " + what + ": " + std::strerror(errno));
}

// The program's environment: the caller's, with the spec's entries and the
// shim's (LD_PRELOAD first, so the shim's symbols win) over it.
std::vector<std::string> environment(const ProcessSpec& spec, int channel, int page) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : spec.env) vars[name] = value;
  const auto old = vars.find("LD_PRELOAD");
  vars["LD_PRELOAD"] = spec.preload + (old == vars.end() || old->second.empty() ? "" : ":" + old->second);
  vars[LOCKSIM_SIMTIME_CHANNEL_ENV] = std::to_string(channel);
  vars[LOCKSIM_SIMTIME_CLOCKS_ENV] = std::to_string(page);
  // A start that settles at its first input draws from seed 0 until then
  // (its environment is then the same in every run, the zygote's too:
  // "settle" and "zygote" have one length).
  vars[LOCKSIM_SIMTIME_SEED_ENV] = std::to_string(spec.first_input == FirstInput::nothing ? spec.seed : 0);
  if (spec.first_input != FirstInput::nothing)
    vars[LOCKSIM_SIMTIME_FIRST_INPUT_ENV] = spec.first_input == FirstInput::settle ? "settle" : "zygote";
  if (spec.helper_threads > 0) vars[LOCKSIM_SIMTIME_THREADS_ENV] = "1";
  std::vector<std::string> out;
  for (const auto& [name, value] : vars) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Between fork and exec: only async-signal-safe calls. The process leads
// its own group (kill() reaches whatever it started), dies with the thread
// that started it, and runs without address randomisation (one cause less
// of run-to-run differences).
[[noreturn]] void exec_child(const ProcessSpec& spec, pid_t parent, int channel, int page, char** argv,
                             char** envp) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  personality(ADDR_NO_RANDOMIZE);
  if (spec.stdin_fd >= 0) dup2(spec.stdin_fd, 0);
  if (spec.stdout_fd >= 0) dup2(spec.stdout_fd, 1);
  if (spec.stderr_fd >= 0) dup2(spec.stderr_fd, 2);
  fcntl(channel, F_SETFD, 0);
  fcntl(page, F_SETFD, 0);
  execve(argv[0], argv, envp);
  _exit(127);
}

// Moves `fd` above the fds a program opens first (so the numbers the
// environment names are out of its way), close-on-exec until the child
// clears it.
int high_fd(int fd) {
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 200);
  close(fd);
  if (moved < 0) fail("fcntl(F_DUPFD_CLOEXEC)");
  return moved;
}

std::atomic_ref<std::int64_t> field(void* page, std::int64_t locksim_simtime_clocks::*member) {
  return std::atomic_ref<std::int64_t>(static_cast<locksim_simtime_clocks*>(page)->*member);
}

// The thread count of the process whose /proc/<pid>/stat is open as
// `stat_fd` (field 20, counted after the ')' closing the command name, which
// may itself hold spaces). One pread: the kernel renders the line anew.
int thread_count(int stat_fd) {
  char line[1024];
  const ssize_t got = pread(stat_fd, line, sizeof line - 1, 0);
  if (got <= 0) return 0;
  line[got] = '\0';
  const char* at = std::strrchr(line, ')');
  for (int field = 2; at && field < 20; ++field) at = std::strchr(at + 1, ' ');
  return at ? std::atoi(at + 1) : 0;
}

const char* syscall_name(long number) {
  static const std::map<long, const char*> names = {
      {SYS_read, "read"},         {SYS_write, "write"},       {SYS_poll, "poll"},
      {SYS_select, "select"},     {SYS_nanosleep, "nanosleep"}, {SYS_connect, "connect"},
      {SYS_accept, "accept"},     {SYS_recvfrom, "recvfrom"}, {SYS_sendto, "sendto"},
      {SYS_wait4, "wait4"},       {SYS_futex, "futex"},       {SYS_epoll_wait, "epoll_wait"},
      {SYS_clock_nanosleep, "clock_nanosleep"}, {SYS_pselect6, "pselect6"}, {SYS_ppoll, "ppoll"},
      {SYS_epoll_pwait, "epoll_pwait"}, {SYS_accept4, "accept4"}, {SYS_recvmsg, "recvmsg"},
  };
  const auto it = names.find(number);
  return it == names.end() ? "?" : it->second;
}

}  // namespace

ControlledProcess::ControlledProcess(const ProcessSpec& spec)
    : bound_(spec.bound),
      preload_(spec.preload),
      owner_stdin_(spec.stdin_fd >= 0),
      helper_threads_(spec.helper_threads) {
  if (spec.argv.empty()) throw std::invalid_argument("hosted process: an empty argv");
  if (access(spec.preload.c_str(), R_OK) != 0)
    throw std::invalid_argument("hosted process: no shim library at '" + spec.preload + "'");
  try {
    spawn(spec);
  } catch (...) {
    release();
    throw;
  }
}

ControlledProcess::~ControlledProcess() { release(); }

void ControlledProcess::release() {
  kill();
  if (channel_ >= 0) close(channel_);
  if (pidfd_ >= 0) close(pidfd_);
  if (stat_fd_ >= 0) close(stat_fd_);
  if (clocks_ && clocks_ != MAP_FAILED) munmap(clocks_, sizeof(locksim_simtime_clocks));
  channel_ = pidfd_ = stat_fd_ = -1;
  clocks_ = nullptr;
}

std::string ControlledProcess::who() const { return "pid " + std::to_string(pid_) + " (" + program_ + ")"; }

// The channel pair (ours in channel_) and the clocks page, mapped; the
// child's ends are returned, close-on-exec. A start that settles sees
// kStartClocks until its first input.
void ControlledProcess::open_channel(const ProcessSpec& spec, int& child_channel, int& page) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) fail("socketpair");
  channel_ = pair[0];
  const timeval slice{0, kLookSliceMs * 1000};  // receive()'s wait for a report
  if (setsockopt(channel_, SOL_SOCKET, SO_RCVTIMEO, &slice, sizeof slice) != 0) fail("setsockopt(SO_RCVTIMEO)");
  child_channel = high_fd(pair[1]);
  page = high_fd(static_cast<int>(syscall(SYS_memfd_create, "locksim-simtime", MFD_CLOEXEC)));
  if (ftruncate(page, sizeof(locksim_simtime_clocks)) != 0) fail("ftruncate");
  clocks_ = mmap(nullptr, sizeof(locksim_simtime_clocks), PROT_READ | PROT_WRITE, MAP_SHARED, page, 0);
  if (clocks_ == MAP_FAILED) fail("mmap");
  auto* shared = static_cast<locksim_simtime_clocks*>(clocks_);
  shared->magic = LOCKSIM_SIMTIME_MAGIC;
  if (spec.ports.size() > LOCKSIM_SIMTIME_MAX_PORTS)
    throw std::invalid_argument("hosted process: more than " + std::to_string(LOCKSIM_SIMTIME_MAX_PORTS) +
                                " ports to map");
  for (const auto& [told, real] : spec.ports) {
    shared->told[shared->ports] = told;
    shared->real[shared->ports++] = real;
  }
  seed_ = spec.seed;
  settle_monotonic_ns_ = spec.monotonic_ns;
  settle_wall_ns_ = spec.wall_ns;
  if (spec.first_input == FirstInput::nothing)
    set_clocks(spec.monotonic_ns, spec.wall_ns);
  else
    set_clocks(kStartMonotonicNs, kStartWallNs);
}

// Our child now (forked here, or by a zygote with CLONE_PARENT).
void ControlledProcess::adopt(pid_t pid) {
  pid_ = pid;
  setpgid(pid_, pid_);  // also here: no race with a kill() right after the start
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd_ < 0) fail("pidfd_open");
  stat_fd_ = open(("/proc/" + std::to_string(pid_) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
}

void ControlledProcess::spawn(const ProcessSpec& spec) {
  int child_channel = -1, page = -1;
  open_channel(spec, child_channel, page);
  auto args = spec.argv;
  auto env = environment(spec, child_channel, page);
  auto argv = pointers(args), envp = pointers(env);
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ == 0) exec_child(spec, parent, child_channel, page, argv.data(), envp.data());
  const int fork_errno = errno;
  close(child_channel);
  close(page);
  errno = fork_errno;
  if (pid_ < 0) fail("fork");
  adopt(pid_);
}

ControlledProcess::ControlledProcess(const ProcessSpec& spec, ControlledProcess& zygote)
    : bound_(spec.bound), preload_(zygote.preload_) {
  if (!zygote.serving_forks()) throw std::logic_error("hosted process: a fork from a process that serves none");
  try {
    int child_channel = -1, page = -1;
    open_channel(spec, child_channel, page);
    const pid_t pid = zygote.fork_child(child_channel, page, spec);
    close(child_channel);
    close(page);
    adopt(pid);
  } catch (...) {
    release();
    throw;
  }
}

// One fork order to this zygote (simtime_protocol.h): the child's channel,
// clocks page and standard fds go as SCM_RIGHTS; the answer is its pid.
pid_t ControlledProcess::fork_child(int child_channel, int page, const ProcessSpec& spec) {
  const int fds[LOCKSIM_SIMTIME_FORK_FDS] = {child_channel, page, spec.stdin_fd >= 0 ? spec.stdin_fd : 0,
                                             spec.stdout_fd >= 0 ? spec.stdout_fd : 1,
                                             spec.stderr_fd >= 0 ? spec.stderr_fd : 2};
  locksim_simtime_answer order{};
  order.kind = LOCKSIM_SIMTIME_FORK;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)] = {};
  iovec iov{&order, sizeof order};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof fds);
  std::memcpy(CMSG_DATA(c), fds, sizeof fds);
  locksim_simtime_report report{};
  pollfd ready = {channel_, POLLIN, 0};
  if (sendmsg(channel_, &msg, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof order) ||
      poll(&ready, 1, static_cast<int>(bound_.count())) != 1 ||
      recv(channel_, &report, sizeof report, 0) != static_cast<ssize_t>(sizeof report) ||
      report.kind != LOCKSIM_SIMTIME_FORKED || report.fds[0] <= 0) {
    const std::string what = "hosted process: the zygote " + who() + " did not fork a child: " +
                             (report.fds[0] < 0 ? std::strerror(-report.fds[0]) : "no answer");
    kill();
    throw std::runtime_error(what);
  }
  return report.fds[0];
}

void ControlledProcess::set_clocks(std::int64_t monotonic_ns, std::int64_t wall_ns) {
  field(clocks_, &locksim_simtime_clocks::monotonic_ns).store(monotonic_ns, std::memory_order_release);
  field(clocks_, &locksim_simtime_clocks::wall_ns).store(wall_ns, std::memory_order_release);
}

Stop ControlledProcess::run_until_blocked() {
  if (waiting_) throw std::logic_error("hosted process: run_until_blocked while it waits for an answer");
  if (pid_ < 0) throw std::logic_error("hosted process: run_until_blocked after it ended");
  return receive();
}

// The next report within the real-time bound, answering the hello of the
// program's start on the way. Each wait for it is one recv, blocking for up
// to a slice (SO_RCVTIMEO, open_channel) rather than a poll and a recv: a
// system call less at every block. The process's end of the channel closes
// when it dies (EOF); a slice without a report looks at the pidfd (for an
// end kept open elsewhere) and at the kernel waits the shim cannot report.
Stop ControlledProcess::receive() {
  const auto until = Clock::now() + bound_;
  for (;;) {
    locksim_simtime_report report{};
    const ssize_t got = recv(channel_, &report, sizeof report, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (pollfd done = {pidfd_, POLLIN, 0}; poll(&done, 1, 0) > 0) return exited();
      if (program_.empty() && sleeps_in_kernel() && !hello_pending()) return refuse(unloaded_reason());
      if (auto wait = stdin_read_wait()) return std::move(*wait);
      if (Clock::now() < until) continue;
      return refuse(stuck_reason());
    }
    if (got != static_cast<ssize_t>(sizeof report)) return exited();
    report.text[sizeof report.text - 1] = '\0';
    const std::string text = report.text;
    if (report.kind == LOCKSIM_SIMTIME_HELLO) threads_checked_ = false;  // a new image, maybe an exec'd one
    if (report.kind == LOCKSIM_SIMTIME_HELLO && program_.empty()) {
      program_ = text;
      shim_address_ = report.deadline_ns;
    } else if (report.kind == LOCKSIM_SIMTIME_EXEC) {
      exec_pending_ = text;
    } else if (report.kind == LOCKSIM_SIMTIME_HELLO) {
      if (auto refused = exec_hello(text, report.deadline_ns)) return *refused;
    }
    if (report.kind == LOCKSIM_SIMTIME_HELLO || report.kind == LOCKSIM_SIMTIME_EXEC) {
      waiting_ = true;
      answer(LOCKSIM_SIMTIME_READY, {});
      continue;
    }
    if (report.kind == LOCKSIM_SIMTIME_SETTLE) {  // its first input: the run's clocks and seed
      set_clocks(settle_monotonic_ns_, settle_wall_ns_);
      waiting_ = true;
      answer(LOCKSIM_SIMTIME_READY, {}, seed_);
      continue;
    }
    if (report.kind == LOCKSIM_SIMTIME_ZYGOTE) {  // no answer: fork orders (fork_child) from now on
      if (const int threads = thread_count(stat_fd_); threads > 1)
        return refuse(who() + " runs " + std::to_string(threads) + " threads at its first input: a zygote must "
                      "have one to fork (a child has only the forking thread)");
      serving_forks_ = true;
      return Blocked{{}, std::nullopt, kForkServer};
    }
    if (report.kind == LOCKSIM_SIMTIME_REFUSE) return refuse(who() + " called " + text);
    if (std::string problem = threads_problem(); !problem.empty()) return refuse(std::move(problem));
    threads_checked_ = true;
    Blocked blocked{{}, std::nullopt, text};
    for (std::uint32_t i = 0; i < report.nfds && i < LOCKSIM_SIMTIME_MAX_FDS; ++i)
      blocked.fds.push_back({report.fds[i], report.events[i]});
    if (report.deadline_ns != LOCKSIM_SIMTIME_NO_DEADLINE) blocked.deadline_ns = report.deadline_ns;
    waiting_ = true;
    return blocked;
  }
}

// More threads than the process may run, at a block ("": none). Without
// helper threads one look, at the first block, is enough: from the shim's
// hello on, pthread_create is refused and its seccomp filter traps a raw
// clone (simtime_seccomp.c), so only a thread started before the hello
// could be there, and this spares a /proc read at every block.
std::string ControlledProcess::threads_problem() const {
  if (helper_threads_ == 0 && threads_checked_) return {};
  const int threads = thread_count(stat_fd_);
  if (threads <= 1 + helper_threads_) return {};
  if (helper_threads_ == 0)
    return who() + " runs " + std::to_string(threads) +
           " threads, started without pthread_create (a raw clone the shim cannot serialise)";
  return who() + " runs " + std::to_string(threads) + " threads, more than its main thread and the " +
         std::to_string(helper_threads_) +
         " helpers allowed: a thread pool or worker started on the way (Node: libuv's pool for an async fs, dns "
         "or crypto call; worker_threads), whose results would reach the main thread at real-time instants";
}

// What a process that neither blocked nor exited within the bound is doing
// (/proc/<pid>/syscall: the number of the call it is in, or "running").
std::string ControlledProcess::stuck_reason() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/syscall");
  std::string first;
  in >> first;
  std::ostringstream out;
  out << who() << " neither blocked in a call the shim reports nor exited within " << bound_.count()
      << " ms of real time: ";
  if (program_.empty()) out << "the shim never said hello (" << never_loaded() << "); ";
  if (first.empty() || first == "running") {
    out << "it runs in user space (a busy loop, or a wait on a clock the shim does not move)";
  } else {
    const long number = std::strtol(first.c_str(), nullptr, 10);
    out << "it waits in system call " << syscall_name(number) << " (" << number
        << "), which the shim did not see (a raw syscall, or a call it does not wrap)";
  }
  return out.str();
}

// Whether the process sleeps in the kernel (state S in /proc/<pid>/stat).
// Before the shim's hello that is a wait the shim never saw: the dynamic
// loader and the shim's constructor, which run first, never sleep (a page
// fault on a file is state D), so a program that sleeps before the hello
// runs without the shim — a static binary blocked on its stdin.
bool ControlledProcess::sleeps_in_kernel() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'S';
}

// Whether the channel holds a report (the shim sleeps in its hello's
// exchange only after sending it).
bool ControlledProcess::hello_pending() const {
  pollfd fd = {channel_, POLLIN, 0};
  return poll(&fd, 1, 0) > 0;
}

// A read of its stdin that sleeps in the kernel without passing the shim:
// glibc's stdio reads through its internal __read, which no LD_PRELOAD
// wrapper sees (a C program's fgets). When stdin is the owner's pipe and it
// is empty, only the owner's next write ends that wait, so it is a wait
// like the shim's: on fd 0, no deadline. Its end needs no answer on the
// channel (the kernel's read returns the data).
std::optional<Blocked> ControlledProcess::stdin_read_wait() {
  if (!owner_stdin_ || program_.empty() || !sleeps_in_kernel() || hello_pending()) return std::nullopt;
  const std::string proc = "/proc/" + std::to_string(pid_);
  std::ifstream in(proc + "/syscall");
  long number = -1;
  std::string fd;
  if (!(in >> number >> fd) || number != SYS_read || std::strtol(fd.c_str(), nullptr, 16) != 0) return std::nullopt;
  const int its_stdin = open((proc + "/fd/0").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  int unread = -1;
  if (its_stdin >= 0 && ioctl(its_stdin, FIONREAD, &unread) != 0) unread = -1;
  if (its_stdin >= 0) close(its_stdin);
  if (unread != 0) return std::nullopt;  // data on its way to it: it is about to run
  waiting_ = kernel_wait_ = true;
  return Blocked{{{0, POLLIN}}, std::nullopt, "read (of stdin, inside libc: stdio)"};
}

// The refusal of a program that waits without having loaded the shim, at
// once rather than after the bound: what it is and where it waits.
std::string ControlledProcess::unloaded_reason() const {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid_) + "/exe", ec);
  std::ifstream in("/proc/" + std::to_string(pid_) + "/syscall");
  long number = -1;
  in >> number;
  std::ostringstream out;
  out << "pid " << pid_ << " (" << (ec ? std::string("?") : exe.string()) << ") did not load " << preload_
      << " (statically linked? Go?): it waits in system call " << syscall_name(number) << " (" << number
      << ") and never said hello; a program the shim does not control would run in real time";
  return out.str();
}

// A second program's hello: the same process after the shim's own execve
// reported it (env exec'ing node), its shim where the first program's was —
// the first program's seccomp filter stays, and passes only the calls made
// from that address. Anything else is refused.
std::optional<Stop> ControlledProcess::exec_hello(const std::string& path, std::int64_t shim_address) {
  if (exec_pending_.empty()) return refuse(who() + " exec'd another program: " + path);
  exec_pending_.clear();
  if (shim_address != shim_address_)
    return refuse(who() + " exec'd " + path + ", whose shim loaded at another address than the first program's " +
                  "(the seccomp filter it inherited would trap every call of the new one)");
  program_ = path;
  return std::nullopt;
}

Stop ControlledProcess::refuse(std::string reason) {
  kill();
  return Refused{std::move(reason)};
}

std::string ControlledProcess::never_loaded() const {
  return "the program could not be started, or it ran without " + preload_ +
         ": a static binary, or a runtime that ignores LD_PRELOAD";
}

// The channel closed: the process exited (or closed it, then it is waited
// for within the bound). Whatever it left in its group goes with it. A
// process that ends before the shim's hello ran uncontrolled: refused.
Stop ControlledProcess::exited() {
  pollfd done = {pidfd_, POLLIN, 0};
  if (poll(&done, 1, static_cast<int>(bound_.count())) <= 0)
    return refuse(who() + " closed its channel without exiting");
  ::kill(-pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  const std::string ended = who();
  pid_ = -1;
  waiting_ = kernel_wait_ = false;
  if (program_.empty())
    return Refused{ended + " ended (wait status " + std::to_string(status) + ") before the shim said hello: " +
                   never_loaded()};
  return Exited{status};
}

void ControlledProcess::answer(std::uint32_t kind, const std::vector<int>& fds, std::uint64_t seed) {
  if (!waiting_) throw std::logic_error("hosted process: a resume while it runs");
  if (kernel_wait_) {  // stdin_read_wait: the owner's write ends it
    kernel_wait_ = waiting_ = false;
    return;
  }
  locksim_simtime_answer a{};
  a.kind = kind;
  a.seed = seed;
  for (const int fd : fds) {
    if (a.nfds == LOCKSIM_SIMTIME_MAX_FDS) break;
    a.fds[a.nfds++] = fd;
  }
  waiting_ = false;
  // A process killed meanwhile cannot read it: the next run_until_blocked
  // reports its end.
  (void)send(channel_, &a, sizeof a, MSG_NOSIGNAL);
}

void ControlledProcess::resume_ready(const std::vector<int>& fds) { answer(LOCKSIM_SIMTIME_READY, fds); }
void ControlledProcess::resume_timed_out() { answer(LOCKSIM_SIMTIME_TIMED_OUT, {}); }

void ControlledProcess::kill() {
  if (pid_ < 0) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  waiting_ = kernel_wait_ = false;
}

}  // namespace locksim::hosted
