// The number layer (reports/numbers.hpp): std::from_chars for text, the
// JSON value's own type for JSON.
#include "reports/numbers.hpp"

#include <charconv>

namespace locksim::reports {

namespace {

std::string range_text(Bounds b) {
  return "an integer from " + std::to_string(b.min) + " to " + std::to_string(b.max);
}

Failure<std::string> out_of_bounds(std::string_view field, Bounds b, const std::string& given) {
  return failure(std::string(field) + ": expected " + range_text(b) + ", got " + given);
}

}  // namespace

Result<std::uint64_t, std::string> parse_unsigned(std::string_view text, std::string_view field, Bounds bounds) {
  const std::string given = "\"" + std::string(text) + "\"";
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  // from_chars takes no sign, blank or "0x"; an empty text is invalid_argument.
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, 10);
  if (text.empty() || ec != std::errc() || ptr != end || value < bounds.min || value > bounds.max)
    return out_of_bounds(field, bounds, given);
  return value;
}

Result<std::uint64_t, std::string> json_unsigned(const nlohmann::json& value, std::string_view field, Bounds bounds) {
  const bool whole = bounds.min == 0 && bounds.max == Bounds{}.max;
  if (!value.is_number_unsigned()) {
    if (whole) return failure(std::string(field) + ": expected a non-negative integer");
    return out_of_bounds(field, bounds, value.dump());
  }
  const auto n = value.get<std::uint64_t>();
  if (n < bounds.min || n > bounds.max) return out_of_bounds(field, bounds, value.dump());
  return n;
}

Result<std::int64_t, std::string> json_signed(const nlohmann::json& value, std::string_view field) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!value.is_number_integer() || (value.is_number_unsigned() && value.get<std::uint64_t>() > kMax))
    return failure(std::string(field) + ": expected an integer");
  return value.get<std::int64_t>();
}

std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

}  // namespace locksim::reports
