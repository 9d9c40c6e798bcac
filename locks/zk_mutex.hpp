// ZkMutexLock: the ZooKeeper lock recipe as Apache Curator's
// InterProcessMutex implements it, shared by `zk-lock` and `zk-fenced` (the
// same, with the lock node's czxid as the fencing token).
//
// Source: Curator recipes/locks (InterProcessMutex, LockInternals.attemptLock
// and internalLockLoop, StandardLockInternalsDriver) and the ZooKeeper
// recipe "Locks" (zookeeperTutorial / recipes.html):
//  - the client's session (ZkConn.start) uses the lock TTL as its session
//    timeout; the client library keeps it alive with pings;
//  - create base/lock- as EPHEMERAL_SEQUENTIAL (creating base if needed);
//  - loop: getChildren(base) sorted by sequence; if ours is first, the lock
//    is held; else set a watch on the node just before ours (getData with a
//    watcher) and wait for it to go (NoNode: look again at once). A watcher
//    also wakes on a connection event, so the wait here is cut into slices
//    of TTL/3;
//  - a connection loss is ridden out: Curator runs each operation in a
//    RetryLoop that first blocks until the handle is connected again
//    (CuratorZookeeperClient.internalBlockUntilConnectedOrTimedOut), and
//    the ZooKeeper client re-registers its watches on reconnect
//    (ClientCnxn SetWatches), so the attempt waits for the reconnect and
//    looks again. Simplification: the retry policy is assumed to outlast
//    the outage; the attempt's own deadline (acquire_timeout) bounds it. An
//    expired session fails the attempt;
//  - on a timeout or an error, delete our node (deleteOurPath). Curator
//    deletes it guaranteed(): a delete that fails on a connection loss is
//    retried in the background until it succeeds or the session ends
//    (otherwise the node, still owned by a live session, would block every
//    later attempt, ours included);
//  - release: delete our node, any version.
// The connection states a recipe sees (Curator's ConnectionState, kazoo's
// KazooState; ZkConn's Disconnected is SUSPENDED, Expired is LOST) and what
// this lock does on each:
//  - SUSPENDED while waiting: ZooKeeper hands Disconnected to every watcher,
//    so the wait wakes (LockInternals' watcher; kazoo Lock._watch_session),
//    getChildren fails with ConnectionLoss and the attempt waits for the
//    reconnect (above) and looks again;
//  - SUSPENDED while holding: neither InterProcessMutex nor kazoo's Lock
//    acts; both tell the application to (Curator's tech note, kazoo
//    recipe/lock.py's docstring). With `track_validity` the holder stops
//    believing at SUSPENDED; without, it goes on believing;
//  - LOST while waiting: the next call fails with SessionExpired and the
//    attempt fails (LockInternals.attemptLock rethrows; kazoo's
//    _inner_acquire raises); the next attempt starts a new session
//    (Curator's ConnectionState.handleExpiredSession, kazoo's
//    KazooClient._session_callback and _reset), so a client that lost its
//    session can take the lock again;
//  - LOST while holding: our node went with the session, but InterProcessMutex
//    (isAcquiredInThisProcess) and kazoo (is_acquired) still say held:
//    without `track_validity` the holder believes on. A new session after
//    LOST never makes the lease valid again (it belongs to the old session).
// Left out: Curator's own LOST after a whole session timeout SUSPENDED
// (ConnectionStateManager.checkSessionExpiration, sessionExpirationPercent
// 100): it only makes a waiter give up sooner (kazoo and the bare ZooKeeper
// client, which this follows, learn of the expiry from the server); a
// holder's belief is the same (ended at SUSPENDED with `track_validity`,
// never without).
// Claims: mutual exclusion while no holder's session expires while it
// believes; with fencing, no stale write reaches a fencing storage (czxid
// grows with every create). Assumes a majority of the ensemble up and
// connected. The lock key becomes the base path "/<key>".
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "locks/lock.hpp"

namespace locksim::locks {

class ZkMutexLock final : public Lock {
 public:
  ZkMutexLock(Runtime& rt, LockConfig config, bool fenced);
  ~ZkMutexLock() override;

  Task<std::optional<Lease>> try_acquire() override;
  Task<bool> release(Lease& lease) override;
  Task<bool> extend(Lease& lease) override;
  bool still_valid(const Lease& lease) override;
  std::uint64_t round_trips() const override { return round_trips_; }

 private:
  // LockInternals.internalLockLoop: true once our node is first.
  Task<bool> wait_for_turn(ZkConn& zk, const std::string& our_path, LocalInstant deadline);
  // Until the handle is connected again (true), expired or past `deadline`.
  Task<bool> reconnected(ZkConn& zk, LocalInstant deadline);
  Task<void> delete_our_path(ZkConn& zk, std::string path);
  Task<void> guaranteed_delete(ZkConn& zk, std::string path, std::int64_t session);
  bool connected_with_lease();
  std::string base_path() const;

  Runtime& rt_;
  LockConfig config_;
  bool fenced_;
  std::atomic<std::uint64_t> round_trips_{0};
  std::vector<std::uint64_t> background_deletes_;  // spawned; cancelled with the lock
  std::int64_t lease_session_ = 0;                 // the session that created the held node
};

}  // namespace locksim::locks
