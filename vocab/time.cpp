// Human rendering of durations (used by traces, reports and error messages).
#include "vocab/time.hpp"

namespace locksim {

std::string format_seconds(Duration since_start) {
  const std::int64_t ms = to_ms(since_start);
  const std::int64_t a = ms < 0 ? -ms : ms;
  return (ms < 0 ? "-" : "") + std::to_string(a / 1000) + "." + std::to_string(1000 + a % 1000).substr(1) + "s";
}

std::string format_duration(Duration d) {
  const std::int64_t ns = d.count();
  const char* sign = ns < 0 ? "-" : "";
  const std::int64_t a = ns < 0 ? -ns : ns;
  auto fixed = [&](std::int64_t unit, const char* suffix) {
    std::string s = std::to_string(a / unit);
    std::int64_t frac = a % unit;
    if (frac != 0) {
      std::string f = std::to_string(frac + unit).substr(1);  // zero padded
      while (!f.empty() && f.back() == '0') f.pop_back();
      s += "." + f.substr(0, 3);
    }
    return sign + s + suffix;
  };
  if (a >= 1'000'000'000) return fixed(1'000'000'000, "s");
  if (a >= 1'000'000) return fixed(1'000'000, "ms");
  if (a >= 1'000) return fixed(1'000, "us");
  return sign + std::to_string(a) + "ns";
}

}  // namespace locksim
