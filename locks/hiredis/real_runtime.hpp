// RealRuntime: the Runtime of a lock client talking to real redis-servers
// (docs/architecture.md, "One lock implementation, two runtimes"; FoundationDB's Net2
// beside the simulator's Sim2).
//
// Clocks are std::chrono's: monotonic_now() reads steady_clock, wall_now()
// system_clock (nanoseconds since the Unix epoch, as a LocalInstant). Tokens
// are random UUID v4 strings from std::random_device (allowed here only:
// sim/ and locks/ outside locks/hiredis/ stay deterministic). Every command
// and every sleep completes synchronously, so `locksim::sync_wait(task)` runs a
// lock operation to completion on the caller's thread.
//
// spawn() runs a background task (a watchdog's renewal loop) on its own
// std::thread. The spawned task SHARES this runtime's connections: each
// HiredisConn serialises its commands with a mutex, so a renewal can wait
// behind a foreground command for at most one command timeout. Its sleeps
// are real sleeps that cancel() interrupts at once: the sleeping task then
// never resumes, its thread destroys its frames (as the simulator destroys a
// cancelled task's frames) and cancel() joins the thread. A command in flight
// finishes first (bounded by the command timeout). The destructor cancels
// every spawned task.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "locks/hiredis/hiredis_conn.hpp"
#include "locks/runtime.hpp"

namespace locksim::locks {

struct RealRuntimeOptions {
  std::chrono::milliseconds connect_timeout{1000};
  std::chrono::milliseconds command_timeout{1000};
  // A real client of the scenario's CP service (live/etcd_http_client.hpp,
  // live/zk_c_client.hpp) for the CP locks; not owned, must outlive the
  // runtime. Spawned tasks share it (both are thread-safe).
  ServiceConn* service = nullptr;
};

// "host:port" or "[v6-address]:port"; throws std::invalid_argument with the
// offending text on anything else (a configuration error, not an outcome).
HiredisOptions parse_endpoint(const std::string& endpoint);

class RealRuntime final : public Runtime {
 public:
  explicit RealRuntime(const std::vector<std::string>& endpoints, RealRuntimeOptions options = {});
  ~RealRuntime() override;
  RealRuntime(const RealRuntime&) = delete;
  RealRuntime& operator=(const RealRuntime&) = delete;

  LocalInstant monotonic_now() override;
  LocalInstant wall_now() override;
  Task<void> sleep(Duration d) override;
  std::string random_token() override;
  std::uint64_t random_below(std::uint64_t n) override;
  RedisConn& conn(std::size_t node) override;
  std::size_t node_count() const override;
  std::uint64_t spawn(Task<void> task) override;
  void cancel(std::uint64_t id) override;
  ServiceConn* service_conn() override { return service_; }

  // Spawned tasks that have not finished yet (for tests and shutdown).
  std::size_t running_tasks();

  struct Spawned;  // one background task and its thread (real_runtime.cpp)

 private:
  std::uint64_t random_u64();
  void reap_finished();  // requires tasks_mutex_ held

  std::vector<std::unique_ptr<HiredisConn>> conns_;
  ServiceConn* service_ = nullptr;
  std::mutex random_mutex_;
  std::random_device random_device_;
  std::mutex tasks_mutex_;
  std::uint64_t next_task_id_ = 1;
  std::map<std::uint64_t, std::shared_ptr<Spawned>> tasks_;
  std::vector<std::shared_ptr<Spawned>> self_cancelled_;  // joined by the destructor
};

}  // namespace locksim::locks
