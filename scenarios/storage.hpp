// The protected storage: the resource the lock guards (a report table, an
// orders table), written once for the simulator and live mode. It applies
// writes in arrival order and records each in the History. With fencing on,
// it rejects a token lower than the highest it has seen on the same lock key
// and accepts an equal one (docs/redis-model.md "Fenced"); tokenless writes
// are accepted unchecked. How a write travels to it is the world's business:
// a request on the simulated network (scenarios/sim_workload_world.cpp), or a
// message on live mode's emulated link (live/live_storage_link.cpp).
//
// For the inventory workload (scenarios/inventory_workload.hpp) it is also
// the shop's database: stock rows (one per segment) that a buyer reads and
// writes back, and the orders table, with an optional unique constraint
// (`[storage] unique`: one order per buyer; the gate's: one order for its
// one slot) that rejects a duplicate order as a database's UNIQUE index
// does, so it is counted and not stored.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scenarios/history.hpp"
#include "vocab/reply.hpp"

namespace locksim::scenarios {

struct Scenario;

enum class StorageOp : std::uint8_t {
  Write,      // the lock workload's write
  ReadStock,  // inventory: read one stock row
  Order,      // inventory: store an order (and write a stock row back)
};

// One storage request as a client sends it.
struct WriteRequest {
  std::size_t client = 0;
  std::uint64_t grant = 0;
  std::optional<std::int64_t> fencing_token;
  int index = 0;  // 1-based within the critical section
  StorageOp op = StorageOp::Write;
  int segment = 0;                        // ReadStock / Order: the stock row (0-based)
  std::optional<std::int64_t> new_stock = std::nullopt;  // Order: the row's value written back with the order
  bool locked = true;                     // Order: sent by a lock holder (its grant and key count)
  std::string lock_key = "";              // Order under a lock: the key whose grant covers it
};

// On the wire: WRITE <client> <grant> <token or "-"> <write index>;
// READ <client> <segment>; ORDER <client> <grant or "-"> <token or "-">
// <index> <segment> <new stock or "-"> <lock key or "-">.
Argv write_argv(const WriteRequest& w);
// nullopt: not a well-formed request.
std::optional<WriteRequest> parse_write(const Argv& argv);

class Storage {
 public:
  explicit Storage(bool fencing) : fencing_(fencing) {}
  // The storage a scenario starts with: its fencing rule, the inventory's
  // stock rows and the orders table's unique constraint.
  explicit Storage(const Scenario& s);
  // Applies w as it arrives at `now` and records it; true if accepted.
  bool apply(History& history, TrueInstant now, const WriteRequest& w);
  // Any request: a write or an order answers 1 accepted / 0 rejected, a
  // read the row's stock.
  std::int64_t serve(History& history, TrueInstant now, const WriteRequest& w);

 private:
  bool fence_allows(const WriteRequest& w) const;
  void fence_commit(const WriteRequest& w);
  bool store_order(History& history, TrueInstant now, const WriteRequest& w);

  bool fencing_;
  bool unique_ = false;
  bool unique_slot_ = false;  // the gate: UNIQUE(sale), one order in all
  std::map<std::string, std::int64_t> max_seen_;  // by lock key ("" = the scenario's one lock)
  std::vector<std::int64_t> stock_;               // inventory: one row per segment
  std::set<std::size_t> buyers_with_order_;       // unique: one order per buyer
};

}  // namespace locksim::scenarios
