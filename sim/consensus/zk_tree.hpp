// ZkTree: the replicated state machine of the simulated ZooKeeper — the
// data tree and session table, the subset the lock recipes use.
//
// Every member applies the same committed commands in order, so the trees
// agree; nothing here reads a clock (session expiry is the leader's:
// zk_member.hpp). Semantics follow ZooKeeper 3.8 (server/DataTree.java,
// server/PrepRequestProcessor.java):
//  - znodes with data, czxid (zxid of the create), mzxid (of the last
//    setData; equal to czxid here), version, cversion (child changes) and
//    ephemeralOwner (the session, 0 if persistent);
//  - a sequential create appends a ten-digit number (PrepRequestProcessor:
//    path + String.format("%010d", parentCVersion)); every child create and
//    delete bumps the parent's cversion, but the number counts the
//    parent's child creates only. Measured against ZooKeeper 3.8.0 (the
//    [cp_differential] test found it): under /t, create -s twice, delete
//    the first, create -s again: the suffix is 2 while /t's Stat says
//    cversion 4. `sequence` keeps that count beside cversion;
//  - ephemerals cannot have children (NoChildrenForEphemerals) and go when
//    their session closes (DataTree.killSession);
//  - a request under a session that is no longer in the table fails with
//    SessionExpired (PrepRequestProcessor's checkSession);
//  - delete with a version: -1 matches any, else BadVersion; NotEmpty if
//    the node has children.
// zxid: the committing entry's term in the high 32 bits and its log index in
// the low 32 (ZooKeeper's epoch | counter; monotonic across leaders).
//
// Wire format (what a client sends through a member, the reply):
//   CREATESESSION timeout_ms                 -> [session, timeout_ms]
//   CLOSESESSION session                     -> [zxid]
//   CREATE session path data mode            -> [path, czxid]
//       mode: persistent | ephemeral | persistent_sequential | ephemeral_sequential
//   DELETE session path version              -> [zxid]
//   GETCHILDREN session path                 -> [name...] (sorted)
//   EXISTS session path                      -> nil | [czxid, mzxid, version, ephemeral_owner]
//   GETDATA session path                     -> [data, czxid, mzxid, version, ephemeral_owner]
// Errors are ZooKeeper's code names: NoNode, NodeExists, BadVersion,
// NotEmpty, NoChildrenForEphemerals, SessionExpired, BadArguments.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vocab/reply.hpp"

namespace locksim::sim::consensus {


struct Znode {
  std::string data;
  std::int64_t czxid = 0;
  std::int64_t mzxid = 0;
  std::int64_t version = 0;
  std::int64_t cversion = 0;
  std::int64_t sequence = 0;  // child creates: the next sequential suffix
  std::int64_t ephemeral_owner = 0;
};

struct ZkSession {
  std::int64_t timeout_ms = 0;
  std::set<std::string> ephemerals;
};

class ZkTree {
 public:
  ZkTree() { clear(); }
  void clear();
  Reply apply(const Argv& command, std::int64_t zxid);
  static std::optional<std::string> validate(const Argv& command);

  const std::map<std::string, Znode>& nodes() const { return nodes_; }
  const std::map<std::int64_t, ZkSession>& sessions() const { return sessions_; }
  // Paths deleted so far, in order (watches look here).
  const std::vector<std::string>& deletes() const { return deletes_; }
  static std::string parent_of(const std::string& path);

 private:
  Reply create(std::int64_t session, std::string path, const std::string& data, const std::string& mode,
               std::int64_t zxid);
  Reply remove(const std::string& path, std::int64_t version, std::int64_t zxid);
  Reply children(const std::string& path) const;
  Reply close_session(std::int64_t session, std::int64_t zxid);
  bool has_children(const std::string& path) const;

  std::map<std::string, Znode> nodes_;  // by full path; "/" always exists
  std::map<std::int64_t, ZkSession> sessions_;
  std::vector<std::string> deletes_;
  std::int64_t next_session_ = 0x100000000000001;  // ZooKeeper-looking ids, from a replicated counter
};

}  // namespace locksim::sim::consensus
