// etcd-mutex: clientv3 concurrency.Mutex over a concurrency.Session (the
// algorithm, its source, claims and assumptions: locks/etcd_mutex.hpp).
// No fencing token: a holder whose lease expired during a pause still
// writes, and the storage cannot tell (Jepsen, etcd 3.4.3). Also
// etcd-mutex-11456, 3.4.3's Lock without the check after the wait.
#include <algorithm>
#include <memory>

#include "locks/etcd_mutex.hpp"
#include "locks/registry.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::locks {

namespace {

// lease.go: retry a failed keep-alive after retryConnWait = 500 ms.
constexpr Duration kKeepAliveRetry = std::chrono::milliseconds(500);

std::string hex_of(std::int64_t v) {
  static constexpr char digits[] = "0123456789abcdef";
  auto u = static_cast<std::uint64_t>(v);
  std::string out;
  do {
    out.insert(out.begin(), digits[u & 0xf]);
    u >>= 4;
  } while (u != 0);
  return out;
}

}  // namespace

EtcdMutexLock::EtcdMutexLock(Runtime& rt, LockConfig config, bool fenced, MutexCheck check)
    : rt_(rt), config_(std::move(config)), fenced_(fenced), check_(check) {}

EtcdMutexLock::~EtcdMutexLock() {
  if (keep_alive_task_ != 0) rt_.cancel(keep_alive_task_);
}

std::int64_t EtcdMutexLock::ttl_seconds() const {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(config_.ttl).count();
  return std::max<std::int64_t>(1, (ms + 999) / 1000);
}

// concurrency.NewSession: Grant(TTL), then KeepAlive in the background.
Task<bool> EtcdMutexLock::new_session(EtcdConn& etcd) {
  if (keep_alive_task_ != 0) rt_.cancel(keep_alive_task_);
  keep_alive_task_ = 0;
  ++round_trips_;
  const EtcdLease granted = co_await etcd.lease_grant(ttl_seconds());
  if (!granted.ok()) co_return false;
  lease_ = granted.id;
  session_done_ = false;
  lease_deadline_ = rt_.monotonic_now() + std::chrono::seconds(granted.ttl);
  keep_alive_task_ = rt_.spawn(keep_alive_loop(etcd, lease_, ++session_generation_));
  co_return true;
}

Task<void> EtcdMutexLock::keep_alive_loop(EtcdConn& etcd, std::int64_t lease, std::uint64_t generation) {
  Duration wait = std::chrono::seconds(ttl_seconds()) / 3;
  while (generation == session_generation_) {
    co_await rt_.sleep(wait);
    ++round_trips_;
    const EtcdLease r = co_await etcd.lease_keep_alive_once(lease);
    if (r.ok() && r.ttl <= 0) break;  // the lease is gone: the session is over
    if (r.ok()) {
      lease_deadline_ = rt_.monotonic_now() + std::chrono::seconds(r.ttl);
      wait = std::chrono::seconds(r.ttl) / 3;
    } else {
      if (rt_.monotonic_now() >= lease_deadline_) break;  // deadlineLoop: no answer for a TTL
      wait = kKeepAliveRetry;
    }
  }
  if (generation == session_generation_) session_done_ = true;
}

Task<std::optional<Lease>> EtcdMutexLock::try_acquire() {
  EtcdConn& etcd = rt_.service<EtcdConn>();
  const LocalInstant deadline = rt_.monotonic_now() + config_.acquire_timeout;
  while (rt_.monotonic_now() < deadline) {
    if (session_done_ && !co_await new_session(etcd)) {
      co_await rt_.sleep(config_.retry);
      continue;
    }
    std::string my_key;
    std::int64_t my_rev = 0;
    const Outcome outcome = co_await lock_once(etcd, deadline, my_key, my_rev);
    if (outcome == Outcome::Granted) {
      Lease lease{my_key, my_key, std::nullopt, std::nullopt, keep_alive_task_};
      if (fenced_) lease.fencing_token = my_rev;
      if (config_.track_validity) lease.valid_until = lease_deadline_;
      co_return lease;
    }
    if (outcome == Outcome::TimedOut) break;
    co_await rt_.sleep(config_.retry);
  }
  co_return std::nullopt;
}

// Mutex.Lock (mutex.go), bounded by the acquire deadline (its ctx).
Task<EtcdMutexLock::Outcome> EtcdMutexLock::lock_once(EtcdConn& etcd, LocalInstant deadline, std::string& my_key,
                                                      std::int64_t& my_rev) {
  const std::string pfx = prefix();
  my_key = pfx + hex_of(lease_);
  std::vector<EtcdCompare> cmp{{EtcdCompare::Target::Create, my_key, "=", "0"}};
  const EtcdOp get_owner{EtcdOp::Kind::Range, pfx, etcd_prefix_end(pfx), 0};
  std::vector<EtcdOp> then{{EtcdOp::Kind::Put, my_key, "", lease_}, get_owner};
  std::vector<EtcdOp> otherwise{{EtcdOp::Kind::Range, my_key, "", 0}, get_owner};
  ++round_trips_;
  const EtcdTxn resp = co_await etcd.txn(std::move(cmp), std::move(then), std::move(otherwise));
  if (!resp.ok() || resp.ranges.size() < 2) co_return Outcome::Failed;
  my_rev = resp.revision;
  if (!resp.succeeded) {
    if (resp.ranges[0].kvs.empty()) co_return Outcome::Failed;
    my_rev = resp.ranges[0].kvs[0].create_revision;
  }
  // WithFirstCreate: the oldest key under the prefix owns the lock.
  const auto& owners = resp.ranges[1].kvs;
  const auto oldest = std::min_element(owners.begin(), owners.end(), [](const EtcdKv& a, const EtcdKv& b) {
    return a.create_revision < b.create_revision;
  });
  if (oldest == owners.end() || oldest->create_revision == my_rev) co_return Outcome::Granted;
  if (co_await wait_deletes(etcd, pfx, my_rev - 1, deadline)) {
    if (check_ == MutexCheck::None) co_return Outcome::Granted;
    co_return co_await check_key_after_wait(etcd, my_key);  // an if, not ?: (see tests/test_rules.cpp)
  }
  // "release lock key if wait failed"
  ++round_trips_;
  (void)co_await etcd.delete_range(my_key, "");
  co_return rt_.monotonic_now() >= deadline ? Outcome::TimedOut : Outcome::Failed;
}

