// naive-del: `SET k token NX PX ttl`, release with a bare `DEL k`.
//
// Source: the first lock every "Redis distributed lock" article shows
// (docs/redis-model.md, "Naive"). Claims: one holder at a time while holders
// finish within the TTL. Assumes no holder ever outlives its TTL (no GC
// pause, no slow network): a holder whose lease expired DELs whatever entry
// is there, including the next holder's (canonical timeline a). extend is a
// bare PEXPIRE with the same flaw.
#include <memory>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {
namespace {

class NaiveDelLock final : public LockBase {
 public:
  using LockBase::LockBase;

  Task<bool> release(Lease& lease) override {
    Reply r = co_await cmd(0, "DEL", lease.key);
    co_return r.type == Reply::Type::Integer&& r.integer > 0;
  }

  Task<bool> extend(Lease& lease) override {
    const LocalInstant t1 = rt_.monotonic_now();
    Reply r = co_await cmd(0, "PEXPIRE", lease.key, ms_arg(config_.ttl));
    if (!r.is_integer(1)) co_return false;
    renew_validity(lease, t1);
    co_return true;
  }

 protected:
  Task<std::optional<Lease>> attempt() override { return set_nx_px(fresh_token()); }
};

}  // namespace

LockInfo lock_info_naive_del() {
  return {"naive-del",
          "SET NX PX; release with a bare DEL (deletes whoever holds it)",
          "the naive lock of most Redis lock articles",
          1,
          false,
          false,
          false,
          [](Runtime& rt, const LockConfig& c) { return std::make_unique<NaiveDelLock>(rt, c); }};
}

}  // namespace locksim::locks
