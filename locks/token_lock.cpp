// token: `SET k token NX PX ttl`, release with the compare-and-delete script.
//
// Source: redis.io distlock page, "Correct Implementation with a Single
// Instance" (docs/redis-model.md, "Token unlock"): the unlock script deletes
// the key only if it still holds this client's random token. Claims: a client
// never removes another client's lock. Assumes holders finish within the TTL
// for mutual exclusion: a paused holder still believes it holds the lock and
// writes after its lease expired (canonical timeline b), and a failover or
// an AOF power loss can hand the key out twice. extend = compare-and-pexpire.
#include <memory>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {
namespace {

class TokenLock final : public LockBase {
 public:
  using LockBase::LockBase;

  Task<bool> release(Lease& lease) override {
    Reply r = co_await cmd(0, "EVAL", kCompareAndDeleteScript, "1", lease.key, lease.token);
    co_return r.is_integer(1);
  }

  Task<bool> extend(Lease& lease) override { return extend_if_owner(lease); }

 protected:
  Task<std::optional<Lease>> attempt() override { return set_nx_px(fresh_token()); }
};

}  // namespace

LockInfo lock_info_token() {
  return {"token",
          "SET NX PX with a random token; release with the compare-and-delete script",
          "redis.io distlock, single-instance lock",
          1,
          false,
          false,
          false,
          [](Runtime& rt, const LockConfig& c) { return std::make_unique<TokenLock>(rt, c); }};
}

}  // namespace locksim::locks
