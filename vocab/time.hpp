// Simulated time: integer nanoseconds on std::chrono.
//
// Two distinct instants: TrueInstant is the scheduler's and the checkers'
// time (what really happened); LocalInstant is what one host's clock shows
// (offset, drift and steps applied). They are time_points of different clocks,
// so mixing them is a compile error (tests/compile_fail/mix_instants.cpp).
// Durations are shared: `30s`, `10ms` (std::chrono_literals) convert to
// Duration implicitly.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace locksim {

using namespace std::chrono_literals;

using Duration = std::chrono::nanoseconds;

struct TrueClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = Duration;
  using time_point = std::chrono::time_point<TrueClock, Duration>;
  static constexpr bool is_steady = true;
};

struct LocalClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = Duration;
  using time_point = std::chrono::time_point<LocalClock, Duration>;
  static constexpr bool is_steady = false;
};

using TrueInstant = TrueClock::time_point;
using LocalInstant = LocalClock::time_point;

constexpr TrueInstant true_epoch{};

inline constexpr std::int64_t to_ms(Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}
inline constexpr std::int64_t to_ms(TrueInstant t) { return to_ms(t.time_since_epoch()); }
inline constexpr std::int64_t to_ms(LocalInstant t) { return to_ms(t.time_since_epoch()); }

// "1.5s", "35s", "120ms" for humans: the shortest exact-ish rendering.
std::string format_duration(Duration d);

// "35.012s": a moment of a run in text output, always seconds with
// millisecond digits, so every time in a verdict reads the same way.
std::string format_seconds(Duration since_start);

}  // namespace locksim
