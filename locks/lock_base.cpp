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

std::string ms_arg(Duration d) { return std::to_string(to_ms(d)); }

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

const std::string& LockBase::fresh_token(const char* prefix) {
  attempt_token_.assign(prefix);
  rt_.append_random_token(attempt_token_);
  return attempt_token_;
}

Task<std::optional<Lease>> LockBase::set_nx_px(const std::string& token) {
  Reply r = co_await cmd(0, "SET", config_.key, token, "NX", "PX", ms_arg(config_.ttl));
  if (!r.is_ok()) co_return std::nullopt;
  co_return Lease{config_.key, token, std::nullopt, std::nullopt, 0};
}

Task<bool> LockBase::extend_if_owner(Lease& lease) {
  const LocalInstant t1 = rt_.monotonic_now();
  Reply r = co_await cmd(0, "EVAL", kCompareAndPexpireScript, "1", lease.key, lease.token, ms_arg(config_.ttl));
  if (!r.is_integer(1)) co_return false;
  renew_validity(lease, t1);
  co_return true;
}

}  // namespace locksim::locks
