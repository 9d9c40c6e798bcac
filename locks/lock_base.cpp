// LockBase implementation: the retry loop and the shared scripts.
#include "locks/lock_base.hpp"

#include <utility>

namespace locksim::locks {

const char* const kCompareAndDeleteScript =
    "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 "
    "end";
const char* const kCompareAndPexpireScript =
    "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('pexpire',KEYS[1],ARGV[2]) "
    "else return 0 end";

std::string ms_arg(Duration d) { return std::to_string(sim::to_ms(d)); }

Task<std::optional<Lease>> LockBase::try_acquire() {
  const LocalInstant start = rt_.monotonic_now();
  for (;;) {
    const LocalInstant t1 = rt_.monotonic_now();
    std::optional<Lease> lease = co_await attempt();
    if (lease) {
      if (config_.track_validity && !lease->valid_until) lease->valid_until = t1 + config_.ttl;
      co_return lease;
    }
    if (rt_.monotonic_now() - start >= config_.acquire_timeout) co_return std::nullopt;
    co_await rt_.sleep(retry_delay());
  }
}

bool LockBase::still_valid(const Lease& lease) {
  return !lease.valid_until || rt_.monotonic_now() < *lease.valid_until;
}

Task<Reply> LockBase::send(std::size_t node, Argv argv) {
  ++round_trips_;
  return rt_.conn(node).command(std::move(argv));
}

Task<Reply> LockBase::send(std::size_t node, Argv argv, Duration timeout) {
  ++round_trips_;
  return rt_.conn(node).command(std::move(argv), timeout);
}

void LockBase::renew_validity(Lease& lease, LocalInstant t1) const {
  if (config_.track_validity) lease.valid_until = t1 + config_.ttl;
}

}  // namespace locksim::locks
