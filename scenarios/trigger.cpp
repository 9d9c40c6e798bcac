#include "scenarios/trigger.hpp"

#include <algorithm>
#include <cassert>

namespace locksim::scenarios {

namespace {
constexpr std::array<std::string_view, kTriggerEvents.size()> kNames = {"acquiring", "acquired", "write",
                                                                          "released",  "crash",    "restart"};
}  // namespace

std::string_view trigger_event_name(TriggerEvent event) {
  const auto i = static_cast<std::size_t>(event);
  assert(i < kNames.size() && "a TriggerEvent has a name");
  return kNames[i];
}

std::optional<TriggerEvent> trigger_event_named(std::string_view name) {
  const auto it = std::find(kNames.begin(), kNames.end(), name);
  if (it == kNames.end()) return std::nullopt;
  return kTriggerEvents[static_cast<std::size_t>(it - kNames.begin())];
}

std::string Trigger::text() const {
  std::string s = host + ":" + std::string(trigger_event_name(event));
  if (event == TriggerEvent::Write && write_index != 1) s += "#" + std::to_string(write_index);
  return s;
}

// A point reached without a write number (0) is write #1, as `A:write`.
bool Trigger::fired_by(std::string_view at, TriggerEvent reached, int reached_write) const {
  if (host != at || event != reached) return false;
  return event != TriggerEvent::Write || write_index == std::max(reached_write, 1);
}

}  // namespace locksim::scenarios
