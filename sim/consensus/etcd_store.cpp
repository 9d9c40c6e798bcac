// EtcdStore: etcd's mvcc key space and lease table, as a deterministic
// state machine (etcdserver/apply.go, mvcc/kvstore_txn.go, lease/lessor.go).
#include "sim/consensus/etcd_store.hpp"

#include <cassert>

#include "sim/consensus/raft.hpp"

namespace locksim::sim::consensus {

// The revision a request's writes share: taken on the first write.
struct EtcdStore::Writes {
  std::int64_t& revision;
  bool taken = false;
  std::int64_t rev() {
    if (!taken) {
      ++revision;
      taken = true;
    }
    return revision;
  }
};

namespace {

Reply int_reply(std::int64_t v) { return Reply::integer_of(v); }

bool is_one_of(const std::string& s, std::initializer_list<const char*> options) {
  for (const char* o : options)
    if (s == o) return true;
  return false;
}

// TXN layout: ncmp, 4 fields per compare, nsucc, 4 per op, nfail, 4 per op.
// Returns the index after the section starting at `at`, or nullopt.
std::optional<std::size_t> skip_section(const Argv& c, std::size_t at) {
  if (at >= c.size()) return std::nullopt;
  const auto n = parse_u64(c[at]);
  if (!n || *n > 128 || at + 1 + 4 * *n > c.size()) return std::nullopt;
  return at + 1 + 4 * *n;
}

constexpr const char* kEmptyKey = "key is not provided";  // rpctypes ErrGRPCEmptyKey

// etcd v3.4 etcdserver/api/v3rpc/key.go checkIntervals, per branch: a key
// put twice, or put and inside a delete range of the same branch, is
// refused before the txn is proposed (deletes may overlap each other). The
// delete ranges are adt.NewStringAffineInterval(key, range_end), so a
// range_end of "\0" (every key >= key when executed) overlaps nothing in
// this check, as in etcd.
bool branch_has_duplicate_key(const Argv& c, std::size_t at, std::size_t end) {
  std::set<std::string> puts;
  for (std::size_t i = at + 1; i < end; i += 4)
    if (c[i] == "put" && !puts.insert(c[i + 1]).second) return true;
  for (std::size_t i = at + 1; i < end; i += 4)
    if (c[i] == "delete")
      for (const std::string& k : puts)  // adt's affine interval [key, end): end "\0" makes it empty here
        if (c[i + 2].empty() ? k == c[i + 1] : k >= c[i + 1] && k < c[i + 2]) return true;
  return false;
}

std::optional<std::string> validate_txn(const Argv& c) {
  const auto ops = skip_section(c, 1);
  if (!ops) return "TXN: bad compare section";
  for (std::size_t i = 2; i < *ops; i += 4) {
    if (!is_one_of(c[i], {"create", "mod", "version", "value"})) return "TXN: bad compare target " + c[i];
    if (!is_one_of(c[i + 2], {"=", "!=", "<", ">"})) return "TXN: bad compare op " + c[i + 2];
    if (c[i] != "value" && !parse_i64(c[i + 3])) return "TXN: bad compare operand " + c[i + 3];
    if (c[i + 1].empty()) return kEmptyKey;  // key.go checkTxnRequest
  }
  std::size_t at = *ops;
  std::vector<std::pair<std::size_t, std::size_t>> branches;
  for (int branch = 0; branch < 2; ++branch) {
    const auto end = skip_section(c, at);
    if (!end) return "TXN: bad op section";
    for (std::size_t i = at + 1; i < *end; i += 4) {
      if (!is_one_of(c[i], {"put", "range", "delete"})) return "TXN: bad op " + c[i];
      if (c[i] == "put" && !parse_i64(c[i + 3])) return "TXN: bad lease " + c[i + 3];
      if (c[i + 1].empty()) return kEmptyKey;  // key.go checkRequestOp
    }
    branches.emplace_back(at, *end);
    at = *end;
  }
  if (at != c.size()) return "TXN: trailing fields";
  for (const auto& [from, to] : branches)  // after the per-op checks, as key.go's Txn
    if (branch_has_duplicate_key(c, from, to)) return "duplicate key given in txn request";
  return std::nullopt;
}

}  // namespace

void EtcdStore::clear() {
  revision_ = 1;
  keys_.clear();
  leases_.clear();
  deletes_.clear();
  next_lease_ = 0x694d71ee00000001;
  last_granted_ = 0;
}

bool EtcdStore::in_range(const std::string& k, const std::string& key, const std::string& end) {
  if (end.empty()) return k == key;
  if (end == std::string(1, '\0')) return k >= key;
  return k >= key && k < end;
}

std::string EtcdStore::prefix_end(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every byte 0xff: no end, the rest of the key space
}

std::optional<std::string> EtcdStore::validate(const Argv& c) {
  // The messages are rpctypes' (etcd v3.4 etcdserver/api/v3rpc/rpctypes/error.go);
  // the member prefixes "etcdserver: ".
  if (c.empty()) return "empty command";
  const std::string& op = c[0];
  if (op == "PUT") {
    if (c.size() != 4 || !parse_i64(c[3])) return "PUT key value lease";
    if (c[1].empty()) return kEmptyKey;  // key.go checkPutRequest
  } else if (op == "RANGE" || op == "DELETERANGE") {
    if (c.size() != 3) return op + " key range_end";
    if (c[1].empty()) return kEmptyKey;  // key.go checkRangeRequest / checkDeleteRequest
  } else if (op == "TXN") {
    return validate_txn(c);
  } else if (op == "LEASEGRANT") {
    const auto ttl = c.size() == 2 ? parse_i64(c[1]) : std::nullopt;
    if (!ttl || *ttl <= 0) return "LEASEGRANT ttl_seconds (> 0)";
  } else if (op == "LEASEREVOKE") {
    if (c.size() != 2 || !parse_i64(c[1])) return "LEASEREVOKE id";
  } else {
    return "unknown command " + op;
  }
  return std::nullopt;
}

Reply EtcdStore::apply(const Argv& c) {
  if (auto bad = validate(c)) return Reply::error("etcdserver: " + *bad);
  assert(revision_ >= 1 && "the store's revision starts at 1 and only grows");
  Writes w{revision_};
  const std::string& op = c[0];
  if (op == "PUT") return put(c[1], c[2], *parse_i64(c[3]), w);
  if (op == "RANGE") return range(c[1], c[2]);
  if (op == "DELETERANGE") return delete_range(c[1], c[2], w);
  if (op == "TXN") return txn(c);
  if (op == "LEASEGRANT") return lease_grant(*parse_i64(c[1]));
  return lease_revoke(*parse_i64(c[1]));
}

Reply EtcdStore::put(const std::string& key, const std::string& value, std::int64_t lease, Writes& w) {
  if (lease != 0 && !leases_.contains(lease)) return Reply::error(kErrLeaseNotFound);
  const std::int64_t rev = w.rev();
  auto [it, created] = keys_.try_emplace(key);
  KeyValue& kv = it->second;
  assert(rev > kv.mod_revision && "a write's revision is newer than the key's last one (mvcc)");
  if (created) kv.create_revision = rev;
  if (kv.lease != 0 && kv.lease != lease) leases_[kv.lease].keys.erase(key);  // detach from the old lease
  kv.value = value;
  kv.mod_revision = rev;
  ++kv.version;
  assert(kv.create_revision <= kv.mod_revision && kv.version >= 1 && "a live key was created before it was modified");
  kv.lease = lease;
  if (lease != 0) leases_[lease].keys.insert(key);
  return Reply::array({int_reply(rev)});
}

Reply EtcdStore::range(const std::string& key, const std::string& end) const {
  std::vector<Reply> kvs;
  for (auto it = keys_.lower_bound(key); it != keys_.end() && in_range(it->first, key, end); ++it) {
    const KeyValue& kv = it->second;
    kvs.push_back(Reply::array({Reply::bulk(it->first), Reply::bulk(kv.value), int_reply(kv.create_revision),
                                int_reply(kv.mod_revision), int_reply(kv.version), int_reply(kv.lease)}));
  }
  return Reply::array({int_reply(revision_), Reply::array(std::move(kvs))});
}

Reply EtcdStore::delete_range(const std::string& key, const std::string& end, Writes& w) {
  std::vector<std::string> doomed;
  for (auto it = keys_.lower_bound(key); it != keys_.end() && in_range(it->first, key, end); ++it)
    doomed.push_back(it->first);
  for (const std::string& k : doomed) erase_key(k, w);
  return Reply::array({int_reply(revision_), int_reply(static_cast<std::int64_t>(doomed.size()))});
}

void EtcdStore::erase_key(const std::string& key, Writes& w) {
  auto it = keys_.find(key);
  if (it == keys_.end()) return;
  if (it->second.lease != 0) leases_[it->second.lease].keys.erase(key);
  keys_.erase(it);
  const std::int64_t rev = w.rev();
  assert((deletes_.empty() || deletes_.back().revision <= rev) && "deletions are recorded in revision order");
  deletes_.push_back({rev, key});
}

bool EtcdStore::compare(const std::string& target, const std::string& key, const std::string& op,
                        const std::string& operand) const {
  auto it = keys_.find(key);
  if (it == keys_.end() && target == "value") return false;  // applyCompare: a missing value never matches
  const KeyValue none;
  const KeyValue& kv = it == keys_.end() ? none : it->second;
  int order = 0;  // kv's field compared with the operand: -1, 0, 1
  if (target == "value") {
    order = kv.value.compare(operand);
    order = order < 0 ? -1 : (order > 0 ? 1 : 0);
  } else {
    const std::int64_t field = target == "create" ? kv.create_revision
                               : target == "mod"  ? kv.mod_revision
                                                  : kv.version;
    const std::int64_t want = *parse_i64(operand);
    order = field < want ? -1 : (field > want ? 1 : 0);
  }
  if (op == "=") return order == 0;
  if (op == "!=") return order != 0;
  if (op == "<") return order < 0;
  return order > 0;
}

Reply EtcdStore::txn(const Argv& c) {
  const std::size_t succ_at = *skip_section(c, 1);
  bool succeeded = true;
  for (std::size_t i = 2; i < succ_at; i += 4) succeeded = succeeded && compare(c[i], c[i + 1], c[i + 2], c[i + 3]);
  const std::size_t fail_at = *skip_section(c, succ_at);
  const std::size_t at = succeeded ? succ_at : fail_at;
  const std::size_t end = *skip_section(c, at);
  // etcd v3.4 etcdserver/apply.go applierV3backend.Txn: checkRequests(...,
  // a.checkPut) looks up every lease the taken branch puts with before any
  // op runs; one missing fails the whole txn (ErrLeaseNotFound), nothing is
  // written and no revision is taken.
  for (std::size_t i = at + 1; i < end; i += 4)
    if (c[i] == "put" && *parse_i64(c[i + 3]) != 0 && !leases_.contains(*parse_i64(c[i + 3])))
      return Reply::error(kErrLeaseNotFound);
  Writes w{revision_};
  std::vector<Reply> replies;
  for (std::size_t i = at + 1; i < end; i += 4) replies.push_back(txn_op(c, i, w));
  return Reply::array({int_reply(revision_), int_reply(succeeded ? 1 : 0), Reply::array(std::move(replies))});
}

Reply EtcdStore::txn_op(const Argv& c, std::size_t i, Writes& w) {
  if (c[i] == "put") return put(c[i + 1], c[i + 2], *parse_i64(c[i + 3]), w);
  if (c[i] == "range") return range(c[i + 1], c[i + 2]);
  return delete_range(c[i + 1], c[i + 2], w);
}

Reply EtcdStore::lease_grant(std::int64_t ttl) {
  const std::int64_t id = next_lease_++;
  assert(!leases_.contains(id) && id > last_granted_ && "lease ids are fresh and increasing");
  leases_[id] = LeaseRecord{std::max(ttl, min_lease_ttl_), {}};
  last_granted_ = id;
  return Reply::array({int_reply(id), int_reply(leases_[id].ttl)});
}

Reply EtcdStore::lease_revoke(std::int64_t id) {
  auto it = leases_.find(id);
  if (it == leases_.end()) return Reply::error(kErrLeaseNotFound);
  Writes w{revision_};
  const std::set<std::string> keys = it->second.keys;
  for (const std::string& k : keys) erase_key(k, w);
  assert(it->second.keys.empty() && "revoking a lease deletes every key attached to it");
  leases_.erase(id);
  return Reply::array({int_reply(revision_)});
}

}  // namespace locksim::sim::consensus
