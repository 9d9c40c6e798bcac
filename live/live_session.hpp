// A live session: the live world of one run, wired from its parts, and the
// run's event loop. The parts (each taking what it needs by reference):
//  - LiveCore (live_core.hpp): the one mutex, the stop flag, the origin and
//    time scale, the partition, the queue of timed events;
//  - LiveRecorder: the History, the counters, the notes;
//  - LiveStorageLink: the protected storage behind each client's link;
//  - LiveClients: the client threads, crash and restart, adapter processes,
//    the clients' own links;
//  - the service (live_service.hpp): the servers, how a client connects,
//    what a fault does to a server of that service;
//  - SessionFaultActions: what each kind's applier acts through;
//  - the fault timeline (scenarios/fault_timeline.hpp) both worlds share.
// The session itself is the WorkloadWorld the workload runs against
// (scenarios/workload.cpp, the simulator's) and the LiveWorld of the client
// runtimes, each call handed to the part it concerns.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "live/live_clients.hpp"
#include "live/live_core.hpp"
#include "live/live_fault_actions.hpp"
#include "live/live_recorder.hpp"
#include "live/live_service.hpp"
#include "live/live_storage_link.hpp"
#include "scenarios/fault_timeline.hpp"
#include "scenarios/workload_world.hpp"

namespace locksim::live {

// "interrupted by SIGINT; every redis-server was stopped" (exit 3).
LiveError interrupted_error(int sig, const std::string& stopped);

class LiveSession final : public LiveWorld, public scenarios::WorkloadWorld, private scenarios::FaultTimeline::World {
 public:
  // `scaled`: the scenario with every duration in real time; the History
  // ends at `duration` (scenario time). `interrupted`: set by a signal.
  LiveSession(const scenarios::Scenario& scaled, Duration duration, const locks::LockInfo& lock, std::int64_t ppm,
              LiveService& service, std::string order_key, const std::atomic<int>& interrupted);
  ~LiveSession() override;

  Result<bool, LiveError> run();
  LiveRecorder& recorder() { return recorder_; }

  // --- LiveWorld
  bool stopping() const override { return core_.stop.load(); }
  bool wait_until(LiveCore::Clock::time_point deadline) override;
  void pause_point(std::size_t c) override { clients_.pause_point(c); }
  bool crashed(std::size_t c) override { return clients_.crashed(c); }
  void record_entry(const ProbedCommand& probe, std::optional<sim::redis::KeyEvent::Kind> kind, bool present_before,
                    ServerStamp stamp) override {
    recorder_.record_entry(probe, kind, present_before, stamp, service_.wall_offset(probe.node));
  }
  std::chrono::milliseconds command_timeout() const override;
  double time_scale() const override { return static_cast<double>(core_.ppm) / 1e6; }
  const std::string& order_key() const override { return order_key_; }
  void adapter_process(std::size_t c, pid_t pid, const std::string& label) override {
    clients_.adapter_process(c, pid, label);
  }
  bool paused(std::size_t c) override { return clients_.paused(c); }
  void adapter_note(std::size_t, const std::string& text) override { recorder_.adapter_note(text); }
  std::vector<std::string> adapter_servers(std::size_t c) const override { return service_.client_endpoints(c); }
  std::optional<SentinelDiscovery> adapter_discovery(std::size_t c) const override {
    return service_.sentinel_discovery(c);
  }
  ClientClock* client_clock(std::size_t c) override { return &clients_.clock(c); }
  std::unique_ptr<ExternalClient> take_adapter(std::size_t c) override { return clients_.take_adapter(c); }

  // --- scenarios::WorkloadWorld (each call on the client's own thread)
  const scenarios::Scenario& scenario() const override { return s_; }
  const locks::LockInfo& lock() const override { return lock_; }
  const std::string& client_name(std::size_t c) const override { return s_.clients[c].name; }
  std::uint64_t incarnation(std::size_t c) const override { return clients_.incarnation(c); }
  LocalInstant monotonic_now(std::size_t c) override;
  Task<void> sleep_until(std::size_t c, LocalInstant target) override;
  Task<void> await_start(std::size_t c, Duration start) override;
  // A reading of c's own (drifting) clock placed in real time through that clock.
  TrueInstant true_when_monotonic(std::size_t c, LocalInstant local) override {
    return core_.to_true(LocalInstant{clients_.clock(c).real_when_monotonic(local.time_since_epoch())});
  }
  std::int64_t latency_us(Duration true_elapsed) const override {  // real latency, not scaled back
    return (std::chrono::duration_cast<std::chrono::microseconds>(true_elapsed) * core_.ppm / 1'000'000).count();
  }
  Task<Reply> send_write(std::size_t c, scenarios::WriteRequest w) override;
  Task<void> reach(std::size_t c, scenarios::TriggerEvent event, int write_index) override;
  bool ended() const override { return core_.stop.load(); }
  scenarios::ClientProgress& progress(std::size_t c) override { return clients_.progress(c); }
  // Live keeps no trace: the History is its whole record.
  void note(std::size_t, std::string_view, std::string_view) override {}

 protected:
  void record_with(std::size_t c, void (*call)(void*, const scenarios::Ledger&), void* fn) override;

 private:
  // --- scenarios::FaultTimeline::World (called with the core's mutex held)
  Duration now() const override;
  void schedule(Duration at, std::size_t event) override;
  void apply(const scenarios::FaultSpec& fault) override { applying_ = &fault; }

  bool run_due_events();
  bool story_over();
  std::string story_over_note(LiveCore::Clock::duration real) const;
  std::optional<LiveError> loop(LiveCore::Clock::time_point end);

  const scenarios::Scenario& s_;
  Duration duration_;
  const locks::LockInfo& lock_;
  LiveService& service_;
  std::string order_key_;
  const std::atomic<int>& interrupted_;
  LiveCore core_;
  LiveEvents events_;
  LiveRecorder recorder_{core_};
  LiveStorageLink storage_;
  LiveClients clients_;
  scenarios::FaultTimeline timeline_{*this};        // requires the core's mutex
  std::vector<std::uint64_t> timeline_events_;      // per timeline event: its id in events_
  const scenarios::FaultSpec* applying_ = nullptr;  // the fault the timeline just handed to apply()
  SessionFaultActions actions_;
  LateReplies late_{*this};  // last: its thread reads the rest
};

}  // namespace locksim::live
