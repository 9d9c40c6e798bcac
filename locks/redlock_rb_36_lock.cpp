// redlock-rb-36: redlock-rb's extension, which re-creates an expired lock.
//
// Repository: github.com/leandromoreira/redlock-rb, lib/redlock/client.rb,
// Client#lock with `extend: lock_info` (lock_instances and
// RedisInstance::LOCK_SCRIPT), from 0.1.x (commit ab35f44, "extend") on.
// Report: redlock-rb#36 "Lock extension via lock method allows extending
// expired locks" (2016): a holder whose key expired and was taken and
// released by another client in between extends it "as if we always had
// the lock". What the code does: the extension runs one script per node
// that sets the key to the holder's value with the new TTL if the key holds
// that value *or does not exist*; a quorum of sets and a non-negative
// validity (ttl − elapsed − drift) count as success, else every node is
// unlocked. What the fix changed (#41, PR #42): the `extend_only_if_life`
// option (later also `extend_life`) passes "no" for the missing-key case,
// so only a key still holding the value is extended — `redlock`'s
// compare-and-pexpire here, the fixed lock. The shipped default still
// re-creates. No redlock-rb code is copied; the script below is written
// from that description.
// Modelled on RedlockLock (locks/redlock.hpp), acquire and release as
// there; only extend differs. Assumes the caller extends at the moments a
// redlock-rb user would, before each write (`[[client]] extends = true`),
// and does not look at its validity before extending.
#include <memory>

#include "locks/redlock.hpp"
#include "locks/registry.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::locks {
namespace {

// Set the key to our value with the new TTL if it holds our value, or (when
// ARGV[3] is "yes", redlock-rb's default) if it is gone.
constexpr const char* kExtendOrRecreateScript =
    "local held = redis.call('GET', KEYS[1]) "
    "if held == ARGV[1] or (not held and ARGV[3] == 'yes') then "
    "return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end "
    "return false";

class RedlockRb36Lock final : public RedlockLock {
 public:
  using RedlockLock::RedlockLock;

  Task<bool> extend(Lease& lease) override {
    const LocalInstant t1 = clock_now();
    std::size_t set = 0;
    for (std::size_t node : nodes_) {
      Reply r = co_await cmd_within(node_timeout(), node, "EVAL", kExtendOrRecreateScript, "1", lease.key, lease.token,
                                    ms_arg(config_.ttl), "yes");
      if (r.is_ok()) ++set;
    }
    const Duration validity = validity_after(clock_now() - t1);
    if (set < quorum() || validity < Duration::zero()) {  // lock_instances: `validity >= 0`
      (void)co_await unlock_all(lease.key, lease.token);
      co_return false;
    }
    lease.valid_until = rt_.monotonic_now() + validity;
    co_return true;
  }
};

}  // namespace

LockInfo lock_info_redlock_rb_36() {
  LockInfo info = every_node_lock_info(
      "redlock-rb-36",
      "redlock-rb extend (lock with extend: lock_info): re-creates the key if it expired, as if held all along",
      "redlock-rb lib/redlock/client.rb lock_instances, LOCK_SCRIPT (#36; fix: extend_only_if_life, #41/PR #42)", 3,
      true, [](Runtime& rt, const LockConfig& c, std::vector<std::size_t> nodes) {
        return std::make_unique<RedlockRb36Lock>(rt, c, std::move(nodes));
      });
  info.reproduces = Reproduction{"redlock-rb", "0.1.x-2.x (extend without extend_only_if_life)", "#36", "redlock",
                                 std::string(violation_kind_name(ViolationKind::StaleWrite))};
  info.extends_before_writes = true;
  return info;
}

}  // namespace locksim::locks
