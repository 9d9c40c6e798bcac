// LiveRuntime: the Runtime of one live client thread. It is RealRuntime
// (std::chrono clocks, real sleeps, UUID tokens, spawn = a thread) plus what
// live mode needs around it:
//  - connections that follow the cluster: conn(i) talks to shard i's
//    current master through this client's link on its proxy, and
//    reconnects after a failover redirected the shard;
//  - the lock entry's history: every command that names the lock key is
//    sent inside MULTI … EXEC between `DUMP key` + `PEXPIRETIME key` probes,
//    after `TIME` and `INCR locksim:live:order`, so the reply tells exactly
//    whether *this client's* command created, changed or removed the entry
//    on that node, when the server ran it and in which order (atomic on the
//    server; no guessing from replies, no MONITOR parsing). The probes cost
//    round trips on loopback, not server time. Limits: the host's wall
//    clock must not step during a run (TIME is mapped to scenario time); expiry done by the
//    server is only seen when a later command finds the entry gone (it is
//    recorded then, as Expired — late); a command whose EXEC reply is lost
//    (timeout, killed server) records nothing although it may have run;
//    writes replicated to replicas are not recorded;
//  - the client's own clocks (ClientClock): drift (clock_drift_ppm, a
//    clock-drift fault) moves its monotonic and wall readings and stretches
//    its sleeps, a clock-jump steps its wall clock, as the simulator's
//    HostClock does; the machine's clocks are never touched;
//  - GC pauses: the client stops at its next step (before a command, after
//    a reply, after a sleep) while a pause covers the present;
//  - the end of the run: sleeps end, commands fail at once and the
//    monotonic clock leaps ahead, so every retry loop gives up promptly.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "live/external_lock.hpp"
#include "live/redis_cluster.hpp"
#include "locks/hiredis/hiredis_conn.hpp"
#include "locks/hiredis/real_runtime.hpp"
#include "scenarios/history.hpp"

namespace locksim::live {

class ServerClock;

// When the server ran a probed command: its TIME and the value of an INCR
// in the same transaction (execution order on that node, breaks ties).
// What a Sentinel-aware client library is told ("sentinels" and
// "master_names" in an adapter's hello), and the loopback address its
// process's connections leave from (its host's own: the client preload
// binds it), so that the proxy in front of a node can tell its links apart
// on the port the node announces, which Sentinel hands out.
struct SentinelDiscovery {
  std::vector<std::string> sentinels;     // "127.0.0.1:port", each Sentinel
  std::vector<std::string> master_names;  // per shard: "locksim-1", ...
  std::string source_address;             // "127.0.1.N"
};

struct ServerStamp {
  std::int64_t time_us = 0;
  std::int64_t order = 0;
};

// A command on a lock entry that live mode probes: who sent it, to which
// node, the lock key it names, and its text in the history.
struct ProbedCommand {
  std::size_t client = 0;
  std::size_t node = 0;
  std::string key;
  std::string command;
};

// One live client's clocks over the machine's: drift since the last change
// (both clocks), plus wall steps; kept across the client's restarts.
// Thread-safe (the main thread applies faults, client threads read).
// A client whose lock is a library in an adapter process has that
// process's clocks moved with it: process_control() makes a preload control
// block (server_preload.hpp) that every step and drift change reaches too.
class ClientClock {
 public:
  explicit ClientClock(std::int64_t drift_ppm = 0);
  ~ClientClock();
  ClientClock(const ClientClock&) = delete;
  ClientClock& operator=(const ClientClock&) = delete;
  void step(std::chrono::nanoseconds by);
  void set_drift(std::int64_t ppm);  // continuous: the drift so far is kept
  // The control block's file for this client's adapter processes (made on
  // the first call, at this clock's present offsets), "" with `why` set if
  // it cannot be made.
  std::string process_control(std::string* why);
  std::chrono::nanoseconds monotonic_offset() const;
  std::chrono::nanoseconds wall_offset() const;
  // The real duration of a local sleep of d.
  std::chrono::nanoseconds real_for(std::chrono::nanoseconds d) const;
  // The real steady-clock reading (since its epoch) at which this clock's
  // monotonic reading shows `local`, at the present drift: a lease deadline
  // taken on the client's clock placed in real time, as the simulator's
  // HostClock::true_when_monotonic places it in true time.
  std::chrono::nanoseconds real_when_monotonic(std::chrono::nanoseconds local) const;

