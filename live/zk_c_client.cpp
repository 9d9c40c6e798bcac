// ZkCClientConn: the synchronous libzookeeper_mt calls behind ZkConn, and
// the session and watch events that drive state() and wait_delete
// (zk_c_client.hpp).
#include "live/zk_c_client.hpp"

#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

namespace locksim::live {

using namespace locks;

struct ZkCClientConn::Watch {
  ZkCClientConn* conn;
  bool fired = false;
  int type = 0;
};

namespace {

std::atomic<std::uint64_t> g_log_lines{0};

void count_log_line(const char*) { g_log_lines.fetch_add(1, std::memory_order_relaxed); }

void quiet_library_once() {
  static std::once_flag once;
  std::call_once(once, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR); });
}

int create_mode(const std::string& mode) {
  if (mode == "ephemeral") return ZOO_EPHEMERAL;
  if (mode == "persistent_sequential") return ZOO_PERSISTENT_SEQUENTIAL;
  if (mode == "ephemeral_sequential") return ZOO_EPHEMERAL_SEQUENTIAL;
  return ZOO_PERSISTENT;
}

}  // namespace

std::uint64_t take_zk_client_log_lines() { return g_log_lines.exchange(0); }

ZkCClientConn::ZkCClientConn(std::string hosts) : hosts_(std::move(hosts)) { quiet_library_once(); }

ZkCClientConn::~ZkCClientConn() {
  // Closing joins the library's threads: no callback runs after this.
  if (zh_) zookeeper_close(zh_);
  for (_zhandle* old : retired_) zookeeper_close(old);
}

void ZkCClientConn::on_session_event(zhandle_t*, int type, int state, const char*, void* self) {
  auto* conn = static_cast<ZkCClientConn*>(self);
  std::lock_guard lock(conn->mutex_);
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) conn->ever_connected_ = true;
  conn->changed_.notify_all();
}

void ZkCClientConn::on_watch_event(zhandle_t*, int type, int, const char*, void* ctx) {
  auto* watch = static_cast<Watch*>(ctx);
  std::lock_guard lock(watch->conn->mutex_);
  if (type != ZOO_SESSION_EVENT) watch->fired = true, watch->type = type;  // a session event leaves the watch set
  watch->conn->changed_.notify_all();
}

Task<CpStatus> ZkCClientConn::start(Duration session_timeout) {
  std::unique_lock lock(mutex_);
  if (zh_ && zoo_state(zh_) == ZOO_EXPIRED_SESSION_STATE) {
    // LOST: a new handle, a new session (as Curator and kazoo make one). The
    // expired handle stays open until the destructor: a background task may
    // still be in a call on it (which then fails with SessionExpired).
    retired_.push_back(zh_.exchange(nullptr));
    ever_connected_ = false;
  }
  if (!zh_) {
    const int ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(session_timeout).count());
    zh_ = zookeeper_init2(hosts_.c_str(), on_session_event, ms, nullptr, this, 0, count_log_line);
    if (!zh_) co_return CpStatus{kZkConnectionLoss};
    changed_.wait_for(lock, session_timeout, [&] { return ever_connected_ || zoo_state(zh_) == ZOO_EXPIRED_SESSION_STATE; });
  }
  co_return CpStatus{ever_connected_ ? "" : kZkConnectionLoss};
}

ZkState ZkCClientConn::state() const {
  std::lock_guard lock(mutex_);
  if (!zh_) return ZkState::NotStarted;
  const int s = zoo_state(zh_);
  if (s == ZOO_CONNECTED_STATE) return ZkState::Connected;
  if (s == ZOO_EXPIRED_SESSION_STATE || s == ZOO_AUTH_FAILED_STATE) return ZkState::Expired;
  return ever_connected_ ? ZkState::Disconnected : ZkState::NotStarted;
}

std::int64_t ZkCClientConn::session_id() const {
  std::lock_guard lock(mutex_);
  return zh_ ? zoo_client_id(zh_)->client_id : 0;
}

int ZkCClientConn::negotiated_ms() const {
  std::lock_guard lock(mutex_);
  return zh_ ? zoo_recv_timeout(zh_) : 0;
}

