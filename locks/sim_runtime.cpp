// SimRuntime: a lock's view of the simulated world.
#include "locks/sim_runtime.hpp"

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

std::string SimRuntime::random_token() {
  // UUID-shaped (8-4-4-4-12 hex), deterministic per client and seed; written
  // in place: a token per acquire attempt is on the hot path of every run.
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(36, '-');
  std::uint64_t word = 0;
  int left = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) continue;
    if (left == 0) {
      word = tokens_.next();
      left = 16;
    }
    out[i] = digits[word & 0xf];
    word >>= 4;
    --left;
  }
  return out;
}

Task<Reply> SimRuntime::Conn::command(Argv argv, Duration timeout) {
  sim::Host& client = rt_->client_;
  sim::Connection& c = client.world().network().connect(client.id(), rt_->directory_(node_));
  co_return co_await c.call(std::move(argv), timeout);
}

}  // namespace locksim::locks
