// The protected storage: the resource the lock guards (a report table, an
// orders table), written once for the simulator and live mode. It applies
// writes in arrival order and records each in the History. With fencing on,
// it rejects a token lower than the highest it has seen and accepts an
// equal one (docs/redis-model.md "Fenced"); tokenless writes are accepted
// unchecked. How a write travels to it is the world's business: a request on
// the simulated network (scenarios/sim_workload_world.cpp), or a message on
// live mode's emulated link (live/live_runner.cpp).
#pragma once

#include <cstdint>
#include <optional>

#include "scenarios/history.hpp"
#include "sim/redis/reply.hpp"

namespace locksim::scenarios {

// One storage write as a client sends it.
struct WriteRequest {
  std::size_t client = 0;
  std::uint64_t grant = 0;
  std::optional<std::int64_t> fencing_token;
  int index = 0;  // 1-based within the critical section
};

// On the wire: WRITE <client index> <grant> <fencing token or "-"> <write index>.
sim::redis::Argv write_argv(const WriteRequest& w);
// nullopt: not a well-formed WRITE.
std::optional<WriteRequest> parse_write(const sim::redis::Argv& argv);

class Storage {
 public:
  explicit Storage(bool fencing) : fencing_(fencing) {}
  // Applies w as it arrives at `now` and records it; true if accepted.
  bool apply(History& history, TrueInstant now, const WriteRequest& w);

 private:
  bool fencing_;
  std::optional<std::int64_t> max_seen_;
};

}  // namespace locksim::scenarios
