// Generated fault schedules, the scenario shrinker and the hunt loop.
//
// Property tests and `locksim hunt` need many scenarios nobody wrote by
// hand, and when one of them breaks a lock, the smallest scenario that
// still breaks it. Three layers, all deterministic (no clocks, threads,
// <random> or std::hash; the only randomness is sim::Rng from a seed):
//
//  - ScenarioDraw / FaultDraw / InventoryDraw: a scenario as small unsigned
//    numbers where 0 is always the simplest choice (fewest clients, shortest
//    TTL, earliest time, shortest fault, first target; one item, one buy,
//    no work per purchase). `build_scenario` turns a draw into
//    a valid Scenario for a lock kind, on a generated topology or on a base
//    scenario's topology and workload. The seed-driven `draw_scenario` and
//    the rapidcheck generators (testing/rapidcheck_generators.hpp) fill the
//    same draw, so rapidcheck's shrinking (towards 0 and shorter vectors)
//    moves towards fewer faults, shorter durations, earlier times and fewer
//    clients.
//  - `shrink_scenario`: greedy delta debugging on a Scenario itself (so a
//    hand-written scenario shrinks too): drop faults, drop clients, fewer
//    iterations and writes (a buyer: fewer buys), a smaller sale (fewer
//    segments, fewer orders per buyer, no unique constraint, less stock),
//    clients that no longer extend, smaller topology until none of those
//    helps;
//    no extending for a client (where that helps the violation stay);
//    then bisect durations and times down (whole milliseconds, to 1/32) and
//    the run length; up to three such rounds, while the numbers keep
//    letting the structure shrink, within a run budget. Every candidate must load
//    back from its TOML (scenario_writer), so the result is always a file a
//    user can run.
//  - `hunt`: draw, run, and on the first violation shrink it.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "locks/registry.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "sim/rng.hpp"

