// HostClock: what one host's clocks show, as a function of true time.
//
//   monotonic(t) = base_mono + scale(t - base_true),  scale(d) = d + ⌊d·ppm/10⁶⌋
//   wall(t)      = monotonic(t) + wall_offset
//
// Drift (ppm) applies to both clocks; steps (NTP slews, an operator's `date
// -s`) move only the wall clock, forward or back. Changing the drift rebases
// the line at that instant, so the clocks stay continuous. All integer math
// (128-bit intermediates), so conversions are exact and the inverse
// (`true_when_monotonic`) returns the earliest true instant at which the
// monotonic clock shows at least the target: timers never fire early.
// Steps and drift changes take effect at the true instant they are applied
// (the scheduler calls them from a fault event at that instant); a sleep
// already pending keeps the wake time computed when it started.
#pragma once

#include <cstdint>
#include <vector>

#include "vocab/time.hpp"

namespace locksim::sim {

class HostClock {
 public:
  // Every host's wall clock starts near 2023-11-14 so PXAT values look real.
  static constexpr Duration kDefaultWallOrigin = std::chrono::milliseconds(1'700'000'000'000);

  HostClock() = default;
  HostClock(Duration initial_wall_offset, std::int64_t drift_ppm);

  LocalInstant monotonic(TrueInstant t) const;
  LocalInstant wall(TrueInstant t) const;
  // Earliest true instant (>= the last rebase) at which monotonic() >= target.
  TrueInstant true_when_monotonic(LocalInstant target) const;

  void set_drift(TrueInstant now, std::int64_t ppm);  // ppm > -1'000'000
  // Appends the instant of every wall reading to `into` (null: stop); a
  // step changes nothing but those readings (sim/activity.hpp).
  void record_wall_reads(std::vector<TrueInstant>* into) { wall_reads_ = into; }
  void step(Duration by) { wall_offset_ += by; }
  std::int64_t drift_ppm() const { return ppm_; }
  Duration wall_offset() const { return wall_offset_; }

 private:
  Duration scale(Duration d) const;

  TrueInstant base_true_{};
  LocalInstant base_mono_{};
  std::int64_t ppm_ = 0;
  Duration wall_offset_ = kDefaultWallOrigin;
  std::vector<TrueInstant>* wall_reads_ = nullptr;
};

}  // namespace locksim::sim
