// zk-fenced: zk-lock (locks/zk_mutex.hpp) whose lease carries the lock
// node's czxid as the fencing token.
//
// Source: Kleppmann (2016) — "the zxid or the znode version number" as a
// fencing token with ZooKeeper — and Curator InterProcessMutex for the lock.
// Claims: no stale write reaches a fencing storage, even when two clients
// believe they hold the lock: a later holder's node is created by a later
// transaction, so its czxid is higher. Assumes the storage checks the token
// on every write.
#include <memory>

#include "locks/registry.hpp"
#include "locks/zk_mutex.hpp"

namespace locksim::locks {

LockInfo lock_info_zk_fenced() {
  LockInfo info{"zk-fenced",
                "zk-lock with the lock node's czxid as the fencing token",
                "Apache Curator InterProcessMutex; Kleppmann 2016 (zxid as fencing token)",
                1,
                false,
                true,
                false,
                [](Runtime& rt, const LockConfig& c) { return std::make_unique<ZkMutexLock>(rt, c, true); }};
  info.topology = Topology::ZooKeeper;
  info.implements_extend = false;  // Curator has no extend: pings keep the session (ZkMutexLock::extend)
  return info;
}

}  // namespace locksim::locks
