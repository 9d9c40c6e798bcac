// Trigger points: the moments a fault can wait for (`after = "A:write#2"`).
// A client reaches acquiring, acquired, write #N and released (the
// workloads, scenarios/workload.cpp); a client or a server reaches crash and
// restart (the fault appliers). The words are the scenario format's.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace locksim::scenarios {

enum class TriggerEvent : std::uint8_t { Acquiring, Acquired, Write, Released, Crash, Restart };

inline constexpr std::array<TriggerEvent, 6> kTriggerEvents = {
    TriggerEvent::Acquiring, TriggerEvent::Acquired, TriggerEvent::Write,
    TriggerEvent::Released,  TriggerEvent::Crash,    TriggerEvent::Restart};

// The scenario format's word ("acquired"); the parser's inverse.
std::string_view trigger_event_name(TriggerEvent event);
std::optional<TriggerEvent> trigger_event_named(std::string_view name);
// acquiring, acquired, write, released: reached by a client's workload.
constexpr bool is_workload_point(TriggerEvent event) { return event <= TriggerEvent::Released; }

struct Trigger {
  std::string host;  // a client, or a server for crash/restart
  TriggerEvent event = TriggerEvent::Acquired;
  int write_index = 1;  // for write: "write#N"
  std::string text() const;  // as written: "A:write#2"
  // Whether reaching `event` (write #`write_index`) on `at` fires it.
  bool fired_by(std::string_view at, TriggerEvent reached, int reached_write) const;
};

}  // namespace locksim::scenarios
