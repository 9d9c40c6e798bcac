// delex: `SET k token NX PX ttl`; release with Redis 8.4's `DELEX k IFEQ token`.
//
// Source: Redis 8.4 added DELEX and SET ... IFEQ so the compare-and-delete
// and compare-and-extend need no Lua (docs/redis-model.md, "Commands"). Same
// claims and assumptions as the token lock: no wrong-owner delete, but no
// protection against a holder that outlives its TTL. Needs a Redis 8.4 node
// (on 7.0 DELEX is an unknown command and release fails). extend =
// `SET k token IFEQ token PX ttl` (sets only if the value is still ours).
#include <memory>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {
namespace {

class DelexLock final : public LockBase {
 public:
  using LockBase::LockBase;

  Task<bool> release(Lease& lease) override {
    Reply r = co_await cmd(0, "DELEX", lease.key, "IFEQ", lease.token);
    co_return r.is_integer(1);
  }

  Task<bool> extend(Lease& lease) override {
    const LocalInstant t1 = rt_.monotonic_now();
    Reply r = co_await cmd(0, "SET", lease.key, lease.token, "IFEQ", lease.token, "PX",
                           ms_arg(config_.ttl));
    if (!r.is_ok()) co_return false;
    renew_validity(lease, t1);
    co_return true;
  }

 protected:
  Task<std::optional<Lease>> attempt() override { return set_nx_px(fresh_token()); }
};

}  // namespace

LockInfo lock_info_delex() {
  return {"delex",
          "SET NX PX; release with Redis 8.4 DELEX IFEQ (no Lua)",
          "Redis 8.4 DELEX / SET IFEQ",
          1,
          true,
          false,
          false,
          [](Runtime& rt, const LockConfig& c) { return std::make_unique<DelexLock>(rt, c); }};
}

}  // namespace locksim::locks
