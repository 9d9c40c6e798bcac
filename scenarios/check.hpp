// Bounded exhaustive checking (`locksim check`): every schedule of up to K
// faults on a base scenario's topology and workload, at the moments and
// with the sizes that matter, so a clean result says "no violation within
// this bound" instead of "none found by chance".
//
// The bound (docs/check.md):
//  - fault kinds: those that apply to the topology (a failover needs
//    replicas, an fsync stall an AOF; heal is never enumerated: a checked
//    partition ends on its own), or the ones asked for;
//  - targets: every host a kind may hit (the fault kind table's check_targets);
//  - trigger points: every acquiring, acquired, write#i and released point
//    a fault-free run of the lock reaches (its history's `points`);
//  - offsets after the trigger: 0 and the end of the validity (TTL less
//    the validity margin ttl/100 + 2 ms of redlock-rb, locks/redlock.hpp);
//  - sizes: just under and just over the TTL (pause, delay, partition,
//    fsync stall, clock jump forward and back), restart just over the TTL
//    and just over the liveness bound (crash, power loss), a drift just
//    over the validity margin per TTL (clock drift, fast and slow).
// Schedules are sets (combinations): faults at different points cannot be
// reordered by listing them differently. Equivalent schedules are removed
// and counted by reason (see RemovalReason). Everything is a function of
// the inputs: the same plan walks the same schedules in the same order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "sim/activity.hpp"
#include "vocab/result.hpp"

