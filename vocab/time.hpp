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

// How far ahead a drifting clock's wait may land in true time. A clock that
// runs at 1 ppm of true speed (drift -999,999 ppm) turns a 10 h wait into
// 10^7 h, past signed 64-bit nanoseconds (+-2,562,047 h). A run lasts at
// most 10,000 h (the scenario duration cap), so a wake later than this is
// never reached: the clocks place it here instead of overflowing
// (sim/clock.cpp true_when_monotonic, live ClientClock). 200,000 h leaves
// room to add a few more capped durations to it.
inline constexpr Duration kBeyondAnyRun = std::chrono::hours(200'000);

// "1.5s", "35s", "120ms" for humans: the shortest exact-ish rendering.
std::string format_duration(Duration d);

// "35.012s": a moment of a run in text output, always seconds with
// millisecond digits, so every time in a verdict reads the same way.
std::string format_seconds(Duration since_start);

}  // namespace locksim
