// One run's fault timeline, the same for both worlds (the simulator's,
// scenarios/faults.cpp, and live mode's): the scenario's faults at their
// absolute times; the triggered ones armed until their trigger point is
// first reached (a trigger fires once); the follow-ups a fault asks for (a
// restart after a crash, a heal after a timed partition); and how many are
// still to come — a story is over only when none is. Times count from the
// run's origin: the simulator's true 0, live mode's start.
//
// A world gives the timeline three things (FaultTimeline::World): its now,
// an event at a time that calls `act` back, and the applier of a fault.
#pragma once

#include <cstddef>
#include <deque>
#include <string_view>
#include <vector>

#include "scenarios/scenario.hpp"

namespace locksim::scenarios {

class FaultTimeline {
 public:
  class World {
   public:
    virtual ~World() = default;
    virtual Duration now() const = 0;  // since the run's origin
    // At `at` since the origin (or now if that has passed): call act(event).
    virtual void schedule(Duration at, std::size_t event) = 0;
    virtual void apply(const FaultSpec& fault) = 0;
  };

  explicit FaultTimeline(World& world) : world_(world) {}
  FaultTimeline(const FaultTimeline&) = delete;
  FaultTimeline& operator=(const FaultTimeline&) = delete;

  // The scenario's faults: absolute ones scheduled, triggered ones armed
  // (in file order). `faults` must outlive the timeline.
  void start(const std::vector<FaultSpec>& faults);
  // A fault the run drew itself (the nemesis), at its absolute time.
  void add(FaultSpec fault);
  // A trigger point was reached: the faults armed on it are scheduled
  // `at` after now, and disarmed. Their events, in file order.
  std::vector<std::size_t> reach(std::string_view host, TriggerEvent event, int write_index = 0);
  // A fault of `kind` on `target` (empty: none, as a heal) `after` from now.
  void follow_up(FaultKind kind, std::string target, Duration after);

  // The world's event came due: the fault is applied (once).
  void act(std::size_t event);
  // Scheduled and not yet applied.
  std::size_t pending() const { return pending_; }
  bool applied(std::size_t event) const { return event < scheduled_.size() && applied_[event]; }
  // The fault an event applies (its `at`: when, after its trigger point).
  const FaultSpec& fault(std::size_t event) const { return *scheduled_.at(event); }

 private:
  std::size_t schedule(const FaultSpec& fault, Duration at);

  World& world_;
  std::vector<const FaultSpec*> armed_;      // waiting for their trigger, in file order
  std::vector<const FaultSpec*> scheduled_;  // an event is its index here
  std::vector<bool> applied_;
  std::deque<FaultSpec> generated_;  // nemesis faults and follow-ups (a deque: stable addresses)
  std::size_t pending_ = 0;
};

}  // namespace locksim::scenarios
