// RedlockPyLock: SPSCommerce/redlock-py's Redlock.lock() (redlock/__init__.py)
// on top of RedlockLock, shared by the two reproductions of its history:
// `redlock-py` (locks/redlock_py_lock.cpp) and `redlock-py-pr3`
// (locks/redlock_py_pr3_lock.cpp). What they share is the library's
// defaults: default_retry_count = 3 attempts, default_retry_delay = 0.2 s
// between them (no jitter), drift = int(ttl * clock_drift_factor 0.01) + 2
// ms, start/elapsed read from time.time() — the wall clock, so a clock step
// between the two reads moves the validity — and the per-attempt SET NX PX on
// every server in turn, unlock-all on failure. The scenario's `retry`,
// `retry_jitter` and `acquire_timeout` are not used: these are the library's
// own. Assumption: redis-py without socket_timeout would wait for a dead
// server forever; we keep RedlockLock's short per-node timeout instead.
#pragma once

#include <cstddef>
#include <vector>

#include "locks/redlock.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {

struct RedlockPyHistory {
  // `len(servers) / 2 + 1` under Python 3 is a float (2.5 for 3 servers):
  // `n >= quorum` then needs 3 of 3. False = integer division (Python 2, or
  // `//` since c731c03).
  bool true_division_quorum = false;
  // Before PR #3: validity = ttl - (elapsed - drift), i.e. the drift added.
  bool drift_added = false;
};

class RedlockPyLock : public RedlockLock {
 public:
  static constexpr int kRetryCount = 3;
  static constexpr Duration kRetryDelay = std::chrono::milliseconds(200);

  RedlockPyLock(Runtime& rt, LockConfig config, std::vector<std::size_t> nodes, RedlockPyHistory history);

  Task<std::optional<Lease>> try_acquire() override;
  std::size_t quorum() const override;

 protected:
  Duration retry_delay() override { return kRetryDelay; }
  Duration validity_after(Duration elapsed) const override;

 private:
  RedlockPyHistory history_;
};

// A factory over every node of the runtime.
LockFactory redlock_py_factory(RedlockPyHistory history);

}  // namespace locksim::locks
