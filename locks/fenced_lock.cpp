// fenced: one Lua script takes the lock (`SET k token NX PX ttl`) and INCRs
// a counter key in the same step, returning the fencing token; release with
// compare-and-delete.
//
// Source: Kleppmann, "How to do distributed locking" (2016): every grant
// carries a strictly increasing token and the storage rejects writes with a
// token lower than the highest it has seen (docs/redis-model.md, "Fenced";
// canonical timeline g). Claims: no stale write reaches fencing storage even
// when two clients believe they hold the lock. Assumes the counter never goes
// backwards — it lives on the same Redis node, so an AOF power loss or a
// failover that loses the INCR can hand out a token twice.
#include <memory>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {
namespace {

// KEYS[1] lock, KEYS[2] counter; ARGV[1] token, ARGV[2] ttl ms.
// Returns the new counter value, or nil if the lock is held.
const char* const kFencedAcquireScript =
    "if redis.call('set',KEYS[1],ARGV[1],'NX','PX',ARGV[2]) then "
    "return redis.call('incr',KEYS[2]) else return nil end";

class FencedLock final : public LockBase {
 public:
  using LockBase::LockBase;

  Task<bool> release(Lease& lease) override {
    Reply r = co_await cmd(0, "EVAL", kCompareAndDeleteScript, "1", lease.key, lease.token);
    co_return r.is_integer(1);
  }

  Task<bool> extend(Lease& lease) override { return extend_if_owner(lease); }

 protected:
  Task<std::optional<Lease>> attempt() override {
    const std::string& token = fresh_token();
    Reply r = co_await cmd(0, "EVAL", kFencedAcquireScript, "2", config_.key, fence_key_,
                           token, ms_arg(config_.ttl));
    if (r.type != Reply::Type::Integer) co_return std::nullopt;
    co_return Lease{config_.key, token, r.integer, std::nullopt, 0};
  }

 private:
  const std::string fence_key_ = config_.fence_key();  // built once, not per attempt
};

}  // namespace

LockInfo lock_info_fenced() {
  LockInfo info{"fenced",
                "SET NX PX and INCR of a counter in one script: a fencing token per grant",
                "Kleppmann 2016, fencing tokens",
                1,
                false,
                true,
                false,
                [](Runtime& rt, const LockConfig& c) { return std::make_unique<FencedLock>(rt, c); }};
  info.options = {"counter_key"};
  return info;
}

}  // namespace locksim::locks
