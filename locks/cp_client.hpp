// The CP client interfaces the etcd and ZooKeeper locks are written against,
// in the style of RedisConn (locks/runtime.hpp): coroutines returning typed
// replies, a failure is a value (`error` set), never an exception.
//
// EtcdConn is the slice of clientv3 the concurrency package uses (KV,
// Txn, Lease, Watch). ZkConn is a ZooKeeper client handle: it owns a
// session and keeps it alive as ClientCnxn does, so its `state()` moves
// Connected -> Disconnected (no answer within the read timeout) -> Connected
// or Expired, and an expired handle fails every call with SessionExpired.
// sim_cp_client.hpp implements both over the simulated members; a lock
// cannot tell which implementation it runs on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocab/task.hpp"
#include "vocab/time.hpp"

namespace locksim::locks {

// The base of every service's client interface (EtcdConn, ZkConn, the next
// service's): what a runtime holds for a client of a scenario's service,
// and what a lock reaches by its type, Runtime::service<EtcdConn>()
// (locks/runtime.hpp). Each interface names its service in kService, for the
// message when a runtime has none. Who implements one is the service row's
// business (scenarios/services.hpp, live/live_service_table.hpp): the simulated
// client, a real client library in-process, or a client in another process.
class ServiceConn {
 public:
  virtual ~ServiceConn() = default;
};

struct CpStatus {
  std::string error;  // empty = success
  bool ok() const { return error.empty(); }
};

// ---- etcd ----------------------------------------------------------------------

struct EtcdKv {
  std::string key, value;
  std::int64_t create_revision = 0, mod_revision = 0, version = 0, lease = 0;
};

struct EtcdRange : CpStatus {
  std::int64_t revision = 0;  // the response header's revision
  std::vector<EtcdKv> kvs;
};
struct EtcdWrite : CpStatus {
  std::int64_t revision = 0;
  std::int64_t deleted = 0;  // DeleteRange only
};
struct EtcdCompare {
  enum class Target : std::uint8_t { Create, Mod, Version, Value };
  Target target;
  std::string key;
  std::string op;       // "=", "!=", "<", ">"
  std::string operand;  // a number, or the value for Target::Value
};
struct EtcdOp {
  enum class Kind : std::uint8_t { Put, Range, Delete };
  Kind kind;
  std::string key;
  std::string value_or_end;  // Put: the value; Range/Delete: range_end
  std::int64_t lease = 0;
};
struct EtcdTxn : CpStatus {
  std::int64_t revision = 0;
  bool succeeded = false;
  std::vector<EtcdRange> ranges;  // one per op of the branch taken (empty for writes)
};
struct EtcdLease : CpStatus {
  std::int64_t id = 0;
  std::int64_t ttl = 0;  // seconds; a keep-alive answers 0 for a lease that is gone
};
struct EtcdDeleted : CpStatus {
  std::int64_t revision = 0;
  std::string key;
};

class EtcdConn : public ServiceConn {
 public:
  static constexpr const char* kService = "etcd";
  virtual Task<EtcdWrite> put(std::string key, std::string value, std::int64_t lease) = 0;
  virtual Task<EtcdRange> range(std::string key, std::string range_end) = 0;
  virtual Task<EtcdWrite> delete_range(std::string key, std::string range_end) = 0;
  virtual Task<EtcdTxn> txn(std::vector<EtcdCompare> compares, std::vector<EtcdOp> success,
                            std::vector<EtcdOp> failure) = 0;
  virtual Task<EtcdLease> lease_grant(std::int64_t ttl_seconds) = 0;
  virtual Task<EtcdLease> lease_keep_alive_once(std::int64_t id) = 0;
  virtual Task<CpStatus> lease_revoke(std::int64_t id) = 0;
  // Waits (up to `timeout`) for the first deletion in [key, range_end) at a
  // revision >= start_revision (clientv3 Watch WithRev, DELETE events).
  virtual Task<EtcdDeleted> wait_delete(std::string key, std::string range_end, std::int64_t start_revision,
                                        Duration timeout) = 0;
};

// clientv3.GetPrefixRangeEnd.
std::string etcd_prefix_end(const std::string& prefix);

// ---- ZooKeeper -----------------------------------------------------------------

enum class ZkState : std::uint8_t { NotStarted, Connected, Disconnected, Expired };
const char* zk_state_name(ZkState s);

struct ZkCreated : CpStatus {
  std::string path;  // with the sequence suffix for a sequential node
  std::int64_t czxid = 0;
};
struct ZkChildren : CpStatus {
  std::vector<std::string> names;
};
struct ZkStat : CpStatus {
  bool exists = false;
  std::int64_t czxid = 0, mzxid = 0, version = 0, ephemeral_owner = 0;
};

inline constexpr const char* kZkSessionExpired = "SessionExpired";
inline constexpr const char* kZkConnectionLoss = "ConnectionLoss";
inline constexpr const char* kZkNoNode = "NoNode";
inline constexpr const char* kZkNodeExists = "NodeExists";
inline constexpr const char* kZkWaitTimedOut = "watch wait timed out";

class ZkConn : public ServiceConn {
 public:
  static constexpr const char* kService = "zookeeper";
  // Creates the session (once; later calls return at once): the timeout the
  // ensemble negotiated, in ms, or an error.
  virtual Task<CpStatus> start(Duration session_timeout) = 0;
  virtual ZkState state() const = 0;
  virtual std::int64_t session_id() const = 0;
  // mode: persistent | ephemeral | persistent_sequential | ephemeral_sequential
  virtual Task<ZkCreated> create(std::string path, std::string data, std::string mode) = 0;
  virtual Task<CpStatus> remove(std::string path, std::int64_t version) = 0;
  virtual Task<ZkChildren> get_children(std::string path) = 0;
  virtual Task<ZkStat> exists(std::string path) = 0;
  // exists/getData with a watcher, then the wait for its NodeDeleted event
  // (up to `timeout`, then kZkWaitTimedOut): NoNode at once if the node is
  // already gone.
  virtual Task<CpStatus> wait_delete(std::string path, Duration timeout) = 0;
};

}  // namespace locksim::locks
