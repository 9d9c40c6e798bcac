// SentinelQuorum: three `redis-server --sentinel` processes on free loopback
// ports, their configs, readiness and the two questions live mode asks them
// (sentinel_quorum.hpp).
#include "live/sentinel_quorum.hpp"

#include <algorithm>
#include <fstream>
#include <thread>

#include "live/process_group.hpp"
#include "live/redis_cluster.hpp"
#include "locks/hiredis/hiredis_conn.hpp"

namespace locksim::live {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr int kStartAttempts = 5;  // fresh ports tried when another process wins a port race
constexpr auto kAskTimeout = 100ms;

// Sentinel's periods and timeouts (SENTINEL DEBUG names), in ms of
// scenario time; each runs scaled, at least 10 ms. Those the simulated
// Sentinel (sim/redis/sentinel.cpp) also has keep sentinel.c's Redis 7.0
// defaults (sentinel_info_period, sentinel_publish_period: the 8 s
// conversion wait, sentinel_slave_reconf_timeout, sentinel_election_timeout).
// PING and the quorum's questions get the simulated Sentinel's 100 ms
// check, not sentinel.c's 1 s: the model detects a master down within a
// check and takes the quorum's agreement as immediate, and a 1 s period
// would move a real SDOWN by up to a second (it counts from the last
// reply) and ODOWN by up to another. TILT is left alone: it guards
// against the real process being stalled, which the time scale does not
// change.
struct SentinelPeriod {
  const char* name;
  std::int64_t scenario_ms;
};
constexpr SentinelPeriod kScaledPeriods[] = {
    {"info-period", 10000},          {"ping-period", 100},
    {"ask-period", 100},             {"publish-period", 2000},
    {"slave-reconf-timeout", 10000}, {"election-timeout", 10000},
};
constexpr std::int64_t kLeastPeriodMs = 10;

std::string sentinel_log_tail(const fs::path& dir) { return last_log_line(dir / "sentinel.log"); }

Reply ask_once(int port, const Argv& argv) {
  locks::HiredisConn conn(locks::HiredisOptions{"127.0.0.1", port, kAskTimeout, kAskTimeout});
  return conn.execute(argv);
}

}  // namespace

std::string SentinelQuorum::master_name(int shard) { return "locksim-" + std::to_string(shard + 1); }

