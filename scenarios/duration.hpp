// Durations as scenario files write them: "30s", "150ms", "1m30s", "1.5s",
// "-5s". One unit table (duration.cpp) serves the reader (scenario.cpp) and
// the writer (scenario_writer.cpp), so what one prints the other reads back.
//
// A fraction is exact ("1.5s" = 1500 ms; "1.5ns" is an error), parts may be
// combined, "0" needs no unit, a sign is allowed (the fields that take one
// say so). The printer writes the largest unit that divides the value.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "vocab/time.hpp"

namespace locksim::scenarios {


// "1ms..5ms" (uniform) or a single duration "3ms".
struct DurationRange {
  Duration min{0};
  Duration max{0};
};

// "30s", "150ms", "2m", "1.5s", "-5s" (signed where a field allows it).
std::optional<Duration> parse_duration(std::string_view text);
std::optional<DurationRange> parse_duration_range(std::string_view text);

// The shortest exact text parse_duration reads back ("90s" -> "90s", 1.5 s ->
// "1500ms"); signed_form writes "+" before a positive value.
std::string duration_text(Duration d, bool signed_form = false);
std::string duration_range_text(const DurationRange& r);

// The units, as the reader's hint lists them: "ns, us, ms, s, m, h".
std::string duration_unit_names();

// `text` without the leading and trailing blanks parse_duration skips.
std::string_view trim_blanks(std::string_view text);

// "takes no sign ..." when `text` starts (after blanks) with "+" or "-":
// only a clock jump's `by` is signed, so a sign elsewhere ("+20s" for a
// pause's duration) is refused, not read as the plain value.
std::optional<std::string> unwanted_sign(std::string_view text);

// The longest duration a scenario field may hold (10,000 h, about 14
// months): the simulation adds and doubles durations (`2 * ttl` is the
// default liveness bound, `at + duration + restart_after`, wall clock origin
// + offset) in signed 64-bit nanoseconds, whose range is +-2,562,047 h; with
// this cap no such sum can come near it. The Section readers
// (toml_section.hpp) check every duration field against it.
inline constexpr Duration kMaxDuration = std::chrono::hours(10'000);

// "is longer than the cap of 10000h ..." when |d| is over kMaxDuration.
std::optional<std::string> duration_over_cap(Duration d);

// The largest duration the simulation may derive from scenario fields (a
// latency tail's latency x 2^tail_max_shift, 2 x ttl, a fault's at +
// duration + restart_after, 20 ZooKeeper ticks, a live run's duration x
// time scale): 100,000 h. Such a value is added to an instant of the run
// (at most `duration`, 10,000 h), so the sum stays far inside the +-2,562,047
// h of signed 64-bit nanoseconds.
inline constexpr Duration kMaxDerivedDuration = std::chrono::hours(100'000);

// Checked arithmetic for derived durations, the one place the bounds
// (scenario_bounds.cpp) compute them: nullopt when the exact result would
// leave +-kMaxDerivedDuration (or 64 bits on the way).
std::optional<Duration> derived_sum(std::initializer_list<Duration> terms);
std::optional<Duration> derived_product(Duration d, std::int64_t factor);

}  // namespace locksim::scenarios
