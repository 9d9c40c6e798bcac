// The inventory workload (issue 17; docs/scenario-format.md "Inventory"):
// a stock of `stock` items on sale, every client a buyer that makes its
// `buys` purchase attempts, one item each, by one of five methods — each a
// real client code path written once against WorkloadWorld, so the
// simulator and live mode run the same one:
//  - read-check-write: read the stock row from the storage, check it, write
//    it back decremented with the order; no lock (the race);
//  - lock: the same read-modify-write inside the scenario's lock;
//  - decr: DECR the Redis counter; below zero it is refunded with INCR and
//    the buyer is told "sold out" (the pattern of the flash-sale articles);
//  - lua: one script checks the stock and the buyer's count in a hash,
//    DECRs and HINCRBYs (at most `per_buyer` purchases per buyer);
//  - segmented: the stock split over `segments` rows, each behind its own
//    lock key; a buyer starts at a segment drawn from its stream and moves
//    on when one is empty.
// A confirmed purchase is written as an order to the storage (the shop's
// database). The stock exists at time 0, as if set before the sale opened:
// on every Redis node (decr, lua) or in the storage's rows (the others).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locks/runtime.hpp"
#include "scenarios/history.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/workload_world.hpp"
#include "vocab/reply.hpp"
#include "vocab/task.hpp"

namespace locksim::scenarios {

// Client c's purchases for one incarnation (a restarted buyer makes the
// attempts it has left).
Task<void> inventory_buyer(WorkloadWorld& world, std::size_t c, locks::Runtime& runtime);

// The gate's sale (issue 17 item 2): a winner is told it won (a purchase,
// recorded when its SET answers OK), then writes its order the way every
// buyer does, after its "acquired" point and at its "write" point.
void record_purchase(WorkloadWorld& world, std::size_t c);
Task<void> gate_winner_order(WorkloadWorld& world, std::size_t c);

// "read-check-write", "lock", "decr", "lua", "segmented".
std::string_view inventory_method_name(InventoryMethod m);
std::optional<InventoryMethod> inventory_method_of(std::string_view name);
const std::vector<std::string>& inventory_method_names();
// Whether a purchase by this method takes the scenario's lock (lock,
// segmented); the others take none (read-check-write, decr, lua).
bool method_takes_lock(InventoryMethod m);
// Whether the method itself keeps a buyer to `per_buyer` (lua's script);
// with the others a buyer making more buys than that is a double purchase
// by construction.
bool method_checks_per_buyer(InventoryMethod m);

// Keys: the Redis stock counter and buyers hash (decr, lua), and the lock
// key of segment i (0-based; the scenario's key itself with one segment).
std::string stock_key(const Scenario& s);
std::string buyers_key(const Scenario& s);
std::string segment_lock_key(const Scenario& s, int segment);
// Whether `key` is one of the run's lock keys (what the lock checkers see).
bool is_lock_key(const Scenario& s, std::string_view key);
// Every lock key of the run: the scenario's key, or one per segment.
std::vector<std::string> lock_keys(const Scenario& s);

// The storage's stock rows at time 0 (empty where the stock lives in Redis
// or the workload sells none); segment i of n holds stock/n, the first
// stock%n one more.
std::vector<std::int64_t> storage_stock_rows(const Scenario& s);
// The commands that put the stock on a Redis node before the sale (decr,
// lua), applied to every node at time 0.
std::vector<Argv> redis_stock_preload(const Scenario& s);
// The sale's throughput from a run's History (runner.hpp SaleSummary), or
// nullopt when the run sells nothing.
std::optional<SaleSummary> sale_summary(const Scenario& s, const History& h);
// The sale's terms for the checkers, or nullopt when the run sells nothing
// (the gate sells its one slot).
std::optional<SaleTerms> sale_terms(const Scenario& s);

}  // namespace locksim::scenarios
