// Scenario: a run described as data (docs/scenario-format.md): topology,
// workload, lock, faults and the expected outcome, like FoundationDB's test
// TOML (workload + nemeses). `load_scenario_*` parse TOML with toml++ and
// validate every field; a bad file gives `file:line: field: message`.
//
// Decisions where docs/architecture.md is silent (the user-visible contract of a file):
//  - Every table rejects unknown keys ("did you mean ..." when one is close),
//    and a [[fault]] rejects keys its kind does not use (`by` on a pause).
//  - Durations are strings with units: ns, us (or µs), ms, s, m, h; a
//    fraction is exact ("1.5s" = 1500 ms; "1.5ns" is an error), parts may be
//    combined ("1m30s"), "0" needs no unit; integers and floats are refused
//    (`ttl = 30000` has no unit). Signed durations are only for clock-jump
//    `by`, which needs the sign spelled out ("+20s" / "-5s").
//  - Field paths are dotted; arrays of tables count from 1 as a reader
//    does: `client[1]` is the first [[client]], `fault[2].after` the second
//    fault's trigger. Line 0 = the file as a whole (missing or unreadable
//    file); a missing top-level field is reported at line 1, the top of the
//    file where such keys belong; an error inside a table without the offending key
//    (a missing field) points at the table's header line. A TOML syntax
//    error has field `syntax` and toml++'s description; an unreadable file
//    has field `file`. Only the first problem is reported.
//  - Required: `name`, at least one [[client]] with a `name`; a [[fault]]'s
//    `kind` and its kind's fields (pause: target+duration; clock-jump:
//    target+by; clock-drift: target+ppm; delay: from+to+duration;
//    crash/power-loss: target, optional restart_after (absent = stays down);
//    restart/failover: target; partition: groups, optional duration (0 or
//    absent = until a heal) and mode; heal: nothing; fsync-stall: a Redis
//    node as target + duration). [nemesis] needs `kinds`.
//  - Bounds: duration, ttl (>= 1ms: PX takes milliseconds), retry, timeout,
//    liveness, mean_interval, max_duration, pause/delay durations are > 0;
//    other durations >= 0. masters 1..kMaxMasters, replicas 0..kMaxReplicas,
//    writes 0..kMaxWrites, iterations 1..kMaxIterations, |ppm| <= kMaxPpm,
//    per-mille values 0..1000, background_writes_per_second
//    0..kMaxBackgroundWritesPerSecond, fsync_duration >= 0,
//    min_replicas_to_write <= replicas, and a
//    nemesis may not average more than kMaxNemesisFaults faults per run.
//  - Hosts: client names use letters, digits, '_', '-', '.' (they appear in
//    triggers "A:write#2"), are unique, and may not be "storage", "sentinel"
//    or start with "redis-". With replicas, "sentinel" (the failover
//    controller's host) may be paused, partitioned, delayed or have its
//    clock changed. crash/power-loss/restart target a client or a Redis node;
//    failover targets a master and needs replicas >= 1; a partition needs at
//    least two non-empty groups with no host twice (a host in no group
//    reaches everyone); delay's from and to differ.
//  - Triggers: acquired/write/write#N/released name a client (write#N needs
//    N <= that client's `writes`); crash/restart name a client or Redis node.
//  - A client that starts, or an untriggered fault whose `at` is, at or
//    after `duration` is an error (it would silently never happen).
//  - [lock] kind and the keys of [expect.by_lock] must be registered locks
//    with at least their min_nodes masters (the runner turns on Redis 8.4
//    commands itself for a lock that needs them).
//    `counter_node` is a master name ("redis-5") or LockConfig's 0-based
//    index (-1 = the last node). [lock] also accepts `thread_name`
//    (LockConfig::thread_name, the watchdog's hash field).
//  - [expect] without `violations` leaves expect_default unset (only the
//    locks under by_lock have an expectation); `violations = []` expects none.
//  - [etcd] / [zookeeper] replace [redis] (scenarios/cp_topology.hpp): the
//    members are hosts etcd-N / zk-N that pause, crash, restart, lose
//    power, have their clocks changed and take part in delays and
//    partitions like any host; failover and fsync-stall are Redis faults.
//    The lock must be of the file's topology.
//  - [live] time_scale (a number, kMinLiveTimeScalePpm..kMaxLiveTimeScalePpm
//    as a fraction, e.g. 0.3): the time scale `locksim live` and `sweep
//    --live` use for this scenario when the user gives no --time-scale (a
//    real redis-server restart takes tens of real milliseconds: seconds of
//    scenario time at the default 0.01). The simulator ignores it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "locks/lock.hpp"
#include "scenarios/cp_topology.hpp"
#include "scenarios/duration.hpp"
#include "scenarios/fault_kinds.hpp"
#include "scenarios/host_names.hpp"
#include "scenarios/trigger.hpp"
#include "sim/network.hpp"
#include "sim/redis/node.hpp"
#include "vocab/partition_mode.hpp"
#include "vocab/result.hpp"
#include "vocab/time.hpp"

