// EtcdMutexLock: clientv3's concurrency.Mutex over a concurrency.Session,
// shared by `etcd-mutex` and `etcd-fenced` (the same, with the key's
// create_revision as the fencing token).
//
// Source: etcd v3.4 clientv3/concurrency (session.go, mutex.go, key.go) and
// clientv3/lease.go:
//  - the session: LeaseGrant(TTL) and a keep-alive loop that renews the
//    lease TTL/3 after each answer (lease.go sendKeepAliveLoop,
//    nextKeepAlive = now + TTL/3), retries after 500 ms on an error, and
//    ends the session when an answer says TTL <= 0 or no answer came for a
//    whole TTL (deadlineLoop). It runs as a background task of the client,
//    so a pause of the client pauses it;
//  - Lock: myKey = prefix + "/" + hex(leaseID); one Txn
//    If(CreateRevision(myKey) = 0) Then(Put(myKey, "", lease), Get(prefix,
//    FirstCreate)) Else(Get(myKey), Get(prefix, FirstCreate)); myRev = the
//    create revision of myKey; if no key under the prefix is older, the lock
//    is held; else waitDeletes: repeatedly take the newest key created
//    before myRev (Get LastCreate, MaxCreateRev = myRev - 1) and watch it
//    for its deletion from the Get's revision; if waiting fails, Unlock.
//    (The prefix Gets fetch the prefix and pick first/last here instead of
//    asking the server to sort: the same answer.);
//  - Unlock: Delete(myKey).
// After waitDeletes, Lock reads myKey back (Get) and answers
// ErrSessionExpired if it is gone: the session's lease expired during the
// wait and its key went with it (client/v3/concurrency/mutex.go Lock, "make
// sure the session is not expired, and the owner key still exists", added
// after etcd-io/etcd#11456). 3.4.3's Lock returned after waitDeletes without
// that check and granted the lock with an expired lease (Jepsen's finding,
// #11456): `etcd-mutex-11456` (MutexCheck::None) behaves so. Either way a
// holder never stops believing when its lease is lost: only
// `track_validity` adds a local deadline of the last keep-alive answer + TTL
// (lease.go's deadline).
// Claims: mutual exclusion while no holder pauses or is cut off longer than
// its TTL; with fencing (create_revision, strictly increasing across
// holders) no stale write reaches a fencing storage. Assumes a majority of
// members up and connected. The lock TTL is the session TTL in whole
// seconds (rounded up), as etcd requires.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "locks/lock.hpp"

namespace locksim::locks {

// Whether Lock reads its own key back after waiting (the #11456 fix).
enum class MutexCheck : std::uint8_t {
  KeyAfterWait,  // clientv3 after #11456: Get(myKey), ErrSessionExpired if gone
  None,          // clientv3 3.4.3: granted once waitDeletes returns
};

class EtcdMutexLock final : public Lock {
 public:
  EtcdMutexLock(Runtime& rt, LockConfig config, bool fenced, MutexCheck check = MutexCheck::KeyAfterWait);
  ~EtcdMutexLock() override;

  Task<std::optional<Lease>> try_acquire() override;
  Task<bool> release(Lease& lease) override;
  Task<bool> extend(Lease& lease) override;
  bool still_valid(const Lease& lease) override;
  std::uint64_t round_trips() const override { return round_trips_; }

 private:
  enum class Outcome : std::uint8_t { Granted, Failed, TimedOut };
  Task<bool> new_session(EtcdConn& etcd);
  Task<void> keep_alive_loop(EtcdConn& etcd, std::int64_t lease, std::uint64_t generation);
  Task<Outcome> lock_once(EtcdConn& etcd, LocalInstant deadline, std::string& my_key, std::int64_t& my_rev);
  Task<Outcome> check_key_after_wait(EtcdConn& etcd, const std::string& my_key);
  Task<bool> wait_deletes(EtcdConn& etcd, const std::string& prefix, std::int64_t max_create_rev,
                          LocalInstant deadline);
  std::int64_t ttl_seconds() const;
  std::string prefix() const { return config_.key + "/"; }

  Runtime& rt_;
  LockConfig config_;
  bool fenced_;
  MutexCheck check_;
  std::int64_t lease_ = 0;          // the session's lease, 0 = none
  bool session_done_ = true;        // Session.Done() closed
  std::uint64_t keep_alive_task_ = 0;
  std::uint64_t session_generation_ = 0;
  LocalInstant lease_deadline_{};   // last keep-alive answer + TTL
  std::atomic<std::uint64_t> round_trips_{0};
};

}  // namespace locksim::locks
