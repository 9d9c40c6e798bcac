// The clients of a live session: one thread per client, each running one
// incarnation of scenarios::client_main after another (a crash unwinds the
// running one; a restart starts a fresh one, a new process as the simulated
// client restarts); the adapter processes of a library lock; each client's
// pause window and clocks; and, where the service's client links follow
// the client (live_service.hpp), its own links on every proxy.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "live/live_core.hpp"
#include "live/live_recorder.hpp"
#include "live/live_service.hpp"

namespace locksim::live {

class LiveClients {
 public:
  using Clock = LiveCore::Clock;

  LiveClients(LiveCore& core, LiveEvents& events, LiveRecorder& recorder, LiveService& service,
              const scenarios::Scenario& s, const locks::LockInfo& lock);
  ~LiveClients();
  LiveClients(const LiveClients&) = delete;
  LiveClients& operator=(const LiveClients&) = delete;

  std::size_t index(const std::string& name) const;

  // --- the threads (main thread)
  // A library lock's client processes, started before the run's origin.
  Result<bool, LiveError> prestart_adapters(LiveWorld& world);
  void start(scenarios::WorkloadWorld& workload, LiveWorld& world, LateReplies& late);
  void join();  // once the core's stop is set
  bool all_done() const { return done_.load() == clients_.size(); }

  // --- asked on a client's own thread (and its helpers')
  void pause_point(std::size_t c);
  bool crashed(std::size_t c);
  bool paused(std::size_t c);
  // Throws ClientCrashed once c has crashed (called on c's thread); requires mutex.
  void check_alive(std::size_t c) const;
  bool on_own_thread(std::size_t c) const {
    return std::this_thread::get_id() == clients_[c].thread;
  }                                                                           // requires mutex
  bool crashed_locked(std::size_t c) const { return clients_[c].crashed(); }  // requires mutex
  // A wait (its start, its work) until `deadline`, the end or a crash, then a step.
  void work_until(std::size_t c, Clock::time_point deadline);
  ClientClock& clock(std::size_t c) { return *clocks_[c]; }
  std::uint64_t incarnation(std::size_t c) const { return clients_[c].running; }  // written on c's thread
  scenarios::ClientProgress& progress(std::size_t c) { return clients_[c].progress; }
  void adapter_process(std::size_t c, pid_t pid, const std::string& label);
  std::unique_ptr<ExternalClient> take_adapter(std::size_t c);

  // --- faults (main thread)
  void pause(std::size_t c, Duration d);
  bool down(std::size_t c);
  void crash(std::size_t c);   // requires mutex
  void revive(std::size_t c);  // requires mutex
  void relink();               // requires mutex: the partition changed

 private:
  struct ClientState {
    Clock::time_point paused_until{};
    scenarios::ClientProgress progress;  // the workload's
    // Crash and restart: the client thread runs one incarnation at a time;
    // a crash marks it down and bumps `incarnation`, so the running one is
    // stale and unwinds at its next step (ClientCrashed).
    std::thread::id thread{};
    bool down = false;
    // A crashed client's links drop what it sends until its frames are
    // gone (crash): its library's goodbye never reaches a member.
    bool severed = false;
    // The process group of the client library running its lock
    // (live/external_lock.hpp), -1 for a lock in locksim's own thread.
    pid_t adapter = -1;
    std::uint64_t incarnation = 0, running = 0;
    bool crashed() const { return down || running != incarnation; }
  };

  void thread_main(std::size_t c, scenarios::WorkloadWorld& workload, LiveWorld& world, LateReplies& late);
  void set_links(std::size_t c);    // requires mutex
  void sever_links(std::size_t c);  // requires mutex
  void mend_links(std::size_t c);

  LiveCore& core_;
  LiveEvents& events_;
  LiveRecorder& recorder_;
  LiveService& service_;
  LiveServers& servers_;
  const scenarios::Scenario& s_;
  const locks::LockInfo& lock_;
  std::vector<ClientState> clients_;
  std::vector<std::unique_ptr<ClientClock>> clocks_;         // per client, across its restarts
  std::vector<std::unique_ptr<ExternalClient>> prestarted_;  // per client, until its first lock takes it
  std::vector<std::thread> threads_;
  std::atomic<std::size_t> done_{0};  // client threads whose workload ended (not by the run's end)
};

}  // namespace locksim::live
