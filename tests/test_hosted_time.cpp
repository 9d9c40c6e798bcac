// A real python3 in simulated time (hosted/controlled_process.hpp, the shim
// hosted/preload/simtime_preload.c): its clocks are the controller's, its
// sleeps and blocking socket calls come back as waits with their simulated
// deadline, its randomness is the seed's, and what the shim cannot control
// (a thread, a raw syscall) is refused with the reason. Needs /usr/bin/python3
// with python3-redis (scripts/setup.sh installs both).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

#include "hosted/controlled_process.hpp"

namespace {

namespace fs = std::filesystem;
using namespace locksim::hosted;

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kStartMonotonic = 1000 * kSecond;
constexpr std::int64_t kStartWall = 1'700'000'000 * kSecond;

// A python3 script in simulated time, its stdout in a file.
struct Python {
  fs::path dir = fs::temp_directory_path() / ("locksim-hosted-time-" + std::to_string(getpid()));
  fs::path out = dir / "out.txt";
  FILE* out_file = nullptr;
  ProcessSpec spec;

  Python(const std::string& script, std::uint64_t seed, int stdin_fd = -1) {
    fs::create_directories(dir);
    std::ofstream(dir / "script.py") << script;
    out_file = std::fopen(out.c_str(), "w");
    spec.argv = {"/usr/bin/python3", (dir / "script.py").string()};
    spec.preload = LOCKSIM_SIMTIME_LIBRARY;
    spec.seed = seed;
    spec.monotonic_ns = kStartMonotonic;
    spec.wall_ns = kStartWall;
    spec.stdin_fd = stdin_fd;
    spec.stdout_fd = fileno(out_file);
  }
  ~Python() {
    std::fclose(out_file);
    fs::remove_all(dir);
  }
  std::string output() const {
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

// Runs the process to its end as a world of one host where nothing else
// happens would: each wait with a deadline ends at it (both clocks move by
// the wait); a wait without one is returned.
Stop run_to_end(ControlledProcess& p) {
  std::int64_t mono = kStartMonotonic, wall = kStartWall;
  for (;;) {
    Stop stop = p.run_until_blocked();
    const auto* blocked = std::get_if<Blocked>(&stop);
    if (!blocked || !blocked->deadline_ns) return stop;
    wall += *blocked->deadline_ns - mono;
    mono = *blocked->deadline_ns;
    p.set_clocks(mono, wall);
    p.resume_timed_out();
  }
}

// Writes `bytes` to `fd`, whose other end the process waits on as its fd
// 0, ends that wait and runs the process to its next stop.
Stop feed(ControlledProcess& p, int fd, std::string_view bytes) {
  REQUIRE(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  p.resume_ready({0});
  return p.run_until_blocked();
}

std::string reason_of(const Stop& stop) {
  if (const auto* r = std::get_if<Refused>(&stop)) return r->reason;
  if (const auto* e = std::get_if<Exited>(&stop)) return "exited with status " + std::to_string(e->status);
  return "blocked in " + std::get<Blocked>(stop).call;
}

bool exited_zero(const Stop& stop) {
  const auto* e = std::get_if<Exited>(&stop);
  return e && WIFEXITED(e->status) && WEXITSTATUS(e->status) == 0;
}

// Whether pid is gone or a zombie (a container's init may not reap).
bool gone(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string number, name, state;
  if (!(in >> number >> name >> state)) return true;
  return state == "Z";
}

std::string seeded_output(std::uint64_t seed) {
  Python py(R"(import os, random, uuid, time
print(os.urandom(8).hex(), random.random(), uuid.uuid4(), time.time(), time.monotonic())
print(open('/dev/urandom', 'rb').read(8).hex(), hash('locksim'), sorted({'a', 'b', 'c'}, key=hash))
)", seed);
  ControlledProcess p(py.spec);
  const Stop stop = run_to_end(p);
  INFO(reason_of(stop));
  CHECK(exited_zero(stop));
  return py.output();
}

// The owner of a controlled process (a forked child of the test): starts a
// sleeper, writes its pid (-1 on failure), and waits to be killed. Never
// returns into Catch2.
[[noreturn]] void own_a_sleeper(int pid_pipe) {
  pid_t child = -1;
  try {
    Python py("import time\ntime.sleep(3600)\n", 1);
    ControlledProcess p(py.spec);
    if (std::holds_alternative<Blocked>(p.run_until_blocked())) child = p.pid();
    (void)!write(pid_pipe, &child, sizeof child);
    for (;;) pause();
  } catch (...) {
    (void)!write(pid_pipe, &child, sizeof child);
  }
  _exit(1);
}

}  // namespace

TEST_CASE("hosted time: time.sleep(30) waits 30 simulated seconds and both clocks move by exactly that",
          "[hosted-time]") {
  Python py(R"(import time
m0, w0 = time.monotonic(), time.time()
time.sleep(30)
print(repr(time.monotonic() - m0), repr(time.time() - w0), time.time())
)", 1);
  const auto real_start = std::chrono::steady_clock::now();
  ControlledProcess p(py.spec);
  Stop stop = p.run_until_blocked();
  REQUIRE(std::holds_alternative<Blocked>(stop));
  const auto& blocked = std::get<Blocked>(stop);
  CHECK(blocked.call == "clock_nanosleep");
  CHECK(blocked.fds.empty());
  REQUIRE(blocked.deadline_ns);
  CHECK(*blocked.deadline_ns == kStartMonotonic + 30 * kSecond);
  p.set_clocks(kStartMonotonic + 30 * kSecond, kStartWall + 30 * kSecond);
  p.resume_timed_out();
  stop = p.run_until_blocked();
  INFO(reason_of(stop));
  REQUIRE(exited_zero(stop));
  CHECK(py.output() == "30.0 30.0 1700000030.0\n");
  // Not a timing measurement: a real 30 s sleep would take 30 s.
  CHECK(std::chrono::steady_clock::now() - real_start < std::chrono::seconds(20));
  CHECK(p.program().find("python3") != std::string::npos);
}

TEST_CASE("hosted time: the same seed gives byte-identical randomness and clocks, another seed differs",
          "[hosted-time]") {
  const std::string first = seeded_output(7), second = seeded_output(7), other = seeded_output(8);
  CHECK_FALSE(first.empty());
  CHECK(first == second);
  CHECK(first != other);
  CHECK(first.find("1700000000.0 1000.0") != std::string::npos);  // time.time(), time.monotonic()
}

TEST_CASE("hosted time: a socket recv reports its fd and deadline, and resumes with the data written",
          "[hosted-time]") {
  int pair[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
  Python py(R"(import socket
s = socket.socket(fileno=0)
s.settimeout(5)
print(s.recv(100))
s.settimeout(None)
print(s.recv(100))
)", 1, pair[1]);
  ControlledProcess p(py.spec);
  close(pair[1]);
  Stop stop = p.run_until_blocked();
  REQUIRE(std::holds_alternative<Blocked>(stop));
  CHECK(std::get<Blocked>(stop).call == "poll");  // Python polls a socket with a timeout first
  CHECK(std::get<Blocked>(stop).fds == std::vector<WaitFd>{{0, POLLIN}});
  CHECK(std::get<Blocked>(stop).deadline_ns == kStartMonotonic + 5 * kSecond);
  stop = feed(p, pair[0], "hello");  // a blocking recv: no poll of Python's own
  REQUIRE(std::holds_alternative<Blocked>(stop));
  CHECK(std::get<Blocked>(stop).call == "recv");
  CHECK(std::get<Blocked>(stop).fds == std::vector<WaitFd>{{0, POLLIN}});
  CHECK_FALSE(std::get<Blocked>(stop).deadline_ns);
  stop = feed(p, pair[0], "world");
  INFO(reason_of(stop));
  REQUIRE(exited_zero(stop));
  CHECK(py.output() == "b'hello'\nb'world'\n");
  close(pair[0]);
}

TEST_CASE("hosted time: a socket wait that times out returns at the simulated deadline", "[hosted-time]") {
  int pair[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
  Python py(R"(import socket, time
s = socket.socket(fileno=0)
s.settimeout(2.5)
t = time.monotonic()
try:
    s.recv(1)
except socket.timeout:
    print('timeout after', time.monotonic() - t)
)", 1, pair[1]);
  ControlledProcess p(py.spec);
  close(pair[1]);
  const Stop stop = run_to_end(p);
  INFO(reason_of(stop));
  CHECK(exited_zero(stop));
  CHECK(py.output() == "timeout after 2.5\n");
  close(pair[0]);
}

TEST_CASE("hosted time: select and epoll (selectors) report the fds they watch and their deadline",
          "[hosted-time]") {
  int pair[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
  Python py(R"(import select, selectors, socket, time
s = socket.socket(fileno=0)
print(select.select([s], [], [], 1.5))
sel = selectors.DefaultSelector()
sel.register(s, selectors.EVENT_READ)
print(type(sel).__name__, [key.fd for key, _ in sel.select(timeout=4)], time.monotonic())
)", 1, pair[1]);
  ControlledProcess p(py.spec);
  close(pair[1]);
  Stop stop = p.run_until_blocked();
  REQUIRE(std::holds_alternative<Blocked>(stop));
  CHECK(std::get<Blocked>(stop).call == "select");
  CHECK(std::get<Blocked>(stop).fds == std::vector<WaitFd>{{0, POLLIN}});
  CHECK(std::get<Blocked>(stop).deadline_ns == kStartMonotonic + 1500'000'000);
  p.set_clocks(kStartMonotonic + 1500'000'000, kStartWall + 1500'000'000);
  p.resume_timed_out();
  stop = p.run_until_blocked();
  REQUIRE(std::holds_alternative<Blocked>(stop));
  CHECK(std::get<Blocked>(stop).call == "epoll_wait");
  CHECK(std::get<Blocked>(stop).fds == std::vector<WaitFd>{{0, POLLIN}});
  CHECK(std::get<Blocked>(stop).deadline_ns == kStartMonotonic + 5500'000'000);
  REQUIRE(write(pair[0], "x", 1) == 1);
  p.set_clocks(kStartMonotonic + 2 * kSecond, kStartWall + 2 * kSecond);
  p.resume_ready({0});
  stop = p.run_until_blocked();
  INFO(reason_of(stop));
  REQUIRE(exited_zero(stop));
  CHECK(py.output() == "([], [], [])\nEpollSelector [0] 1002.0\n");
  close(pair[0]);
}

TEST_CASE("hosted time: importing redis-py and creating a Lock runs without a refusal", "[hosted-time]") {
  Python py(R"(import redis, redis.lock
r = redis.Redis(host='127.0.0.1', port=6399)
lock = redis.lock.Lock(r, 'resource', timeout=30, blocking_timeout=5)
print(type(lock).__name__, lock.timeout)
)", 1);
  ControlledProcess p(py.spec);
  const Stop stop = run_to_end(p);
  INFO(reason_of(stop));
  CHECK(exited_zero(stop));
  CHECK(py.output() == "Lock 30\n");
}

TEST_CASE("hosted time: redis-py's blocking connection waits for the reply in simulated time", "[hosted-time]") {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&address), size) == 0);
  REQUIRE(listen(listener, 4) == 0);
  REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size) == 0);
  Python py("import redis\nprint(redis.Redis(host='127.0.0.1', port=" + std::to_string(ntohs(address.sin_port)) +
                ").ping())\n",
            1);
  ControlledProcess p(py.spec);
  Stop stop = p.run_until_blocked();  // connected, PING sent, waiting for the reply
  REQUIRE(std::holds_alternative<Blocked>(stop));
  const Blocked blocked = std::get<Blocked>(stop);
  CHECK(blocked.call == "recv");
  REQUIRE(blocked.fds.size() == 1);
  CHECK(blocked.fds[0].events == POLLIN);
  CHECK_FALSE(blocked.deadline_ns);  // socket_timeout=None: no deadline
  const int connection = accept(listener, nullptr, nullptr);
  REQUIRE(connection >= 0);
  char command[64] = {};
  CHECK(std::string(command, static_cast<std::size_t>(read(connection, command, sizeof command))) ==
        "*1\r\n$4\r\nPING\r\n");
  REQUIRE(write(connection, "+PONG\r\n", 7) == 7);
  p.resume_ready({blocked.fds[0].fd});
  stop = p.run_until_blocked();
  INFO(reason_of(stop));
  REQUIRE(exited_zero(stop));
  CHECK(py.output() == "True\n");
  close(connection);
  close(listener);
}

TEST_CASE("hosted time: a second thread is refused with a reason naming it", "[hosted-time]") {
  Python py(R"(import threading
threading.Thread(target=lambda: None).start()
print('not reached')
)", 1);
  ControlledProcess p(py.spec);
  const Stop stop = run_to_end(p);
  REQUIRE(std::holds_alternative<Refused>(stop));
  CHECK(std::get<Refused>(stop).reason.find("called pthread_create: a second thread") != std::string::npos);
  CHECK(py.output().empty());
}

// simtime_preload.c, "exec": env exec'ing the program is the same process,
// under control from its first instruction; an exec that drops the shim's
// environment would run it uncontrolled, and is refused.
TEST_CASE("hosted time: env exec'ing python3 runs it in simulated time; an exec without the shim is refused",
          "[hosted-time]") {
  Python py("import time\ntime.sleep(5)\nprint(time.time())\n", 1);
  py.spec.argv.insert(py.spec.argv.begin(), {"/usr/bin/env", "python3"});
  py.spec.argv.erase(py.spec.argv.begin() + 2);  // /usr/bin/python3: env finds it on PATH
  py.spec.env = {{"PATH", "/nonexistent:/usr/bin"}};  // a miss first; no shell wrapper (pyenv's) on the way
  ControlledProcess p(py.spec);
  const Stop stop = run_to_end(p);
  INFO(reason_of(stop));
  REQUIRE(exited_zero(stop));
  CHECK(py.output() == "1700000005.0\n");
  CHECK(p.program().find("python3") != std::string::npos);
  Python bare("print('not reached')\n", 1);
  bare.spec.argv.insert(bare.spec.argv.begin(), {"/usr/bin/env", "-i"});
  ControlledProcess q(bare.spec);
  const Stop refused = run_to_end(q);
  REQUIRE(std::holds_alternative<Refused>(refused));
  CHECK(reason_of(refused).find("called execve: a program started without the shim's environment") !=
        std::string::npos);
  CHECK(bare.output().empty());
}

// simtime_preload.c, "helper threads": with them allowed, a thread runs and
// its sleep is a real one, the main thread's waits stay simulated; a random
// draw or a blocking socket call of a helper thread is refused, naming it.
TEST_CASE("hosted time: helper threads run when allowed; a helper's random draw is refused, naming it",
          "[hosted-time]") {
  Python py(R"(import threading, time
t = threading.Thread(target=lambda: time.sleep(0.01))
t.start()
t.join()
time.sleep(30)
print(time.monotonic())
)", 1);
  py.spec.helper_threads = 1;
  ControlledProcess p(py.spec);
  const Stop stop = run_to_end(p);
  INFO(reason_of(stop));
  REQUIRE(exited_zero(stop));
  CHECK(py.output() == "1030.0\n");  // the helper's 10 ms were real: no simulated time passed
  Python draw("import os, threading\nt = threading.Thread(target=lambda: os.urandom(4))\nt.start()\nt.join()\n", 1);
  draw.spec.helper_threads = 1;
  ControlledProcess q(draw.spec);
  const Stop refused = run_to_end(q);
  REQUIRE(std::holds_alternative<Refused>(refused));
  CHECK(reason_of(refused).find("called getrandom: made by a helper thread") != std::string::npos);
}

TEST_CASE("hosted time: a raw wait, or a process creation past the wrappers, is refused at once",
          "[hosted-time]") {
  Python raw(R"(import ctypes
libc = ctypes.CDLL(None, use_errno=True)
ts = (ctypes.c_long * 2)(3600, 0)
libc.syscall(35, ts, None)  # SYS_nanosleep: the seccomp filter traps it
)", 1);
  ControlledProcess p(raw.spec);
  const Stop stop = run_to_end(p);
  REQUIRE(std::holds_alternative<Refused>(stop));
  CHECK(std::get<Refused>(stop).reason.find("called the system call nanosleep outside the shim's wrappers") !=
        std::string::npos);
  Python spawn("import subprocess\nsubprocess.run(['/bin/true'])\n", 1);
  ControlledProcess q(spawn.spec);
  const Stop spawned = run_to_end(q);
  REQUIRE(std::holds_alternative<Refused>(spawned));
  CHECK(std::get<Refused>(spawned).reason.find("called vfork: another process") != std::string::npos);
}

TEST_CASE("hosted time: a process that neither blocks nor exits within the bound is refused, not a hang",
          "[hosted-time]") {
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  // The sleep first: the bound then counts from just before the read, not
  // from python3's start on a loaded machine. Not stdin, the owner's pipe:
  // a read of that is a wait the controller sees (the next test).
  Python py(R"(import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(1)
r, w = os.pipe()
time.sleep(0.001)
libc.syscall(0, r, buf, 1)  # SYS_read on an empty pipe of its own: past the shim, not trapped
)", 1, pipe_fds[0]);
  py.spec.bound = std::chrono::milliseconds(2000);
  ControlledProcess p(py.spec);
  close(pipe_fds[0]);
  const Stop stop = run_to_end(p);
  REQUIRE(std::holds_alternative<Refused>(stop));
  const std::string reason = std::get<Refused>(stop).reason;
  CHECK(reason.find("neither blocked") != std::string::npos);
  CHECK(reason.find("system call read (0)") != std::string::npos);
  close(pipe_fds[1]);
}

TEST_CASE("hosted time: a read of the owner's stdin past the shim (libc-internal, stdio) is a wait on fd 0",
          "[hosted-time]") {
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  // Python's own reads pass the shim; a raw read of stdin stands for
  // glibc's stdio (fgets reads through its internal __read).
  Python py(R"(import ctypes
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(6)
libc.syscall(0, 0, buf, 6)
print(buf.value.decode(), end='')
)", 1, pipe_fds[0]);
  ControlledProcess p(py.spec);
  close(pipe_fds[0]);
  Stop stop = p.run_until_blocked();
  INFO(reason_of(stop));
  REQUIRE(std::holds_alternative<Blocked>(stop));
  CHECK(std::get<Blocked>(stop).fds == std::vector<WaitFd>{{0, POLLIN}});
  CHECK_FALSE(std::get<Blocked>(stop).deadline_ns);
  stop = feed(p, pipe_fds[1], "hello\n");
  INFO(reason_of(stop));
  REQUIRE(exited_zero(stop));
  CHECK(py.output() == "hello\n");
  close(pipe_fds[1]);
}

TEST_CASE("hosted time: a program that runs without the shim is refused, never run in real time",
          "[hosted-time]") {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", "-c", "pass"};
  spec.preload = LOCKSIM_PRELOAD_LIBRARY;  // a library, but not the shim: no hello
  ControlledProcess p(spec);
  const Stop stop = p.run_until_blocked();
  REQUIRE(std::holds_alternative<Refused>(stop));
  CHECK(std::get<Refused>(stop).reason.find("before the shim said hello") != std::string::npos);
  spec.preload = "/nonexistent/liblocksim_simtime.so";
  CHECK_THROWS_WITH(ControlledProcess(spec), Catch::Contains("no shim library at '/nonexistent/"));
}

TEST_CASE("hosted time: killing the controller's owner leaves no process", "[hosted-time]") {
  int pids[2];
  REQUIRE(pipe(pids) == 0);
  const pid_t owner = fork();
  REQUIRE(owner >= 0);
  if (owner == 0) own_a_sleeper(pids[1]);
  close(pids[1]);
  pid_t child = -1;
  REQUIRE(read(pids[0], &child, sizeof child) == static_cast<ssize_t>(sizeof child));
  close(pids[0]);
  REQUIRE(child > 0);
  CHECK_FALSE(gone(child));
  kill(owner, SIGKILL);
  waitpid(owner, nullptr, 0);
  fs::remove_all(fs::temp_directory_path() / ("locksim-hosted-time-" + std::to_string(owner)));
  // PR_SET_PDEATHSIG delivers SIGKILL as the owner dies; allow the kernel a
  // moment to finish the exit (a bound, not a timed assertion).
  for (int i = 0; i < 500 && !gone(child); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(gone(child));
}

// ---------------------------------------------------------------- both halves
// hosted/sim_time_bridge.hpp: two real redis-py processes against a
// simulated Redis node, all in simulated time. A takes redis-py's Lock
// (timeout 30 s), its host is paused 35 s (a GC pause: the process is
// simply not resumed); B, retrying every 100 ms, gets the lock once A's
// entry expires on the node's clock; A wakes and its release raises
// LockNotOwnedError. The outcome is exact, the same run gives the same
// trace digest and output, and it takes well under a second of real time.

#include "hosted/sim_time_bridge.hpp"

namespace {

const char* kLockScript = R"(import os, sys, time
import redis
from redis.exceptions import LockNotOwnedError
name = sys.argv[1]
r = redis.Redis(port=int(os.environ["LOCKSIM_PORT"]), socket_timeout=5)
t0 = time.monotonic()
def at():
    return "%.3f" % (time.monotonic() - t0)
if name == "B":
    time.sleep(1)
lock = r.lock("lock:job", timeout=30, sleep=0.1)
lock.acquire(blocking=True)
print(name, "acquired at", at(), "token", lock.local.token.decode())
time.sleep(2)
try:
    lock.release()
    print(name, "released at", at())
except LockNotOwnedError:
    print(name, "LockNotOwnedError at", at())
)";

struct BridgeRun {
  std::string output;
  std::uint64_t digest = 0;
  std::string refused;
};

BridgeRun run_two_lockers(std::uint64_t seed) {
  const fs::path dir = fs::temp_directory_path() / ("locksim-hosted-bridge-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "lock.py") << kLockScript;
  locksim::hosted::SimTimeBridgeOptions options;
  options.seed = seed;
  options.preload = LOCKSIM_SIMTIME_LIBRARY;
  locksim::hosted::SimTimeBridge bridge(options);
  std::vector<FILE*> outs;
  for (const char* name : {"A", "B"}) {
    const std::size_t c = bridge.add_client(name);
    outs.push_back(std::fopen((dir / (std::string(name) + ".txt")).c_str(), "w"));
    bridge.start(c, {"/usr/bin/python3", (dir / "lock.py").string(), name},
                 {{"LOCKSIM_PORT", std::to_string(bridge.port(c, 0))}}, fileno(outs.back()));
  }
  // A's GC pause: from 1 s (it holds the lock, asleep in its critical section) for 35 s.
  bridge.run(locksim::TrueInstant{std::chrono::seconds(1)});
  bridge.client_host(0).pause(std::chrono::seconds(35));
  bridge.run(locksim::TrueInstant{std::chrono::seconds(120)});
  BridgeRun run;
  for (std::size_t c = 0; c < 2; ++c) {
    std::fclose(outs[c]);
    std::ifstream in(dir / (c == 0 ? "A.txt" : "B.txt"));
    std::stringstream text;
    text << in.rdbuf();
    run.output += text.str();
    run.refused += bridge.end(c).refused;
  }
  run.digest = bridge.world().trace().digest();
  fs::remove_all(dir);
  return run;
}

}  // namespace

TEST_CASE("two real redis-py processes against a simulated node, in simulated time: exact, repeatable",
          "[hosted-time]") {
  const BridgeRun first = run_two_lockers(7);
  INFO(first.output << first.refused);
  REQUIRE(first.refused.empty());
  // A's entry (PX 30000) expires 30 s after A's SET on the node's clock; B,
  // polling every 100 ms from 1 s, takes it at its first poll after that.
  CHECK(first.output.find("A acquired at 0.00") != std::string::npos);
  CHECK(first.output.find("B acquired at 30.") != std::string::npos);
  CHECK(first.output.find("A LockNotOwnedError at 36.") != std::string::npos);
  CHECK(first.output.find("B released at 32.") != std::string::npos);
  const BridgeRun again = run_two_lockers(7);
  CHECK(again.output == first.output);  // tokens too: os.urandom is the seed's
  CHECK(again.digest == first.digest);
  const BridgeRun other = run_two_lockers(8);
  CHECK(other.output != first.output);  // another seed, other tokens
}

// hosted/process_lock_host.hpp: `locksim run STORY --lock lib:redis-py` runs
// the shipped redis-py adapter (the unmodified library) in simulated time
// inside the normal simulated run: gc-pause's nodes, pause, workload and
// checkers, with live mode's verdict (tests/test_external.cpp live_kinds),
// the same digest for the same seed.

#include "hosted/process_lock_host.hpp"
#include "live/external_lock.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/runner.hpp"
#include "tests/support/shell.hpp"

namespace {

locksim::Result<locksim::scenarios::RunResult, std::string> run_with_process(const locksim::scenarios::Scenario& s,
                                                                             const std::string& lock,
                                                                             std::uint64_t seed, bool zygote = true,
                                                                             std::vector<std::string>* mechanism = nullptr,
                                                                             bool record_trace = false) {
  locksim::live::register_library_locks();
  locksim::hosted::ProcessLockOptions options;
  options.command = locksim::live::adapter_command(lock, s.lock);
  options.preload = LOCKSIM_SIMTIME_LIBRARY;
  options.zygote = zygote;
  locksim::hosted::ProcessLockHost processes(options);
  if (mechanism) mechanism->clear();
  locksim::scenarios::RunOptions run;
  run.lock_kind = lock;
  run.seed = seed;
  run.record_trace = record_trace;
  run.process_locks = &processes;
  auto result = locksim::scenarios::run_scenario(s, run);
  if (result) CHECK(processes.mechanism().size() == s.clients.size());  // one process per client, no crash
  if (mechanism) *mechanism = processes.mechanism();
  return result;
}

}  // namespace

TEST_CASE("gc-pause with lib:redis-py in simulated time: live mode's verdict, the same digest for a seed", "[hosted-time]") {
  auto s = locksim::scenarios::load_catalog_scenario("gc-pause");
  REQUIRE(s);
  const auto first = run_with_process(*s, "lib:redis-py", 1);
  INFO((first ? std::string() : first.error()));
  REQUIRE(first);
  CHECK(first->violation_kinds() == std::set<std::string>{"mutual-exclusion", "stale-write"});
  CHECK(first->summary.acquisitions >= 3);  // A, B after A's entry expired, C
  const auto again = run_with_process(*s, "lib:redis-py", 1);
  REQUIRE(again);
  CHECK(again->digest == first->digest);
  CHECK(again->events == first->events);
  const auto other = run_with_process(*s, "lib:redis-py", 2);
  REQUIRE(other);
  CHECK(other->violation_kinds() == first->violation_kinds());
  CHECK(other->digest != first->digest);
}

// The zygote (controlled_process.hpp): the adapter starts once per thread
// and each process is forked at its first read of stdin; what a run does
// (its digest, its events: the adapter's answers, tokens included) is what
// a fresh start of each process does, and a zygote carries nothing from
// one run to the next.
TEST_CASE("gc-pause with lib:redis-py: a zygote's runs are fresh starts' runs, seed by seed", "[hosted-time]") {
  auto s = locksim::scenarios::load_catalog_scenario("gc-pause");
  REQUIRE(s);
  std::vector<std::string> mechanism;
  const auto fresh1 = run_with_process(*s, "lib:redis-py", 1, false, &mechanism);
  REQUIRE(fresh1);
  CHECK(mechanism.front().find("zygote") == std::string::npos);
  const auto fresh2 = run_with_process(*s, "lib:redis-py", 2, false);
  REQUIRE(fresh2);
  // Back to back through the same zygote (this thread's): 1, 2, then 1.
  const auto forked1 = run_with_process(*s, "lib:redis-py", 1, true, &mechanism);
  INFO((forked1 ? std::string() : forked1.error()));
  REQUIRE(forked1);
  REQUIRE(mechanism.size() == 3);
  CHECK(mechanism[0].find(", forked from its zygote (process ") != std::string::npos);
  const std::string zygote = mechanism[0].substr(mechanism[0].find("zygote (process "));
  const auto forked2 = run_with_process(*s, "lib:redis-py", 2, true, &mechanism);
  REQUIRE(forked2);
  CHECK(mechanism[2].substr(mechanism[2].find("zygote (process ")) == zygote);  // one zygote for both runs
  const auto again1 = run_with_process(*s, "lib:redis-py", 1);
  REQUIRE(again1);
  CHECK(forked1->digest == fresh1->digest);
  CHECK(forked1->events == fresh1->events);
  CHECK(forked2->digest == fresh2->digest);
  CHECK(forked2->events == fresh2->events);
  CHECK(again1->digest == fresh1->digest);
  CHECK(forked2->digest != forked1->digest);  // the tokens (uuid1) follow the run's seed, not the zygote's
  CHECK(forked1->violation_kinds() == std::set<std::string>{"mutual-exclusion", "stale-write"});
}

TEST_CASE("a zygote's child that forks is refused: only the controller's fork is allowed", "[hosted-time]") {
  using namespace locksim::hosted;
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", "-c", "import os, sys\nsys.stdin.readline()\nos.fork()\n"};
  spec.preload = LOCKSIM_SIMTIME_LIBRARY;
  spec.first_input = FirstInput::zygote;
  ControlledProcess zygote(spec);
  const Stop ready = zygote.run_until_blocked();
  REQUIRE(std::holds_alternative<Blocked>(ready));
  CHECK(std::get<Blocked>(ready).call == ControlledProcess::kForkServer);
  REQUIRE(zygote.serving_forks());
  int in[2];
  REQUIRE(pipe(in) == 0);
  spec.first_input = FirstInput::settle;
  spec.stdin_fd = in[0];
  ControlledProcess child(spec, zygote);
  close(in[0]);
  CHECK(child.pid() != zygote.pid());
  REQUIRE(write(in[1], "go\n", 3) == 3);
  const Stop stop = child.run_until_blocked();
  close(in[1]);
  REQUIRE(std::holds_alternative<Refused>(stop));
  CHECK(std::get<Refused>(stop).reason.find("fork") != std::string::npos);
  CHECK(zygote.serving_forks());  // the zygote itself goes on
}

// Node 20 in simulated time (docs/external-clients.md, "Node in simulated
// time"): env exec's node, its helper threads run beside the serialised
// main thread; live mode's verdict (tests/test_external.cpp), and for a
// seed the same verdict, command stream (every record: a command sent and
// run, its time, the lock values) and digest.
TEST_CASE("gc-pause with lib:node-redlock in simulated time: live mode's verdict, the same run for a seed",
          "[hosted-time]") {
  auto s = locksim::scenarios::load_catalog_scenario("gc-pause");
  REQUIRE(s);
  const auto first = run_with_process(*s, "lib:node-redlock", 1, true, nullptr, true);
  INFO((first ? std::string() : first.error()));
  REQUIRE(first);
  CHECK(first->violation_kinds() == std::set<std::string>{"mutual-exclusion"});
  const auto again = run_with_process(*s, "lib:node-redlock", 1, true, nullptr, true);
  REQUIRE(again);
  CHECK(again->violation_kinds() == first->violation_kinds());
  const auto stream = [](const locksim::scenarios::RunResult& r) {
    std::vector<std::string> out;
    for (const auto& rec : r.trace)
      out.push_back(std::to_string(rec.at.time_since_epoch().count()) + " " + std::to_string(rec.host) + " " +
                    rec.kind + " " + rec.detail);
    return out;
  };
  const auto commands = stream(*first);
  CHECK(std::count_if(commands.begin(), commands.end(),
                      [](const std::string& line) { return line.find(" send evalsha ") != std::string::npos; }) > 10);
  CHECK(stream(*again) == commands);
  CHECK(again->digest == first->digest);
  CHECK(again->events == first->events);
}

// hosted::runtime_profile for node: its helper threads run; a timer waits
// in simulated time and crypto.randomBytes is the seed's; libuv's pool
// started by an async fs call is one thread too many: refused, naming it.
TEST_CASE("hosted time: node with its helper threads: simulated timers, seeded randomness; its thread pool refused",
          "[hosted-time]") {
  const auto node = [](const std::string& script, std::string& output) {
    Python holder("", 1);  // its temporary directory and output file
    ProcessSpec spec = holder.spec;
    const RuntimeProfile profile = runtime_profile({"/usr/bin/env", "node"});
    spec.argv = {"/usr/bin/env", "node"};
    spec.argv.insert(spec.argv.end(), profile.runtime_args.begin(), profile.runtime_args.end());
    spec.argv.insert(spec.argv.end(), {"-e", script});
    spec.env = profile.env;
    spec.helper_threads = profile.helper_threads;
    ControlledProcess p(spec);
    const Stop stop = run_to_end(p);
    output = holder.output();
    return stop;
  };
  std::string first, again, pool;
  const char* timer = "setTimeout(() => console.log(Date.now(), require('crypto').randomBytes(8).toString('hex')), 2500)";
  const Stop stop = node(timer, first);
  INFO(reason_of(stop));
  REQUIRE(exited_zero(stop));
  CHECK(first.rfind("1700000002500 ", 0) == 0);
  REQUIRE(exited_zero(node(timer, again)));
  CHECK(again == first);
  const Stop refused = node("require('fs').readFile('/etc/hostname', () => setTimeout(() => {}, 10))", pool);
  CHECK(reason_of(refused).find("more than its main thread and the 3 helpers allowed") != std::string::npos);
}

TEST_CASE("a library lock without the hosted mechanism is refused, naming it", "[hosted-time]") {
  locksim::live::register_library_locks();
  auto s = locksim::scenarios::load_catalog_scenario("gc-pause");
  REQUIRE(s);
  locksim::scenarios::RunOptions run;
  run.lock_kind = "lib:redis-py";
  const auto result = locksim::scenarios::run_scenario(*s, run);
  REQUIRE_FALSE(result);
  CHECK(result.error().find("liblocksim_simtime.so") != std::string::npos);
  CHECK(result.error().find("locksim live") != std::string::npos);
}

TEST_CASE("locksim run gc-pause --lock lib:redis-py: the violations, and which process ran which client", "[hosted-time]") {
  auto [out, code] = locksim::tests::run_shell(std::string(LOCKSIM_BINARY) + " run gc-pause --lock lib:redis-py 2>&1");
  INFO(out);
  CHECK(code == 1);
  CHECK(out.find("mutual-exclusion") != std::string::npos);
  CHECK(out.find("stale-write") != std::string::npos);
  for (const char* client : {"A", "B", "C"})
    CHECK(out.find("simulated time: client " + std::string(client) + "'s adapter ran as process ") != std::string::npos);
  CHECK(out.find("under liblocksim_simtime.so") != std::string::npos);
  // Another locksim process, the same digest: nothing of the parent's (its
  // pid: libuuid seeds uuid1() with getppid()) reaches the adapter's tokens.
  auto [again, again_code] = locksim::tests::run_shell(std::string(LOCKSIM_BINARY) + " run gc-pause --lock lib:redis-py");
  const auto digest = [](const std::string& text) { return text.substr(text.find("digest ")); };
  REQUIRE(again.find("digest ") != std::string::npos);
  CHECK(digest(again) == digest(out));
}

TEST_CASE("LOCKSIM_ZYGOTE=0 starts each adapter process afresh, with the same digest; another value is refused", "[hosted-time]") {
  const std::string run = std::string(LOCKSIM_BINARY) + " run gc-pause --lock lib:redis-py";
  auto [forked, forked_code] = locksim::tests::run_shell(run + " 2>&1");
  auto [fresh, fresh_code] = locksim::tests::run_shell("LOCKSIM_ZYGOTE=0 " + run + " 2>&1");
  INFO(fresh);
  CHECK(forked.find("forked from its zygote") != std::string::npos);
  CHECK(fresh.find("zygote") == std::string::npos);
  REQUIRE(fresh.find("digest ") != std::string::npos);
  CHECK(fresh.substr(fresh.find("digest ")) == forked.substr(forked.find("digest ")));
  auto [bad, bad_code] = locksim::tests::run_shell("LOCKSIM_ZYGOTE=yes " + run + " 2>&1");
  CHECK(bad_code == 2);
  CHECK(bad.find("LOCKSIM_ZYGOTE: 'yes' is neither 0 nor 1") != std::string::npos);
}

TEST_CASE("locksim run gc-pause --lock lib:node-redlock: node under env, the mechanism named, one digest", "[hosted-time]") {
  const std::string command = std::string(LOCKSIM_BINARY) + " run gc-pause --lock lib:node-redlock";
  auto [out, code] = locksim::tests::run_shell(command + " 2>&1");
  INFO(out);
  CHECK(code == 1);
  CHECK(out.find("VIOLATED mutual-exclusion") != std::string::npos);
  CHECK(out.find("under liblocksim_simtime.so (Node --single-threaded") != std::string::npos);
  // Another locksim process, its stderr /dev/null where the first one's was
  // a pipe: the same digest (each adapter's stderr is a file of its own —
  // Node's process.stderr differs for a pipe and a file, and so did the
  // scheduler's events).
  auto [again, again_code] = locksim::tests::run_shell(command + " 2>/dev/null");
  const auto digest = [](const std::string& text) { return text.substr(text.find("digest ")); };
  REQUIRE(again.find("digest ") != std::string::npos);
  CHECK(digest(again) == digest(out));
}

TEST_CASE("an adapter answering garbage in simulated time: exit 2 naming the client and the line", "[hosted-time]") {
  const fs::path dir = fs::temp_directory_path() / ("locksim-hosted-broken-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "adapter.sh") << "while read line; do echo 'no json here'; done\n";
  std::ofstream(dir / "broken.toml") << "name = \"broken-adapter\"\nduration = \"10s\"\n"
                                     << "[workload]\nkind = \"lock\"\nkey = \"lock:x\"\n"
                                     << "[lock]\nkind = \"external\"\ncommand = [\"/bin/sh\", \""
                                     << (dir / "adapter.sh").string() << "\"]\n"
                                     << "[redis]\nmasters = 1\n[[client]]\nname = \"A\"\nwork = \"1s\"\n";
  auto [out, code] =
      locksim::tests::run_shell(std::string(LOCKSIM_BINARY) + " run " + (dir / "broken.toml").string() + " 2>&1");
  INFO(out);
  CHECK(code == 2);
  CHECK(out.find("client A's adapter") != std::string::npos);
  CHECK(out.find("no json here") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a crash of a library lock's client kills its process; the restarted incarnation starts a new one", "[hosted-time]") {
  const std::string toml = R"(name = "crash-restart"
duration = "20s"
[workload]
kind = "lock"
key = "lock:x"
[lock]
ttl = "5s"
retry = "10ms"
acquire_timeout = "15s"
[redis]
masters = 1
[network]
latency = "1ms..3ms"
timeout = "1s"
[[client]]
name = "A"
work = "2s"
[[client]]
name = "B"
start = "1s"
work = "2s"
[[fault]]
kind = "crash"
target = "A"
after = "A:acquired"
at = "100ms"
restart_after = "1s"
)";
  auto s = locksim::scenarios::load_scenario_text(toml, "crash-restart.toml");
  REQUIRE(s);
  locksim::live::register_library_locks();
  locksim::hosted::ProcessLockOptions options;
  options.command = locksim::live::adapter_command("lib:redis-py", s->lock);
  options.preload = LOCKSIM_SIMTIME_LIBRARY;
  locksim::hosted::ProcessLockHost processes(options);
  locksim::scenarios::RunOptions run;
  run.lock_kind = "lib:redis-py";
  run.process_locks = &processes;
  const auto result = locksim::scenarios::run_scenario(*s, run);
  INFO((result ? std::string() : result.error()));
  REQUIRE(result);
  CHECK(processes.mechanism().size() == 3);  // A, A again after its restart, B
  CHECK(result->violation_kinds().empty());  // A's entry expires; B, then A's new incarnation, take it in turn
  CHECK(result->summary.acquisitions == 3);
}

// ------------------------------------------- a user's own adapter, by runtime
// Issue 39, point 6: what `locksim run` does with a user's own adapter
// (lock "external") in each runtime, the rows of docs/external-clients.md's
// "What runs in simulated time, by runtime". A refusal is one line naming
// the client and the reason, exit 2, and leaves no process behind.

namespace {

constexpr const char* kProbeAdapterC = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
/* Answers hello, refuses every acquire. Reads each request with read(2)
 * (locksim writes the next only after the answer), or with STDIO, fgets. */
static int next_line(char* line, size_t size) {
#ifdef STDIO
  return fgets(line, (int)size, stdin) != NULL; /* glibc's internal read: not the shim's wrapper */
#else
  const ssize_t got = read(0, line, size - 1);
  if (got <= 0) return 0;
  line[got] = '\0';
  return 1;
#endif
}
int main(void) {
  char line[4096];
  while (next_line(line, sizeof line)) {
#ifdef RAW_CLOCK
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
#endif
    const char* id = strstr(line, "\"id\":");
    char answer[128];
    const int n = snprintf(answer, sizeof answer, "{\"id\":%d,\"result\":%s}\n", id ? atoi(id + 5) : 0,
                           strstr(line, "\"hello\"") ? "true,\"library\":\"c\"" : "false");
    write(1, answer, (size_t)n);
  }
  return 0;
}
)";

// A one-client story of lock "external" in a directory of its own, whose
// path every adapter's command line holds (so a survivor can be found).
struct OwnAdapter {
  fs::path dir = fs::temp_directory_path() / ("locksim-own-adapter-" + std::to_string(getpid()));
  OwnAdapter() { fs::create_directories(dir); }
  ~OwnAdapter() { fs::remove_all(dir); }
  // `locksim run` of `story` (default: one client, one lock) with [lock]
  // command = `command` (TOML array items): its output (2>&1) and exit code.
  std::pair<std::string, int> run(const std::string& command, std::string story = "",
                                  const std::string& options = "") const {
    if (story.empty())
      story = "name = \"own-adapter\"\nduration = \"10s\"\n[workload]\nkind = \"lock\"\nkey = \"lock:x\"\n"
              "[lock]\nkind = \"naive-del\"\n[redis]\nmasters = 1\n[[client]]\nname = \"A\"\nwork = \"1s\"\n";
    const std::string kind = "kind = \"naive-del\"";
    story.replace(story.find(kind), kind.size(), "kind = \"external\"\ncommand = [" + command + "]");
    std::ofstream(dir / "story.toml") << story;
    return locksim::tests::run_shell(std::string(LOCKSIM_BINARY) + " run " + (dir / "story.toml").string() + options +
                                     " 2>&1");
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  // A C program of kProbeAdapterC, built with `flags`.
  std::string compile(const std::string& name, const std::string& flags) const {
    std::ofstream(dir / "probe.c") << kProbeAdapterC;
    // The build's compiler, compiling C (-x c): the test needs no other.
    const auto [out, code] = locksim::tests::run_shell(std::string(CMAKE_CXX_COMPILER_PATH) + " -x c " + flags +
                                                       " -o " + path(name) + " " + path("probe.c") + " 2>&1");
    INFO(out);
    REQUIRE(code == 0);
    return "\"" + path(name) + "\"";
  }
  // Whether a process whose command line names this directory is alive.
  bool survivor() const {
    for (const auto& entry : fs::directory_iterator("/proc")) {
      std::ifstream in(entry.path() / "cmdline");
      std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (cmdline.find(dir.string()) != std::string::npos && !gone(std::atoi(entry.path().filename().c_str())))
        return true;
    }
    return false;
  }
};

// A refusal as the brief of point 6 has it: exit 2, one line naming client
// A's adapter and `reason`, nobody left.
void check_refused(const OwnAdapter& own, const std::pair<std::string, int>& run, const std::string& reason) {
  const auto& [out, code] = run;
  INFO(out);
  CHECK(code == 2);
  CHECK(std::count(out.begin(), out.end(), '\n') == 1);
  CHECK(out.find("client A's adapter") != std::string::npos);
  CHECK(out.find(reason) != std::string::npos);
  CHECK_FALSE(own.survivor());
}

// The "A complete adapter" sample of docs/external-clients.md, as a user copies it.
std::string documented_adapter() {
  std::ifstream in(std::string(LOCKSIM_SOURCE_DIR) + "/docs/external-clients.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto begin = doc.find("```python\n#!/usr/bin/python3\n");
  REQUIRE(begin != std::string::npos);
  const auto start = begin + std::string("```python\n").size();
  return doc.substr(start, doc.find("```", start) - start);
}

std::string catalog_story(const std::string& name) {
  std::ifstream in(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/catalog/" + name + ".toml");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("own adapter, Python: the documented adapter runs gc-pause in simulated time with redis-py's verdict",
          "[hosted-time]") {
  OwnAdapter own;
  std::ofstream(own.dir / "my_adapter.py") << documented_adapter();
  const auto [out, code] = own.run("\"/usr/bin/python3\", \"" + own.path("my_adapter.py") + "\"", catalog_story("gc-pause"));
  INFO(out);
  CHECK(code == 1);
  CHECK(out.find("mutual-exclusion") != std::string::npos);
  CHECK(out.find("stale-write") != std::string::npos);
  CHECK(out.find("simulated time: client B's adapter ran as process ") != std::string::npos);
  CHECK_FALSE(own.survivor());
}

TEST_CASE("own adapter, C: dynamically linked it runs (stdio too); statically linked it is refused at once",
          "[hosted-time]") {
  OwnAdapter own;
  for (const char* flags : {"-O1", "-O1 -DSTDIO"}) {
    const auto [out, code] = own.run(own.compile("dynamic", flags), "", " --trace");
    INFO(flags << ": " << out);
    CHECK(code == 0);
    CHECK(out.find("simulated time: client A's adapter ran as process ") != std::string::npos);
    CHECK(out.find("A  gave-up  lock:x") != std::string::npos);  // it answered the acquire: no
    // stdio's reads are glibc's own: its start never reaches the shim's
    // first read of stdin, so it has no zygote and starts afresh.
    const bool stdio = std::string(flags).find("STDIO") != std::string::npos;
    CHECK((out.find("started afresh: no zygote, its start ended before the shim's first read of stdin") !=
           std::string::npos) == stdio);
  }
  // Without the dynamic loader LD_PRELOAD loads nothing: the program blocks
  // in read(0) without a hello, which the controller sees within a few
  // 5 ms slices (the 10 s bound would have named the same call, later).
  check_refused(own, own.run(own.compile("static", "-O1 -static")),
                "did not load " + fs::path(LOCKSIM_SIMTIME_LIBRARY).string() +
                    " (statically linked? Go?): it waits in system call read (0)");
}

TEST_CASE("own adapter, C with a raw syscall: the seccomp backstop refuses it naming the call", "[hosted-time]") {
  OwnAdapter own;
  check_refused(own, own.run(own.compile("raw", "-O1 -DRAW_CLOCK")),
                "called the system call clock_gettime outside the shim's wrappers");
}

TEST_CASE("own adapter, JVM: the java launcher's first thread is refused naming pthread_create", "[hosted-time]") {
  if (!fs::exists("/usr/bin/java")) {
    WARN("no /usr/bin/java (scripts/setup.sh installs it for ZooKeeper): not measured");
    return;
  }
  OwnAdapter own;
  std::ofstream(own.dir / "Adapter.java")
      << "public class Adapter { public static void main(String[] a) throws Exception {\n"
         "  var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));\n"
         "  for (String l; (l = in.readLine()) != null;) System.out.println(\"{\\\"id\\\":0,\\\"result\\\":true}\");\n"
         "} }\n";
  check_refused(own, own.run("\"/usr/bin/java\", \"" + own.path("Adapter.java") + "\""),
                "called pthread_create: a second thread");
}

TEST_CASE("own adapter, a shell script: refused at the first program it starts (redis-cli), runs on builtins",
          "[hosted-time]") {
  OwnAdapter own;
  std::ofstream(own.dir / "adapter.sh")
      << "while IFS= read -r line; do\n"
         "  id=${line##*\\\"id\\\":}; id=${id%%[,\\}]*}\n"
         "  case $line in\n"
         "    *'\"op\":\"hello\"'*) s=${line#*\\\"servers\\\":[\\\"}; s=${s%%\\\"*}; echo \"{\\\"id\\\":$id,\\\"result\\\":true}\" ;;\n"
         "    *'\"op\":\"acquire\"'*) r=$(redis-cli -h \"${s%:*}\" -p \"${s##*:}\" SET lock:x t NX PX 10000)\n"
         "      echo \"{\\\"id\\\":$id,\\\"result\\\":true,\\\"token\\\":\\\"t\\\"}\" ;;\n"
         "    *) echo \"{\\\"id\\\":$id,\\\"result\\\":false}\" ;;\n"
         "  esac\n"
         "done\n";
  // The hello is answered by bash's builtins; the acquire's $(redis-cli ...) forks.
  check_refused(own, own.run("\"/bin/bash\", \"" + own.path("adapter.sh") + "\""),
                "called fork: another process or program");
  // The same script without the program runs: bash's own reads and writes.
  std::ofstream(own.dir / "builtins.sh")
      << "while IFS= read -r line; do\n"
         "  id=${line##*\\\"id\\\":}; id=${id%%[,\\}]*}\n"
         "  case $line in *'\"op\":\"hello\"'*) r=true ;; *) r=false ;; esac\n"
         "  echo \"{\\\"id\\\":$id,\\\"result\\\":$r}\"\n"
         "done\n";
  const auto [out, code] = own.run("\"/bin/bash\", \"" + own.path("builtins.sh") + "\"", "", " --trace");
  INFO(out);
  CHECK(code == 0);
  CHECK(out.find("A  gave-up  lock:x") != std::string::npos);
}

// A folder holding an adapter that counts its starts in a file (state the
// simulated world does not reset: the second run of a seed sees 1, not 0),
// and a one-client scenario that runs it in simulated time; removed after.
struct CountingAdapter {
  fs::path dir, counter, scenario;
  CountingAdapter(const std::string& name, const std::string& interpreter, const std::string& script)
      : dir(fs::temp_directory_path() / ("locksim-hosted-" + name + "-" + std::to_string(getpid()))),
        counter(dir / "starts"), scenario(dir / (name + ".toml")) {
    fs::create_directories(dir);
    std::ofstream(counter) << "0\n";
    std::ofstream(dir / "adapter") << script;
    std::ofstream(scenario) << "name = \"" << name << "\"\nduration = \"5s\"\n"
                            << "[workload]\nkind = \"lock\"\nkey = \"lock:x\"\n"
                            << "[lock]\nkind = \"external\"\nacquire_timeout = \"1s\"\n"
                            << "command = [\"" << interpreter << "\", \"" << (dir / "adapter").string() << "\"]\n"
                            << "[redis]\nmasters = 1\n[[client]]\nname = \"A\"\nwork = \"1s\"\n";
  }
  ~CountingAdapter() { fs::remove_all(dir); }
  std::string run() const { return std::string(LOCKSIM_BINARY) + " run " + scenario.string(); }
};

// --verify (RunOptions::verify, docs/cli.md): the check must be able to
// fail. This adapter keeps state outside the simulated world — a file it
// counts its starts in — and grants the lock only at the first start, so the
// second run of the same seed (fresh processes, fresh world) is refused
// where the first was granted: a nondeterministic run, exit 4, naming
// scenario, lock, seed and both digests.
TEST_CASE("--verify fails, exit 4, when an adapter's runs differ for one seed", "[hosted-time]") {
  const CountingAdapter adapter("counting-adapter", "/bin/sh", R"sh(counter="${0%/*}/starts"
n=0
while read -r line; do
  rest=${line#*\"id\":}; id=${rest%%[,\}]*}
  case $line in
    *'"op":"hello"'*) read -r n < "$counter"; echo $((n + 1)) > "$counter"; echo "{\"id\":$id,\"result\":true}";;
    *'"op":"acquire"'*) if [ "$n" -eq 0 ]; then echo "{\"id\":$id,\"result\":true,\"token\":\"t\"}";
                        else echo "{\"id\":$id,\"result\":false}"; fi;;
    *) echo "{\"id\":$id,\"result\":true}";;
  esac
done
)sh");
  const std::string run = adapter.run() + " --seed 5";
  auto [out, code] = locksim::tests::run_shell(run + " --verify 2>&1");
  INFO(out);
  CHECK(code == 4);
  CHECK(out.find("nondeterministic run: scenario counting-adapter, lock external, seed 5: the first run's digest ") !=
        std::string::npos);
  CHECK(out.find(", the second's digest ") != std::string::npos);
  // Without --verify the same command runs (once): the fixture itself works.
  std::ofstream(adapter.counter) << "0\n";
  auto [once, once_code] = locksim::tests::run_shell(run + " 2>&1");
  INFO(once);
  CHECK(once_code <= 1);
  CHECK(once.find("digest ") != std::string::npos);
}

TEST_CASE("--verify on a C++ lock: two runs, one digest, exit as without it", "[hosted-time]") {
  const std::string run = std::string(LOCKSIM_BINARY) + " run gc-pause --lock token";
  auto [out, code] = locksim::tests::run_shell(run + " --verify 2>&1");
  auto [plain, plain_code] = locksim::tests::run_shell(run + " 2>&1");
  INFO(out);
  CHECK(code == plain_code);  // the verdict is unchanged
  CHECK(out.find("verify    ran twice, digest ") != std::string::npos);
  const auto digest = [](const std::string& text) { return text.substr(text.find("digest "), 23); };
  REQUIRE(plain.find("digest ") != std::string::npos);
  CHECK(out.find(digest(plain)) != std::string::npos);
}

// --verify compares the adapter's command stream too: a hosted client's
// every command is a semantic trace record, words included
// (hosted/hosted_client.cpp, "send"), so it is in the digest. This adapter
// sends, at the same instant in both runs, a SET whose value it counts in a
// file: only the words differ, and --verify says the runs do.
TEST_CASE("--verify catches an adapter command whose words differ at the same instant", "[hosted-time]") {
  const CountingAdapter adapter("stream-adapter", "/usr/bin/python3", R"py(import json, socket, sys
path = sys.argv[0].rsplit('/', 1)[0] + '/starts'
sock, key = None, ''
def send(*words):
    out = '*%d\r\n' % len(words) + ''.join('$%d\r\n%s\r\n' % (len(w), w) for w in words)
    sock.sendall(out.encode())
    reply = b''
    while not reply.endswith(b'\r\n'): reply += sock.recv(4096)
    return reply
for line in sys.stdin:
    req = json.loads(line)
    answer = {'id': req['id'], 'result': True}
    if req['op'] == 'hello':  # counted after the start, which a zygote makes once for both runs
        n = int(open(path).read()); open(path, 'w').write(str(n + 1))
        host, port = req['servers'][0].rsplit(':', 1)
        sock, key = socket.create_connection((host, int(port))), req['key']
        send('SET', 'side', 'run-%d' % n)
    elif req['op'] == 'acquire':
        answer['token'] = 't'
        answer['result'] = send('SET', key, 't', 'NX', 'PX', '3000').startswith(b'+OK')
    print(json.dumps(answer), flush=True)
)py");
  auto [out, code] = locksim::tests::run_shell(adapter.run() + " --verify 2>&1");
  INFO(out);
  CHECK(code == 4);
  CHECK(out.find("nondeterministic run: scenario stream-adapter, lock external, seed 1: the first run's digest ") !=
        std::string::npos);
}

// The address map (simtime_protocol.h): the process is told a port that is
// the same in every run; its shim sends the connect to the real socket's
// ephemeral port and shows the told port in getpeername, so nothing the
// library says names the port the kernel picked.
#include "hosted/sim_socket_server.hpp"

TEST_CASE("hosted time: a told port reaches the real socket, and getpeername shows the told one", "[hosted-time]") {
  SimSocketServer server;
  Python py(R"(import socket
c = socket.create_connection(("127.0.0.1", 6379))
print(c.getpeername()[1])
)", 1);
  py.spec.ports = {{6379, static_cast<std::uint16_t>(server.port())}};
  ControlledProcess p(py.spec);
  Stop stop = run_to_end(p);
  for (int i = 0; i < 10 && std::holds_alternative<Blocked>(stop); ++i) {  // the handshake, if it waited
    std::vector<int> fds;
    for (const auto& f : std::get<Blocked>(stop).fds) fds.push_back(f.fd);
    p.resume_ready(fds);
    stop = run_to_end(p);
  }
  REQUIRE(exited_zero(stop));
  CHECK(py.output() == "6379\n");
  CHECK(server.drain().opened.size() == 1);
}

// HostedClient::resume: a wait that ends during an instant is told to the
// process only when it next runs, after every event of the instant — told
// at once, it would run beside them in real time (node-redlock's ready
// checks, three replies at one instant, gave three digests for one seed
// under load). Here the process would print within the real-time pause.
#include "hosted/hosted_client.hpp"
#include "sim/world.hpp"

TEST_CASE("hosted time: a wait that ends is told to the process only when it next runs", "[hosted-time]") {
  int in[2];
  REQUIRE(pipe2(in, O_CLOEXEC) == 0);
  Python py("import sys\nline = sys.stdin.readline()\nprint('read', line.strip(), flush=True)\n", 1, in[0]);
  locksim::sim::World world(1);
  locksim::sim::Host& host = world.add_host("A");
  host.start();
  {
    HostedClient client(host, 0, [](std::size_t) { return locksim::sim::HostId{}; });
    client.start(py.spec, "hosted-A");
    client.run();
    REQUIRE(client.blocked());  // on its stdin
    REQUIRE(write(in[1], "hello\n", 6) == 6);
    client.input_ready(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK(py.output().empty());
    client.run();
    CHECK(py.output() == "read hello\n");
    CHECK(client.ended());
  }
  close(in[0]);
  close(in[1]);
  world.destroy_hosts();
}
