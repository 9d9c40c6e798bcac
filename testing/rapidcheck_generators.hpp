// rapidcheck generators for fault schedules and scenario parameters, for
// locksim's own property suite and for a user's tests of their own lock
// (installed with the headers, included as "testing/rapidcheck_generators.hpp";
// header-only, so only code that includes it needs rapidcheck).
//
// They fill the same ScenarioDraw / FaultDraw as the seed-driven generator
// (scenarios/schedule_gen.hpp), where 0 is every field's simplest value, so
// rapidcheck's own shrinking does the right thing: integers shrink towards
// 0 (shorter faults, earlier times, fewer clients, a shorter TTL), the fault
// vector loses elements (fewer faults), and a kind shrinks towards the first
// allowed kind. `build_scenario` turns a draw into a valid Scenario.
//
//   rc::prop("...", [] {
//     const auto draw = *locksim::testing::gen_scenario_draw(limits);
//     const auto s = scenarios::build_scenario(draw, "token", limits);
//     ...
//   });
#pragma once

#include <rapidcheck.h>

#include <ostream>

#include "scenarios/schedule_gen.hpp"

namespace locksim::testing {

using scenarios::FaultDraw;
using scenarios::FaultKind;
using scenarios::GenLimits;
using scenarios::ScenarioDraw;

inline rc::Gen<std::uint32_t> upto(std::uint32_t hi) { return rc::gen::inRange<std::uint32_t>(0, hi + 1); }

inline rc::Gen<FaultDraw> gen_fault_draw(std::vector<FaultKind> kinds) {
  using rc::gen::set;
  if (kinds.empty()) kinds = scenarios::default_hunt_kinds();
  return rc::gen::build<FaultDraw>(
      set(&FaultDraw::kind, rc::gen::elementOf(kinds)), set(&FaultDraw::target, upto(7)),
      set(&FaultDraw::peer, upto(255)), set(&FaultDraw::trigger, upto(3)), set(&FaultDraw::trigger_client, upto(3)),
      set(&FaultDraw::at_pm, upto(1000)), set(&FaultDraw::length_pm, upto(1000)),
      set(&FaultDraw::backward, rc::gen::arbitrary<bool>()), set(&FaultDraw::flag, rc::gen::arbitrary<bool>()));
}

// At most limits.max_faults faults of limits.kinds (none when kinds is empty).
inline rc::Gen<std::vector<FaultDraw>> gen_fault_schedule(const GenLimits& limits) {
  if (limits.kinds.empty()) return rc::gen::just(std::vector<FaultDraw>{});
  const auto one = gen_fault_draw(limits.kinds);
  return rc::gen::mapcat(upto(static_cast<std::uint32_t>(std::max(0, limits.max_faults))), [one](std::uint32_t n) {
    return rc::gen::container<std::vector<FaultDraw>>(n, one);
  });
}

// A sale for limits.inventory_methods (the default draw when there is none):
// shrinks towards the first method, one item, one buy each, no unique
// constraint.
inline rc::Gen<scenarios::InventoryDraw> gen_inventory_draw(const GenLimits& limits) {
  using rc::gen::set;
  using namespace scenarios;
  if (limits.inventory_methods.empty()) return rc::gen::just(InventoryDraw{});
  const auto clients = static_cast<std::uint32_t>(std::max(limits.min_clients, limits.max_clients));
  return rc::gen::build<InventoryDraw>(
      set(&InventoryDraw::method, upto(static_cast<std::uint32_t>(limits.inventory_methods.size() - 1))),
      set(&InventoryDraw::extra_stock, upto(kMaxExtraStock)),
      set(&InventoryDraw::extra_segments, upto(kMaxExtraSegments)),
      set(&InventoryDraw::extra_per_buyer, upto(kMaxExtraPerBuyer)),
      set(&InventoryDraw::extra_buys,
          rc::gen::mapcat(upto(clients),
                          [](std::uint32_t n) { return rc::gen::container<std::vector<std::uint32_t>>(n, upto(kMaxExtraBuys)); })),
      set(&InventoryDraw::unique, rc::gen::arbitrary<bool>()));
}

inline rc::Gen<ScenarioDraw> gen_scenario_draw(const GenLimits& limits) {
  using rc::gen::set;
  using namespace scenarios;
  const auto extra_clients = static_cast<std::uint32_t>(std::max(0, limits.max_clients - limits.min_clients));
  return rc::gen::build<ScenarioDraw>(
      set(&ScenarioDraw::extra_clients, upto(extra_clients)), set(&ScenarioDraw::ttl_steps, upto(kMaxTtlSteps)),
      set(&ScenarioDraw::work_pct, upto(kMaxWorkPct)), set(&ScenarioDraw::stagger_ms, upto(2000)),
      set(&ScenarioDraw::latency_ms, upto(kMaxLatencyMs)), set(&ScenarioDraw::extra_masters, upto(kMaxExtraMasters)),
      set(&ScenarioDraw::replicas, upto(1)), set(&ScenarioDraw::fsync, upto(2)),
      set(&ScenarioDraw::failover_after_ms, upto(5000)),
      set(&ScenarioDraw::extra_iterations, upto(kMaxExtraIterations)),
      set(&ScenarioDraw::extra_writes, upto(kMaxExtraWrites)), set(&ScenarioDraw::faults, gen_fault_schedule(limits)),
      set(&ScenarioDraw::inventory, gen_inventory_draw(limits)),
      // Last: the fields above draw what they drew before it was added.
      set(&ScenarioDraw::extends, upto(kMaxExtendsMask)));
}

}  // namespace locksim::testing

