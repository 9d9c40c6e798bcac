// thread-id: `SET k <thread id> NX PX ttl`, release with compare-and-delete
// on that thread id.
//
// Source: a pitfall of the articles (docs/redis-model.md, "Thread-id token"):
// the lock value is a thread id ("thread-1"), which is equal on every
// application instance. The compare-and-delete looks safe, but an instance
// whose lease expired deletes another instance's lock because both carry the
// same "token" (`wrong-owner-release`). Assumes (wrongly) that thread ids are
// unique across processes. extend = compare-and-pexpire on the thread id.
#include <memory>

#include "locks/lock_base.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {
namespace {

class ThreadIdLock final : public LockBase {
 public:
  using LockBase::LockBase;

  Task<bool> release(Lease& lease) override {
    Reply r = co_await cmd(0, "EVAL", kCompareAndDeleteScript, "1", lease.key, lease.token);
    co_return r.is_integer(1);
  }

  Task<bool> extend(Lease& lease) override { return extend_if_owner(lease); }

 protected:
  Task<std::optional<Lease>> attempt() override { return set_nx_px(config_.thread_id); }
};

}  // namespace

LockInfo lock_info_thread_id() {
  LockInfo info{"thread-id",
                "compare-and-delete on a thread id that is equal across instances",
                "pitfall listed by the lock articles",
                1,
                false,
                false,
                false,
                [](Runtime& rt, const LockConfig& c) { return std::make_unique<ThreadIdLock>(rt, c); }};
  info.options = {"thread_id"};
  return info;
}

}  // namespace locksim::locks
