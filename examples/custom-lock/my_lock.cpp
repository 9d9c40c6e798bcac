// my-lock: the lock under test, as a user would write it.
//
// SET key token NX PX ttl, released with a compare-and-delete script and
// extended with compare-and-pexpire (the redis.io single-instance lock). It
// is written against locksim's RedisConn/Runtime interfaces only (LockBase
// gives the retry loop and round-trip counting), so the same class runs in
// the simulator here and against a real redis-server through locksim's
// hiredis runtime. LOCKSIM_REGISTER_LOCK adds it to locksim's registry under
// the name "my-lock" when the program starts, so every scenario can run it:
// in the test binary, and in `my-locksim`, the locksim CLI this project builds
// with locksim_add_cli() (`my-locksim run gc-pause --lock my-lock --seed 3`).
#include <memory>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"

namespace {

using namespace locksim::locks;

class MyLock final : public LockBase {
 public:
  using LockBase::LockBase;

  Task<bool> release(Lease& lease) override {
    Reply r = co_await cmd(0, "EVAL", kCompareAndDeleteScript, "1", lease.key, lease.token);
    co_return r.is_integer(1);
  }

  Task<bool> extend(Lease& lease) override {
    const LocalInstant t1 = rt_.monotonic_now();
    Reply r = co_await cmd(0, "EVAL", kCompareAndPexpireScript, "1", lease.key, lease.token, ms_arg(config_.ttl));
    if (!r.is_integer(1)) co_return false;
    renew_validity(lease, t1);
    co_return true;
  }

 protected:
  Task<std::optional<Lease>> attempt() override {
    std::string token = rt_.random_token();
    Reply r = co_await cmd(0, "SET", config_.key, token, "NX", "PX", ms_arg(config_.ttl));
    if (!r.is_ok()) co_return std::nullopt;
    co_return Lease{config_.key, std::move(token), std::nullopt, std::nullopt, 0};
  }
};

}  // namespace

LockInfo my_lock_info() {
  LockInfo info;
  info.name = "my-lock";
  info.description = "SET NX PX with a random token; compare-and-delete release (our service's lock)";
  info.source = "redis.io distlock, single-instance lock";
  info.min_nodes = 1;
  info.factory = [](Runtime& rt, const LockConfig& config) { return std::make_unique<MyLock>(rt, config); };
  return info;
}

// Registered when the program starts: in the test binary and in my-locksim.
LOCKSIM_REGISTER_LOCK(my_lock_info);
