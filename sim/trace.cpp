// Trace records and digest rendering.
#include "sim/trace.hpp"

#include "sim/rng.hpp"

namespace locksim::sim {

void Trace::record(TrueInstant at, std::uint64_t seq, HostId host, std::string_view kind,
                   std::string_view detail) {
  fold(fnv1a64(kind));
  fold(fnv1a64(detail));
  fold(host);
  if (recording_) keep({at, seq, host, std::string(kind), std::string(detail)});
}

std::string Trace::hex(std::uint64_t digest) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, digest >>= 4) out[static_cast<std::size_t>(i)] = digits[digest & 0xf];
  return out;
}

}  // namespace locksim::sim
