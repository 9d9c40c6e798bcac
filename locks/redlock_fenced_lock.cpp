// redlock-fenced: a Redlock grant on the lock nodes plus a fencing token from
// `INCR` on a separate counter node (LockConfig::counter_node, default the
// last node; every other node is a lock node).
//
// Source: Redlock (redis.io distlock) combined with Kleppmann's fencing
// tokens (2016), the fix he proposes for Redlock's timing assumptions.
// Claims: mutual exclusion while the lease is valid (Redlock), and no stale
// write at fencing storage even when it is not (the token). Assumes the
// counter node never loses an INCR (fsync=always, no failover to a lagging
// replica): a counter that goes backwards hands out a token twice. The INCR
// runs inside the timed attempt, so its time counts against the validity; a
// failed INCR fails the attempt (the lock nodes are unlocked, then retried).
#include <memory>

#include "locks/redlock.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {
namespace {

class RedlockFencedLock final : public RedlockLock {
 public:
  RedlockFencedLock(Runtime& rt, const LockConfig& config, std::size_t counter_node)
      : RedlockLock(rt, config, lock_nodes(rt.node_count(), counter_node)),
        counter_node_(counter_node) {}

 protected:
  Task<bool> after_grant(Lease& lease) override {
    Reply r = co_await cmd_within(node_timeout(), counter_node_, "INCR", config_.fence_key());
    if (r.type != Reply::Type::Integer) co_return false;
    lease.fencing_token = r.integer;
    co_return true;
  }

 private:
  static std::vector<std::size_t> lock_nodes(std::size_t count, std::size_t counter) {
    std::vector<std::size_t> nodes;
    for (std::size_t i = 0; i < count; ++i)
      if (i != counter) nodes.push_back(i);
    return nodes;
  }

  std::size_t counter_node_;
};

std::size_t counter_node_of(const Runtime& rt, const LockConfig& c) {
  const std::size_t n = rt.node_count();
  if (c.counter_node < 0 || static_cast<std::size_t>(c.counter_node) >= n)
    return n == 0 ? 0 : n - 1;
  return static_cast<std::size_t>(c.counter_node);
}

}  // namespace

LockInfo lock_info_redlock_fenced() {
  LockInfo info{"redlock-fenced",
                "Redlock on the lock nodes plus a fencing token from INCR on a separate counter node",
                "redis.io distlock + Kleppmann 2016 fencing tokens",
                4,
                false,
                true,
                true,
                [](Runtime& rt, const LockConfig& c) {
                  return std::make_unique<RedlockFencedLock>(rt, c, counter_node_of(rt, c));
                }};
  info.options = redlock_options();  // and the counter's:
  info.options.insert(info.options.end(), {"counter_node", "counter_key"});
  return info;
}

}  // namespace locksim::locks
