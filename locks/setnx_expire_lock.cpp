// setnx-expire: `SETNX k token`, then `EXPIRE k ttl_s` as a second command;
// release with a bare `DEL k`.
//
// Source: the pre-2.6.12 idiom (SET had no NX/PX options), still copied
// today; a pitfall in docs/redis-model.md. Claims: one holder, TTL-bounded.
// Assumes the client never dies (or stalls past a failover) between the two
// commands: a crash there leaves a lock with no TTL that blocks everyone
// forever (`lock-unavailable`). EXPIRE takes whole seconds: the TTL is
// rounded up, and never below 1 s (EXPIRE 0 would delete the key at once).
#include <memory>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {
namespace {

class SetnxExpireLock final : public LockBase {
 public:
  using LockBase::LockBase;

  Task<bool> release(Lease& lease) override {
    Reply r = co_await cmd(0, "DEL", lease.key);
    co_return r.type == Reply::Type::Integer&& r.integer > 0;
  }

  Task<bool> extend(Lease& lease) override {
    const LocalInstant t1 = rt_.monotonic_now();
    Reply r = co_await cmd(0, "EXPIRE", lease.key, ttl_seconds());
    if (!r.is_integer(1)) co_return false;
    renew_validity(lease, t1);
    co_return true;
  }

 protected:
  Task<std::optional<Lease>> attempt() override {
    const std::string& token = fresh_token();
    Reply r = co_await cmd(0, "SETNX", config_.key, token);
    if (!r.is_integer(1)) co_return std::nullopt;
    // The lock is ours from here on, whatever EXPIRE answers.
    (void)co_await cmd(0, "EXPIRE", config_.key, ttl_seconds());
    co_return Lease{config_.key, token, std::nullopt, std::nullopt, 0};
  }

 private:
  std::string ttl_seconds() const {
    const std::int64_t ms = to_ms(config_.ttl);
    const std::int64_t s = (ms + 999) / 1000;
    return std::to_string(s < 1 ? 1 : s);
  }
};

}  // namespace

LockInfo lock_info_setnx_expire() {
  LockInfo info{"setnx-expire",
                "SETNX then EXPIRE as two commands; release DEL (a crash between them leaves no TTL)",
                "pre-Redis-2.6.12 idiom, pitfall listed by the lock articles",
                1,
                false,
                false,
                false,
                [](Runtime& rt, const LockConfig& c) { return std::make_unique<SetnxExpireLock>(rt, c); }};
  info.whole_second_ttl = "EXPIRE";  // ttl_seconds above
  return info;
}

}  // namespace locksim::locks
