// Duration text (duration.hpp): [+-] then one or more <digits>[.<digits>]<unit>, or "0".
#include "scenarios/duration.hpp"

#include <charconv>
#include <cstdint>
#include <limits>

namespace locksim::scenarios {

namespace {

// Largest first: the printer takes the first that divides a value. "µs" is
// read as "us" and never printed.
struct DurationUnit {
  std::int64_t ns;
  std::string_view name;
};
constexpr DurationUnit kUnits[] = {{3'600'000'000'000, "h"}, {60'000'000'000, "m"}, {1'000'000'000, "s"},
                                   {1'000'000, "ms"},        {1'000, "us"},          {1, "ns"}};
constexpr std::string_view kMicroSign = "\xC2\xB5s";

std::optional<std::int64_t> unit_ns(std::string_view unit) {
  if (unit == kMicroSign) unit = "us";
  for (const DurationUnit& u : kUnits)
    if (u.name == unit) return u.ns;
  return std::nullopt;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// One "<digits>[.<digits>]<unit>" from the front of `s`, exactly in ns.
std::optional<std::int64_t> take_component(std::string_view& s) {
  std::size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == 0) return std::nullopt;
  std::uint64_t whole = 0;
  if (std::from_chars(s.data(), s.data() + i, whole).ec != std::errc{}) return std::nullopt;
  std::string_view frac;
  if (i < s.size() && s[i] == '.') {
    const std::size_t f0 = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    frac = s.substr(f0, i - f0);
    if (frac.empty()) return std::nullopt;
  }
  const std::size_t u0 = i;
  while (i < s.size() && !is_digit(s[i]) && s[i] != '.') ++i;
  const auto unit = unit_ns(s.substr(u0, i - u0));
  if (!unit) return std::nullopt;
  s.remove_prefix(i);

  std::int64_t ns = 0;
  if (whole > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
  if (__builtin_mul_overflow(static_cast<std::int64_t>(whole), *unit, &ns)) return std::nullopt;
  // The fraction must land on a whole nanosecond: "1.5s" is exact, "1.5ns" is not.
  while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
  if (frac.size() > 18) return std::nullopt;
  std::int64_t digits = 0, scale = 1;
  for (char c : frac) {
    digits = digits * 10 + (c - '0');
    scale *= 10;
  }
  __int128 part = static_cast<__int128>(digits) * *unit;
  if (part % scale != 0) return std::nullopt;
  if (__builtin_add_overflow(ns, static_cast<std::int64_t>(part / scale), &ns)) return std::nullopt;
  return ns;
}

}  // namespace

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<std::string> unwanted_sign(std::string_view text) {
  const std::string_view s = trim_blanks(text);
  if (s.empty() || (s.front() != '+' && s.front() != '-')) return std::nullopt;
  return "takes no sign (only a clock jump's \"by\" is signed): write \"" + std::string(s.substr(1)) + "\"";
}

std::optional<Duration> parse_duration(std::string_view text) {
  std::string_view s = trim_blanks(text);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration{0};
  if (s.empty()) return std::nullopt;
  std::int64_t total = 0;
  while (!s.empty()) {
    const auto part = take_component(s);
    if (!part || __builtin_add_overflow(total, *part, &total)) return std::nullopt;
  }
  return Duration{negative ? -total : total};
}

std::optional<DurationRange> parse_duration_range(std::string_view text) {
  const std::size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    const auto d = parse_duration(text);
    if (!d) return std::nullopt;
    return DurationRange{*d, *d};
  }
  const auto lo = parse_duration(text.substr(0, dots));
  const auto hi = parse_duration(text.substr(dots + 2));
  if (!lo || !hi || *lo > *hi) return std::nullopt;
  return DurationRange{*lo, *hi};
}

std::string duration_text(Duration d, bool signed_form) {
  if (d == Duration::zero()) return "0";
  std::string sign = d < Duration::zero() ? "-" : (signed_form ? "+" : "");
  const std::int64_t ns = d < Duration::zero() ? -d.count() : d.count();
  for (const DurationUnit& u : kUnits)
    if (ns % u.ns == 0) return sign + std::to_string(ns / u.ns) + std::string(u.name);
  return sign + std::to_string(ns) + "ns";
}

std::string duration_range_text(const DurationRange& r) {
  if (r.min == r.max) return duration_text(r.min);
  return duration_text(r.min) + ".." + duration_text(r.max);
}

std::string duration_unit_names() {
  std::string out;
  for (auto it = std::rbegin(kUnits); it != std::rend(kUnits); ++it) out += (out.empty() ? "" : ", ") + std::string(it->name);
  return out;
}

std::optional<std::string> duration_over_cap(Duration d) {
  if (d <= kMaxDuration && d >= -kMaxDuration) return std::nullopt;
  return "is longer than the cap of " + duration_text(kMaxDuration) +
         " (durations are added and doubled in 64-bit nanoseconds)";
}

namespace {
std::optional<Duration> within_derived_cap(std::int64_t ns) {
  if (ns > kMaxDerivedDuration.count() || ns < -kMaxDerivedDuration.count()) return std::nullopt;
  return Duration{ns};
}
}  // namespace

std::optional<Duration> derived_sum(std::initializer_list<Duration> terms) {
  std::int64_t total = 0;
  for (Duration d : terms)
    if (__builtin_add_overflow(total, d.count(), &total)) return std::nullopt;
  return within_derived_cap(total);
}

std::optional<Duration> derived_product(Duration d, std::int64_t factor) {
  std::int64_t ns = 0;
  if (__builtin_mul_overflow(d.count(), factor, &ns)) return std::nullopt;
  return within_derived_cap(ns);
}

}  // namespace locksim::scenarios
