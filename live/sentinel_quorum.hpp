// SentinelQuorum: the real Redis Sentinel of `locksim live` — three
// `redis-server --sentinel` processes (quorum 2) watching every shard of a
// RedisCluster that has replicas, so that a failover is what Sentinel does
// (src/sentinel.c: SDOWN after down-after-milliseconds, ODOWN by the
// quorum, a leader elected, the best replica promoted, the other replicas
// and the old master re-pointed with parallel-syncs) and not locksim's own.
//
// Each sentinel gets a generated config in its own directory (Sentinel
// rewrites it): `sentinel monitor locksim-N 127.0.0.1 PORT 2`, where PORT
// is the shared listener of the master's TCP proxy (the port every node
// announces: live/tcp_proxy.hpp SharedListener), with down-after-
// milliseconds, failover-timeout and parallel-syncs from the scenario.
// Sentinel's own periods (INFO, hello, the replica reconfiguration and
// election timeouts; PING and the quorum's questions at the simulated
// Sentinel's 100 ms check) are scaled by the time scale like every other
// duration, through SENTINEL DEBUG (Redis 7.0); the failover's one-second
// INFO period is fixed in sentinel.c.
//
// Processes: each in its own process group with the watchdog of
// live/process_group.hpp, so none outlives locksim (SIGINT, SIGTERM,
// SIGKILL); stop_all() and the destructor stop and reap them all.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "live/live_servers.hpp"
#include "locks/hiredis/hiredis_conn.hpp"
#include "vocab/reply.hpp"
#include "vocab/result.hpp"

namespace locksim::live {

struct SentinelSpec {
  std::filesystem::path binary;   // redis-server (started with --sentinel)
  std::filesystem::path dir;      // a directory per sentinel is made below it
  std::vector<int> master_ports;  // per shard: the port its master announces
  int replicas = 0;               // per shard, for readiness
  std::chrono::milliseconds down_after{30000};
  std::chrono::milliseconds failover_timeout{180000};
  int parallel_syncs = 1;
  std::int64_t time_scale_ppm = 1'000'000;  // Sentinel's own periods, scaled
  std::chrono::milliseconds start_deadline{10000};
  const std::atomic<int>* interrupted = nullptr;
};

// What the quorum says of one shard: its master's announced port and the
// configuration epoch of that answer.
struct SentinelView {
  int port = 0;
  std::int64_t config_epoch = 0;
};

class SentinelQuorum {
 public:
  static constexpr int kSentinels = 3;
  static constexpr int kQuorum = 2;
  static Result<std::unique_ptr<SentinelQuorum>, LiveError> start(const SentinelSpec& spec);
  ~SentinelQuorum();
  SentinelQuorum(const SentinelQuorum&) = delete;
  SentinelQuorum& operator=(const SentinelQuorum&) = delete;

  static std::string master_name(int shard);  // "locksim-1", ...
  // SENTINEL FAILOVER locksim-N on the first sentinel that answers; the
  // error reply (e.g. -NOGOODSLAVE, -INPROG) when none accepts it.
  Result<bool, std::string> failover(int shard);
  // The answer with the highest configuration epoch among the sentinels
  // (SENTINEL MASTER: get-master-addr-by-name's address with its epoch);
  // nullopt when none answers.
  std::optional<SentinelView> master(int shard);
  std::vector<pid_t> pids() const;
  int port(std::size_t i) const { return ports_[i]; }
  std::size_t size() const { return ports_.size(); }
  void stop_all();

 private:
  explicit SentinelQuorum(SentinelSpec spec) : spec_(std::move(spec)) {}
  bool start_one(std::size_t i);
  bool ready() const;
  void scale_periods(int port, std::int64_t ppm) const;
  std::string config(int port) const;
  Reply ask(std::size_t i, const Argv& argv);  // on sentinel i's kept connection
  bool interrupted() const { return spec_.interrupted && spec_.interrupted->load() != 0; }

  SentinelSpec spec_;
  std::vector<int> ports_;
  std::vector<pid_t> pids_;
  std::vector<std::unique_ptr<locks::HiredisConn>> conns_;  // per sentinel (main thread: polled every loop)
};

}  // namespace locksim::live