 private:
  std::chrono::nanoseconds drift_locked(std::chrono::steady_clock::time_point now) const;
  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point base_;
  std::chrono::nanoseconds drifted_{0};  // up to base_
  std::chrono::nanoseconds stepped_{0};
  std::int64_t ppm_ = 0;
  std::unique_ptr<ServerClock> process_;  // the adapter processes' block, once made
};

// Thrown on a crashed client's thread at its next step (LiveWorld::pause_point).
struct ClientCrashed {};

// What every client thread shares with the run (implemented by the session:
// live_session.hpp).
class LiveWorld {
 public:
  virtual ~LiveWorld() = default;
  virtual bool stopping() const = 0;
  // Blocks until `deadline` (steady clock), the end of the run, or forever
  // never: returns false if the run ended first.
  virtual bool wait_until(std::chrono::steady_clock::time_point deadline) = 0;
  // Stops the calling client while a pause of client c covers now. On the
  // client's own thread, throws ClientCrashed once c has crashed: its
  // frames unwind (sync_wait rethrows through the lock's coroutines).
  virtual void pause_point(std::size_t c) = 0;
  // Whether c's current incarnation has crashed (its other threads, e.g. a
  // watchdog, then send nothing more).
  virtual bool crashed(std::size_t c) = 0;
  // What client c's command did to the lock entry on `node` (nullopt:
  // nothing), and whether the entry existed just before it ran (if not,
  // and the entry was last seen present, it expired in between).
  virtual void record_entry(const ProbedCommand& probe, std::optional<sim::redis::KeyEvent::Kind> kind,
                            bool entry_present_before, ServerStamp stamp) = 0;
  virtual std::chrono::milliseconds command_timeout() const = 0;
  // Real seconds per scenario second ("time_scale" in an adapter's hello:
  // a duration the adapter sets itself, such as a library default, is
  // scaled by it as locksim scales the scenario's).
  virtual double time_scale() const { return 1.0; }
  // INCR'd in every probe: the execution order on a node.
  virtual const std::string& order_key() const = 0;

  // --- client adapter processes (live/external_lock.hpp) ---
  // Client c's incarnation runs its lock in process group `pid` (-1: no
  // longer): faults on c act on that process (SIGSTOP/SIGCONT, SIGKILL).
  virtual void adapter_process(std::size_t c, pid_t pid, const std::string& label) {
    (void)c, (void)pid, (void)label;
  }
  // Whether a pause of client c covers now (an adapter's answer deadline
  // does not run while its process is stopped).
  virtual bool paused(std::size_t c) {
    (void)c;
    return false;
  }
  // The addresses client c's adapter is told ("servers" in hello): its
  // own links on the proxies in front of the servers.
  virtual std::vector<std::string> adapter_servers(std::size_t c) const {
    (void)c;
    return {};
  }
  // How client c's adapter finds the master itself, when the servers have
  // a Sentinel quorum (nullopt: it is given the master's address only).
  virtual std::optional<SentinelDiscovery> adapter_discovery(std::size_t c) const {
    (void)c;
    return std::nullopt;
  }
  // The adapter started for client c before the run (its first
  // incarnation), or nullptr: the lock starts one itself.
  virtual std::unique_ptr<ExternalClient> take_adapter(std::size_t c) {
    (void)c;
    return nullptr;
  }
  // What the client's library said that the run's output should show
  // (an exception it raised), one line.
  virtual void adapter_note(std::size_t c, const std::string& text) { (void)c, (void)text; }
  // Client c's clocks, whose steps and drift its adapter process gets
  // through the client preload; nullptr: the process keeps the real clocks.
  virtual ClientClock* client_clock(std::size_t c) {
    (void)c;
    return nullptr;
  }
};

// Probed transactions a client stopped waiting for (a timeout, a request
// held in the network): their connections are kept and read on one thread
// until the replies come or the run ends, so a command that ran late — a
// release delayed 10 s — is still recorded with the server's stamp.
class LateReplies {
 public:
  explicit LateReplies(LiveWorld& world);
  ~LateReplies();
  LateReplies(const LateReplies&) = delete;
  LateReplies& operator=(const LateReplies&) = delete;
  // `replies`: those read before the timeout.
  void adopt(std::unique_ptr<locks::HiredisConn> conn, ProbedCommand probe, std::vector<Reply> replies);
  void stop();  // joins; what has not come by then is not recorded
  bool idle() const { return outstanding_.load() == 0; }  // no reply still owed