Result<std::unique_ptr<SentinelQuorum>, LiveError> SentinelQuorum::start(const SentinelSpec& spec) {
  std::unique_ptr<SentinelQuorum> q(new SentinelQuorum(spec));
  q->ports_.assign(kSentinels, 0);
  q->pids_.assign(kSentinels, -1);
  for (std::size_t i = 0; i < kSentinels; ++i) {
    if (!q->start_one(i)) {
      if (q->interrupted())
        return failure(LiveError{
            kInternal, "interrupted by a signal while starting the sentinels; every process was stopped", true});
      return failure(LiveError{kInternal, "sentinel-" + std::to_string(i + 1) +
                                              " (redis-server --sentinel) did not start: " +
                                              sentinel_log_tail(spec.dir / ("sentinel-" + std::to_string(i + 1)))});
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + spec.start_deadline;
  while (!q->ready()) {
    if (q->interrupted())
      return failure(LiveError{
          kInternal, "interrupted by a signal while starting the sentinels; every process was stopped", true});
    if (std::chrono::steady_clock::now() > deadline)
      return failure(LiveError{kInternal, "the sentinels did not all see every replica and each other within " +
                                              std::to_string(spec.start_deadline.count()) +
                                              " ms: " + sentinel_log_tail(spec.dir / "sentinel-1")});
    std::this_thread::sleep_for(10ms);
  }
  if (spec.time_scale_ppm > 1'000'000)
    for (int port : q->ports_) q->scale_periods(port, spec.time_scale_ppm);
  return q;
}

SentinelQuorum::~SentinelQuorum() { stop_all(); }

std::string SentinelQuorum::config(int port) const {
  std::string out = "port " + std::to_string(port) + "\nbind 127.0.0.1\ndaemonize no\n";
  for (std::size_t m = 0; m < spec_.master_ports.size(); ++m) {
    const std::string name = master_name(static_cast<int>(m));
    out += "sentinel monitor " + name + " 127.0.0.1 " + std::to_string(spec_.master_ports[m]) + " " +
           std::to_string(kQuorum) + "\n";
    out += "sentinel down-after-milliseconds " + name + " " + std::to_string(spec_.down_after.count()) + "\n";
    out += "sentinel failover-timeout " + name + " " + std::to_string(spec_.failover_timeout.count()) + "\n";
    out += "sentinel parallel-syncs " + name + " " + std::to_string(spec_.parallel_syncs) + "\n";
  }
  return out;
}

bool SentinelQuorum::start_one(std::size_t i) {
  const fs::path dir = spec_.dir / ("sentinel-" + std::to_string(i + 1));
  fs::create_directories(dir);
  for (int attempt = 0; attempt < kStartAttempts && !interrupted(); ++attempt) {
    const int port = free_loopback_port();
    if (port == 0) return false;
    std::ofstream(dir / "sentinel.conf") << config(port);
    const std::vector<std::string> argv = {spec_.binary.string(), (dir / "sentinel.conf").string(), "--sentinel",
                                           "--dir", dir.string(), "--logfile", (dir / "sentinel.log").string()};
    pids_[i] = spawn_process_group(argv, nullptr, dir / "stdout.log");
    if (pids_[i] < 0) return false;
    ports_[i] = port;
    const auto deadline = std::chrono::steady_clock::now() + spec_.start_deadline;
    while (std::chrono::steady_clock::now() < deadline && !interrupted() && !reaped(pids_[i])) {
      if (loopback_roundtrip(port, "PING\r\n").rfind("+PONG", 0) == 0) {
        // Not slower than the defaults until the sentinels have found each
        // other (a hello each publish-period): a start at a scale above 1
        // would otherwise wait that much longer.
        scale_periods(port, std::min<std::int64_t>(spec_.time_scale_ppm, 1'000'000));
        return true;
      }
      std::this_thread::sleep_for(5ms);
    }
    stop_process_group(pids_[i], 1s);  // exited (a lost port race: try another) or never answered
  }
  return false;
}

// SENTINEL DEBUG <period> <ms>: each period at time scale `ppm`.
void SentinelQuorum::scale_periods(int port, std::int64_t ppm) const {
  Argv argv = {"SENTINEL", "DEBUG"};
  for (const auto& p : kScaledPeriods) {
    argv.push_back(p.name);
    argv.push_back(std::to_string(std::max<std::int64_t>(kLeastPeriodMs, p.scenario_ms * ppm / 1'000'000)));
  }
  (void)ask_once(port, argv);
}

// Every sentinel sees every shard's replicas and the other sentinels (the
// quorum can only agree on ODOWN and elect a leader once they know each
// other): INFO sentinel's "masterN:...,slaves=R,sentinels=3" lines.
bool SentinelQuorum::ready() const {
  const std::string want = ",slaves=" + std::to_string(spec_.replicas) + ",sentinels=" + std::to_string(kSentinels);
  for (int port : ports_) {
    const std::string info = loopback_roundtrip(port, "INFO sentinel\r\n");
    for (std::size_t m = 0; m < spec_.master_ports.size(); ++m) {
      const auto at = info.find("name=" + master_name(static_cast<int>(m)) + ",");
      if (at == std::string::npos || info.find(want, at) > info.find('\n', at)) return false;
    }
  }
  return true;
}

Reply SentinelQuorum::ask(std::size_t i, const Argv& argv) {
  if (conns_.size() != ports_.size()) conns_.resize(ports_.size());
  if (!conns_[i])
    conns_[i] = std::make_unique<locks::HiredisConn>(locks::HiredisOptions{"127.0.0.1", ports_[i], kAskTimeout, kAskTimeout});
  return conns_[i]->execute(argv);
}

Result<bool, std::string> SentinelQuorum::failover(int shard) {
  std::string refused = "no sentinel answered";
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const Reply r = ask(i, {"SENTINEL", "FAILOVER", master_name(shard)});
    if (r.is_ok()) return true;
    if (r.is_error()) refused = r.str;
  }
  return failure(refused);
}

// SENTINEL MASTER's reply is a flat list of field, value.
std::optional<SentinelView> SentinelQuorum::master(int shard) {
  std::optional<SentinelView> best;
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const Reply r = ask(i, {"SENTINEL", "MASTER", master_name(shard)});
    if (r.type != Reply::Type::Array) continue;
    SentinelView v;
    for (std::size_t k = 0; k + 1 < r.elements.size(); k += 2) {
      const std::string& field = r.elements[k].str;
      if (field == "port") v.port = std::stoi(r.elements[k + 1].str);
      else if (field == "config-epoch") v.config_epoch = std::stoll(r.elements[k + 1].str);
    }
    if (v.port > 0 && (!best || v.config_epoch > best->config_epoch)) best = v;
  }
  return best;
}

std::vector<pid_t> SentinelQuorum::pids() const {
  std::vector<pid_t> out;
  for (pid_t p : pids_)
    if (p > 0) out.push_back(p);
  return out;
}

void SentinelQuorum::stop_all() {
  conns_.clear();
  for (pid_t& p : pids_) stop_process_group(p, 1s);
}

}  // namespace locksim::live