std::string ZkCClientConn::error_name(int rc) const {
  switch (rc) {
    case ZOK: return "";
    case ZNONODE: return kZkNoNode;
    case ZNODEEXISTS: return kZkNodeExists;
    case ZBADVERSION: return "BadVersion";
    case ZNOTEMPTY: return "NotEmpty";
    case ZNOCHILDRENFOREPHEMERALS: return "NoChildrenForEphemerals";
    case ZBADARGUMENTS: return "BadArguments";
    case ZSESSIONEXPIRED:
    case ZINVALIDSTATE: return kZkSessionExpired;
    case ZCONNECTIONLOSS:
    case ZOPERATIONTIMEOUT: return kZkConnectionLoss;
    default: return std::string("zookeeper error ") + std::to_string(rc) + " (" + zerror(rc) + ")";
  }
}

Task<ZkCreated> ZkCClientConn::create(std::string path, std::string data, std::string mode) {
  ZkCreated out;
  if (!zh_) co_return ZkCreated{{kZkConnectionLoss}, "", 0};
  std::vector<char> created(path.size() + 64, '\0');  // room for the ten-digit sequence suffix
  Stat stat{};
  const int rc = zoo_create2(zh_, path.c_str(), data.data(), static_cast<int>(data.size()), &ZOO_OPEN_ACL_UNSAFE,
                             create_mode(mode), created.data(), static_cast<int>(created.size()), &stat);
  out.error = error_name(rc);
  if (out.ok()) out.path = created.data(), out.czxid = stat.czxid;
  co_return out;
}

Task<CpStatus> ZkCClientConn::remove(std::string path, std::int64_t version) {
  if (!zh_) co_return CpStatus{kZkConnectionLoss};
  co_return CpStatus{error_name(zoo_delete(zh_, path.c_str(), static_cast<int>(version)))};
}

Task<ZkChildren> ZkCClientConn::get_children(std::string path) {
  ZkChildren out;
  if (!zh_) co_return ZkChildren{{kZkConnectionLoss}, {}};
  String_vector names{};
  out.error = error_name(zoo_get_children(zh_, path.c_str(), 0, &names));
  if (out.ok()) {
    for (int i = 0; i < names.count; ++i) out.names.emplace_back(names.data[i]);
    deallocate_String_vector(&names);
  }
  std::sort(out.names.begin(), out.names.end());  // the server's order is its hash set's; the simulator sorts
  co_return out;
}

Task<ZkStat> ZkCClientConn::exists(std::string path) {
  ZkStat out;
  if (!zh_) co_return ZkStat{{kZkConnectionLoss}};
  Stat stat{};
  const int rc = zoo_exists(zh_, path.c_str(), 0, &stat);
  if (rc == ZNONODE) co_return out;
  out.error = error_name(rc);
  if (out.ok()) out = {{}, true, stat.czxid, stat.mzxid, stat.version, stat.ephemeralOwner};
  co_return out;
}

Task<CpStatus> ZkCClientConn::wait_delete(std::string path, Duration timeout) {
  if (!zh_) co_return CpStatus{kZkConnectionLoss};
  Watch* watch = nullptr;
  {
    std::lock_guard lock(mutex_);
    watches_.push_back(std::make_unique<Watch>(Watch{this}));
    watch = watches_.back().get();
  }
  Stat stat{};
  const int rc = zoo_wexists(zh_, path.c_str(), on_watch_event, watch, &stat);
  if (rc != ZOK) co_return CpStatus{error_name(rc)};  // NoNode: already gone
  std::unique_lock lock(mutex_);
  const bool ended = changed_.wait_for(lock, timeout, [&] { return watch->fired || zoo_state(zh_) != ZOO_CONNECTED_STATE; });
  if (watch->fired) co_return CpStatus{watch->type == ZOO_DELETED_EVENT ? "" : "watch fired: node changed"};
  if (!ended) co_return CpStatus{kZkWaitTimedOut};
  const int s = zoo_state(zh_);
  co_return CpStatus{s == ZOO_EXPIRED_SESSION_STATE || s == ZOO_AUTH_FAILED_STATE ? kZkSessionExpired : kZkConnectionLoss};
}

}  // namespace locksim::live
