// The client libraries locksim runs in their own process (family
// "library"): what `locksim list` says of each, known to every part of the
// program (a scenario's [expect.by_lock] may name them wherever it is
// parsed). Their factory here only refuses: live mode's
// live::register_library_locks() replaces it with one that starts the
// library's adapter (live/external_lock.hpp), and the simulator refuses a
// library lock before it builds one.
#include <stdexcept>

#include "locks/registry.hpp"

namespace locksim::locks {

namespace {

// The adapter run by Debian's Python (which has the python3-* libraries), or
// by the `node` on PATH. Functions, not globals: the registry table may be
// built during another file's static initialization (LOCKSIM_REGISTER_LOCK).
LockInfo::Adapter python(std::string script, std::vector<std::string> arguments = {}) {
  return {{"/usr/bin/python3"}, std::move(script), std::move(arguments)};
}
LockInfo::Adapter node(std::string script, std::vector<std::string> arguments = {}) {
  return {{"/usr/bin/env", "node"}, std::move(script), std::move(arguments)};
}

LockInfo library_lock(std::string name, std::string description, std::string library, std::string source,
                      LockInfo::Adapter adapter, std::string port, Topology topology = Topology::Redis) {
  LockInfo info;
  info.adapter = std::move(adapter);
  info.port = std::move(port);
  info.factory = [](Runtime&, const LockConfig&) -> std::unique_ptr<Lock> {
    throw std::logic_error("a client library's lock runs only in `locksim live`");
  };
  info.name = std::move(name);
  info.description = std::move(description);
  info.library = std::move(library);
  info.source = std::move(source);
  info.topology = topology;
  // The CP adapters report a fencing value (the lock node's czxid, the
  // lock key's create_revision), as zk-fenced / etcd-fenced do.
  info.fencing = topology != Topology::Redis;
  return info;
}

}  // namespace

LockInfo lock_info_external() {
  return library_lock("external", "your own client library's lock, through your adapter (--client / [lock] command)",
                      "your adapter", "docs/external-clients.md", {}, "");
}

LockInfo lock_info_lib_redis_py() {
  return library_lock("lib:redis-py", "redis-py's redis.lock.Lock (SET NX PX, Lua release/extend), the real library",
                      "redis-py 4.3.4 (Debian python3-redis)", "redis/lock.py: Lock.acquire/release/reacquire",
                      python("redis-py/adapter.py"), "token");
}

LockInfo lock_info_lib_redis_py_pr4315() {
  return library_lock("lib:redis-py-pr4315",
                      "redis-py's Lock with the fix of PR #4315 (issue #4279): reacquire() refuses a timeout of 0",
                      "redis-py 4.3.4 (Debian python3-redis) + PR #4315 applied in the adapter",
                      "redis/lock.py: Lock.do_reacquire (redis-py PR #4315)",
                      python("redis-py/adapter.py", {"--fix=pr4315"}), "token");
}

LockInfo lock_info_lib_node_redlock() {
  return library_lock("lib:node-redlock", "npm redlock's Redlock over ioredis, over every master, the real library",
                      "redlock 5.0.0-beta.2 + ioredis 5.4.1 (npm ci in adapters/node-redlock)",
                      "redlock src/index.ts: Redlock.acquire/release/extend",
                      node("node-redlock/adapter.js"), "node-redlock-169");
}

LockInfo lock_info_lib_node_redlock_pr273() {
  return library_lock("lib:node-redlock-pr273",
                      "npm redlock with PR #273's fix (#169): a lock's expiration counts from the attempt that won",
                      "redlock 5.0.0-beta.2 + ioredis 5.4.1 + PR #273 (5dd9e28, on master, in no release) applied in "
                      "the adapter",
                      "redlock src/index.ts: Redlock.acquire/_execute (PR #273)",
                      node("node-redlock/adapter.js", {"--fix=pr273"}), "node-redlock-fixed");
}

// Measured with strace: Python's threading waits (threading.Event.wait,
// queue.Queue.get with a timeout) are futex waits on an absolute
// CLOCK_MONOTONIC deadline (sem_clockwait); gRPC's (python-etcd3) are futex
// waits on an absolute CLOCK_REALTIME deadline (pthread_cond_timedwait).
// The kernel times those on the real clocks, so a drifted (or, for a
// CLOCK_REALTIME deadline, stepped) reading would make them wrong by the
// whole offset: refused, not faked.
constexpr const char* kThreadWaitsDrift =
    ", a Python threading wait (sem_clockwait on an absolute CLOCK_MONOTONIC deadline) that the kernel times on the "
    "real clock, which the client preload cannot drift";

LockInfo lock_info_lib_kazoo() {
  LockInfo::Adapter adapter = python("kazoo/adapter.py");
  // kazoo/recipe/lock.py: Lock._inner_acquire's wake_event.wait(timeout).
  adapter.no_clock_drift =
      std::string("kazoo's Lock.acquire waits in threading.Event.wait(timeout)") + kThreadWaitsDrift;
  LockInfo info = library_lock(
      "lib:kazoo", "kazoo's recipe.lock.Lock with its connection-state listener, the real library; czxid fencing",
      "kazoo 2.8.0 (Debian python3-kazoo)", "kazoo/recipe/lock.py: Lock.acquire/release", adapter, "zk-fenced",
      Topology::ZooKeeper);
  info.implements_extend = false;  // kazoo's Lock has no extend (pings keep the session), as zk-lock's
  return info;
}

LockInfo lock_info_lib_python_etcd3() {
  LockInfo::Adapter adapter = python("python-etcd3/adapter.py");
  // etcd3/locks.py: Lock.acquire waits in watch_once (etcd3/client.py: response_queue.get(timeout=timeout)).
  adapter.no_clock_drift =
      std::string("python-etcd3's Lock.acquire waits in queue.Queue.get(timeout)") + kThreadWaitsDrift;
  adapter.no_clock_step = "python-etcd3: gRPC's threads wait on absolute CLOCK_REALTIME deadlines "
                          "(pthread_cond_timedwait), timed by the kernel on the real wall clock, which the client "
                          "preload cannot step";
  return library_lock("lib:python-etcd3",
                      "python-etcd3's etcd3.Lock (lease, refresh), the real library; create_revision fencing",
                      "python-etcd3 0.12.0 (Debian python3-etcd3, gRPC)",
                      "etcd3/locks.py: Lock.acquire/release/refresh",
                      adapter, "etcd-fenced", Topology::Etcd);
}

}  // namespace locksim::locks
