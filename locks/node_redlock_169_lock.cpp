// node-redlock-169: node-redlock v5.0.0-beta.2 (the release on npm) with
// `using()`'s automatic extension, whose lock expiration is counted from the
// first acquire attempt — and beside it `node-redlock-fixed`, counting it
// from the attempt that won (the fix on master).
//
// Repository: github.com/mike-marcacci/node-redlock, file src/index.ts,
// Redlock.acquire(), _execute(), extend() and using(). Reports: #169 and
// PR #273 "Fix extension failure" ("start time in the code is the time when
// acquiring of lock is attempted for the first time. Expiration time becomes
// too early, hence causing the failure in extension of locks"), merged as
// 5dd9e28 "Fix Auto extending locks (#274)"; #296 and #299 report that no
// release carries it yet.
// What the code did: acquire() read `start = Date.now()` once, then
// _execute() retried (retryDelay ± retryJitter) until a quorum voted for
// it; the Lock's expiration = start + duration − drift (drift =
// round(0.01·duration) + 2 ms). After retries longer than the duration the
// lock came back already expired. using() schedules extend() at expiration −
// automaticExtensionThreshold (500 ms): at once; extend() throws "Cannot
// extend an already-expired lock.", using() sets signal.aborted, and the
// routine — which node-redlock never stops — runs on while the keys expire
// one duration after the grant, and the next waiter takes the lock.
// What the fix changed: _attemptOperation() reads `start` per attempt and
// _execute() returns the winning attempt's, so expiration = that start +
// duration − drift and the automatic extension works.
// Modelled on RedlockLock (locks/redlock.hpp) over every node: Date.now()
// (the wall clock), no validity check at acquire (v5 has none), extension =
// the compare-and-pexpire script on a quorum, refused without a script once
// the Lock's expiration has passed (Redlock.extend(), also when an
// application calls it: `extends`), retried by using() while it has not.
// Assumptions: the routine does not poll signal.aborted (it is only a flag;
// a routine that stops on it loses its work instead of the lock), so the
// lease carries no deadline; retryCount = -1 (the scenario's
// acquire_timeout bounds the waiting), and retry + rand[0, retry_jitter)
// stands for retryDelay ± retryJitter.
#include <algorithm>
#include <atomic>
#include <memory>
#include <numeric>

#include "locks/redlock.hpp"
#include "locks/registry.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::locks {
namespace {

constexpr Duration kExtensionThreshold = std::chrono::milliseconds(500);  // automaticExtensionThreshold

LockConfig as_node_redlock(LockConfig config) {
  config.clock = RedlockClock::Wall;             // Date.now()
  config.check_validity_after_acquire = false;   // v5 returns the lock whatever its expiration
  return config;
}

class NodeRedlockLock final : public RedlockLock {
 public:
  NodeRedlockLock(Runtime& rt, const LockConfig& config, std::vector<std::size_t> nodes, bool from_first_attempt)
      : RedlockLock(rt, as_node_redlock(config), std::move(nodes)), from_first_attempt_(from_first_attempt) {}
  ~NodeRedlockLock() override { stop_extension(); }
  NodeRedlockLock(const NodeRedlockLock&) = delete;
  NodeRedlockLock& operator=(const NodeRedlockLock&) = delete;

  Task<std::optional<Lease>> try_acquire() override {
    first_start_ = clock_now();
    std::optional<Lease> lease = co_await RedlockLock::try_acquire();
    if (!lease) co_return lease;
    const LocalInstant start = from_first_attempt_ ? first_start_ : attempt_start_;
    if (!config_.track_validity) lease->valid_until.reset();  // the routine trusts the automatic extension
    stop_extension();
    expiration_ = start + config_.ttl - drift();
    extension_ = rt_.spawn(auto_extend(*lease));
    lease->background = extension_;
    co_return lease;
  }

  // Redlock.extend(): an expiration already past throws "Cannot extend an
  // already-expired lock." before any script is sent; a quorum's extension
  // dates the new expiration from the call's start. using() goes through
  // the same check (auto_extend).
  Task<bool> extend(Lease& lease) override {
    const LocalInstant start = clock_now();
    if (expiration_.load() < start) co_return false;
    if (!co_await RedlockLock::extend(lease)) co_return false;
    expiration_ = start + config_.ttl - drift();
    co_return true;
  }

  Task<bool> release(Lease& lease) override {
    stop_extension();
    co_return co_await RedlockLock::release(lease);
  }

 protected:
  Task<std::optional<Lease>> attempt() override {
    attempt_start_ = clock_now();
    return RedlockLock::attempt();
  }

 private:
  Duration threshold() const { return std::min(kExtensionThreshold, config_.ttl / 2); }

  // using(): extend at expiration − threshold; an expired lock ends it.
  Task<void> auto_extend(Lease lease) {
    for (;;) {
      const Duration wait = expiration_.load() - clock_now() - threshold();
      if (wait > Duration::zero()) co_await rt_.sleep(wait);
      for (;;) {
        if (expiration_.load() < clock_now()) co_return;  // "Cannot extend an already-expired lock." → aborted
        if (co_await extend(lease)) break;
        co_await rt_.sleep(retry_delay());
      }
    }
  }

  void stop_extension() {
    if (const std::uint64_t id = extension_.exchange(0); id != 0) rt_.cancel(id);
  }

  bool from_first_attempt_;
  LocalInstant first_start_{}, attempt_start_{};
  // The Lock's expiration (start + duration − drift), as extend() checks it;
  // atomic: live mode's using() timer is a thread beside the client's.
  std::atomic<LocalInstant> expiration_{};
  std::atomic<std::uint64_t> extension_{0};  // the spawned using() timer (a thread on RealRuntime)
};

LockInfo node_redlock_info(std::string name, std::string description, std::string source, bool from_first) {
  LockInfo info = every_node_lock_info(
      std::move(name), std::move(description), std::move(source), 1, false,
      [from_first](Runtime& rt, const LockConfig& c, std::vector<std::size_t> nodes) -> std::unique_ptr<Lock> {
        return std::make_unique<NodeRedlockLock>(rt, c, std::move(nodes), from_first);
      });
  info.long_jobs = true;
  return info;
}

}  // namespace

LockInfo lock_info_node_redlock_169() {
  LockInfo info = node_redlock_info(
      "node-redlock-169",
      "node-redlock 5.0.0-beta.2 using(): expiration from the first attempt, so a lock won after retries "
      "cannot be extended",
      "node-redlock src/index.ts acquire()/_execute()/using() as released (#169, PR #273)", true);
  info.reproduces = Reproduction{"node-redlock", "5.0.0-beta.2 (npm)", "#169, PR #273", "node-redlock-fixed",
                                 std::string(violation_kind_name(ViolationKind::MutualExclusion))};
  return info;
}

LockInfo lock_info_node_redlock_fixed() {
  return node_redlock_info("node-redlock-fixed",
                           "node-redlock using() as fixed: expiration from the winning attempt, extension works",
                           "node-redlock src/index.ts after 5dd9e28 (#274, from PR #273)", false);
}

}  // namespace locksim::locks
