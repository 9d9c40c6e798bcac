// Reading the inventory workload's fields from a scenario file
// (docs/scenario-format.md "Inventory"): [workload] stock, method, segments,
// per_buyer; [[client]] buys; [storage] unique. scenario.cpp accepts these
// keys in their tables (and reads `unique`, a boolean, with [storage]) and
// calls this once, after [[client]], for their values and what they mean
// together:
//  - with kind = "inventory": `stock` (1..kMaxStock) and `method` are
//    required; `segments` (default 1) only for method = "segmented",
//    1..stock; `per_buyer` 1..kMaxPerBuyer (default 1); a client's `work`
//    defaults to 0 (the time a purchase takes between its read and its
//    write); `writes` and `iterations` have no effect (an error); `unique`
//    needs per_buyer = 1 (the constraint is one order per buyer);
//  - with kind = "gate": `unique` (one order for the gate's one slot);
//  - with another kind: every one of these fields is an error (it would
//    have no effect).
#pragma once

#include <toml++/toml.h>

#include "scenarios/scenario.hpp"
#include "scenarios/scenario_bounds.hpp"
#include "scenarios/toml_section.hpp"

namespace locksim::scenarios {

inline constexpr std::int64_t kMaxStock = 1'000'000;
inline constexpr std::int64_t kMaxPerBuyer = 1'000'000;
inline constexpr std::int64_t kMaxBuys = 1'000'000;

// Reads the fields above into s (whose [workload] kind, clients and
// [storage] are read already) from the file's root; false after recording
// the first problem in the root's errors.
bool read_inventory_workload(Section& root, Scenario& s);

// The writer's side (scenario_writer.cpp): [workload]'s inventory keys,
// defaults left out except `stock` and `method`.
void insert_inventory_keys(toml::table& workload, const Scenario& s);

}  // namespace locksim::scenarios
