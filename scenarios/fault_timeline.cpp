#include "scenarios/fault_timeline.hpp"

#include <cassert>

namespace locksim::scenarios {

void FaultTimeline::start(const std::vector<FaultSpec>& faults) {
  for (const FaultSpec& f : faults) {
    if (f.after) armed_.push_back(&f);
    else schedule(f, f.at);
  }
}

void FaultTimeline::add(FaultSpec fault) {
  const FaultSpec& f = generated_.emplace_back(std::move(fault));
  schedule(f, f.at);
}

std::vector<std::size_t> FaultTimeline::reach(std::string_view host, TriggerEvent event, int write_index) {
  std::vector<std::size_t> events;
  const Duration now = world_.now();
  std::size_t kept = 0;  // the armed faults this event did not fire stay armed, in order
  for (const FaultSpec* f : armed_) {
    if (f->after->fired_by(host, event, write_index)) events.push_back(schedule(*f, now + f->at));
    else armed_[kept++] = f;  // a trigger fires once
  }
  armed_.resize(kept);
  return events;
}

void FaultTimeline::follow_up(FaultKind kind, std::string target, Duration after) {
  FaultSpec& f = generated_.emplace_back();
  f.kind = kind;
  f.target = std::move(target);
  schedule(f, world_.now() + after);
}

std::size_t FaultTimeline::schedule(const FaultSpec& fault, Duration at) {
  const std::size_t event = scheduled_.size();
  scheduled_.push_back(&fault);
  applied_.push_back(false);
  ++pending_;
  world_.schedule(at, event);
  return event;
}

void FaultTimeline::act(std::size_t event) {
  assert(event < scheduled_.size() && !applied_[event] && "a scheduled fault is applied once");
  applied_[event] = true;
  --pending_;
  world_.apply(*scheduled_[event]);
}

}  // namespace locksim::scenarios
