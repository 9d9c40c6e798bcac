// xoshiro256** (Blackman & Vigna) with SplitMix64 seeding; Lemire bounded ints.
#include "sim/rng.hpp"

#include <cassert>

namespace locksim::sim {

namespace {
constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(std::uint64_t seed) : seed_(seed) {
  std::uint64_t sm = seed;
  for (auto& word : s_) word = splitmix64(sm);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

// Lemire, "Fast Random Integer Generation in an Interval" (2019): unbiased.
std::uint64_t Rng::below(std::uint64_t n) {
  assert(n > 0);
  unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(next()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

std::int64_t Rng::between(std::int64_t lo, std::int64_t hi) {
  assert(lo <= hi);
  const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<std::int64_t>(next());
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + below(span + 1));
}

bool Rng::chance(std::uint64_t num, std::uint64_t den) {
  assert(den > 0 && num <= den);
  return below(den) < num;
}

Rng Rng::fork(std::string_view name) const {
  std::uint64_t mix = seed_ ^ fnv1a64(name);
  return Rng(splitmix64(mix));
}

std::string Rng::hex_token(std::size_t hex_chars) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(hex_chars, '0');
  std::uint64_t word = 0;
  for (std::size_t i = 0; i < hex_chars; ++i) {
    if (i % 16 == 0) word = next();
    out[i] = digits[word & 0xf];
    word >>= 4;
  }
  return out;
}

}  // namespace locksim::sim
