// Exact integer clock math for drift and steps.
#include "sim/clock.hpp"

#include <cassert>

namespace locksim::sim {

namespace {
// ⌊a / b⌋ for b > 0 (C++ division truncates toward zero).
__int128 floor_div(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && (a < 0)) --q;
  return q;
}
constexpr __int128 kMillion = 1'000'000;
}  // namespace

HostClock::HostClock(Duration initial_wall_offset, std::int64_t drift_ppm)
    : ppm_(drift_ppm), wall_offset_(initial_wall_offset) {
  assert(drift_ppm > -1'000'000);
}

Duration HostClock::scale(Duration d) const {
  if (ppm_ == 0) return d;  // the common case: no 128-bit division on the hot path
  const __int128 n = d.count();
  return Duration(static_cast<std::int64_t>(n + floor_div(n * ppm_, kMillion)));
}

LocalInstant HostClock::monotonic(TrueInstant t) const { return base_mono_ + scale(t - base_true_); }

LocalInstant HostClock::wall(TrueInstant t) const {
  if (wall_reads_) wall_reads_->push_back(t);
  return monotonic(t) + wall_offset_;
}

TrueInstant HostClock::true_when_monotonic(LocalInstant target) const {
  if (target <= base_mono_) return base_true_;
  if (ppm_ == 0) return base_true_ + (target - base_mono_);
  // Solve d + ⌊d·ppm/10⁶⌋ >= m for the least d: start from the real-valued
  // answer m·10⁶/(10⁶+ppm) and correct the rounding by at most a step or two.
  const __int128 m = (target - base_mono_).count();
  __int128 d = floor_div(m * kMillion, kMillion + ppm_);
  auto reaches = [&](__int128 x) {
    return x + floor_div(x * ppm_, kMillion) >= m;
  };
  // Past kBeyondAnyRun the wake is after any run's end: placed there, not overflowed.
  if (d >= kBeyondAnyRun.count()) return base_true_ + kBeyondAnyRun;
  while (!reaches(d)) ++d;
  while (d > 0 && reaches(d - 1)) --d;
  return base_true_ + Duration(static_cast<std::int64_t>(d));
}

void HostClock::set_drift(TrueInstant now, std::int64_t ppm) {
  assert(ppm > -1'000'000);
  base_mono_ = monotonic(now);
  base_true_ = now;
  ppm_ = ppm;
}

}  // namespace locksim::sim