// Arbitrary instances: every fault kind, the default limits.
namespace rc {

template <>
struct Arbitrary<locksim::scenarios::FaultDraw> {
  static Gen<locksim::scenarios::FaultDraw> arbitrary() { return locksim::testing::gen_fault_draw({}); }
};

template <>
struct Arbitrary<locksim::scenarios::ScenarioDraw> {
  static Gen<locksim::scenarios::ScenarioDraw> arbitrary() {
    locksim::scenarios::GenLimits limits;
    limits.kinds = locksim::scenarios::default_hunt_kinds();
    return locksim::testing::gen_scenario_draw(limits);
  }
};

}  // namespace rc

// How rapidcheck prints a draw in a counterexample (found by ADL).
namespace locksim::scenarios {

inline void showValue(const FaultDraw& f, std::ostream& os) {
  os << "{" << fault_kind_name(f.kind) << " target=" << f.target << " peer=" << f.peer << " trigger=" << f.trigger
     << " client=" << f.trigger_client << " at=" << f.at_pm << "‰ length=" << f.length_pm << "‰"
     << (f.backward ? " backward" : "") << (f.flag ? " flag" : "") << "}";
}

inline void showValue(const InventoryDraw& d, std::ostream& os) {
  os << "{method#" << d.method << " stock+" << d.extra_stock << " segments+" << d.extra_segments << " per_buyer+"
     << d.extra_per_buyer << " buys+[";
  for (std::size_t i = 0; i < d.extra_buys.size(); ++i) os << (i ? "," : "") << d.extra_buys[i];
  os << "]" << (d.unique ? " unique" : "") << "}";
}

inline void showValue(const ScenarioDraw& d, std::ostream& os) {
  os << "{clients+" << d.extra_clients << " ttl_steps=" << d.ttl_steps << " work=" << d.work_pct
     << "% stagger=" << d.stagger_ms << "ms latency=" << d.latency_ms << "ms masters+" << d.extra_masters
     << " replicas=" << d.replicas << " fsync=" << d.fsync << " failover_after=" << d.failover_after_ms
     << "ms iterations+" << d.extra_iterations << " writes+" << d.extra_writes << " extends=" << d.extends
     << " faults=[";
  for (std::size_t i = 0; i < d.faults.size(); ++i) {
    if (i) os << ", ";
    showValue(d.faults[i], os);
  }
  os << "] sale=";
  showValue(d.inventory, os);
  os << "}";
}

}  // namespace locksim::scenarios
