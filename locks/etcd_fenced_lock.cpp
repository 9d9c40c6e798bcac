// etcd-fenced: etcd-mutex (locks/etcd_mutex.hpp) whose lease carries the
// lock key's create_revision as the fencing token.
//
// Source: Jepsen's etcd 3.4.3 analysis — etcd's locks cannot guarantee
// mutual exclusion under pauses; "the key's revision" used as a fencing
// token makes them safe — and Kleppmann (2016) for the storage side. Claims:
// no stale write reaches a fencing storage, even when two clients believe
// they hold the lock: every later holder's key is created at a higher
// revision (etcd's revision counter never goes back while a majority keeps
// its log). Assumes the storage checks the token on every write.
#include <memory>

#include "locks/etcd_mutex.hpp"
#include "locks/registry.hpp"

namespace locksim::locks {

LockInfo lock_info_etcd_fenced() {
  LockInfo info{"etcd-fenced",
                "etcd-mutex with the key's create_revision as the fencing token",
                "etcd v3.4 clientv3/concurrency mutex.go; Jepsen etcd 3.4.3; Kleppmann 2016",
                1,
                false,
                true,
                false,
                [](Runtime& rt, const LockConfig& c) { return std::make_unique<EtcdMutexLock>(rt, c, true); }};
  info.topology = Topology::Etcd;
  return info;
}

}  // namespace locksim::locks
