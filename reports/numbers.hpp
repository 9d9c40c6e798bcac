// One parse-and-bound layer for the integers locksim reads from people and
// from files: the CLI's integer options (--seed, --seeds, --seed-start,
// --jobs, --budget, --shard) and the integers of a JSON run record. A CLI
// number is a run of decimal digits (no sign, no blanks, no fraction, no
// exponent) inside stated bounds; a JSON number must be an integer of the
// right sign that fits. Anything else is an input error whose message names
// the field, the bounds and what was given — never a silent wrap (CLI11
// reads "-1" as 2^64-1 and "" as 0; nlohmann reads 1.9 as 1).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "vocab/result.hpp"

namespace locksim::reports {

struct Bounds {
  std::uint64_t min = 0;
  std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
};

// "--seed", "-1" -> "--seed: expected an integer from 0 to 18446744073709551615, got \"-1\"".
Result<std::uint64_t, std::string> parse_unsigned(std::string_view text, std::string_view field, Bounds bounds = {});

// A JSON value that must be an unsigned integer within bounds; the error is
// "field: expected a non-negative integer" (or "... from A to B").
Result<std::uint64_t, std::string> json_unsigned(const nlohmann::json& value, std::string_view field,
                                                 Bounds bounds = {});

// A JSON value that must be an integer that fits in int64 (negative allowed).
Result<std::int64_t, std::string> json_signed(const nlohmann::json& value, std::string_view field);

// "a + b" and "a * b", or nullopt when the result does not fit in 64 bits.
std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b);
std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b);

}  // namespace locksim::reports
