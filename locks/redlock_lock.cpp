// redlock: RedlockLock (locks/redlock.hpp) over every node of the runtime.
// The algorithm, its source, claims and assumptions are in redlock.hpp.
#include <algorithm>
#include <memory>
#include <numeric>

#include "locks/redlock.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {

RedlockLock::RedlockLock(Runtime& rt, LockConfig config, std::vector<std::size_t> nodes)
    : LockBase(rt, std::move(config)), nodes_(std::move(nodes)) {}

Duration RedlockLock::node_timeout() const {
  if (config_.node_timeout > Duration::zero()) return config_.node_timeout;
  return std::clamp<Duration>(config_.ttl / 200, 5ms, 50ms);
}

Duration RedlockLock::drift() const {
  return std::chrono::milliseconds(to_ms(config_.ttl) / 100 + 2);
}

LocalInstant RedlockLock::clock_now() {
  return config_.clock == RedlockClock::Wall ? rt_.wall_now() : rt_.monotonic_now();
}

Duration RedlockLock::retry_delay() {
  const std::int64_t jitter_ms = to_ms(config_.retry_jitter);
  if (jitter_ms <= 0) return config_.retry;
  const auto extra =
      static_cast<std::int64_t>(rt_.random_below(static_cast<std::uint64_t>(jitter_ms)));
  return config_.retry + std::chrono::milliseconds(extra);
}

Task<bool> RedlockLock::after_grant(Lease&) { co_return true; }

Task<std::optional<Lease>> RedlockLock::attempt() {
  const std::string& token = fresh_token();
  const LocalInstant t1 = clock_now();
  std::size_t granted = 0;
  for (std::size_t node : nodes_) {
    Reply r = co_await cmd_within(node_timeout(), node, "SET", config_.key, token, "NX", "PX",
                                  ms_arg(config_.ttl));
    if (r.is_ok()) ++granted;
  }
  // The lease is built only for a quorum: a refused retry allocates nothing.
  std::optional<Lease> lease;
  if (granted >= quorum()) lease = Lease{config_.key, token, std::nullopt, std::nullopt, 0};
  bool ok = lease && co_await after_grant(*lease);
  const Duration validity = validity_after(clock_now() - t1);
  if (ok && config_.check_validity_after_acquire && validity <= Duration::zero()) ok = false;
  if (!ok) {
    (void)co_await unlock_all(config_.key, token);
    co_return std::nullopt;
  }
  lease->valid_until = rt_.monotonic_now() + validity;
  co_return lease;
}

Task<std::size_t> RedlockLock::unlock_all(const std::string& key, const std::string& token) {
  std::size_t removed = 0;
  for (std::size_t node : nodes_) {
    Reply r =
        co_await cmd_within(node_timeout(), node, "EVAL", kCompareAndDeleteScript, "1", key, token);
    if (r.is_integer(1)) ++removed;
  }
  co_return removed;
}

Task<bool> RedlockLock::release(Lease& lease) {
  co_return co_await unlock_all(lease.key, lease.token) > 0;
}

Task<bool> RedlockLock::extend(Lease& lease) {
  const LocalInstant t1 = clock_now();
  std::size_t extended = 0;
  for (std::size_t node : nodes_) {
    Reply r = co_await cmd_within(node_timeout(), node, "EVAL", kCompareAndPexpireScript, "1",
                                  lease.key, lease.token, ms_arg(config_.ttl));
    if (r.is_integer(1)) ++extended;
  }
  const Duration validity = validity_after(clock_now() - t1);
  if (extended < quorum() || validity <= Duration::zero()) co_return false;
  lease.valid_until = rt_.monotonic_now() + validity;
  co_return true;
}

std::vector<std::size_t> every_node(const Runtime& rt) {
  std::vector<std::size_t> nodes(rt.node_count());
  std::iota(nodes.begin(), nodes.end(), std::size_t{0});
  return nodes;
}

LockInfo every_node_lock_info(std::string name, std::string description, std::string source,
                              std::size_t min_nodes, bool tracks_validity, EveryNodeMaker make) {
  LockInfo info{std::move(name), std::move(description), std::move(source), min_nodes, false, false, tracks_validity,
                [make = std::move(make)](Runtime& rt, const LockConfig& c) { return make(rt, c, every_node(rt)); }};
  info.options = redlock_options();
  return info;
}

LockInfo lock_info_redlock() {
  return every_node_lock_info(
      "redlock",
      "Redlock over N independent masters: SET NX PX on each, quorum N/2+1, validity ttl-elapsed-drift",
      "redis.io distlock (Redlock), drift as redlock-rb", 3, true,
      [](Runtime& rt, const LockConfig& c, std::vector<std::size_t> nodes) {
        return std::make_unique<RedlockLock>(rt, c, std::move(nodes));
      });
}

}  // namespace locksim::locks
