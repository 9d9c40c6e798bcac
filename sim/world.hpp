// World: one simulated universe — trace, scheduler, network and hosts, all
// derived from one seed. Independent worlds share nothing, so a sweep runs
// many of them on separate threads.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/rng.hpp"
#include "sim/scheduler.hpp"
#include "sim/trace.hpp"

namespace locksim::sim {

class World {
 public:
  explicit World(std::uint64_t seed);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  std::uint64_t seed() const { return seed_; }
  Trace& trace() { return trace_; }
  Scheduler& scheduler() { return scheduler_; }
  Network& network() { return network_; }
  TrueInstant now() const { return scheduler_.now(); }
  // A stream for a component, by name (see Rng::fork).
  Rng stream(std::string_view name) const { return root_.fork(name); }

  Host& add_host(std::string name);
  Host& host(HostId id) { return *hosts_[id]; }
  const Host& host(HostId id) const { return *hosts_[id]; }
  Host* find_host(std::string_view name);
  std::size_t host_count() const { return hosts_.size(); }
  const std::string& host_name(HostId id) const;
  // Destroys every host and its frames (the end of a run). Frames are
  // destroyed while the scheduler and network are still alive.
  void destroy_hosts() { hosts_.clear(); }

  // A semantic trace record at the current instant.
  void note(HostId host, std::string_view kind, std::string_view detail) {
    trace_.record(scheduler_.now(), scheduler_.current_seq(), host, kind, detail);
  }

 private:
  std::uint64_t seed_;
  Rng root_;
  Trace trace_;
  Scheduler scheduler_;
  Network network_;
  std::deque<std::unique_ptr<Host>> hosts_;  // destroyed first (declared last)
};

}  // namespace locksim::sim
