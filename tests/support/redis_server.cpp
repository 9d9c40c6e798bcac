// RedisServerProcess: fork/exec of a real redis-server on a free loopback
// port, readiness by log line + PING, and a stop that always reaps it
// (see redis_server.hpp).
#include "tests/support/redis_server.hpp"

#include "live/process_group.hpp"
#include "live/redis_cluster.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace locksim::tests {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr int start_attempts = 5;  // new ports tried when another process wins a port race

constexpr const char* dir_prefix = "locksim-redis-";
constexpr const char* owner_file = "owner.pid";  // the test process that made the dir

fs::path temp_base() {
  const char* base = std::getenv("TMPDIR");
  return base && *base ? fs::path(base) : fs::path("/tmp");
}

// A test process killed outright (SIGKILL, a ctest timeout) cannot remove
// its directories; the kernel already killed its servers (PR_SET_PDEATHSIG).
// Removes such leftovers: directories whose owning process is gone.
void remove_dirs_of_dead_tests() {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(temp_base(), ec)) {
    if (entry.path().filename().string().rfind(dir_prefix, 0) != 0) continue;
    std::ifstream in(entry.path() / owner_file);
    long owner = 0;
    if (!(in >> owner) || owner <= 0) continue;  // not ours, or still being set up
    if (::kill(static_cast<pid_t>(owner), 0) == -1 && errno == ESRCH) {
      fs::remove_all(entry.path(), ec);
    }
  }
}

fs::path make_temp_dir() {
  remove_dirs_of_dead_tests();
  std::string tmpl = (temp_base() / (std::string(dir_prefix) + "XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("redis_server: mkdtemp failed");
  std::ofstream(fs::path(tmpl) / owner_file) << ::getpid() << "\n";
  return tmpl;
}

// One raw PING over loopback; true if the server answered +PONG or -NOAUTH
// (a password-protected server is up too). Independent of REDISCLI_AUTH.
bool answers_ping(int port) {
  const std::string line = locksim::live::loopback_roundtrip(port, "PING\r\n");
  return line.rfind("+PONG", 0) == 0 || line.rfind("-NOAUTH", 0) == 0;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// waitpid without blocking; true once the child has exited (and is reaped).
bool reaped(pid_t pid) {
  int status = 0;
  pid_t r = ::waitpid(pid, &status, WNOHANG);
  return r == pid || (r < 0 && errno == ECHILD);
}

}  // namespace

// live mode's search ($LOCKSIM_REDIS_SERVER first, when set).
std::optional<fs::path> find_redis_server() {
  const char* env = std::getenv("LOCKSIM_REDIS_SERVER");
  auto found = live::locate_redis_server(env && *env ? fs::path(env) : fs::path());
  if (!found) return std::nullopt;
  return *found;
}

void skip_without_redis_server() {
  if (find_redis_server()) return;
  // CI installs redis-server (scripts/setup.sh): there a missing one is a
  // broken setup, and a skip would hide the real-Redis suites. Fail instead.
  const char* ci = std::getenv("CI");
  const bool required = ci && std::string(ci) == "true";
  std::printf("%s: redis-server not found (install it: apt-get install redis-server)\n",
              required ? "FAILED (CI=true)" : "SKIPPED");
  std::fflush(stdout);
  std::exit(required ? 1 : 77);
}

RedisServerProcess::RedisServerProcess(RedisServerOptions options)
    : options_(std::move(options)) {
  auto binary = find_redis_server();
  if (!binary) throw std::runtime_error("redis_server: no redis-server binary found");
  binary_ = *binary;
  dir_ = make_temp_dir();
  for (int attempt = 0; attempt < start_attempts; ++attempt) {
    port_ = live::free_loopback_port();
    if (port_ == 0) throw std::runtime_error("redis_server: cannot find a free loopback port");
    if (start_once()) return;
  }
  std::string tail = log();
  std::error_code ec;
  fs::remove_all(dir_, ec);
  throw std::runtime_error("redis_server: redis-server did not start; log:\n" + tail);
}

RedisServerProcess::~RedisServerProcess() {
  stop();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::vector<std::string> RedisServerProcess::arguments() const {
  std::vector<std::string> args = {
      binary_.string(), "--port", std::to_string(port_), "--bind", "127.0.0.1",
      "--dir", dir_.string(), "--logfile", (dir_ / "redis.log").string(),
      "--save", "", "--appendonly", options_.appendonly ? "yes" : "no",
      "--appendfsync", options_.appendfsync, "--daemonize", "no"};
  if (options_.replicaof_port) {
    args.insert(args.end(), {"--replicaof", "127.0.0.1", std::to_string(*options_.replicaof_port)});
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  return args;
}

pid_t RedisServerProcess::spawn() const {
  // Everything the child needs is prepared before fork (only async-signal-safe
  // calls after it: the test binary may have threads).
  std::vector<std::string> args = arguments();
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out_path = (dir_ / "stdout.log").string();
  const pid_t parent = ::getpid();
  const long max_fd = std::min(::sysconf(_SC_OPEN_MAX), 65536L);

  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("redis_server: fork failed");
  if (pid > 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the test process died: take the server with it
  if (::getppid() != parent) ::_exit(127);
  int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int in = ::open("/dev/null", O_RDONLY);
  if (out >= 0) {
    ::dup2(out, 1);
    ::dup2(out, 2);
  }
  if (in >= 0) ::dup2(in, 0);
  for (long fd = 3; fd < max_fd; ++fd) ::close(static_cast<int>(fd));
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

bool RedisServerProcess::start_once() {
  std::error_code ec;
  auto size = fs::file_size(dir_ / "redis.log", ec);
  log_offset_ = ec ? 0 : static_cast<std::size_t>(size);  // readiness counts only new lines
  pid_ = spawn();
  if (wait_ready()) return true;
  stop();
  return false;
}

bool RedisServerProcess::wait_ready() {
  const auto deadline = std::chrono::steady_clock::now() + options_.start_deadline;
  while (std::chrono::steady_clock::now() < deadline) {
    if (reaped(pid_)) {
      pid_ = -1;  // it exited: a port race, or a bad option (see the log)
      return false;
    }
    std::string lines = read_file(dir_ / "redis.log");
    bool logged_ready = lines.size() > log_offset_ &&
                        lines.find("Ready to accept connections", log_offset_) != std::string::npos;
    if (logged_ready && answers_ping(port_)) {
      return true;
    }
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

std::string RedisServerProcess::log() const {
  return read_file(dir_ / "stdout.log") + read_file(dir_ / "redis.log");
}

void RedisServerProcess::kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

void RedisServerProcess::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGCONT);  // a paused server cannot act on SIGTERM
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (reaped(pid_)) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(5ms);
  }
  kill9();
}

void RedisServerProcess::restart() {
  stop();
  if (!start_once()) {
    throw std::runtime_error("redis_server: restart on port " + std::to_string(port_) +
                             " failed; log:\n" + log());
  }
}

void RedisServerProcess::pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void RedisServerProcess::resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

}  // namespace locksim::tests