namespace locksim::scenarios {

// The most faults one check schedule may hold (--faults): past three the
// schedules outgrow any machine (the count grows as singles^K).
inline constexpr int kMaxCheckFaults = 3;

struct CheckOptions {
  std::string lock_kind;
  int max_faults = 2;
  std::vector<FaultKind> kinds;  // empty: every kind that applies to the topology
  std::string property;          // a violation name; empty: any violation counts
  // The extend pass: every client extends its lock before each write (see
  // check_passes).
  bool every_client_extends = false;
};

// The workloads a check runs, each a whole bound: the scenario's as written
// and, when the lock implements extend but no client of a lock workload
// extends, again with every client extending before its writes — so the
// extend path is checked as hunt and the property suite check it (a lock
// whose extend skips the token check is caught).
std::vector<CheckOptions> check_passes(const Scenario& base, const CheckOptions& options);

// Why a schedule was not run: it is equivalent to one that is (or can
// change no verdict), judged on the fault-free run — or, for a pair, on the
// run of its first fault alone (the pair's run is that run until its second
// fault fires) — or it holds a smaller schedule that already violates.
enum class RemovalReason : std::uint8_t {
  PointNeverReached,  // its trigger point is not reached (by the run it fires in): the fault never fires
  AfterLastEvent,     // due after every client's workload ended: no belief, attempt or write left to judge
  TargetFinished,     // its target (or delay's sender) is a client whose workload ended: nothing on it observes
  ClientPowerLoss,    // a power loss of a client is a crash (scenarios/faults.cpp crash_host)
  HoldsViolating,     // a smaller schedule inside it violates already: it cannot be a smallest counterexample
  ActsOnNothing,      // a member acts on nothing in the run of the others (see acts_in_run): the same run without it
  SameEffect,         // a one-off fault meets what an earlier-listed twin meets there (see same_effect): that schedule's run
};
std::string_view removal_reason_text(RemovalReason reason);

// A boundary value and what it is ("just over the TTL").
struct BoundaryValue {
  Duration value{0};
  std::string why;
};

// One candidate fault of the enumeration.
struct CheckFault {
  FaultSpec spec;
  Duration due{0};  // trigger time (fault-free run) + offset
  Duration size{0};  // for ranking: its duration, |jump|, restart delay
  std::optional<RemovalReason> removed;
  std::size_t point = 0;               // its trigger: an index into CheckPlan::triggers
  std::optional<std::string> client;   // the client it acts on, if it acts on one client only
  std::vector<std::size_t> twins;      // earlier singles it may stand in for (delays, jumps: see same_effect)
  std::optional<std::size_t> same_as;  // removed as SameEffect alone: the single its run is
  std::string text() const;  // "pause A 30.001s after A:acquired+0"
};

// Where a run's events and packets went (sim/activity.hpp), by host name
// and in time since the start: what `acts_in_run` reads.
struct RunActivity {
  struct Link {
    std::vector<Duration> sends, deliveries;
  };
  std::map<std::string, std::vector<Duration>> events;        // host: when its events ran
  std::vector<Duration> unowned;                              // when events of no host ran (faults), in order
  std::map<std::pair<std::string, std::string>, Link> links;  // (from, to)
  std::map<std::string, std::vector<Duration>> wall_reads;    // host: when its wall clock was read
  std::map<std::string, std::vector<Duration>> disk_checks;   // host: when an fsync started or ended
  bool recorded = false;  // not recorded: every fault is taken to act
};

// What a run of a schedule tells the schedules that contain it.
struct ScheduleOutcome {
  std::vector<std::optional<Duration>> reached;  // per CheckPlan::triggers: first reached (nullopt: never)
  std::map<std::string, std::optional<Duration>> finished;  // each client's workload end (nullopt: never)
  bool violates = false;  // a counted violation (counted_violations)
  RunActivity activity;   // empty unless the run recorded it
};
struct CheckPlan {
  Scenario base;  // faults and nemesis dropped, the lock's assumed environment given
  std::string lock_kind;
  std::string property;
  int max_faults = 2;
  std::vector<FaultKind> kinds;
  std::vector<std::string> targets;          // every host some kind may hit
  std::vector<std::string> points;           // reached trigger points ("A:acquired")
  std::vector<std::string> unreached_points; // declared but not reached by the fault-free run
  std::vector<Trigger> triggers;             // every declared trigger point (CheckFault::point)
  std::vector<BoundaryValue> offsets;
  std::vector<BoundaryValue> sizes;          // every boundary size in use
  std::vector<CheckFault> singles;
  std::vector<std::string> assumptions;      // given to the lock, with what the scenario had (lock_assumptions.hpp)
  bool extend_pass = false;                  // every client extends (CheckOptions::every_client_extends)
  ScheduleOutcome baseline;                  // the fault-free run, its activity recorded
  bool sentinel = false;                     // the topology has one (it reads partitions)
};

// Runs the fault-free baseline and lays out the candidates. Errors (one
// line): unknown lock, a lock of another topology, too few masters, a kind
// that does not apply, --faults outside 1..kMaxCheckFaults, unknown property.
Result<CheckPlan, std::string> plan_check(const Scenario& base, const CheckOptions& options);

// `activity`: what the run recorded (RunOptions::activity), or null.
ScheduleOutcome summarize(const CheckPlan& plan, const RunResult& run, const sim::Activity* activity = nullptr);

// Whether one-off faults `a` and `b` — twins: delays of one link and
// size, or clock jumps of one host and size — joining the schedule whose
// run is `run`, meet the same thing there. Each sets state that is next
// consulted once (a delay: the link's next send; a jump: the host's next
// wall reading); when nothing consults it from the earlier one's firing to
// the later one's, both ends included (a consult at the very instant a
// fault fires may go either side of it), both meet the first consult
// after, and the two schedules run alike (each trigger's yield harmless, as
// in acts_in_run). `partner`: the schedule's other fault, if any.
bool same_effect(const CheckFault& a, const CheckFault& b, const ScheduleOutcome& run, const CheckFault* partner);

// Whether fault `f`, joining the schedule whose run is `run`, would act on
// anything there — firing where `run` reaches its trigger. Its trigger
// acts first: a client that reaches a point with a fault armed on it
// yields (sim_workload_world.cpp reach) so the fault lands before it goes
// on, and that lets events already due at that instant run first. So
// unless another fault of the schedule has the same trigger (the yield is
// there anyway), the instant must hold no other event in `run`. A pause acts
// when one of its host's events comes due inside its window, a delay when
// its link sends after it fires, a partition when a packet arrives across
// its cut inside its window, a clock jump when its host's wall clock is
// read after it fires, an fsync stall when an fsync starts or ends inside
// its window; every other kind is taken to act. A fault
// that acts on nothing leaves the run as it was (until its first effect
// the two runs are one, and there is none), so the larger schedule is the
// smaller one. `others`: the schedule's other faults — a partition beside
// another partition (the later one replaces the groups, either heal ends
// both) or a Sentinel (it reads the cut) is taken to act.
bool acts_in_run(const CheckPlan& plan, const CheckFault& f, const ScheduleOutcome& run,
                 const std::vector<const CheckFault*>& others);

// Walks every schedule (1 fault, then 2, ... up to max_faults; each a set
// of single indexes in increasing order), counting the removed ones by
// reason, and hands out the explored ones in enumeration order. A larger
// size is walked only once every run of the size below is learned: its
// removals read them (so the walk, and every count, is the same however
// many workers run the schedules).
class ScheduleCursor {
 public:
  explicit ScheduleCursor(const CheckPlan& plan);
  enum class Step { Schedule, Wait, End };
  struct Next {
    Step step = Step::End;
    std::vector<std::size_t> schedule;  // with Step::Schedule
  };
  // The next explored schedule; Wait while runs of the size below are not
  // learned yet; End after the last.
  Next next();
  // The result of an explored schedule (every one with fewer than
  // max_faults faults must be learned before the next size is walked).
  void learn(const std::vector<std::size_t>& schedule, ScheduleOutcome summary);
  const std::map<RemovalReason, std::uint64_t>& removed() const { return removed_; }
  std::uint64_t explored() const { return explored_; }
  // Progress: the candidate schedules walked so far (explored or removed),
  // of all there are (every set of 1..max_faults singles).
  std::uint64_t walked() const;
  std::uint64_t candidates() const;

