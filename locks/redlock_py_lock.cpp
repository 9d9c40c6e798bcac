// redlock-py: SPSCommerce/redlock-py as it stood under Python 3 between
// f5254b1 ("Fixed Python 3 compatibility", 2015-05-01) and c731c03 (2015-05-09),
// beside `redlock`, which has what the later versions and redlock-rb fixed.
//
// Repository: github.com/SPSCommerce/redlock-py, file redlock/__init__.py,
// Redlock.__init__ and Redlock.lock (release 1.0.x; 1.0.8 is the last). No
// single issue: the items are the library's defaults (RedlockPyLock,
// locks/redlock_py.hpp) and two things read from its history:
//  - `self.quorum = (len(connection_list) / 2) + 1`: under Python 3 this is
//    2.5 for 3 servers and 3.5 for 5, so `n >= self.quorum` wants 3 of 3 (4
//    of 5) — stricter, never unsafe; c731c03 changed it to `//` (2 of 3).
//  - validity from `int(time.time() * 1000)` read before and after the SETs
//    (still so in 1.0.8): a wall-clock step backwards while the SETs are in
//    flight makes `elapsed` negative and the validity longer than the keys
//    live, so the holder trusts its lock after the keys expired and another
//    client holds it. The fix: a monotonic clock (time.monotonic(); go-redsync
//    and redlock-rb's Process.clock_gettime(CLOCK_MONOTONIC)), as `redlock`.
// Confirmed from the repository's git history (the commits above); the
// Python 3 quorum value is Python's `/` semantics, not a report.
#include <memory>
#include <numeric>

#include "locks/redlock_py.hpp"
#include "locks/registry.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::locks {

namespace {

LockConfig with_wall_clock(LockConfig config) {
  config.clock = RedlockClock::Wall;  // time.time()
  return config;
}

}  // namespace

RedlockPyLock::RedlockPyLock(Runtime& rt, LockConfig config, std::vector<std::size_t> nodes,
                             RedlockPyHistory history)
    : RedlockLock(rt, with_wall_clock(std::move(config)), std::move(nodes)), history_(history) {}

// `while retry < self.retry_count`: three attempts, retry_delay apart.
Task<std::optional<Lease>> RedlockPyLock::try_acquire() {
  for (int attempt_no = 1;; ++attempt_no) {
    std::optional<Lease> lease = co_await attempt();
    if (lease || attempt_no == kRetryCount) co_return lease;
    co_await rt_.sleep(retry_delay());
  }
}

// n >= N/2 + 1 with true division is n >= ceil((N + 2) / 2).
std::size_t RedlockPyLock::quorum() const {
  if (!history_.true_division_quorum) return RedlockLock::quorum();
  return (nodes_.size() + 3) / 2;
}

Duration RedlockPyLock::validity_after(Duration elapsed) const {
  const Duration ms_elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed);
  return history_.drift_added ? config_.ttl - (ms_elapsed - drift()) : config_.ttl - ms_elapsed - drift();
}

LockFactory redlock_py_factory(RedlockPyHistory history) {
  return [history](Runtime& rt, const LockConfig& c) {
    return std::make_unique<RedlockPyLock>(rt, c, every_node(rt), history);
  };
}

LockInfo lock_info_redlock_py() {
  LockInfo info{"redlock-py",
                "redlock-py 1.0 under Python 3: time.time() validity, 3 tries 200 ms apart, quorum len/2+1 as a float",
                "SPSCommerce/redlock-py redlock/__init__.py (f5254b1..c731c03)",
                3,
                false,
                false,
                true,
                redlock_py_factory({.true_division_quorum = true, .drift_added = false})};
  info.reproduces = Reproduction{"redlock-py", "1.0.x under Python 3 (f5254b1..c731c03)",
                                 "wall-clock validity, len/2+1 quorum", "redlock", std::string(violation_kind_name(ViolationKind::MutualExclusion))};
  info.long_jobs = true;
  info.options = redlock_options();
  info.wall_clock_validity = true;
  return info;
}

}  // namespace locksim::locks
