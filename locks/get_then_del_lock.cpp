// get-then-del: `SET k token NX PX ttl`; release = `GET k`, compare in the
// client, then `DEL k` — two commands, not atomic.
//
// Source: a pitfall the articles warn about (docs/redis-model.md,
// "Get-then-del"). Claims (wrongly) the token unlock's protection. Assumes
// nothing happens between the GET and the DEL: if the lease expires there
// (a GC pause, a delayed DEL) and another client takes the lock, the DEL
// removes that client's entry. extend has the same shape (GET, then PEXPIRE).
#include <memory>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {
namespace {

class GetThenDelLock final : public LockBase {
 public:
  using LockBase::LockBase;

  Task<bool> release(Lease& lease) override {
    if (!co_await still_ours(lease)) co_return false;
    Reply r = co_await cmd(0, "DEL", lease.key);
    co_return r.type == Reply::Type::Integer&& r.integer > 0;
  }

  Task<bool> extend(Lease& lease) override {
    const LocalInstant t1 = rt_.monotonic_now();
    if (!co_await still_ours(lease)) co_return false;
    Reply r = co_await cmd(0, "PEXPIRE", lease.key, ms_arg(config_.ttl));
    if (!r.is_integer(1)) co_return false;
    renew_validity(lease, t1);
    co_return true;
  }

 protected:
  Task<std::optional<Lease>> attempt() override { return set_nx_px(fresh_token()); }

 private:
  Task<bool> still_ours(const Lease& lease) {
    Reply r = co_await cmd(0, "GET", lease.key);
    co_return r.type == Reply::Type::Bulk&& r.str == lease.token;
  }
};

}  // namespace

LockInfo lock_info_get_then_del() {
  return {"get-then-del",
          "SET NX PX; release = GET, compare in the client, then DEL (not atomic)",
          "pitfall listed by the lock articles",
          1,
          false,
          false,
          false,
          [](Runtime& rt, const LockConfig& c) { return std::make_unique<GetThenDelLock>(rt, c); }};
}

}  // namespace locksim::locks
