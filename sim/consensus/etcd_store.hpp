// EtcdStore: the replicated state machine of the simulated etcd — the subset
// of etcd's mvcc key space and lease table the locks use.
//
// Every member applies the same committed commands in the same order, so
// every member's store is identical at a given applied index; nothing here
// reads a clock (lease expiry is the leader's business: etcd_member.hpp).
// Semantics follow etcd v3.4:
//  - one revision counter for the whole store, 1 when empty; every request
//    that changes something (a Put, a DeleteRange that deletes, a Txn with
//    writes, a lease revoke that deletes keys) takes the next revision, all
//    its changes share it (mvcc/kvstore_txn.go: one main revision per txn);
//  - a key's create_revision, mod_revision and version (number of puts
//    since creation); deleting a key forgets them (a re-put starts at 1);
//  - ranges [key, range_end): empty range_end = the key alone, "\0" = every
//    key >= key (etcdserver/apply.go mkGteRange);
//  - Txn compares on create/mod/version/value; a compare against a missing
//    key uses zeros, except a value compare, which fails (applyCompare);
//  - leases: Grant (TTL raised to the minimum, lessor.go Grant), Revoke
//    (deletes the attached keys), Put with a lease attaches the key (a Put
//    with an unknown lease fails: "etcdserver: requested lease not found").
// Deletions are kept as history (revision, key) so a watch that starts at
// an older revision sees what it missed (mvcc watchable store's unsynced
// watchers).
//
// Wire format (the Argv a client sends, the Reply it gets):
//   PUT key value lease                   -> [rev]
//   RANGE key range_end                   -> [rev, [[key, value, create, mod, version, lease]...]]
//   DELETERANGE key range_end             -> [rev, deleted]
//   TXN ncmp (target key op operand)* nsucc (op key a b)* nfail (op key a b)*
//       target: create | mod | version | value; op: = != < >
//       ops: put key value lease | range key end - | delete key end -
//                                         -> [rev, succeeded, [reply per op]]
//   LEASEGRANT ttl_seconds                -> [id, ttl]
//   LEASEREVOKE id                        -> [rev]
// Lease ids and revisions are decimal. The member adds LEASEKEEPALIVE and
// WATCHDELETE, which do not go through the log.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vocab/reply.hpp"

namespace locksim::sim::consensus {


inline constexpr const char* kErrLeaseNotFound = "etcdserver: requested lease not found";

struct KeyValue {
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  std::int64_t lease = 0;
};

struct DeleteEvent {
  std::int64_t revision;
  std::string key;
};

struct LeaseRecord {
  std::int64_t ttl = 0;  // seconds, as granted
  std::set<std::string> keys;
};

class EtcdStore {
 public:
  // min_lease_ttl: etcd's ceil(1.5 · election timeout) in seconds.
  explicit EtcdStore(std::int64_t min_lease_ttl) : min_lease_ttl_(min_lease_ttl) {}

  void clear();
  // Applies one committed command. A malformed command gets an error reply
  // (members validate before proposing, so only a buggy client sends one).
  Reply apply(const Argv& command);
  // Checks a command's shape without applying it.
  static std::optional<std::string> validate(const Argv& command);

  std::int64_t revision() const { return revision_; }
  const std::map<std::string, KeyValue>& keys() const { return keys_; }
  const std::map<std::int64_t, LeaseRecord>& leases() const { return leases_; }
  const std::vector<DeleteEvent>& deletes() const { return deletes_; }
  // The id the last applied LEASEGRANT created (0 if it failed).
  std::int64_t last_granted() const { return last_granted_; }

  static bool in_range(const std::string& k, const std::string& key, const std::string& end);
  // clientv3.GetPrefixRangeEnd: the key after every key with this prefix.
  static std::string prefix_end(const std::string& prefix);

 private:
  struct Writes;  // the revision a request's writes share
  Reply put(const std::string& key, const std::string& value, std::int64_t lease, Writes& w);
  Reply range(const std::string& key, const std::string& end) const;
  Reply delete_range(const std::string& key, const std::string& end, Writes& w);
  Reply txn(const Argv& c);
  Reply txn_op(const Argv& c, std::size_t at, Writes& w);
  bool compare(const std::string& target, const std::string& key, const std::string& op,
               const std::string& operand) const;
  Reply lease_grant(std::int64_t ttl);
  Reply lease_revoke(std::int64_t id);
  void erase_key(const std::string& key, Writes& w);

  std::int64_t min_lease_ttl_;
  std::int64_t revision_ = 1;
  std::map<std::string, KeyValue> keys_;
  std::map<std::int64_t, LeaseRecord> leases_;
  std::vector<DeleteEvent> deletes_;
  std::int64_t next_lease_ = 0x694d71ee00000001;  // etcd-looking ids, from a replicated counter
  std::int64_t last_granted_ = 0;
};

}  // namespace locksim::sim::consensus
