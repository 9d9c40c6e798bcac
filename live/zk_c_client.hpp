// ZkCClientConn: the CP client interface ZkConn (locks/cp_client.hpp) over
// ZooKeeper's own C client (libzookeeper_mt), so zk-lock and zk-fenced run
// unchanged against a real ensemble.
//
// The session is the library's: zookeeper_init with the lock's session
// timeout, its I/O thread sends the pings and moves between servers, and
// start() on an expired handle closes it and makes a new session (what
// Curator and kazoo do after LOST, and the simulated client too).
// state() maps zoo_state(): ZOO_CONNECTED_STATE -> Connected,
// ZOO_EXPIRED_SESSION_STATE (or auth failure) -> Expired, any other state
// after the first connection -> Disconnected (what the simulated client,
// locks/sim_cp_client.hpp, copies from ClientCnxn). Calls are the
// synchronous zoo_* functions (zoo_create2 for the czxid); their error
// codes become ZooKeeper's names (NoNode, NodeExists, BadVersion, NotEmpty,
// NoChildrenForEphemerals, BadArguments, SessionExpired, ConnectionLoss),
// as the simulated members answer. ZINVALIDSTATE (a call on an expired
// handle) is SessionExpired; ZOPERATIONTIMEOUT is ConnectionLoss.
//
// wait_delete sets a watch with zoo_wexists and waits for its
// ZOO_DELETED_EVENT up to the timeout (kZkWaitTimedOut), NoNode at once if
// the node is gone; a session event (disconnect, expiry) ends the wait with
// ConnectionLoss / SessionExpired, as Curator's watcher wakes on one. A
// watch outlives a wait that timed out (ZooKeeper cannot remove it), so its
// context is owned here until the handle is closed.
//
// Thread-safe (the C client's handle is). The library's log (ERROR level:
// connection timeouts and lost servers, the expected noise of member
// faults) is counted, not printed: take_zk_client_log_lines() says how many.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "locks/cp_client.hpp"

struct _zhandle;  // zookeeper.h's zhandle_t, kept out of this header

namespace locksim::live {

// The ZooKeeper C client's log lines since the last call (all handles).
std::uint64_t take_zk_client_log_lines();

class ZkCClientConn final : public locks::ZkConn {
 public:
  // hosts: "127.0.0.1:p1,127.0.0.1:p2" (ZkCluster::connect_string).
  explicit ZkCClientConn(std::string hosts);
  ~ZkCClientConn() override;
  ZkCClientConn(const ZkCClientConn&) = delete;
  ZkCClientConn& operator=(const ZkCClientConn&) = delete;

  Task<locks::CpStatus> start(Duration session_timeout) override;
  locks::ZkState state() const override;
  std::int64_t session_id() const override;
  Task<locks::ZkCreated> create(std::string path, std::string data, std::string mode) override;
  Task<locks::CpStatus> remove(std::string path, std::int64_t version) override;
  Task<locks::ZkChildren> get_children(std::string path) override;
  Task<locks::ZkStat> exists(std::string path) override;
  Task<locks::CpStatus> wait_delete(std::string path, Duration timeout) override;

  // The session timeout the ensemble negotiated, in ms (0 before start).
  int negotiated_ms() const;

  struct Watch;  // one watch's event, owned until close (zk_c_client.cpp)

 private:
  static void on_session_event(_zhandle* zh, int type, int state, const char* path, void* self);
  static void on_watch_event(_zhandle* zh, int type, int state, const char* path, void* watch);
  // The error name of a call's return code, "" for ZOK.
  std::string error_name(int rc) const;

  std::string hosts_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;  // a session event or a watch fired
  std::atomic<_zhandle*> zh_{nullptr};  // replaced by start() after an expiry
  std::vector<_zhandle*> retired_;      // expired handles, closed with this one
  bool ever_connected_ = false;
  std::vector<std::unique_ptr<Watch>> watches_;
};

}  // namespace locksim::live
