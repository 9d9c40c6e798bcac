// zk-lock: Curator's InterProcessMutex recipe over a ZooKeeper session (the
// algorithm, its source, claims and assumptions: locks/zk_mutex.hpp). No
// fencing token: a holder whose session expired during a pause still
// writes, and the storage cannot tell.
#include <algorithm>
#include <memory>
#include <vector>

#include "locks/registry.hpp"
#include "locks/zk_mutex.hpp"

namespace locksim::locks {

ZkMutexLock::ZkMutexLock(Runtime& rt, LockConfig config, bool fenced)
    : rt_(rt), config_(std::move(config)), fenced_(fenced) {}

ZkMutexLock::~ZkMutexLock() {
  for (const std::uint64_t id : background_deletes_) rt_.cancel(id);
}

std::string ZkMutexLock::base_path() const {
  return config_.key.starts_with("/") ? config_.key : "/" + config_.key;
}

Task<std::optional<Lease>> ZkMutexLock::try_acquire() {
  ZkConn& zk = rt_.service<ZkConn>();
  const LocalInstant deadline = rt_.monotonic_now() + config_.acquire_timeout;
  while (rt_.monotonic_now() < deadline) {
    ++round_trips_;
    // A handle whose session expired (LOST) starts a new session here.
    if (!(co_await zk.start(config_.ttl)).ok()) co_return std::nullopt;
    // creatingParentContainersIfNeeded: the base node, then our child.
    ++round_trips_;
    (void)co_await zk.create(base_path(), "", "persistent");
    ++round_trips_;
    const ZkCreated ours = co_await zk.create(base_path() + "/lock-", "", "ephemeral_sequential");
    if (ours.ok()) {
      if (co_await wait_for_turn(zk, ours.path, deadline)) {
        Lease lease{ours.path, ours.path, std::nullopt, std::nullopt, 0};
        if (fenced_) lease.fencing_token = ours.czxid;
        lease_session_ = zk.session_id();
        co_return lease;
      }
      co_await delete_our_path(zk, ours.path);
    }
    if (rt_.monotonic_now() >= deadline) break;
    co_await rt_.sleep(config_.retry);
  }
  co_return std::nullopt;
}

Task<bool> ZkMutexLock::wait_for_turn(ZkConn& zk, const std::string& our_path, LocalInstant deadline) {
  const std::string name = our_path.substr(our_path.rfind('/') + 1);
  const Duration slice = std::max<Duration>(config_.ttl / 3, std::chrono::milliseconds(1));
  for (;;) {
    ++round_trips_;
    ZkChildren children = co_await zk.get_children(base_path());
    if (!children.ok()) {
      if (children.error != kZkConnectionLoss) co_return false;
      const bool back = co_await reconnected(zk, deadline);
      if (!back) co_return false;
      continue;
    }
    // getSortedChildren: every child is lock-<10 digits>, so names sort by sequence.
    std::sort(children.names.begin(), children.names.end());
    const auto ours = std::find(children.names.begin(), children.names.end(), name);
    if (ours == children.names.end()) co_return false;  // our node is gone (the session expired)
    if (ours == children.names.begin()) co_return true;
    const std::string previous = base_path() + "/" + *(ours - 1);
    for (;;) {
      const LocalInstant now = rt_.monotonic_now();
      if (now >= deadline) co_return false;
      ++round_trips_;
      const CpStatus w = co_await zk.wait_delete(previous, std::min(slice, deadline - now));
      if (w.ok() || w.error == kZkNoNode) break;  // the predecessor went: look again
      if (w.error == kZkWaitTimedOut && zk.state() == ZkState::Connected) continue;
      if (w.error != kZkWaitTimedOut && w.error != kZkConnectionLoss) co_return false;
      const bool back = co_await reconnected(zk, deadline);
      if (!back) co_return false;
      break;  // connected again: look again (the re-registered watch would have fired)
    }
  }
}

Task<bool> ZkMutexLock::reconnected(ZkConn& zk, LocalInstant deadline) {
  while (zk.state() == ZkState::Disconnected && rt_.monotonic_now() < deadline) co_await rt_.sleep(config_.retry);
  co_return zk.state() == ZkState::Connected;
}

Task<void> ZkMutexLock::delete_our_path(ZkConn& zk, std::string path) {
  ++round_trips_;
  const CpStatus removed = co_await zk.remove(path, -1);
  if (removed.error == kZkConnectionLoss && zk.state() != ZkState::Expired)
    background_deletes_.push_back(rt_.spawn(guaranteed_delete(zk, std::move(path), zk.session_id())));
}

Task<void> ZkMutexLock::guaranteed_delete(ZkConn& zk, std::string path, std::int64_t session) {
  for (;;) {
    co_await rt_.sleep(config_.retry);
    // The node went with its session (LOST, perhaps a new session since).
    if (zk.state() == ZkState::Expired || zk.session_id() != session) co_return;
    if (zk.state() != ZkState::Connected) continue;
    ++round_trips_;
    const CpStatus removed = co_await zk.remove(path, -1);
    if (removed.error != kZkConnectionLoss) co_return;
  }
}

Task<bool> ZkMutexLock::release(Lease& lease) {
  ZkConn& zk = rt_.service<ZkConn>();
  ++round_trips_;
  co_return (co_await zk.remove(lease.key, -1)).ok();
}

// Connected under the session that created our node: Curator's advice,
// SUSPENDED is not known to hold and LOST certainly does not; a new session
// after LOST (RECONNECTED) does not bring the lock back.
bool ZkMutexLock::connected_with_lease() {
  ZkConn& zk = rt_.service<ZkConn>();
  return zk.state() == ZkState::Connected && zk.session_id() == lease_session_;
}

// No lease to renew: the client library's pings keep the session alive.
Task<bool> ZkMutexLock::extend(Lease& lease) {
  (void)lease;
  co_return connected_with_lease();
}

bool ZkMutexLock::still_valid(const Lease& lease) {
  (void)lease;
  return !config_.track_validity || connected_with_lease();
}

LockInfo lock_info_zk_lock() {
  LockInfo info{"zk-lock",
                "ZooKeeper lock recipe (Curator InterProcessMutex): ephemeral sequential child, watch the predecessor",
                "Apache Curator InterProcessMutex / LockInternals; ZooKeeper recipes \"Locks\"",
                1,
                false,
                false,
                false,
                [](Runtime& rt, const LockConfig& c) { return std::make_unique<ZkMutexLock>(rt, c, false); }};
  info.topology = Topology::ZooKeeper;
  info.implements_extend = false;  // Curator has no extend: pings keep the session (ZkMutexLock::extend)
  return info;
}

}  // namespace locksim::locks
