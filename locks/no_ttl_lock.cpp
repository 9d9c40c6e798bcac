// no-ttl: `SETNX k token` and nothing else; release with a bare `DEL k`.
//
// Source: the simplest lock of the articles' pitfall lists (docs/redis-model.md,
// "No TTL"). Claims: one holder at a time. Assumes every holder lives to
// release: a crashed or hung holder blocks everyone forever
// (`lock-unavailable`). extend has no TTL to renew: it sends nothing and
// answers true (the entry stays until someone DELs it).
#include <memory>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {
namespace {

class NoTtlLock final : public LockBase {
 public:
  using LockBase::LockBase;

  Task<bool> release(Lease& lease) override {
    Reply r = co_await cmd(0, "DEL", lease.key);
    co_return r.type == Reply::Type::Integer&& r.integer > 0;
  }

  Task<bool> extend(Lease& lease) override {
    renew_validity(lease, rt_.monotonic_now());
    co_return true;
  }

 protected:
  Task<std::optional<Lease>> attempt() override {
    const std::string& token = fresh_token();
    Reply r = co_await cmd(0, "SETNX", config_.key, token);
    if (!r.is_integer(1)) co_return std::nullopt;
    co_return Lease{config_.key, token, std::nullopt, std::nullopt, 0};
  }
};

}  // namespace

LockInfo lock_info_no_ttl() {
  LockInfo info{"no-ttl",
                "SETNX with no expiry; release DEL (a crashed holder blocks everyone forever)",
                "pitfall listed by the lock articles",
                1,
                false,
                false,
                false,
                [](Runtime& rt, const LockConfig& c) { return std::make_unique<NoTtlLock>(rt, c); }};
  info.implements_extend = false;  // no TTL to renew: extend() sends nothing
  return info;
}

}  // namespace locksim::locks
