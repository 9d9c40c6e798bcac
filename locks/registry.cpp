// The registry table: built-ins from LOCKSIM_BUILTIN_LOCKS (one line each),
// plus whatever register_lock() added. A std::map keeps it sorted by name.
// Not thread-safe to register while other threads read: register at startup.
#include "locks/registry.hpp"

#include <map>

#include "vocab/spelling.hpp"

// One line per built-in lock: X(suffix) refers to `LockInfo lock_info_<suffix>()`.
#define LOCKSIM_BUILTIN_LOCKS(X) \
  X(naive_del)                   \
  X(token)                       \
  X(get_then_del)                \
  X(setnx_expire)                \
  X(no_ttl)                      \
  X(thread_id)                   \
  X(delex)                       \
  X(redlock)                     \
  X(fenced)                      \
  X(redlock_fenced)              \
  X(watchdog)                    \
  X(etcd_mutex)                  \
  X(etcd_mutex_11456)            \
  X(etcd_fenced)                 \
  X(zk_lock)                     \
  X(zk_fenced)                   \
  X(watchdog_fixed)              \
  X(redisson_watchdog_3194)      \
  X(redlock_py)                  \
  X(redlock_py_pr3)              \
  X(node_redlock_169)            \
  X(node_redlock_fixed)          \
  X(redlock_net_48)              \
  X(redlock_net_fixed)           \
  X(redlock_rb_36)               \
  X(shedlock_redis)              \
  X(shedlock_redis_safe)         \
  X(external)                    \
  X(lib_redis_py)                \
  X(lib_redis_py_pr4315)         \
  X(lib_node_redlock)            \
  X(lib_node_redlock_pr273)      \
  X(lib_kazoo)                   \
  X(lib_python_etcd3)

namespace locksim::locks {

#define LOCKSIM_DECLARE_LOCK(suffix) LockInfo lock_info_##suffix();
LOCKSIM_BUILTIN_LOCKS(LOCKSIM_DECLARE_LOCK)
#undef LOCKSIM_DECLARE_LOCK

namespace {

std::map<std::string, LockInfo>& table() {
  static std::map<std::string, LockInfo> locks = [] {
    std::map<std::string, LockInfo> m;
#define LOCKSIM_ADD_LOCK(suffix)           \
  {                                        \
    LockInfo info = lock_info_##suffix();  \
    m.emplace(info.name, std::move(info)); \
  }
    LOCKSIM_BUILTIN_LOCKS(LOCKSIM_ADD_LOCK)
#undef LOCKSIM_ADD_LOCK
    return m;
  }();
  return locks;
}

}  // namespace

const char* topology_name(Topology t) {
  switch (t) {
    case Topology::Redis: return "redis";
    case Topology::Etcd: return "etcd";
    case Topology::ZooKeeper: return "zookeeper";
  }
  return "?";
}

std::optional<std::string> topology_mismatch(const LockInfo& lock, Topology scenario) {
  if (lock.topology == scenario) return std::nullopt;
  return "lock " + lock.name + " needs a" + (lock.topology == Topology::Redis ? " Redis" : " CP") + " topology ([" +
         topology_name(lock.topology) + "]); the scenario has [" + topology_name(scenario) + "]";
}

std::string reproduction_label(const Reproduction& r) {
  return r.library + " " + r.version + ", " + r.report + "; fixed: " + r.fixed_by;
}

bool register_lock(LockInfo info) {
  if (info.name.empty() || !info.factory) return false;
  std::string name = info.name;
  table().insert_or_assign(std::move(name), std::move(info));
  return true;
}

std::vector<LockInfo> all_locks() {
  std::vector<LockInfo> out;
  for (const auto& [name, info] : table())
    if (info.library.empty()) out.push_back(info);
  return out;
}

std::vector<LockInfo> library_locks() {
  std::vector<LockInfo> out;
  for (const auto& [name, info] : table())
    if (!info.library.empty()) out.push_back(info);
  return out;
}

std::optional<LockInfo> find_lock(const std::string& name) {
  auto it = table().find(name);
  if (it == table().end()) return std::nullopt;
  return it->second;
}

std::string unknown_lock_message(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& info : all_locks()) names.push_back(info.name);
  return "unknown lock kind '" + name + "'" + did_you_mean(name, names) + " (see `locksim list`)";
}

std::unique_ptr<Lock> make_lock(const std::string& name, Runtime& rt, const LockConfig& config) {
  auto it = table().find(name);
  if (it == table().end()) return nullptr;
  return it->second.factory(rt, config);
}

}  // namespace locksim::locks
