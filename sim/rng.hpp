// The project's only source of randomness: xoshiro256** seeded by SplitMix64.
//
// Why our own: <random> distributions differ between standard libraries, so
// the same seed would give different runs on different machines. Bounded
// integers use Lemire's unbiased method; `chance` uses integer ratios (no
// floats in decisions). `fork(name)` derives an independent named stream from
// this stream's *seed* (not its state), so adding a draw in one component
// never shifts another's. Known-answer tests pin the output (tests/test_sim.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace locksim::sim {

// SplitMix64 step: used for seeding and for mixing (digests, stream names).
constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// FNV-1a 64: a stable string hash (std::hash is not stable across platforms).
constexpr std::uint64_t fnv1a64(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  std::uint64_t seed() const { return seed_; }
  std::uint64_t next();                          // full 64 bits
  std::uint64_t below(std::uint64_t n);          // uniform in [0, n), n > 0
  std::int64_t between(std::int64_t lo, std::int64_t hi);  // uniform in [lo, hi]
  bool chance(std::uint64_t num, std::uint64_t den);       // true with probability num/den
  Rng fork(std::string_view name) const;         // independent named stream
  std::string hex_token(std::size_t hex_chars);  // lowercase hex, for lock tokens

 private:
  std::uint64_t seed_;
  std::array<std::uint64_t, 4> s_;
};

}  // namespace locksim::sim
