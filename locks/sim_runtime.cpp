// SimRuntime: a lock's view of the simulated world.
#include "locks/sim_runtime.hpp"

#include <array>
#include <cstring>

#include "sim/world.hpp"

namespace locksim::locks {

SimRuntime::SimRuntime(sim::Host& client, std::size_t nodes, Directory directory, Duration command_timeout)
    : client_(client),
      directory_(std::move(directory)),
      timeout_(command_timeout),
      tokens_(client.rng().fork("tokens")),
      jitter_(client.rng().fork("jitter")) {
  conns_.reserve(nodes);
  for (std::size_t i = 0; i < nodes; ++i) conns_.emplace_back(*this, i);
}

Task<void> SimRuntime::sleep(Duration d) { co_await client_.sleep(d); }

namespace {

// Each byte's two hex digits, lowest nibble first: one table read and one
// two-byte store per byte (a token is written on every acquire attempt).
constexpr auto kHexPairs = [] {
  constexpr char digits[] = "0123456789abcdef";
  std::array<std::array<char, 2>, 256> pairs{};
  for (std::size_t b = 0; b < pairs.size(); ++b) pairs[b] = {digits[b & 0xf], digits[b >> 4]};
  return pairs;
}();

// Writes 2·pairs hex digits of w, lowest nibble first, consuming w.
char* put_hex(char* out, std::uint64_t& w, int pairs) {
  for (int i = 0; i < pairs; ++i, w >>= 8, out += 2) std::memcpy(out, kHexPairs[w & 0xff].data(), 2);
  return out;
}

}  // namespace

std::string SimRuntime::random_token() {
  std::string out;
  append_random_token(out);
  return out;
}

void SimRuntime::append_random_token(std::string& out) {
  // UUID-shaped (8-4-4-4-12 hex digits): 32 digits from two 64-bit draws,
  // deterministic per client and seed. On the hot path of every run (a
  // token per acquire attempt), so written in place.
  const std::size_t at = out.size();
  out.resize(at + 36, '-');
  char* p = out.data() + at;
  std::uint64_t w = tokens_.next();
  p = put_hex(p, w, 4) + 1;
  p = put_hex(p, w, 2) + 1;
  p = put_hex(p, w, 2) + 1;
  w = tokens_.next();
  p = put_hex(p, w, 2) + 1;
  put_hex(p, w, 6);
}

Task<Reply> SimRuntime::Conn::command(Argv argv, Duration timeout) {
  sim::Host& client = rt_->client_;
  sim::Connection& c = client.world().network().connect(client.id(), rt_->directory_(node_));
  co_return co_await c.call(std::move(argv), timeout);
}

}  // namespace locksim::locks
