// CpCluster: the temporary directory, ports, spawning, readiness waits,
// faults and teardown shared by the live etcd and ZooKeeper clusters
// (cp_cluster.hpp).
#include "live/cp_cluster.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "live/live_leftovers.hpp"
#include "live/process_group.hpp"
#include "scenarios/host_names.hpp"

namespace locksim::live {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr int kStartAttempts = 3;  // fresh ports tried when another process wins a port race
constexpr auto kStopGrace = 5s;    // a JVM takes its time on SIGTERM

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p, ec);
}

}  // namespace

std::optional<fs::path> find_executable(const std::string& name, const fs::path& requested) {
  if (!requested.empty()) return is_executable(requested) ? std::optional(requested) : std::nullopt;
  std::vector<fs::path> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream list(path);
    for (std::string d; std::getline(list, d, ':');)
      if (!d.empty()) dirs.emplace_back(d);
  }
  for (const char* d : {"/usr/bin", "/usr/sbin", "/usr/local/bin"}) dirs.emplace_back(d);
  for (const auto& d : dirs)
    if (is_executable(d / name)) return d / name;
  return std::nullopt;
}

CpCluster::~CpCluster() {
  stop_all();
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::optional<std::size_t> CpCluster::find(const std::string& name) const {
  for (std::size_t i = 0; i < members_.size(); ++i)
    if (members_[i].name == name) return i;
  return std::nullopt;
}

std::vector<std::string> CpCluster::endpoints() const {
  std::vector<std::string> out;
  for (const auto& m : members_) out.push_back("127.0.0.1:" + std::to_string(m.client_port));
  return out;
}

std::vector<std::string> CpCluster::client_endpoints(const std::string& client) const {
  std::vector<std::string> out;
  for (const auto& proxy : proxies_) out.push_back("127.0.0.1:" + std::to_string(proxy->port(client)));
  return out;
}

std::string CpCluster::log_tail(const CpMember& m) const {
  std::ifstream in(m.dir / "member.log");
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last.empty() ? "(empty log)" : last;
}

Result<bool, LiveError> CpCluster::start_all() {
  const char* base = std::getenv("TMPDIR");
  const std::string tmp = base && *base ? base : "/tmp";
  remove_stale_live_dirs(tmp);  // those of runs that were killed (live_leftovers.hpp)
  std::string tmpl = tmp + "/locksim-live-XXXXXX";
  if (!::mkdtemp(tmpl.data())) return failure(LiveError{kInternal, "cannot create a temporary directory in " + tmpl});
  dir_ = tmpl;
  mark_live_dir_owner(dir_);
  for (int i = 1; i <= options_.members; ++i) {
    CpMember m;
    m.name = scenarios::cp_member_host_name(topology_, i);
    m.dir = dir_ / m.name;
    fs::create_directories(m.dir);
    members_.push_back(m);
  }
  for (int attempt = 1;; ++attempt) {
    auto started = start_members_once();
    if (started || attempt == kStartAttempts || interrupted()) {
      if (interrupted())
        return failure(LiveError{
            kInternal, "interrupted by a signal while starting " + what_ + "; every member was stopped", true});
      if (!started) return failure(started.error());
      break;
    }
  }
  for (const auto& m : members_) {
    auto proxy = TcpProxy::start("127.0.0.1", m.client_port, options_.clients);
    if (!proxy) return failure(LiveError{kInternal, m.name + ": proxy: " + proxy.error()});
    proxies_.push_back(std::move(*proxy));
  }
  return true;
}

// One try on fresh ports: every member spawned, then all must serve. Each
// try starts from empty member directories: a data directory left by a
// failed try holds the old cluster (etcd ignores --initial-cluster for an
// existing data dir), whose peers are on the old ports, so the member
// could never join the new one.
Result<bool, LiveError> CpCluster::start_members_once() {
  for (auto& m : members_) {
    stop_member(m);
    std::error_code ec;
    fs::remove_all(m.dir, ec);
    fs::create_directories(m.dir, ec);
    if (ec) return failure(LiveError{kInternal, "cannot create " + m.dir.string() + ": " + ec.message()});
    m.client_port = free_loopback_port();
    m.peer_port = free_loopback_port();
    m.election_port = needs_election_port() ? free_loopback_port() : 0;
    if (m.client_port == 0 || m.peer_port == 0 || (needs_election_port() && m.election_port == 0))
      return failure(LiveError{kInternal, "cannot find a free loopback port"});
  }
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (auto prepared = prepare(members_[i]); !prepared) return failure(prepared.error());
    if (!spawn(members_[i], false)) return failure(LiveError{kInternal, members_[i].name + ": fork failed"});
    all.push_back(i);
  }
  std::string failed;
  if (wait_serving(all, failed)) return true;
  for (auto& m : members_) stop_member(m);
  return failure(LiveError{kInternal, failed});
}

