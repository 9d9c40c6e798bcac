// ZkTree: ZooKeeper's data tree and session table as a deterministic state
// machine (DataTree.java, PrepRequestProcessor.java).
#include "sim/consensus/zk_tree.hpp"

#include <cassert>
#include <cstdio>

#include "sim/consensus/raft.hpp"

namespace locksim::sim::consensus {

namespace {

bool valid_path(const std::string& p) {
  if (p.empty() || p[0] != '/') return false;
  if (p.size() > 1 && p.back() == '/') return false;
  return p.find("//") == std::string::npos;
}

std::optional<std::string> session_and_path(const Argv& c, std::size_t size) {
  if (c.size() != size || !parse_i64(c[1])) return c[0] + ": bad arguments";
  if (!valid_path(c[2])) return c[0] + ": bad path " + c[2];
  return std::nullopt;
}

std::string sequence_suffix(std::int64_t cversion) {
  char digits[24];
  std::snprintf(digits, sizeof digits, "%010lld", static_cast<long long>(cversion));
  return digits;
}

Reply stat_of(const Znode& n) {
  return Reply::array({Reply::integer_of(n.czxid), Reply::integer_of(n.mzxid), Reply::integer_of(n.version),
                       Reply::integer_of(n.ephemeral_owner)});
}

}  // namespace

void ZkTree::clear() {
  nodes_.clear();
  nodes_["/"] = Znode{};
  sessions_.clear();
  deletes_.clear();
  next_session_ = 0x100000000000001;
}

std::string ZkTree::parent_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::optional<std::string> ZkTree::validate(const Argv& c) {
  if (c.empty()) return "empty command";
  const std::string& op = c[0];
  if (op == "CREATESESSION") {
    const auto t = c.size() == 2 ? parse_i64(c[1]) : std::nullopt;
    if (!t || *t <= 0) return "CREATESESSION timeout_ms";
    return std::nullopt;
  }
  if (op == "CLOSESESSION") return c.size() == 2 && parse_i64(c[1]) ? std::nullopt : std::optional<std::string>("CLOSESESSION session");
  if (op == "CREATE") {
    if (auto bad = session_and_path(c, 5)) return bad;
    if (c[4] != "persistent" && c[4] != "ephemeral" && c[4] != "persistent_sequential" &&
        c[4] != "ephemeral_sequential")
      return "CREATE: bad mode " + c[4];
    if (c[2] == "/") return "CREATE: cannot create /";
    return std::nullopt;
  }
  if (op == "DELETE") {
    if (auto bad = session_and_path(c, 4)) return bad;
    return parse_i64(c[3]) ? std::nullopt : std::optional<std::string>("DELETE: bad version");
  }
  if (op == "GETCHILDREN" || op == "EXISTS" || op == "GETDATA") return session_and_path(c, 3);
  return "unknown command " + op;
}

Reply ZkTree::apply(const Argv& c, std::int64_t zxid) {
  if (auto bad = validate(c)) return Reply::error("BadArguments " + *bad);
  const std::string& op = c[0];
  if (op == "CREATESESSION") {
    const std::int64_t id = next_session_++;
    assert(!sessions_.contains(id) && "session ids are never reused");
    sessions_[id] = ZkSession{*parse_i64(c[1]), {}};
    return Reply::array({Reply::integer_of(id), Reply::integer_of(*parse_i64(c[1]))});
  }
  const std::int64_t session = *parse_i64(c[1]);
  if (op == "CLOSESESSION") return close_session(session, zxid);
  if (!sessions_.contains(session)) return Reply::error("SessionExpired");
  const std::string& path = c[2];
  if (op == "CREATE") return create(session, path, c[3], c[4], zxid);
  if (op == "DELETE") return remove(path, *parse_i64(c[3]), zxid);
  if (op == "GETCHILDREN") return children(path);
  auto it = nodes_.find(path);
  if (op == "EXISTS") return it == nodes_.end() ? Reply::nil() : stat_of(it->second);
  if (it == nodes_.end()) return Reply::error("NoNode");
  Reply data = stat_of(it->second);
  data.elements.insert(data.elements.begin(), Reply::bulk(it->second.data));
  return data;
}

Reply ZkTree::create(std::int64_t session, std::string path, const std::string& data, const std::string& mode,
                     std::int64_t zxid) {
  auto parent = nodes_.find(parent_of(path));
  if (parent == nodes_.end()) return Reply::error("NoNode");
  if (parent->second.ephemeral_owner != 0) return Reply::error("NoChildrenForEphemerals");
  if (mode.ends_with("_sequential")) path += sequence_suffix(parent->second.sequence);
  if (nodes_.contains(path)) return Reply::error("NodeExists");
  const bool ephemeral = mode.starts_with("ephemeral");
  assert(zxid > parent->second.czxid && "a child is created after its parent (zxids grow)");
  ++parent->second.cversion;
  ++parent->second.sequence;
  nodes_[path] = Znode{data, zxid, zxid, 0, 0, 0, ephemeral ? session : 0};
  if (ephemeral) sessions_[session].ephemerals.insert(path);
  return Reply::array({Reply::bulk(path), Reply::integer_of(zxid)});
}

bool ZkTree::has_children(const std::string& path) const {
  const std::string prefix = path == "/" ? "/" : path + "/";
  for (auto it = nodes_.lower_bound(prefix); it != nodes_.end() && it->first.starts_with(prefix); ++it)
    if (it->first != path) return true;
  return false;
}

Reply ZkTree::remove(const std::string& path, std::int64_t version, std::int64_t zxid) {
  auto it = nodes_.find(path);
  if (it == nodes_.end() || path == "/") return Reply::error("NoNode");
  if (version != -1 && it->second.version != version) return Reply::error("BadVersion");
  if (has_children(path)) return Reply::error("NotEmpty");
  if (it->second.ephemeral_owner != 0) sessions_[it->second.ephemeral_owner].ephemerals.erase(path);
  assert(zxid >= it->second.mzxid && "a delete comes after the node's last change");
  nodes_.erase(it);
  ++nodes_[parent_of(path)].cversion;
  deletes_.push_back(path);
  return Reply::array({Reply::integer_of(zxid)});
}

Reply ZkTree::children(const std::string& path) const {
  if (!nodes_.contains(path)) return Reply::error("NoNode");
  const std::string prefix = path == "/" ? "/" : path + "/";
  std::vector<Reply> names;
  // Keys between "/a/" and "/a0" are /a's descendants ('/' + 1 == '0').
  for (auto it = nodes_.lower_bound(prefix); it != nodes_.end() && it->first.starts_with(prefix); ++it) {
    const std::string rest = it->first.substr(prefix.size());
    if (!rest.empty() && rest.find('/') == std::string::npos) names.push_back(Reply::bulk(rest));
  }
  return Reply::array(std::move(names));
}

Reply ZkTree::close_session(std::int64_t session, std::int64_t zxid) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return Reply::error("SessionExpired");
  const std::set<std::string> doomed = it->second.ephemerals;
  for (const std::string& path : doomed) remove(path, -1, zxid);
  assert(it->second.ephemerals.empty() && "closing a session deletes all its ephemeral nodes");
  sessions_.erase(session);
  return Reply::array({Reply::integer_of(zxid)});
}

}  // namespace locksim::sim::consensus
