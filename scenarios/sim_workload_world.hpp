// The simulator's WorkloadWorld (scenarios/workload_world.hpp): the
// workload's clients are simulated hosts of a RunContext, their clocks are
// the hosts' clocks, the storage is a service on the simulated network, a
// trigger point fires scenarios/faults.cpp's armed faults, and records go
// straight into the run's History (one thread: no lock).
#pragma once

#include "scenarios/run_context.hpp"
#include "scenarios/storage.hpp"
#include "scenarios/workload_world.hpp"
#include "sim/network.hpp"

namespace locksim::scenarios {

class SimWorkloadWorld final : public WorkloadWorld {
 public:
  explicit SimWorkloadWorld(RunContext& ctx) : ctx_(ctx) {}

  const Scenario& scenario() const override { return ctx_.scenario; }
  const locks::LockInfo& lock() const override { return ctx_.lock; }
  const std::string& client_name(std::size_t c) const override { return host(c).name(); }
  std::uint64_t incarnation(std::size_t c) const override { return host(c).incarnation(); }

  LocalInstant monotonic_now(std::size_t c) override { return host(c).monotonic_now(); }
  Task<void> sleep_until(std::size_t c, LocalInstant target) override;
  Task<void> await_start(std::size_t c, Duration start) override;
  TrueInstant true_when_monotonic(std::size_t c, LocalInstant local) override {
    return host(c).clock().true_when_monotonic(local);
  }
  std::int64_t latency_us(Duration true_elapsed) const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(true_elapsed).count();
  }

  Task<Reply> send_write(std::size_t c, WriteRequest w) override;
  Task<void> reach(std::size_t c, TriggerEvent event, int write_index) override;

  bool ended() const override { return false; }  // the scheduler stops resuming clients at the end
  ClientProgress& progress(std::size_t c) override { return ctx_.clients[c].progress; }
  void note(std::size_t c, std::string_view kind, std::string_view detail) override {
    ctx_.world.note(host(c).id(), kind, detail);
  }

 protected:
  void record_with(std::size_t c, void (*call)(void*, const Ledger&), void* fn) override {
    Ledger ledger{ctx_.history, ctx_.stats, ctx_.clients[c].progress, ctx_.world.now(), false};
    call(fn, ledger);
  }

 private:
  sim::Host& host(std::size_t c) const { return *ctx_.clients[c].host; }
  RunContext& ctx_;
};

// The storage host's service: WRITE, READ and ORDER requests
// (scenarios/storage.hpp's wire format) through the storage's rules, each
// noted in the trace.
class StorageService final : public sim::Service {
 public:
  StorageService(sim::World& world, History& history, const Scenario& scenario)
      : world_(world), history_(history), storage_(scenario) {}

  std::optional<Reply> on_request(const sim::Request& request) override;

 private:
  sim::World& world_;
  History& history_;
  Storage storage_;
};

}  // namespace locksim::scenarios
