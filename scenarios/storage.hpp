// The protected storage: the resource the lock guards (a report table, an
// orders table). It applies writes in arrival order and records each in the
// History. With fencing on, it rejects a token lower than the highest it has
// seen and accepts an equal one (docs/redis-model.md "Fenced"); tokenless
// writes are accepted unchecked.
#pragma once

#include "scenarios/history.hpp"
#include "sim/network.hpp"
#include "sim/world.hpp"

namespace locksim::scenarios {

class StorageService final : public sim::Service {
 public:
  StorageService(sim::World& world, History& history, bool fencing)
      : world_(world), history_(history), fencing_(fencing) {}

  // WRITE <client index> <grant> <fencing token or "-"> <write index>
  std::optional<sim::Reply> on_request(const sim::Request& request) override;

 private:
  sim::World& world_;
  History& history_;
  bool fencing_;
  std::optional<std::int64_t> max_seen_;
};

}  // namespace locksim::scenarios