namespace locksim::scenarios {


enum class WorkloadKind : std::uint8_t { Lock, Gate, Inventory };

// [workload] method for kind = "inventory" (scenarios/inventory_workload.hpp):
// how a buyer takes one item of the stock.
enum class InventoryMethod : std::uint8_t { ReadCheckWrite, Lock, Decr, Lua, Segmented };

// [workload] stock / method / segments / per_buyer (kind = "inventory").
struct InventorySpec {
  std::int64_t stock = 0;  // items on sale, >= 1
  InventoryMethod method = InventoryMethod::ReadCheckWrite;
  int segments = 1;        // segmented: the stock split over this many keys, 1..stock
  int per_buyer = 1;       // the shop's rule: orders one buyer may hold
};

// `after = "A:acquired"`: a point in the run that starts a fault's clock.
// Events: acquiring (a client starts an acquire), acquired, write (write 1) or
// write#N, released, crash, restart.
struct FaultSpec {
  FaultKind kind = FaultKind::Pause;
  std::string target;                        // pause, clock-*, crash, power-loss, restart, failover
  std::string from, to;                      // delay
  Duration at{0};                            // true time, or the offset after `after`
  std::optional<Trigger> after;
  Duration duration{0};                      // pause, delay, partition
  Duration by{0};                            // clock-jump (signed)
  std::int64_t ppm = 0;                      // clock-drift
  std::optional<Duration> restart_after;     // crash, power-loss
  std::vector<std::vector<std::string>> groups;  // partition
  PartitionMode mode = PartitionMode::Hold;  // partition: "hold" | "drop"
  int line = 0;                              // where it was written (for messages)
};

struct NemesisSpec {
  std::vector<FaultKind> kinds;
  Duration mean_interval{std::chrono::seconds(5)};
  Duration max_duration{std::chrono::seconds(40)};
  std::vector<std::string> targets;  // empty = every client and Redis node
};

struct ClientSpec {
  std::string name;
  Duration start{0};
  Duration work{std::chrono::seconds(1)};
  int writes = 1;
  int iterations = 1;
  std::int64_t clock_drift_ppm = 0;
  int buys = 1;  // inventory: purchase attempts, one item each
  // Extends the lock before each write (redlock-rb's `lock(key, ttl,
  // extend: lock_info)`): a failed extension abandons the section.
  bool extends = false;
};

struct RedisSpec {
  int masters = 1;
  int replicas = 0;  // per master
  Duration replication_lag{std::chrono::milliseconds(5)};
  bool appendonly = true;
  sim::redis::Fsync appendfsync = sim::redis::Fsync::Everysec;
  Duration fsync_duration{std::chrono::milliseconds(3)};  // one background fsync
  std::uint32_t background_writes_per_second = 0;  // unrelated keys: a busy server
  Duration failover_after{0};  // 0 = never automatically
  int min_replicas_to_write = 0;
  int parallel_syncs = 1;  // Sentinel's parallel-syncs (sentinel.c default)
  Duration failover_timeout{std::chrono::milliseconds(180000)};  // Sentinel's failover-timeout
  bool redis84 = false;  // DELEX / SET IFEQ
};

struct NetworkSpec {
  DurationRange latency{std::chrono::milliseconds(1), std::chrono::milliseconds(3)};
  std::uint32_t tail_per_mille = 0;  // heavy tail: this share of packets is slowed 2^k
  std::uint32_t tail_max_shift = 0;
  Duration timeout{std::chrono::seconds(1)};  // client command timeout
};

struct Scenario {
  std::string name;
  std::string description;
  std::string source;  // the file it came from ("catalog/gc-pause.toml")
  Duration duration{std::chrono::seconds(60)};