 private:
  struct Waiting;
  void run();
  LiveWorld& world_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Waiting>> incoming_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> outstanding_{0};  // adopted and not yet recorded or dropped
  std::thread thread_;  // last: starts once the rest is built
};

// The CP connections of one client incarnation (live_cp_conns.hpp), on an
// etcd or ZooKeeper topology: one of them is set (none for a lock whose
// client runs in its own process). Transitional: the one ServiceConn the
// live service table makes (live_service_table.hpp connect) replaces it.
struct LiveCpConns {
  locks::EtcdConn* etcd = nullptr;
  locks::ZkConn* zk = nullptr;
  locks::ServiceConn* set() const {
    if (etcd) return etcd;
    return zk;
  }
};

class LiveRuntime final : public locks::Runtime {
 public:
  // On Redis: one connection per shard of `cluster`; the commands naming
  // one of `lock_keys` are probed (their effect on that entry recorded).
  LiveRuntime(LiveWorld& world, LateReplies& late, const RedisCluster& cluster, std::size_t client,
              std::string client_name, std::vector<std::string> lock_keys, const ClientClock& clock);
  // On a CP topology: no Redis connection (node_count() 0), the client's
  // connection to the service given (not owned; it outlives the runtime;
  // nullptr for a lock whose client runs in its own process).
  LiveRuntime(LiveWorld& world, LateReplies& late, locks::ServiceConn* service, std::size_t client,
              std::string client_name, const ClientClock& clock);
  LiveRuntime(LiveWorld& world, LateReplies& late, LiveCpConns cp, std::size_t client, std::string client_name,
              const ClientClock& clock)
      : LiveRuntime(world, late, cp.set(), client, std::move(client_name), clock) {}
  ~LiveRuntime() override;

  LocalInstant monotonic_now() override;
  LocalInstant wall_now() override;
  Task<void> sleep(Duration d) override;
  std::string random_token() override;
  std::uint64_t random_below(std::uint64_t n) override;
  locks::RedisConn& conn(std::size_t node) override;
  std::size_t node_count() const override;
  std::uint64_t spawn(Task<void> task) override;
  void cancel(std::uint64_t id) override;
  locks::ServiceConn* service_conn() override { return service_; }

  // For a lock run by a client process (live/external_lock.hpp).
  LiveWorld& world() { return world_; }
  std::size_t client() const { return client_; }
  const std::string& client_name() const { return client_name_; }

  class ShardConn;  // a RedisConn for one shard (live_runtime.cpp)

 private:
  LiveWorld& world_;
  LateReplies& late_;
  const RedisCluster* cluster_ = nullptr;  // nullptr on a CP topology
  locks::ServiceConn* service_ = nullptr;  // on a CP topology
  std::size_t client_;
  std::string client_name_;  // its links on the proxies
  std::vector<std::string> lock_keys_;  // the scenario's (one, or a segmented sale's one per segment)
  const ClientClock& clock_;
  std::unique_ptr<locks::RealRuntime> real_;  // clocks, sleeps, tokens, spawn
  std::vector<std::unique_ptr<ShardConn>> conns_;
};

}  // namespace locksim::live