// mutex.go Lock after waitDeletes (the #11456 fix): "make sure the session
// is not expired, and the owner key still exists". A failed Get unlocks; a
// missing key is ErrSessionExpired, and the session is over (its lease is).
Task<EtcdMutexLock::Outcome> EtcdMutexLock::check_key_after_wait(EtcdConn& etcd, const std::string& my_key) {
  ++round_trips_;
  const EtcdRange r = co_await etcd.range(my_key, "");
  if (!r.ok()) {
    ++round_trips_;
    (void)co_await etcd.delete_range(my_key, "");
    co_return Outcome::Failed;
  }
  if (!r.kvs.empty()) co_return Outcome::Granted;
  session_done_ = true;  // ErrSessionExpired: the next attempt opens a new session
  co_return Outcome::Failed;
}

// key.go waitDeletes: wait for every key created before ours to go.
Task<bool> EtcdMutexLock::wait_deletes(EtcdConn& etcd, const std::string& pfx, std::int64_t max_create_rev,
                                       LocalInstant deadline) {
  for (;;) {
    ++round_trips_;
    const EtcdRange r = co_await etcd.range(pfx, etcd_prefix_end(pfx));
    if (!r.ok()) co_return false;
    // WithLastCreate + WithMaxCreateRev: the newest key older than ours.
    const EtcdKv* last = nullptr;
    for (const EtcdKv& kv : r.kvs)
      if (kv.create_revision <= max_create_rev && (!last || kv.create_revision > last->create_revision)) last = &kv;
    if (!last) co_return true;
    const LocalInstant now = rt_.monotonic_now();
    if (now >= deadline) co_return false;
    ++round_trips_;
    const EtcdDeleted d = co_await etcd.wait_delete(last->key, "", r.revision, deadline - now);
    if (!d.ok()) co_return false;
  }
}

Task<bool> EtcdMutexLock::release(Lease& lease) {
  EtcdConn& etcd = rt_.service<EtcdConn>();
  ++round_trips_;
  const EtcdWrite w = co_await etcd.delete_range(lease.key, "");
  co_return w.ok() && w.deleted > 0;
}

Task<bool> EtcdMutexLock::extend(Lease& lease) {
  if (lease_ == 0) co_return false;
  EtcdConn& etcd = rt_.service<EtcdConn>();
  ++round_trips_;
  const EtcdLease r = co_await etcd.lease_keep_alive_once(lease_);
  if (!r.ok() || r.ttl <= 0) co_return false;
  lease_deadline_ = rt_.monotonic_now() + std::chrono::seconds(r.ttl);
  if (config_.track_validity) lease.valid_until = lease_deadline_;
  co_return true;
}

bool EtcdMutexLock::still_valid(const Lease& lease) {
  (void)lease;
  return !config_.track_validity || rt_.monotonic_now() < lease_deadline_;
}

LockInfo lock_info_etcd_mutex() {
  LockInfo info{"etcd-mutex",
                "clientv3 concurrency.Mutex: lease + keep-alive, owner = lowest create_revision under prefix/",
                "etcd v3.4 clientv3/concurrency mutex.go, session.go (Jepsen etcd 3.4.3)",
                1,
                false,
                false,
                false,
                [](Runtime& rt, const LockConfig& c) { return std::make_unique<EtcdMutexLock>(rt, c, false); }};
  info.topology = Topology::Etcd;
  return info;
}

// etcd-mutex-11456: the Mutex of clientv3 3.4.3, granting the lock once
// waitDeletes returns although the session's lease (and with it myKey)
// expired during the wait. Repository etcd-io/etcd, clientv3/concurrency/
// mutex.go Lock at v3.4.3; report etcd-io/etcd#11456 (Jepsen, 2019-12-16:
// "Locks return without checking whether the lease is still held"); the fix
// reads myKey back after the wait (etcd-mutex). Assumed: the waiter's lease
// expires because its keep-alives stop (a pause or a cut-off client), the
// case Jepsen saw; the exact release that first carried the fix we could not
// pin down (the check is in mutex.go on the 3.5 line and main).
LockInfo lock_info_etcd_mutex_11456() {
  LockInfo info{"etcd-mutex-11456",
                "clientv3 3.4.3 concurrency.Mutex: granted after waiting without checking its own key "
                "(the lease may have expired meanwhile)",
                "etcd v3.4.3 clientv3/concurrency mutex.go Lock (etcd-io/etcd#11456, Jepsen etcd 3.4.3)",
                1,
                false,
                false,
                false,
                [](Runtime& rt, const LockConfig& c) {
                  return std::make_unique<EtcdMutexLock>(rt, c, false, MutexCheck::None);
                }};
  info.topology = Topology::Etcd;
  info.reproduces = Reproduction{"etcd clientv3", "3.4.3", "etcd-io/etcd#11456", "etcd-mutex", std::string(violation_kind_name(ViolationKind::MutualExclusion))};
  return info;
}

}  // namespace locksim::locks