namespace locksim::scenarios {

// What a generator may draw, and the restrictions a property needs.
struct GenLimits {
  std::vector<FaultKind> kinds;  // fault kinds to draw (empty: no faults)
  int min_clients = 2;
  int max_clients = 4;
  int max_faults = 3;
  bool allow_replicas = true;       // generated topologies may have a replica per master
  bool spare_counter_node = false;  // never crash, restart or fail over the fencing counter's node
  bool minority_nodes_only = false; // faults hit only the first (masters-1)/2 masters (nodes only)
  bool nodes_only = false;          // faults hit Redis nodes only, never a client
  bool restart_after_ttl = false;   // crash/power-loss: restart only after more than a TTL (or stay down)
  // Generated jobs run up to 3.2 TTLs instead of 0.8 (locks::LockInfo::
  // long_jobs: locks that renew in the background or trust a validity
  // deadline only meet their bugs on a job that outlives one TTL).
  bool long_jobs = false;
  // Faults may also trigger at "C:acquiring", within a few round trips of it
  // (locks::LockInfo::wall_clock_validity: a clock step only matters between
  // the two clock reads of an acquire), a clock jump then on C itself.
  bool acquiring_trigger = false;
  // Every generated client extends its lock before each write
  // (LockInfo::extends_before_writes: the lock's bug is in extend()).
  // Otherwise each client extends as drawn (ScenarioDraw::extends) when the
  // lock implements extend (LockInfo::implements_extend).
  bool extending_clients = false;
  // Generated topologies sell a stock (the inventory workload, issue 17) by
  // one of these methods, the first the simplest; empty: the lock workload.
  // A hunt of lock L draws the methods that take L (hunted_inventory_methods);
  // decr, lua and read-check-write take no lock, so a violation they show is
  // the method's, not L's: drawn only when asked for by name.
  std::vector<InventoryMethod> inventory_methods;
};

// A sale as numbers (used only with GenLimits::inventory_methods). It is
// drawn from its own stream, after the rest: a lock workload's draw for a
// seed is the same with or without it.
struct InventoryDraw {
  std::uint32_t method = 0;           // index into GenLimits::inventory_methods (wraps)
  std::uint32_t extra_stock = 0;      // stock = 1 + this
  std::uint32_t extra_segments = 0;   // segmented: segments = 1 + this (at most the stock)
  std::uint32_t extra_per_buyer = 0;  // per_buyer = 1 + this
  std::vector<std::uint32_t> extra_buys;  // client i's buys = 1 + extra_buys[i] (none drawn: 1)
  bool unique = false;                // [storage] unique (with per_buyer = 1 only)
};

// One fault as numbers; build_scenario maps them onto a scenario's hosts.
struct FaultDraw {
  FaultKind kind = FaultKind::Pause;
  std::uint32_t target = 0;          // index into the hosts this kind may hit (wraps)
  std::uint32_t peer = 0;            // delay: the receiving host; partition: which hosts are cut off
  std::uint32_t trigger = 0;         // 0: at a true time; 1: C:acquired, 2: C:write, 3: C:released
                                     // (4: C:acquiring, with GenLimits::acquiring_trigger)
  std::uint32_t trigger_client = 0;  // C (wraps over the clients)
  // Per mille (0..1000) of the fault span, kFaultSpanTtls x ttl (of one ttl after a trigger):
  std::uint32_t at_pm = 0;           // the true time, or the offset after the trigger
  std::uint32_t length_pm = 0;       // pause/delay/partition length, |clock jump|, ppm, restart delay
  bool backward = false;             // clock-jump: step back; clock-drift: slow down
  bool flag = false;                 // partition: drop (not hold); crash/power-loss: stay down
};

// A scenario as numbers. The topology fields are ignored on a base scenario.
struct ScenarioDraw {
  std::uint32_t extra_clients = 0;  // clients = min_clients + this (capped at max_clients)
  std::uint32_t ttl_steps = 0;      // ttl = 1s + 250ms * steps
  std::uint32_t work_pct = 0;       // work = ttl * (20 + pct) / 100, pct capped at 60
                                    // (a buyer's work per purchase: ttl * pct / 100)
  std::uint32_t stagger_ms = 0;     // client i starts at i * stagger
  std::uint32_t latency_ms = 0;     // network latency 1ms .. (1 + this) ms
  std::uint32_t extra_masters = 0;  // masters = the lock's minimum + this (multi-node locks)
  std::uint32_t replicas = 0;       // 0 or 1 per master
  std::uint32_t fsync = 0;          // 0 everysec, 1 always, 2 no
  std::uint32_t failover_after_ms = 0;  // 0: no automatic failover
  std::uint32_t extra_iterations = 0;
  std::uint32_t extra_writes = 0;   // writes = 1 + this
  // Bit i: client i extends its lock before each write ([[client]] extends),
  // so a lock's extend() is exercised as much as its acquire and release.
  // Only for the lock workload and a lock that implements extend; drawn
  // from its own stream, so the other fields' draws are as they were.
  std::uint32_t extends = 0;
  std::vector<FaultDraw> faults;
  InventoryDraw inventory;
};

// Upper bounds of the draw's fields (the rapidcheck generators use them too).
inline constexpr std::uint32_t kMaxTtlSteps = 36;       // ttl up to 10 s
inline constexpr std::uint32_t kMaxWorkPct = 60;
inline constexpr std::uint32_t kMaxLatencyMs = 20;
inline constexpr std::uint32_t kMaxExtraMasters = 2;
inline constexpr std::uint32_t kMaxExtraIterations = 2;
inline constexpr std::uint32_t kMaxExtraWrites = 2;
inline constexpr std::uint32_t kMaxExtendsMask = 0xff;  // bit i for client i (more clients: bit i % 8)
inline constexpr std::uint32_t kFaultSpanTtls = 3;      // fault times and lengths reach 3 x ttl
inline constexpr std::uint32_t kMaxExtraStock = 9;      // a drawn sale: up to 10 items,
inline constexpr std::uint32_t kMaxExtraSegments = 3;   // 4 segments,
inline constexpr std::uint32_t kMaxExtraPerBuyer = 2;   // 3 orders per buyer,
inline constexpr std::uint32_t kMaxExtraBuys = 3;       // 4 purchase attempts per buyer

// The inventory methods a hunt of a lock draws when none is named: those
// that take the hunted lock (lock, segmented).
std::vector<InventoryMethod> hunted_inventory_methods();

// Draws every field uniformly from the stream.
ScenarioDraw draw_scenario(sim::Rng& rng, const GenLimits& limits);

// The scenario a draw describes for `lock_kind` (which must be registered):
// on `base`'s topology, workload and lock config when given (its faults and
// nemesis replaced by the drawn faults), else on a generated one. Faults that
// cannot apply (a failover without replicas) are left out.
Scenario build_scenario(const ScenarioDraw& draw, const std::string& lock_kind, const GenLimits& limits,
                        const Scenario* base = nullptr);

// draw_scenario + build_scenario from `seed`.
Scenario generate_scenario(std::uint64_t seed, const std::string& lock_kind, const GenLimits& limits,
                           const Scenario* base = nullptr);

// --- Shrinking ----------------------------------------------------------------

using ScenarioPredicate = std::function<bool(const Scenario&)>;

struct ShrinkStats {
  std::size_t runs = 0;   // predicate calls
  std::size_t steps = 0;  // accepted reductions
};

// Greedy reduction of a scenario for which `still_fails` holds, until no
// step keeps it failing or `max_runs` predicate calls are spent.
Scenario shrink_scenario(Scenario failing, const ScenarioPredicate& still_fails, std::size_t max_runs = 1500,
                         ShrinkStats* stats = nullptr);

// The predicate `hunt` shrinks with: a run of lock_kind with `seed` shows a
// violation of `kind`. With `verify`, each run is run twice
// (RunOptions::verify: a difference throws NondeterministicRun).
ScenarioPredicate shows_violation(const std::string& lock_kind, std::uint64_t seed, const std::string& kind,
                                  bool verify = false);
// ... and a run of `baseline` (the fixed lock) on the same scenario does not.
ScenarioPredicate shows_violation_unlike(const std::string& lock_kind, const std::string& baseline,
                                         std::uint64_t seed, const std::string& kind, bool verify = false);

// --- Hunting ------------------------------------------------------------------

// One generated case of a hunt and what it showed: the violation to shrink
// for ("" for none), or why a library lock's processes gave no verdict, or
// what the run threw (a nondeterministic run under verify).
struct HuntCase {
  Scenario scenario;
  std::string kind;
  std::string error;
  std::exception_ptr thrown;
};

struct HuntOptions;

// Where a hunt's cases come from: hunt() takes them in index order 0, 1,
// 2, ... and destroys the source before it shrinks. A source may run cases
// ahead (the CLI's hunt --jobs, on threads: cli/parallel.hpp), never
// change one.
class HuntCaseSource {
 public:
  virtual ~HuntCaseSource() = default;
  virtual HuntCase take(std::uint64_t index) = 0;
};

struct HuntOptions {
  std::string lock_kind;
  std::optional<Scenario> base;   // topology and workload to search on
  GenLimits limits;
  std::uint64_t seed = 1;
  std::uint64_t budget = 1000;    // generated cases at most
  std::string violation;          // only this kind counts; empty: any kind
  // A reproduction's fixed lock: a case counts only when this lock, on the
  // same scenario and seed, does not show the violation (so the hunt finds
  // the reported bug, not a weakness both versions share). Empty: none.
  std::string baseline_lock;
  std::size_t shrink_runs = 1500;
  bool verify = false;  // every run twice, search and shrink (RunOptions::verify)
  // The search's cases; empty: run here, one after another.
  std::function<std::unique_ptr<HuntCaseSource>(const HuntOptions&)> case_source;
  // Called after every case with (cases run, found); false stops the search
  // (the CLI's --time and progress line live there, not in scenarios/).
  std::function<bool(std::uint64_t, bool)> keep_going;
};

struct HuntResult {
  bool found = false;
  std::uint64_t cases = 0;        // generated cases run
  std::uint64_t case_index = 0;   // which case failed (0-based)
  std::uint64_t run_seed = 0;     // the seed the minimal scenario fails with
  std::string violation;          // the kind it was shrunk for
  Scenario original;              // the failing case as drawn
  Scenario minimal;               // after shrinking; [lock] kind = the hunted lock
  ShrinkStats shrink;
  // A case a library lock's processes could not run (the adapter exited,
  // the mechanism refused it): the search stopped there, with this reason.
  std::string error;
};

HuntResult hunt(const HuntOptions& options);

// Case `index` of the search `options` describes, run now.
HuntCase run_hunt_case(const HuntOptions& options, std::uint64_t index);

// What `locksim hunt --lock NAME` searches with no other option: the default
// fault kinds and budget (1000 cases); for a reproduction of a shipped bug
// the reported violation, against its fixed lock; long jobs where the lock
// asks for them.
HuntOptions default_hunt_options(const locks::LockInfo& lock);

// The default fault kinds of a hunt: every kind the fault kind table marks
// hunted_by_default (all but heal, as a drawn partition heals after its
// duration, and fsync-stall, opt-in). A failover is left out where there are
// no replicas.
std::vector<FaultKind> default_hunt_kinds();

}  // namespace locksim::scenarios