  WorkloadKind workload = WorkloadKind::Lock;
  std::string lock_kind = "token";  // [lock] kind: the default for `run`
  locks::LockConfig lock;           // key, ttl, retry, acquire_timeout and per-lock options

  RedisSpec redis;
  // [etcd] / [zookeeper] instead of [redis] (scenarios/cp_topology.hpp):
  // `topology` says which; `cp` holds its fields.
  locks::Topology topology = locks::Topology::Redis;
  CpSpec cp;
  NetworkSpec network;
  bool fencing = false;               // [storage] fencing
  bool unique = false;                // [storage] unique: the orders table's unique constraint
  InventorySpec inventory;            // [workload] kind = "inventory"
  std::optional<Duration> liveness;   // [check] liveness (default 2 x ttl)
  std::optional<std::int64_t> live_time_scale_ppm;  // [live] time_scale x 10^6 (live mode only)

  std::vector<ClientSpec> clients;
  std::vector<FaultSpec> faults;
  std::optional<NemesisSpec> nemesis;

  // [expect]: `violations` for every lock; `by_lock` per lock kind (the
  // catalog lists an expectation for each lock it covers).
  std::optional<std::set<std::string>> expect_default;
  std::map<std::string, std::set<std::string>> expect_by_lock;
  // `may` / [expect.may_by_lock]: violations a run may or may not show
  // (a random nemesis hits them for some seeds only). A run matches when
  // it shows every expected violation and nothing outside expected ∪ may.
  std::set<std::string> expect_may_default;
  std::map<std::string, std::set<std::string>> expect_may_by_lock;

  // The expected violation set for a lock; nullopt = no expectation.
  std::optional<std::set<std::string>> expected_for(const std::string& lock_kind) const;
  std::set<std::string> may_for(const std::string& lock_kind) const;
  // Whether a run's violation kinds match the expectation for this lock
  // (with no expectation at all: it must have none).
  bool matches(const std::string& lock_kind, const std::set<std::string>& found) const;
  Duration liveness_bound() const { return liveness.value_or(2 * lock.ttl); }
};

struct ScenarioError {
  std::string file;
  int line = 0;  // 0 = the file as a whole
  std::string field;
  std::string message;
  std::string to_string() const;  // "file:line: field: message"
};

// Validation bounds (keep fuzzed or mistyped files from building huge worlds).
inline constexpr std::int64_t kMaxMasters = 99;
inline constexpr std::int64_t kMaxReplicas = 9;
inline constexpr std::int64_t kMaxWrites = 10'000;
inline constexpr std::int64_t kMaxBackgroundWritesPerSecond = 1'000;
inline constexpr std::int64_t kMaxIterations = 1'000'000;
inline constexpr std::int64_t kMaxPpm = 999'999;
inline constexpr std::int64_t kMaxTailShift = 20;
inline constexpr std::int64_t kMaxNemesisFaults = 100'000;  // duration / mean_interval
// [live] time_scale bounds, in parts per million (live mode's --time-scale range).
inline constexpr std::int64_t kMinLiveTimeScalePpm = 1'000;       // 0.001
inline constexpr std::int64_t kMaxLiveTimeScalePpm = 10'000'000;  // 10

// Every host of a scenario: clients in file order, masters, replicas (or the
// CP members etcd-1.. / zk-1..), "storage".
std::vector<std::string> host_names(const Scenario& scenario);

// The violation names of docs/architecture.md (part of the CLI contract), in
// ViolationKind order: the table's (vocab/violation_kinds.hpp).
const std::vector<std::string>& violation_names();

Result<Scenario, ScenarioError> load_scenario_text(std::string_view toml_text, const std::string& file);
Result<Scenario, ScenarioError> load_scenario_file(const std::string& path);

}  // namespace locksim::scenarios