bool CpCluster::spawn(CpMember& m, bool restart) {
  m.pid = spawn_process_group(command_line(m, restart), nullptr, m.dir / "member.log");
  return m.pid > 0;
}

// Until every member in `which` serves, one exits, or the deadline passes.
bool CpCluster::wait_serving(const std::vector<std::size_t>& which, std::string& failed) {
  const auto deadline = std::chrono::steady_clock::now() + options_.start_deadline;
  std::vector<bool> ready(which.size(), false);
  while (std::chrono::steady_clock::now() < deadline && !interrupted()) {
    bool all = true;
    for (std::size_t k = 0; k < which.size(); ++k) {
      CpMember& m = members_[which[k]];
      if (m.pid > 0 && reaped(m.pid)) {
        m.pid = -1;
        failed = m.name + " (" + what_ + " on 127.0.0.1:" + std::to_string(m.client_port) +
                 ") exited while starting: " + log_tail(m);
        return false;
      }
      if (!ready[k]) ready[k] = serving(m);
      all = all && ready[k];
    }
    if (all) return true;
    std::this_thread::sleep_for(20ms);
  }
  failed = what_ + " did not serve clients within " + std::to_string(options_.start_deadline.count()) + " ms";
  for (std::size_t k = 0; k < which.size(); ++k)
    if (!ready[k]) failed += "; " + members_[which[k]].name + ": " + log_tail(members_[which[k]]);
  return false;
}

void CpCluster::stop_member(CpMember& m) { stop_process_group(m.pid, kStopGrace); }

void CpCluster::pause(std::size_t i) {
  pause_process_group(members_[i].pid);
}

void CpCluster::resume(std::size_t i) {
  resume_process_group(members_[i].pid);
}

void CpCluster::kill9(std::size_t i) { kill_process_group(members_[i].pid); }

Result<bool, LiveError> CpCluster::restart(std::size_t i) {
  CpMember& m = members_[i];
  stop_member(m);
  if (auto prepared = prepare(m); !prepared) return failure(prepared.error());
  if (!spawn(m, true)) return failure(LiveError{kInternal, m.name + ": fork failed"});
  std::string failed;
  if (wait_serving({i}, failed)) return true;
  stop_member(m);
  return failure(
      LiveError{kInternal, m.name + " did not restart on port " + std::to_string(m.client_port) + ": " + failed});
}

std::optional<std::string> CpCluster::died_unexpectedly() {
  for (auto& m : members_) {
    if (m.pid > 0 && reaped(m.pid)) {
      ::kill(-m.pid, SIGKILL);
      m.pid = -1;
      return m.name + " (" + what_ + " on 127.0.0.1:" + std::to_string(m.client_port) +
             ") exited unexpectedly: " + log_tail(m);
    }
  }
  return std::nullopt;
}

void CpCluster::stop_all() {
  for (auto& proxy : proxies_) proxy->stop();
  for (auto& m : members_)  // all at once: no member waits for the others to go
    if (m.pid > 0) ::kill(-m.pid, SIGCONT), ::kill(-m.pid, SIGTERM);
  for (auto& m : members_) stop_member(m);
}

void CpCluster::discard_all() {
  for (auto& proxy : proxies_) proxy->stop();
  for (auto& m : members_) kill_process_group(m.pid);
}

std::vector<pid_t> CpCluster::pids() const {
  std::vector<pid_t> out;
  for (const auto& m : members_)
    if (m.pid > 0) out.push_back(m.pid);
  return out;
}

}  // namespace locksim::live