 private:
  bool advance();  // to the next set of the current size
  bool can_grow() const;  // the bound allows a larger size
  void grow();            // to the first set of the next size
  std::optional<RemovalReason> removal(const std::vector<std::size_t>& schedule) const;
  std::optional<RemovalReason> pair_removal(const std::vector<std::size_t>& schedule) const;
  const ScheduleOutcome* single_run(std::size_t single) const;  // its run, if known
  bool has_earlier_twin(const CheckFault& f, const CheckFault& partner, const ScheduleOutcome& run) const;
  bool holds_violating(const std::vector<std::size_t>& schedule) const;

  const CheckPlan& plan_;
  std::vector<std::size_t> current_;
  bool started_ = false;
  std::map<RemovalReason, std::uint64_t> removed_;
  std::uint64_t explored_ = 0;
  std::uint64_t handed_at_size_ = 0, learned_at_size_ = 0;
  // Read for every candidate schedule (millions), so indexed, not searched:
  std::vector<std::optional<ScheduleOutcome>> singles_run_;  // by single index: its learned run
  std::vector<bool> single_violates_;                        // by single index
  std::set<std::pair<std::size_t, std::size_t>> violating_pairs_;
};

// The runnable scenario of schedule `number` (1-based, its place among the
// explored ones): the base with these faults and no expectation (any
// violation fails `locksim run`).
Scenario schedule_scenario(const CheckPlan& plan, const std::vector<std::size_t>& schedule, std::uint64_t number);

// The violations of a run that count for the plan's property (all without one).
std::vector<std::string> counted_violations(const CheckPlan& plan, const RunResult& run);

// "fewest faults, then shortest": the ranking key of a violating schedule.
std::pair<std::size_t, Duration> schedule_rank(const CheckPlan& plan, const std::vector<std::size_t>& schedule);

// The bound, spelled out: K, kinds, targets, trigger points, offsets and sizes.
std::string bound_text(const CheckPlan& plan);

}  // namespace locksim::scenarios
