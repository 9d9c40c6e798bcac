// RedlockLock: the Redlock algorithm over a set of independent masters,
// shared by `redlock` (all nodes) and `redlock-fenced` (all nodes but the
// counter node, plus a fencing token from INCR on that node).
//
// Source: redis.io "Distributed Locks with Redis" (distlock), with the drift
// allowance of redlock-rb (drift = ttl·1% + 2 ms). Per attempt: read T1;
// `SET k r NX PX ttl` on every lock node in turn (sequentially, as
// redlock-rb/redlock-py do), each with a short per-node timeout so a dead or
// slow node counts as failed; read T2; granted iff at least N/2+1 nodes said
// OK and the validity ttl − (T2−T1) − drift is positive (node-redlock v5
// skips the validity check: `check_validity_after_acquire = false`). A failed
// attempt unlocks every node (compare-and-delete) and retries after
// retry + rand(retry_jitter). Release: compare-and-delete on every node.
// Extend: compare-and-pexpire on every node, needs a quorum and a positive
// new validity.
//
// Claims: mutual exclusion while the lease is valid, and liveness while a
// majority of nodes is up. Assumes bounded clock drift on every node (no
// clock jumps: canonical timeline c), bounded process pauses and network
// delays after the validity check (timeline d), and nodes that either fsync
// every write or stay down longer than the TTL after a crash (timelines e,h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {

class RedlockLock : public LockBase {
 public:
  // `nodes`: the lock nodes (indexes into rt.conn); quorum = nodes/2 + 1.
  RedlockLock(Runtime& rt, LockConfig config, std::vector<std::size_t> nodes);

  Task<bool> release(Lease& lease) override;
  Task<bool> extend(Lease& lease) override;

  // Nodes that must say OK: N/2+1 (integer division).
  virtual std::size_t quorum() const { return nodes_.size() / 2 + 1; }
  Duration node_timeout() const;
  Duration drift() const;  // ttl/100 + 2 ms, in whole milliseconds

 protected:
  Task<std::optional<Lease>> attempt() override;
  Duration retry_delay() override;
  // Runs after a quorum said OK, before T2 (so it counts against validity).
  // False = treat the attempt as failed. redlock-fenced takes its token here.
  virtual Task<bool> after_grant(Lease& lease);
  // The validity of a grant (or extend) whose SETs took `elapsed`:
  // ttl − elapsed − drift. Reproductions of shipped clients override it.
  virtual Duration validity_after(Duration elapsed) const { return config_.ttl - elapsed - drift(); }

  // Compare-and-delete on every lock node; how many removed an entry.
  Task<std::size_t> unlock_all(const std::string& key, const std::string& token);
  LocalInstant clock_now();  // the configured clock (monotonic or wall)

  std::vector<std::size_t> nodes_;
};

// Indexes of every node of the runtime: a Redlock over all of them.
std::vector<std::size_t> every_node(const Runtime& rt);

// The lock-specific [lock] options RedlockLock reads (LockInfo::options). A
// function, not a global: a user's lock registers during static
// initialization, which builds the built-ins' LockInfos, maybe before a
// global vector in another translation unit exists.
inline std::vector<std::string> redlock_options() {
  return {"node_timeout", "clock", "check_validity_after_acquire", "retry_jitter"};
}

// The LockInfo of a Redlock-family client over every node: `make(rt,
// config, nodes)` builds it; no Redis 8.4 commands, no fencing token, the
// Redlock options.
using EveryNodeMaker =
    std::function<std::unique_ptr<Lock>(Runtime&, const LockConfig&, std::vector<std::size_t>)>;
LockInfo every_node_lock_info(std::string name, std::string description, std::string source,
                              std::size_t min_nodes, bool tracks_validity, EveryNodeMaker make);

}  // namespace locksim::locks
