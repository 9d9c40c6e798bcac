// The simulated consensus service (sim/consensus/): Raft elections, commit
// on a majority, check-quorum, crash vs power loss; the etcd v3 front end
// (mvcc revisions, Txn compares, leases expired by the leader and refreshed
// by a new one, watches); the ZooKeeper front end (znodes, sequential and
// ephemeral creates, sessions expired by the leader); the CP client
// library (a ZooKeeper handle learns of its session's loss only on
// reconnect); the CP locks (mutual exclusion without faults, the Jepsen pause
// story) and a determinism property.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <memory>
#include <set>

#include "locks/registry.hpp"
#include "locks/sim_cp_client.hpp"
#include "reports/run_output.hpp"
#include "locks/sim_runtime.hpp"
#include "sim/consensus/etcd_member.hpp"
#include "scenarios/cp_topology.hpp"
#include "scenarios/services.hpp"
#include "live/live_service_table.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "sim/consensus/zk_member.hpp"
#include "sim/world.hpp"

using namespace locksim;
using namespace locksim::sim;
using namespace locksim::sim::consensus;
using namespace std::chrono_literals;

namespace {

EtcdConfig etcd_config(bool fsync = true) {
  EtcdConfig c;
  c.raft.election_timeout = 1s;
  c.raft.heartbeat = 100ms;
  c.raft.fsync = fsync;
  return c;
}

// A world with a consensus cluster (etcd or ZooKeeper members) and client
// hosts A and B; `call` sends a request from a client to a member and runs
// the world until the answer is back.
template <class M>
struct CpWorld {
  World w;
  std::unique_ptr<MemberCluster<M>> cluster;
  Host& a;
  Host& b;

  template <class Config>
  CpWorld(const std::string& prefix, std::size_t members, std::uint64_t seed, const Config& config)
      : w(seed), a(w.add_host("A")), b(w.add_host("B")) {
    w.network().set_latency(LatencyModel::uniform(1ms, 3ms));
    cluster = std::make_unique<MemberCluster<M>>(w, prefix, members, config);
  }

  M& member(std::size_t i) { return cluster->member(i); }
  void advance(Duration d) { w.scheduler().run_until(w.now() + d); }

  M& elect() {
    for (int i = 0; i < 600 && !cluster->leader(); ++i) advance(100ms);
    REQUIRE(cluster->leader() != nullptr);
    return *cluster->leader();
  }
  std::size_t index_of(const M& m) {
    for (std::size_t i = 0; i < cluster->size(); ++i)
      if (&member(i) == &m) return i;
    FAIL("not a member");
    return 0;
  }
  std::size_t follower_of(const M& leader) { return (index_of(leader) + 1) % cluster->size(); }

  // Starts a request; the reply lands in *out when it arrives.
  void send(Host& client, std::size_t m, Argv argv, std::shared_ptr<std::optional<Reply>> out, Duration timeout = 60s) {
    auto task = [](Connection& c, Argv a, Duration t, std::shared_ptr<std::optional<Reply>> o) -> Task<void> {
      *o = co_await c.call(std::move(a), t);
    };
    client.spawn(task(w.network().connect(client.id(), member(m).id()), std::move(argv), timeout, std::move(out)));
  }
  Reply call(std::size_t m, Argv argv, Host* client = nullptr, Duration timeout = 60s) {
    auto out = std::make_shared<std::optional<Reply>>();
    send(client ? *client : a, m, std::move(argv), out, timeout);
    while (!out->has_value()) advance(1ms);
    return **out;
  }
};

struct EtcdWorld : CpWorld<EtcdMember> {
  explicit EtcdWorld(std::size_t members = 3, std::uint64_t seed = 1, EtcdConfig config = etcd_config())
      : CpWorld("etcd", members, seed, config) {}
};

Argv put(const std::string& key, const std::string& value, std::int64_t lease = 0) {
  return {"PUT", key, value, std::to_string(lease)};
}
Argv get(const std::string& key) { return {"RANGE", key, ""}; }
// The clientv3 concurrency.Mutex acquire: create the key only if absent.
Argv create_if_absent(const std::string& key, const std::string& value, std::int64_t lease) {
  return {"TXN", "1", "create", key, "=", "0", "1", "put", key, value, std::to_string(lease),
          "1", "range", key, "", "-"};
}

// RANGE reply -> the kvs array.
const std::vector<Reply>& kvs(const Reply& r) { return r.elements.at(1).elements; }
std::int64_t revision_of(const Reply& r) { return r.elements.at(0).integer; }
std::int64_t lease_granted(EtcdWorld& ew, std::size_t m, std::int64_t ttl) {
  const Reply r = ew.call(m, {"LEASEGRANT", std::to_string(ttl)});
  REQUIRE(r.type == Reply::Type::Array);
  return r.elements.at(0).integer;
}

// Every pair of members agrees on every entry both have committed (no
// split-brain commit), and nobody's commit index is past its log.
template <class M>
bool committed_logs_agree(CpWorld<M>& ew) {
  for (std::size_t i = 0; i < ew.cluster->size(); ++i) {
    RaftNode& x = ew.member(i).raft();
    if (x.commit_index() > x.last_index()) return false;
    for (std::size_t j = i + 1; j < ew.cluster->size(); ++j) {
      RaftNode& y = ew.member(j).raft();
      const std::uint64_t n = std::min(x.commit_index(), y.commit_index());
      for (std::uint64_t k = 1; k <= n; ++k)
        if (x.entry(k).term != y.entry(k).term || x.entry(k).command != y.entry(k).command) return false;
    }
  }
  return true;
}
template <class M>
void require_committed_logs_agree(CpWorld<M>& ew) { REQUIRE(committed_logs_agree(ew)); }

}  // namespace

// ---- Raft --------------------------------------------------------------------

TEST_CASE("a three-member cluster elects one leader that every member follows", "[consensus]") {
  EtcdWorld ew;
  EtcdMember& leader = ew.elect();
  ew.advance(2s);
  REQUIRE(ew.cluster->leader() == &leader);
  int leaders = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    leaders += ew.member(i).raft().is_leader() ? 1 : 0;
    CHECK(ew.member(i).raft().leader() == leader.id());
    CHECK(ew.member(i).raft().term() == leader.raft().term());
  }
  CHECK(leaders == 1);
  // The new leader's no-op is committed everywhere.
  for (std::size_t i = 0; i < 3; ++i) CHECK(ew.member(i).raft().commit_index() >= 1);
}

TEST_CASE("election timeouts come from each member's own stream: seeds differ, a seed repeats", "[consensus]") {
  std::set<std::string> first_leaders;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    EtcdWorld ew(3, seed);
    first_leaders.insert(ew.w.host_name(ew.elect().id()));
    EtcdWorld again(3, seed);
    CHECK(again.w.host_name(again.elect().id()) == ew.w.host_name(ew.cluster->leader()->id()));
  }
  CHECK(first_leaders.size() > 1);  // not always etcd-1: the timeouts are randomized
}

TEST_CASE("a write sent to a follower is forwarded, committed on a majority and applied everywhere", "[consensus]") {
  EtcdWorld ew;
  EtcdMember& leader = ew.elect();
  const std::size_t f = ew.follower_of(leader);
  const Reply r = ew.call(f, put("k", "v1"));
  REQUIRE(r.type == Reply::Type::Array);
  CHECK(revision_of(r) == 2);  // etcd: the empty store is at revision 1
  ew.advance(500ms);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& keys = ew.member(i).store().keys();
    REQUIRE(keys.contains("k"));
    CHECK(keys.at("k").value == "v1");
  }
  const Reply read = ew.call(f, get("k"));
  REQUIRE(kvs(read).size() == 1);
  CHECK(kvs(read)[0].elements[1] == Reply::bulk("v1"));
}

TEST_CASE("the leader's crash elects a new leader in a higher term and committed writes survive", "[consensus]") {
  EtcdWorld ew;
  EtcdMember& old_leader = ew.elect();
  const std::uint64_t old_term = old_leader.raft().term();
  REQUIRE(ew.call(ew.index_of(old_leader), put("k", "v1")).type == Reply::Type::Array);
  old_leader.host().crash();
  EtcdMember& next = ew.elect();
  CHECK(&next != &old_leader);
  CHECK(next.raft().term() > old_term);
  const Reply read = ew.call(ew.index_of(next), get("k"));
  REQUIRE(kvs(read).size() == 1);
  // The old leader comes back as a follower, replays its log and catches up.
  old_leader.host().restart();
  REQUIRE(ew.call(ew.index_of(next), put("k", "v2")).type == Reply::Type::Array);
  ew.advance(2s);
  CHECK_FALSE(old_leader.raft().is_leader());
  CHECK(old_leader.store().keys().at("k").value == "v2");
  require_committed_logs_agree(ew);
}

TEST_CASE("a leader cut off in a minority steps down and commits nothing; the majority goes on", "[consensus]") {
  EtcdWorld ew(5);
  EtcdMember& old_leader = ew.elect();
  const std::size_t li = ew.index_of(old_leader);
  const std::size_t buddy = (li + 1) % 5;
  std::vector<HostId> minority{old_leader.id(), ew.member(buddy).id(), ew.a.id()};
  std::vector<HostId> majority{ew.b.id()};
  for (std::size_t i = 0; i < 5; ++i)
    if (i != li && i != buddy) majority.push_back(ew.member(i).id());
  ew.w.network().partition({minority, majority}, PartitionMode::Drop);

  // A write to the minority leader is appended but never committed.
  auto lost = std::make_shared<std::optional<Reply>>();
  ew.send(ew.a, li, put("split", "minority"), lost);
  ew.advance(2500ms);  // past one check-quorum round
  CHECK_FALSE(old_leader.raft().is_leader());
  for (int i = 0; i < 100 && !ew.cluster->leader(); ++i) ew.advance(100ms);  // split votes may take a round
  EtcdMember* next = ew.cluster->leader();
  REQUIRE(next != nullptr);
  CHECK(next != &old_leader);
  const Reply ok = ew.call(ew.index_of(*next), put("split", "majority"), &ew.b);
  REQUIRE(ok.type == Reply::Type::Array);
  while (!lost->has_value()) ew.advance(10ms);
  CHECK(**lost == Reply::error(kErrRequestTimedOut));

  ew.w.network().heal();
  ew.advance(3s);
  for (std::size_t i = 0; i < 5; ++i) CHECK(ew.member(i).store().keys().at("split").value == "majority");
  require_committed_logs_agree(ew);
}

TEST_CASE("a member that heard from its leader within an election timeout ignores vote requests", "[consensus]") {
  // A follower partitioned away campaigns again and again (PreVote is off);
  // when it returns with a higher term the others, still hearing from their
  // leader, ignore its votes — but its higher term reaches the leader in
  // its append responses and forces a new election, as in etcd 3.4.
  EtcdWorld ew;
  EtcdMember& leader = ew.elect();
  const std::size_t f = ew.follower_of(leader);
  std::vector<HostId> alone{ew.member(f).id()};
  std::vector<HostId> rest;
  for (std::size_t i = 0; i < 3; ++i)
    if (i != f) rest.push_back(ew.member(i).id());
  ew.w.network().partition({alone, rest}, PartitionMode::Drop);
  ew.advance(5s);
  CHECK(ew.member(f).raft().term() > leader.raft().term());
  CHECK(ew.member(f).raft().role() != RaftRole::Leader);
  CHECK(leader.raft().is_leader());
  ew.w.network().heal();
  ew.advance(5s);
  EtcdMember& after = ew.elect();
  CHECK(after.raft().term() >= ew.member(f).raft().term());
  require_committed_logs_agree(ew);
}

TEST_CASE("what was fsynced before the ack survives a power loss; without fsync only a crash keeps it", "[consensus]") {
  for (bool fsync : {true, false}) {
    for (bool power : {false, true}) {
      INFO("fsync " << fsync << " power loss " << power);
      EtcdWorld ew(1, 1, etcd_config(fsync));
      ew.elect();
      REQUIRE(ew.call(0, put("k", "v")).type == Reply::Type::Array);
      if (power) ew.member(0).power_loss();
      else ew.member(0).host().crash();
      ew.member(0).host().restart();
      ew.elect();
      const bool kept = kvs(ew.call(0, get("k"))).size() == 1;
      CHECK(kept == (fsync || !power));
    }
  }
}

// ---- the etcd front end --------------------------------------------------------

TEST_CASE("revisions: one per write request, versions per key, a txn's writes share one", "[consensus]") {
  EtcdWorld ew(1);
  ew.elect();
  CHECK(revision_of(ew.call(0, put("a", "1"))) == 2);
  CHECK(revision_of(ew.call(0, put("a", "2"))) == 3);
  CHECK(revision_of(ew.call(0, get("a"))) == 3);  // a read takes no revision
  const Reply txn = ew.call(0, {"TXN", "0", "2", "put", "b", "x", "0", "put", "c", "y", "0", "0"});
  CHECK(revision_of(txn) == 4);
  const auto& keys = ew.member(0).store().keys();
  CHECK(keys.at("a").create_revision == 2);
  CHECK(keys.at("a").mod_revision == 3);
  CHECK(keys.at("a").version == 2);
  CHECK(keys.at("b").mod_revision == 4);
  CHECK(keys.at("c").mod_revision == 4);
  // A delete that deletes nothing takes no revision; one that deletes does.
  CHECK(ew.call(0, {"DELETERANGE", "zzz", ""}).elements[1].integer == 0);
  CHECK(revision_of(ew.call(0, {"DELETERANGE", "a", ""})) == 5);
  CHECK(revision_of(ew.call(0, put("a", "3"))) == 6);
  CHECK(ew.member(0).store().keys().at("a").version == 1);  // a re-created key starts over
  // Prefix range.
  CHECK(kvs(ew.call(0, {"RANGE", "a", EtcdStore::prefix_end("")})).size() == 3);
  CHECK(EtcdStore::prefix_end("lock/") == "lock0");
}

TEST_CASE("txn compares: create_revision = 0 lets exactly one creator in; value on a missing key fails", "[consensus]") {
  EtcdWorld ew(3);
  ew.elect();
  const Reply first = ew.call(0, create_if_absent("lock", "A", 0));
  CHECK(first.elements[1].integer == 1);
  const Reply second = ew.call(1, create_if_absent("lock", "B", 0), &ew.b);
  CHECK(second.elements[1].integer == 0);
  // The failure branch's range shows who holds it.
  CHECK(kvs(second.elements[2].elements[0])[0].elements[1] == Reply::bulk("A"));
  const Reply missing = ew.call(0, {"TXN", "1", "value", "nokey", "=", "", "0", "0"});
  CHECK(missing.elements[1].integer == 0);
  const Reply mod = ew.call(0, {"TXN", "1", "mod", "lock", ">", "1", "0", "0"});
  CHECK(mod.elements[1].integer == 1);
  CHECK(ew.call(0, {"TXN", "1", "bogus", "lock", "=", "0", "0", "0"}).is_error());
}

TEST_CASE("a lease without keep-alives expires on the leader's clock and takes its keys", "[consensus]") {
  EtcdWorld ew;
  EtcdMember& leader = ew.elect();
  const TrueInstant t0 = ew.w.now();
  const std::int64_t id = lease_granted(ew, 0, 5);
  const Reply attached = ew.call(0, put("lock/x", "A", id));
  REQUIRE(attached.type == Reply::Type::Array);
  // Someone waits for the deletion of the key (concurrency.Mutex waitDelete).
  auto deleted = std::make_shared<std::optional<Reply>>();
  ew.send(ew.b, 1, {"WATCHDELETE", "lock/", EtcdStore::prefix_end("lock/"), std::to_string(revision_of(attached) + 1)},
          deleted);
  ew.w.scheduler().run_until(t0 + 4500ms);
  CHECK(kvs(ew.call(0, get("lock/x"))).size() == 1);
  CHECK_FALSE(deleted->has_value());
  ew.w.scheduler().run_until(t0 + 6s);
  CHECK(kvs(ew.call(0, get("lock/x"))).empty());
  REQUIRE(deleted->has_value());
  CHECK((*deleted)->elements[1] == Reply::bulk("lock/x"));
  CHECK_FALSE(ew.member(2).store().leases().contains(id));
  CHECK(leader.raft().is_leader());
}

TEST_CASE("the minimum lease TTL is ceil(1.5 election timeouts), as etcd grants it", "[consensus]") {
  EtcdWorld ew(1);
  ew.elect();
  const Reply r = ew.call(0, {"LEASEGRANT", "1"});
  CHECK(r.elements[1].integer == 2);
  CHECK(ew.call(0, {"LEASEGRANT", "0"}).is_error());
  CHECK(ew.call(0, put("k", "v", 12345)) == Reply::error(kErrLeaseNotFound));
  // In whole heartbeat ticks, as etcdserver.NewServer counts: 2050 ms of
  // 100 ms ticks is 20 ticks, (3 * 20) / 2 = 30 ticks = 3 s (not ceil(3.075 s) = 4).
  EtcdConfig odd = etcd_config();
  odd.raft.election_timeout = 2050ms;
  CHECK(odd.min_lease_ttl() == 3);
  odd.raft.election_timeout = 1000ms;
  CHECK(odd.min_lease_ttl() == 2);
}

TEST_CASE("keep-alives through a follower keep a lease alive; revoke deletes its keys", "[consensus]") {
  EtcdWorld ew;
  EtcdMember& leader = ew.elect();
  const std::size_t f = ew.follower_of(leader);
  const std::int64_t id = lease_granted(ew, f, 3);
  REQUIRE(ew.call(f, put("k", "v", id)).type == Reply::Type::Array);
  for (int i = 0; i < 20; ++i) {
    const Reply ka = ew.call(f, {"LEASEKEEPALIVE", std::to_string(id)});
    REQUIRE(ka.type == Reply::Type::Array);
    CHECK(ka.elements[1].integer == 3);
    ew.advance(1s);
  }
  CHECK(kvs(ew.call(f, get("k"))).size() == 1);
  CHECK(ew.call(f, {"LEASEREVOKE", std::to_string(id)}).type == Reply::Type::Array);
  CHECK(kvs(ew.call(f, get("k"))).empty());
  // A keep-alive for a revoked lease answers TTL 0.
  CHECK(ew.call(f, {"LEASEKEEPALIVE", std::to_string(id)}).elements[1].integer == 0);
}

TEST_CASE("a new leader refreshes every lease: it outlives its TTL by the election", "[consensus]") {
  EtcdWorld ew;
  EtcdMember& old_leader = ew.elect();
  const std::size_t f = ew.follower_of(old_leader);
  const TrueInstant t0 = ew.w.now();
  const std::int64_t id = lease_granted(ew, f, 5);
  REQUIRE(ew.call(f, put("k", "v", id)).type == Reply::Type::Array);
  ew.w.scheduler().run_until(t0 + 3s);
  old_leader.host().crash();
  EtcdMember& next = ew.elect();
  const TrueInstant promoted = ew.w.now();
  // Promote(electionTimeout): expiry = now + 1 s + 5 s on the new leader.
  REQUIRE(next.lease_expiry(id).has_value());
  CHECK(*next.lease_expiry(id) > next.host().monotonic_now() + 5s);
  ew.w.scheduler().run_until(t0 + 6s);  // the old leader would have revoked it by now
  CHECK(kvs(ew.call(ew.index_of(next), get("k"))).size() == 1);
  ew.w.scheduler().run_until(promoted + 7s);
  CHECK(kvs(ew.call(ew.index_of(next), get("k"))).empty());
}

TEST_CASE("a follower's lease table has no expiry, and a member's clock step changes nothing", "[consensus]") {
  EtcdWorld ew;
  EtcdMember& leader = ew.elect();
  const std::size_t f = ew.follower_of(leader);
  const std::int64_t id = lease_granted(ew, f, 5);
  CHECK_FALSE(ew.member(f).lease_expiry(id).has_value());
  REQUIRE(leader.lease_expiry(id).has_value());
  const LocalInstant before = *leader.lease_expiry(id);
  leader.host().clock().step(std::chrono::hours(1));  // the wall clock only
  ew.advance(2s);
  CHECK(*leader.lease_expiry(id) == before);
  CHECK(ew.member(f).store().leases().contains(id));
}

TEST_CASE("a watch from a past revision sees a deletion it missed", "[consensus]") {
  EtcdWorld ew(1);
  ew.elect();
  const std::int64_t created = revision_of(ew.call(0, put("p/1", "x")));
  ew.call(0, {"DELETERANGE", "p/1", ""});
  const Reply w = ew.call(0, {"WATCHDELETE", "p/", EtcdStore::prefix_end("p/"), std::to_string(created)});
  CHECK(w.elements[0].integer == created + 1);
  CHECK(w.elements[1] == Reply::bulk("p/1"));
}

// The Jepsen etcd 3.4.3 story, on the wire: A holds a lease-backed key and
// keeps the lease alive (concurrency.Session's keep-alive loop runs on A, so
// a GC pause of A stops it too); A stops past its TTL; the leader revokes
// the lease; B creates the key; A's first keep-alive after the pause gets
// TTL 0, but nothing made A stop believing in between — only the
// create_revision, used as a fencing token, orders the two holders.
TEST_CASE("Jepsen's pause: a paused holder's lease expires, B acquires, only create_revision orders them", "[consensus]") {
  EtcdWorld ew;
  ew.elect();
  const std::int64_t lease_a = lease_granted(ew, 0, 5);
  const Reply a_acquire = ew.call(0, create_if_absent("lock", "A", lease_a));
  REQUIRE(a_acquire.elements[1].integer == 1);
  const std::int64_t a_token = ew.member(0).store().keys().at("lock").create_revision;
  auto ttls = std::make_shared<std::vector<std::int64_t>>();
  auto keep_alive = [](EtcdWorld& e, std::int64_t id, std::shared_ptr<std::vector<std::int64_t>> out) -> Task<void> {
    for (;;) {
      co_await e.a.sleep(1500ms);  // clientv3 keeps alive about every TTL/3
      Connection& c = e.w.network().connect(e.a.id(), e.member(0).id());
      Argv keep{"LEASEKEEPALIVE", std::to_string(id)};  // GCC 12: no braced argv inside co_await
      const Reply r = co_await c.call(std::move(keep), 2s);
      if (r.type == Reply::Type::Array) out->push_back(r.elements[1].integer);
    }
  };
  ew.a.spawn(keep_alive(ew, lease_a, ttls));
  ew.advance(8s);
  REQUIRE(kvs(ew.call(1, get("lock"), &ew.b)).size() == 1);  // kept alive past its TTL
  REQUIRE_FALSE(ttls->empty());
  CHECK(ttls->back() == 5);
  ew.a.pause(10s);
  ew.advance(7s);
  const std::int64_t lease_b = lease_granted(ew, 1, 5);
  const Reply b_acquire = ew.call(1, create_if_absent("lock", "B", lease_b), &ew.b);
  REQUIRE(b_acquire.elements[1].integer == 1);
  const std::int64_t b_token = ew.member(1).store().keys().at("lock").create_revision;
  CHECK(b_token > a_token);  // a fencing storage rejects A's token from now on
  ew.advance(5s);            // A runs again; its next keep-alive reveals the loss
  CHECK(ttls->back() == 0);
}

// ---- the ZooKeeper front end ------------------------------------------------------

namespace {

ZkConfig zk_config() {
  ZkConfig c;
  c.tick = 2s;
  c.sync_limit = 2;  // a quick ensemble for tests: drop out after 4 s
  return c;
}

struct ZkWorld : CpWorld<ZkMember> {
  explicit ZkWorld(std::size_t members = 3, std::uint64_t seed = 1) : CpWorld("zk", members, seed, zk_config()) {}

  std::int64_t session(std::size_t m, std::int64_t timeout_ms, Host* client = nullptr) {
    const Reply r = call(m, {"CONNECT", "0", std::to_string(timeout_ms)}, client);
    REQUIRE(r.type == Reply::Type::Array);
    return r.elements[0].integer;
  }
  Reply create(std::size_t m, std::int64_t s, const std::string& path, const std::string& mode) {
    return call(m, {"CREATE", std::to_string(s), path, "", mode});
  }
  std::vector<std::string> children(std::size_t m, std::int64_t s, const std::string& path) {
    std::vector<std::string> out;
    for (const Reply& e : call(m, {"GETCHILDREN", std::to_string(s), path}).elements) out.push_back(e.str);
    return out;
  }
};

}  // namespace

TEST_CASE("zookeeper: sequential children number by the parent's creates; czxid grows; ephemerals have no children", "[consensus]") {
  ZkWorld zw;
  zw.elect();
  const std::int64_t s = zw.session(0, 10000);
  REQUIRE(zw.create(0, s, "/locks", "persistent").type == Reply::Type::Array);
  const Reply first = zw.create(1, s, "/locks/lock-", "ephemeral_sequential");
  const Reply second = zw.create(2, s, "/locks/lock-", "ephemeral_sequential");
  CHECK(first.elements[0] == Reply::bulk("/locks/lock-0000000000"));
  CHECK(second.elements[0] == Reply::bulk("/locks/lock-0000000001"));
  CHECK(second.elements[1].integer > first.elements[1].integer);
  // zxid: epoch (the raft term) in the high 32 bits.
  CHECK((first.elements[1].integer >> 32) == static_cast<std::int64_t>(zw.cluster->leader()->raft().term()));
  CHECK(zw.children(0, s, "/locks") == std::vector<std::string>{"lock-0000000000", "lock-0000000001"});
  CHECK(zw.create(0, s, "/locks", "persistent") == Reply::error("NodeExists"));
  CHECK(zw.create(0, s, "/nope/x", "persistent") == Reply::error("NoNode"));
  CHECK(zw.create(0, s, "/locks/lock-0000000000/x", "persistent") == Reply::error("NoChildrenForEphemerals"));
  CHECK(zw.call(0, {"DELETE", std::to_string(s), "/locks", "-1"}) == Reply::error("NotEmpty"));
  CHECK(zw.call(0, {"DELETE", std::to_string(s), "/locks/lock-0000000000", "3"}) == Reply::error("BadVersion"));
  REQUIRE(zw.call(0, {"DELETE", std::to_string(s), "/locks/lock-0000000000", "0"}).type == Reply::Type::Array);
  // A delete bumps cversion but not the sequence: real ZooKeeper 3.8 numbers
  // the next child 2 (measured by the [cp_differential] test; zk_tree.hpp).
  CHECK(zw.create(0, s, "/locks/lock-", "ephemeral_sequential").elements[0] == Reply::bulk("/locks/lock-0000000002"));
  CHECK(zw.cluster->leader()->tree().nodes().at("/locks").cversion == 4);
  const Reply stat = zw.call(1, {"EXISTS", std::to_string(s), "/locks/lock-0000000001"});
  CHECK(stat.elements[3].integer == s);  // ephemeralOwner
  CHECK(zw.call(1, {"EXISTS", std::to_string(s), "/locks/lock-0000000000"}).is_nil());
  CHECK(zw.children(0, s, "/") == std::vector<std::string>{"locks"});
}

// QuorumPeer starts LOOKING and FastLeaderElection decides finalizeWait
// (200 ms) after a quorum's notifications agree: the highest (epoch, zxid,
// sid) leads — with equal logs the highest id. A restarted member is told
// of the leader and joins it: no new term.
TEST_CASE("zookeeper: a fresh ensemble elects its highest member within finalizeWait; a restarted member joins it",
          "[consensus]") {
  ZkWorld zw;
  zw.advance(150ms);
  CHECK(zw.cluster->leader() == nullptr);  // still waiting out finalizeWait
  zw.advance(100ms);
  REQUIRE(zw.cluster->leader() != nullptr);
  ZkMember& leader = *zw.cluster->leader();
  CHECK(&leader == &zw.member(2));
  CHECK(leader.raft().term() == 1);
  zw.advance(2s);
  for (std::size_t i = 0; i < 3; ++i) CHECK(zw.member(i).raft().leader() == leader.id());
  zw.member(0).host().crash();
  zw.advance(1s);
  zw.member(0).host().restart();
  zw.advance(2s);
  CHECK(zw.cluster->leader() == &leader);
  CHECK(leader.raft().term() == 1);
  CHECK(zw.member(0).raft().leader() == leader.id());
}

TEST_CASE("zookeeper: a session without pings is expired by the leader and its ephemerals go", "[consensus]") {
  ZkWorld zw;
  zw.elect();
  const TrueInstant t0 = zw.w.now();
  const std::int64_t s = zw.session(0, 1000);  // clamped up to 2 ticks = 4 s
  const Reply connected = zw.call(0, {"CONNECT", std::to_string(s), "1000"});
  CHECK(connected.elements[1].integer == 4000);
  REQUIRE(zw.create(0, s, "/lock", "ephemeral").type == Reply::Type::Array);
  auto deleted = std::make_shared<std::optional<Reply>>();
  zw.send(zw.b, 1, {"WATCHDELETE", "0", "/lock"}, deleted);
  zw.w.scheduler().run_until(t0 + 3500ms);
  CHECK_FALSE(deleted->has_value());
  CHECK(zw.member(2).tree().nodes().contains("/lock"));
  // Deadline: roundToNextInterval(last touch + 4 s), at most one tick later.
  zw.w.scheduler().run_until(t0 + 7s);
  REQUIRE(deleted->has_value());
  CHECK((*deleted)->elements[0] == Reply::bulk("/lock"));
  CHECK_FALSE(zw.member(2).tree().sessions().contains(s));
  // The client learns it only when it reconnects: negotiated timeout 0.
  CHECK(zw.call(1, {"CONNECT", std::to_string(s), "4000"}).elements[1].integer == 0);
  CHECK(zw.create(1, s, "/again", "ephemeral") == Reply::error("SessionExpired"));
}

TEST_CASE("zookeeper: pings through a follower keep a session; a new leader restarts every session's timeout", "[consensus]") {
  ZkWorld zw;
  ZkMember& leader = zw.elect();
  const std::size_t f = zw.follower_of(leader);
  const std::int64_t s = zw.session(f, 6000);
  REQUIRE(zw.create(f, s, "/lock", "ephemeral").type == Reply::Type::Array);
  for (int i = 0; i < 10; ++i) {
    REQUIRE(zw.call(f, {"PING", std::to_string(s)}).type == Reply::Type::Array);
    zw.advance(2s);  // readTimeout/2 = 2 s for a 6 s session
  }
  CHECK(zw.member(f).tree().nodes().contains("/lock"));
  // The leader dies; the last touch was just now. The new leader, elected
  // after syncLimit ticks and more, tracks the session afresh from then.
  zw.call(f, {"PING", std::to_string(s)});
  leader.host().crash();
  ZkMember& next = zw.elect();
  REQUIRE(next.session_expiry(s).has_value());
  CHECK(*next.session_expiry(s) >= next.host().monotonic_now() + 6s);
  zw.advance(4s);
  CHECK(next.tree().nodes().contains("/lock"));
  zw.advance(6s);
  CHECK_FALSE(next.tree().nodes().contains("/lock"));
}

TEST_CASE("zookeeper: a member in a minority stops serving clients", "[consensus]") {
  ZkWorld zw;
  ZkMember& leader = zw.elect();
  const std::size_t f = zw.follower_of(leader);
  const std::int64_t s = zw.session(f, 8000);
  std::vector<HostId> alone{zw.member(f).id(), zw.a.id()};
  std::vector<HostId> rest{zw.b.id()};
  for (std::size_t i = 0; i < 3; ++i)
    if (i != f) rest.push_back(zw.member(i).id());
  zw.w.network().partition({alone, rest}, PartitionMode::Drop);
  zw.advance(10s);
  CHECK(zw.call(f, {"PING", std::to_string(s)}) == Reply::error(kErrConnectionLoss));
  // The majority expired the session meanwhile (no touch reached it).
  zw.advance(10s);
  CHECK_FALSE(leader.tree().sessions().contains(s));
  zw.w.network().heal();
  zw.advance(10s);
  CHECK(zw.call(f, {"CONNECT", std::to_string(s), "8000"}).elements[1].integer == 0);
  require_committed_logs_agree(zw);
}

// ---- the ZooKeeper client and the CP locks --------------------------------------------

namespace {

using locksim::locks::Lease;
using locksim::locks::Lock;
using locksim::locks::LockConfig;
using locksim::locks::SimEtcdConn;
using locksim::locks::SimRuntime;
using locksim::locks::SimZkConn;
using locksim::locks::ZkState;

template <class M>
std::vector<HostId> member_ids(CpWorld<M>& cw) {
  std::vector<HostId> ids;
  for (std::size_t i = 0; i < cw.cluster->size(); ++i) ids.push_back(cw.member(i).id());
  return ids;
}

// One client of a CP lock: its runtime, connection and lock, destroyed
// before the world.
struct CpClient {
  SimRuntime rt;
  std::unique_ptr<SimEtcdConn> etcd;
  std::unique_ptr<SimZkConn> zk;
  std::unique_ptr<Lock> lock;

  template <class M>
  CpClient(CpWorld<M>& cw, Host& host, const std::string& kind, LockConfig config, std::size_t first)
      : rt(host, 0, [](std::size_t) { return kNoHost; }, 5s) {
    if constexpr (std::is_same_v<M, EtcdMember>) etcd = std::make_unique<SimEtcdConn>(host, member_ids(cw), 20s, first);
    else zk = std::make_unique<SimZkConn>(host, member_ids(cw), first);
    if (etcd) rt.attach_service(etcd.get());
    else rt.attach_service(zk.get());
    lock = locksim::locks::make_lock(kind, rt, config);
  }
  ~CpClient() { lock.reset(); }
};

struct Held {
  TrueInstant from, to;
  std::optional<std::int64_t> token;
};

LockConfig cp_lock_config(Duration ttl) {
  LockConfig c;
  c.key = "lock:job";
  c.ttl = ttl;
  c.retry = 50ms;
  c.acquire_timeout = 30s;
  return c;
}

// Takes the lock `rounds` times, holding it 400 ms each time.
Task<void> take_turns(World& w, Host& h, Lock& lock, int rounds, std::shared_ptr<std::vector<Held>> out) {
  for (int i = 0; i < rounds; ++i) {
    std::optional<Lease> lease = co_await lock.try_acquire();
    if (!lease) continue;
    Held held{w.now(), {}, lease->fencing_token};
    co_await h.sleep(400ms);
    held.to = w.now();
    out->push_back(held);
    (void)co_await lock.release(*lease);
    co_await h.sleep(30ms);
  }
}

// Two clients take turns; the holds never overlap, and fencing tokens grow.
template <class World_>
void check_mutual_exclusion(World_& cw, const std::string& kind) {
  INFO(kind);
  CpClient a(cw, cw.a, kind, cp_lock_config(6s), 0);
  CpClient b(cw, cw.b, kind, cp_lock_config(6s), 1);
  auto held = std::make_shared<std::vector<Held>>();
  cw.a.spawn(take_turns(cw.w, cw.a, *a.lock, 6, held));
  cw.b.spawn(take_turns(cw.w, cw.b, *b.lock, 6, held));
  cw.advance(30s);
  REQUIRE(held->size() == 12);
  std::sort(held->begin(), held->end(), [](const Held& x, const Held& y) { return x.from < y.from; });
  for (std::size_t i = 1; i < held->size(); ++i) {
    CHECK((*held)[i].from >= (*held)[i - 1].to);
    if ((*held)[i].token) CHECK(*(*held)[i].token > *(*held)[i - 1].token);
  }
  const bool fenced = locksim::locks::find_lock(kind)->fencing;
  CHECK((*held)[0].token.has_value() == fenced);
}

}  // namespace

TEST_CASE("the CP locks are registered for their topology, and Redis scenarios refuse them", "[consensus]") {
  using locksim::locks::Topology;
  const std::pair<const char*, Topology> expected[] = {{"etcd-mutex", Topology::Etcd},
                                                       {"etcd-fenced", Topology::Etcd},
                                                       {"zk-lock", Topology::ZooKeeper},
                                                       {"zk-fenced", Topology::ZooKeeper}};
  for (const auto& [name, topology] : expected) {
    const auto info = locksim::locks::find_lock(name);
    REQUIRE(info.has_value());
    CHECK(info->topology == topology);
    CHECK(info->fencing == std::string(name).ends_with("-fenced"));
    CHECK(locksim::locks::topology_mismatch(*info, Topology::Redis).has_value());
    CHECK_FALSE(locksim::locks::topology_mismatch(*info, topology).has_value());
  }
  CHECK_FALSE(locksim::locks::topology_mismatch(*locksim::locks::find_lock("token"), Topology::Redis).has_value());
}

// Runtime::service<Conn>() (locks/runtime.hpp): a lock reaches its
// service's client by the interface's type, never a null pointer; the live
// service rows (live/live_service_table.hpp) cover the CP services, keyed as the
// core rows are.
TEST_CASE("a lock reaches its service by type; a runtime without it throws MissingService", "[consensus]") {
  World world(1);
  Host& client = world.add_host("A");
  Host& member = world.add_host("etcd-1");
  SimRuntime rt(client, 0, [](std::size_t) { return kNoHost; }, 5s);
  CHECK_THROWS_AS(rt.service<locksim::locks::EtcdConn>(), locksim::locks::MissingService);
  CHECK_THROWS_WITH(rt.service<locksim::locks::ZkConn>(), Catch::Contains("its zookeeper connection"));
  auto etcd = std::make_unique<SimEtcdConn>(client, std::vector<HostId>{member.id()}, 5s);
  rt.attach_service(etcd.get());
  CHECK(&rt.service<locksim::locks::EtcdConn>() == etcd.get());
  CHECK_THROWS_AS(rt.service<locksim::locks::ZkConn>(), locksim::locks::MissingService);
  rt.attach_service(nullptr);
  etcd.reset();
  for (const scenarios::ServiceRow* row : scenarios::services()) {
    INFO(row->table);
    const live::LiveServiceRow* live_row = live::live_service_row(row->topology);
    CHECK((live_row != nullptr) == (row->cp != nullptr));
    if (!live_row) continue;
    CHECK(live_row->topology == row->topology);
    CHECK((live_row->start_cluster && live_row->scale_refusal && live_row->timing_note && live_row->connect));
    CHECK_FALSE(live_row->no_clock_step.empty());
  }
}

TEST_CASE("etcd-mutex and etcd-fenced: two clients never hold the lock at once without faults", "[consensus]") {
  for (const char* kind : {"etcd-mutex", "etcd-fenced"}) {
    EtcdWorld ew;
    ew.elect();
    check_mutual_exclusion(ew, kind);
  }
}

TEST_CASE("zk-lock and zk-fenced: two clients never hold the lock at once without faults", "[consensus]") {
  for (const char* kind : {"zk-lock", "zk-fenced"}) {
    ZkWorld zw;
    zw.elect();
    check_mutual_exclusion(zw, kind);
  }
}

TEST_CASE("a ZooKeeper client learns of its session's loss as the real one does: disconnected, then expired", "[consensus]") {
  ZkWorld zw;
  zw.elect();
  SimZkConn zk(zw.a, member_ids(zw));
  bool started = false;
  auto start = [](SimZkConn& c, bool& done) -> Task<void> {
    REQUIRE((co_await c.start(6s)).ok());
    done = true;
  };
  zw.a.spawn(start(zk, started));
  while (!started) zw.advance(10ms);
  CHECK(zk.state() == ZkState::Connected);
  zw.advance(20s);  // pings keep it
  CHECK(zk.state() == ZkState::Connected);
  CHECK(zw.cluster->leader()->tree().sessions().contains(zk.session_id()));
  std::vector<HostId> cut{zw.a.id()};
  zw.w.network().partition({cut, member_ids(zw)}, PartitionMode::Drop);
  zw.advance(6s);
  CHECK(zk.state() == ZkState::Disconnected);  // not expired: it cannot know yet
  zw.advance(10s);
  CHECK_FALSE(zw.cluster->leader()->tree().sessions().contains(zk.session_id()));
  CHECK(zk.state() == ZkState::Disconnected);
  zw.w.network().heal();
  zw.advance(5s);
  CHECK(zk.state() == ZkState::Expired);
}

// ---- ClientCnxn's timing (issue 36) ------------------------------------------------

namespace {

// Starts `zk` with `timeout` and runs the world until it is connected.
void start_session(ZkWorld& zw, SimZkConn& zk, Duration timeout) {
  bool started = false;
  auto start = [](SimZkConn& c, Duration t, bool& done) -> Task<void> {
    const locksim::locks::CpStatus status = co_await c.start(t);
    REQUIRE(status.ok());
    done = true;
  };
  zw.a.spawn(start(zk, timeout, started));
  while (!started) zw.advance(1ms);
}

// Runs the world in 1 ms steps while `zk` is in `state` (at most `limit`):
// the instant it left it.
TrueInstant while_in(ZkWorld& zw, SimZkConn& zk, ZkState state, Duration limit) {
  const TrueInstant end = zw.w.now() + limit;
  while (zk.state() == state && zw.w.now() < end) zw.advance(1ms);
  return zw.w.now();
}

// A client with a 9 s session (readTimeout 6 s, a ping after 3 s without a
// send) whose server, zk-1, freezes `freeze_after` after the connection:
// how long after the freeze the client says Disconnected.
Duration freeze_to_disconnected(Duration freeze_after) {
  ZkWorld zw;
  zw.elect();
  SimZkConn zk(zw.a, member_ids(zw));
  start_session(zw, zk, 9s);
  zw.w.scheduler().run_until(zw.w.now() + freeze_after);
  zw.member(0).host().pause(60s);  // SIGSTOP: the connection stays open, nothing answers
  const TrueInstant frozen = zw.w.now();
  const TrueInstant lost = while_in(zw, zk, ZkState::Connected, 30s);
  REQUIRE(zk.state() == ZkState::Disconnected);
  return lost - frozen;
}

}  // namespace

TEST_CASE("a ZooKeeper client pings after readTimeout/2 without a send; a request counts as one", "[consensus]") {
  ZkWorld zw;
  zw.elect();
  SimZkConn zk(zw.a, member_ids(zw));
  start_session(zw, zk, 9s);
  REQUIRE(zk.read_timeout() == 6s);  // 2/3 of the negotiated 9 s
  REQUIRE(zk.ping_interval() == 3s);
  const TrueInstant connected = zw.w.now();
  const std::uint64_t calls = zk.calls();
  zw.w.scheduler().run_until(connected + 2990ms);
  CHECK(zk.calls() == calls);
  zw.w.scheduler().run_until(connected + 3010ms);
  CHECK(zk.calls() == calls + 1);  // the first ping
  bool answered = false;
  // The co_await outside Catch's macro: CHECK may expand its expression twice.
  auto exists = [](SimZkConn& c, bool& done) -> Task<void> {
    const locksim::locks::ZkStat stat = co_await c.exists("/nothing");
    CHECK(stat.ok());
    done = true;
  };
  zw.w.scheduler().run_until(connected + 4s);
  zw.a.spawn(exists(zk, answered));
  zw.w.scheduler().run_until(connected + 6500ms);
  CHECK(answered);
  CHECK(zk.calls() == calls + 2);  // the request moved the next ping to 3 s after it
  zw.w.scheduler().run_until(connected + 7010ms);
  CHECK(zk.calls() == calls + 3);
  zw.advance(60s);
  CHECK(zk.state() == ZkState::Connected);
}

// ClientCnxn.SendThread.run: `to = readTimeout - idleRecv`. Frozen right
// after a ping's answer, the client has just received: it waits a whole
// readTimeout. Frozen just before a ping, it last received readTimeout/2
// ago: half. (The old model waited for its ping's own timeout: up to a
// whole session timeout after the last answer.)
TEST_CASE("a ZooKeeper client is disconnected readTimeout after its last receive: readTimeout/2 .. readTimeout after a freeze",
          "[consensus]") {
  // The instants are those of 1 ms polling steps: +-1 ms.
  const Duration before_ping = freeze_to_disconnected(2900ms);  // ping at 3 s, unanswered
  CHECK(before_ping >= 6s - 2900ms - 1ms);                      // from the connect answer
  CHECK(before_ping <= 6s - 2900ms + 1ms);
  const Duration after_ping = freeze_to_disconnected(3100ms);  // the 3 s ping answered
  CHECK(after_ping >= 6s - 100ms);
  CHECK(after_ping <= 6s - 100ms + 8ms);  // the answer's round trip: 2..6 ms
}

TEST_CASE("a ZooKeeper request waiting on a frozen server fails with ConnectionLoss when the connection is lost", "[consensus]") {
  ZkWorld zw;
  zw.elect();
  SimZkConn zk(zw.a, member_ids(zw));
  start_session(zw, zk, 9s);
  const TrueInstant connected = zw.w.now();
  zw.w.scheduler().run_until(connected + 3100ms);  // the 3 s ping answered
  zw.member(0).host().pause(60s);
  zw.w.scheduler().run_until(connected + 5s);
  std::optional<std::string> error;
  TrueInstant failed{};
  auto create = [](ZkWorld& w, SimZkConn& c, std::optional<std::string>& out, TrueInstant& at) -> Task<void> {
    out = (co_await c.create("/x", "", "persistent")).error;
    at = w.w.now();
  };
  zw.a.spawn(create(zw, zk, error, failed));
  while_in(zw, zk, ZkState::Connected, 10s);
  zw.advance(1ms);
  REQUIRE(error.has_value());
  CHECK(*error == locksim::locks::kZkConnectionLoss);
  // At the read deadline (~9 s), 4 s after the request: no per-request timeout.
  CHECK(failed >= connected + 9s);
  CHECK(failed <= connected + 9s + 10ms);
  // The client moves on to the next server with the same session.
  const TrueInstant back = while_in(zw, zk, ZkState::Disconnected, 10s);
  CHECK(zk.state() == ZkState::Connected);
  CHECK(back - failed <= 1s + 10ms);  // startConnect's random 0..999 ms, then the answer
}

// Curator's ConnectionState / kazoo's KazooState as zk-lock sees them:
// SUSPENDED (Disconnected) ends a tracked lease's validity, RECONNECTED
// (the same session) restores it, LOST (Expired) ends it for good; the next
// attempt starts a new session and can take the lock again.
TEST_CASE("zk-lock through SUSPENDED, RECONNECTED and LOST: validity follows the session, a new session acquires again",
          "[consensus]") {
  ZkWorld zw;
  zw.elect();
  LockConfig config = cp_lock_config(12s);  // readTimeout 8 s
  config.track_validity = true;
  CpClient a(zw, zw.a, "zk-lock", config, 0);
  auto lease = std::make_shared<std::optional<Lease>>();
  auto acquire = [](Lock& l, std::shared_ptr<std::optional<Lease>> out) -> Task<void> {
    *out = co_await l.try_acquire();
  };
  zw.a.spawn(acquire(*a.lock, lease));
  while (!lease->has_value()) zw.advance(10ms);
  REQUIRE(lease->value().key.size() > 0);
  const std::int64_t first_session = a.zk->session_id();
  CHECK(a.lock->still_valid(**lease));
  const std::vector<HostId> cut{zw.a.id()};
  // A short cut: SUSPENDED, then RECONNECTED well before the session expires.
  zw.w.network().partition({cut, member_ids(zw)}, PartitionMode::Hold);
  while_in(zw, *a.zk, ZkState::Connected, 20s);
  CHECK(a.zk->state() == ZkState::Disconnected);
  CHECK_FALSE(a.lock->still_valid(**lease));
  zw.w.network().heal();
  while_in(zw, *a.zk, ZkState::Disconnected, 5s);
  REQUIRE(a.zk->state() == ZkState::Connected);
  CHECK(a.zk->session_id() == first_session);
  CHECK(a.lock->still_valid(**lease));
  // A long cut: the ensemble expires the session; the client hears it on reconnect.
  zw.w.network().partition({cut, member_ids(zw)}, PartitionMode::Drop);
  zw.advance(40s);
  CHECK(a.zk->state() == ZkState::Disconnected);
  zw.w.network().heal();
  while_in(zw, *a.zk, ZkState::Disconnected, 20s);
  REQUIRE(a.zk->state() == ZkState::Expired);
  CHECK_FALSE(a.lock->still_valid(**lease));
  auto again = std::make_shared<std::optional<Lease>>();
  zw.a.spawn(acquire(*a.lock, again));
  for (int i = 0; i < 500 && !again->has_value(); ++i) zw.advance(10ms);
  REQUIRE(again->has_value());
  CHECK(a.zk->session_id() != first_session);
  CHECK(a.lock->still_valid(**again));
  CHECK((*again)->key != (*lease)->key);
}

// ZooKeeperServer.processConnectRequest clamps the session timeout into
// [minSessionTimeout, maxSessionTimeout] = 2..20 ticks (measured on
// ZooKeeper 3.8, tick 2 s: 1000 -> 4000, 60000 -> 40000 ms); etcd's lessor
// raises a TTL below ceil(1.5 election timeouts). The run says so.
TEST_CASE("a ZooKeeper session timeout outside 2..20 ticks runs clamped and the run says so; etcd's raised TTL too",
          "[consensus]") {
  using locksim::scenarios::cp_ttl_adjustments;
  auto scenario = [](const std::string& table, const std::string& ttl) {
    auto s = locksim::scenarios::load_scenario_text("name = \"adjust\"\nduration = \"8s\"\n" + table + "\n[lock]\nttl = \"" +
                                                        ttl + "\"\n[[client]]\nname = \"A\"\nstart = \"3s\"\n",
                                                    "adjust.toml");
    INFO((s.ok() ? std::string() : s.error().to_string()));
    REQUIRE(s.ok());
    return *s;
  };
  const std::string zk = "[zookeeper]\ntick = \"2s\"";
  using Lines = std::vector<std::string>;
  CHECK(cp_ttl_adjustments(scenario(zk, "1s")) ==
        Lines{"ZooKeeper negotiates the session timeout 1s to 4s (the server clamps it to 2..20 ticks of 2s: 4s .. 40s)"});
  CHECK(cp_ttl_adjustments(scenario(zk, "60s")) ==
        Lines{"ZooKeeper negotiates the session timeout 60s to 40s (the server clamps it to 2..20 ticks of 2s: 4s .. 40s)"});
  CHECK(cp_ttl_adjustments(scenario(zk, "10s")).empty());
  CHECK(cp_ttl_adjustments(scenario("[etcd]\nelection_timeout = \"2s\"", "1s")) ==
        Lines{"etcd raises the lease TTL 1s to its minimum 3s (1.5 election timeouts of 2s, rounded up to seconds)"});
  CHECK(cp_ttl_adjustments(scenario("[etcd]", "5s")).empty());

  const auto run = locksim::scenarios::run_scenario(scenario(zk, "1s"), {});
  REQUIRE(run.ok());
  CHECK(run->matched);  // the clamped session works: A takes the lock
  CHECK(run->summary.acquisitions == 1);
  REQUIRE(run->adjusted.size() == 1);
  CHECK_THAT(locksim::reports::run_to_text(*run, ""),
             Catch::Contains("\nadjusted  ZooKeeper negotiates the session timeout 1s to 4s"));
  CHECK(locksim::reports::run_to_json(*run)["adjusted"] == nlohmann::ordered_json(run->adjusted));
  const auto plain = locksim::scenarios::run_scenario(scenario(zk, "10s"), {});
  REQUIRE(plain.ok());
  CHECK_FALSE(locksim::reports::run_to_json(*plain).contains("adjusted"));
}

// Jepsen's pause through the lock code: A holds the lock and pauses past
// its TTL / session timeout; B acquires; A still holds its Lease (nothing
// ended its belief); only the fenced variants' tokens order the two.
template <class World_>
void check_pause_story(World_& cw, const std::string& kind, bool track_validity) {
  INFO(kind << " track_validity " << track_validity);
  LockConfig config = cp_lock_config(4s);
  config.track_validity = track_validity;
  CpClient a(cw, cw.a, kind, config, 0);
  CpClient b(cw, cw.b, kind, config, 1);
  auto a_lease = std::make_shared<std::optional<Lease>>();
  auto b_lease = std::make_shared<std::optional<Lease>>();
  auto acquire = [](Lock& l, std::shared_ptr<std::optional<Lease>> out) -> Task<void> {
    *out = co_await l.try_acquire();
  };
  cw.a.spawn(acquire(*a.lock, a_lease));
  while (!a_lease->has_value()) cw.advance(10ms);
  cw.advance(1s);
  cw.b.spawn(acquire(*b.lock, b_lease));
  cw.advance(2s);
  CHECK_FALSE(b_lease->has_value());  // A's lease is alive: B waits
  cw.a.pause(20s);
  for (int i = 0; i < 200 && !b_lease->has_value(); ++i) cw.advance(100ms);
  REQUIRE(b_lease->has_value());  // A's lease/session expired while it was paused
  CHECK(cw.a.paused());
  cw.advance(20s);  // A runs again, still holding its Lease
  CHECK(a.lock->still_valid(**a_lease) == !track_validity);
  if (locksim::locks::find_lock(kind)->fencing) CHECK(*(*b_lease)->fencing_token > *(*a_lease)->fencing_token);
}

TEST_CASE("Jepsen's pause through etcd-mutex and zk-lock: both believe; fencing tokens order them", "[consensus]") {
  for (const char* kind : {"etcd-mutex", "etcd-fenced"})
    for (bool track : {false, true}) {
      EtcdWorld ew;
      ew.elect();
      check_pause_story(ew, kind, track);
    }
  for (const char* kind : {"zk-lock", "zk-fenced"})
    for (bool track : {false, true}) {
      ZkWorld zw;
      zw.elect();
      check_pause_story(zw, kind, track);
    }
}

// ---- determinism -----------------------------------------------------------------

namespace {

// A run with a writer and crashes/partitions chosen by the test: the digest.
std::uint64_t faulty_run(std::uint64_t seed, std::uint32_t crash_member, std::int64_t crash_ms, bool partition) {
  EtcdWorld ew(3, seed);
  auto writer = [](EtcdWorld& e) -> Task<void> {
    for (int i = 0;; ++i) {
      Connection& c = e.w.network().connect(e.a.id(), e.member(static_cast<std::size_t>(i) % 3).id());
      (void)co_await c.call(put("k", std::to_string(i)), 2s);
      co_await e.a.sleep(150ms);
    }
  };
  ew.a.spawn(writer(ew));
  ew.advance(std::chrono::milliseconds(crash_ms));
  ew.member(crash_member % 3).host().crash();
  if (partition) ew.w.network().partition({{ew.member(0).id()}, {ew.member(1).id(), ew.member(2).id()}}, PartitionMode::Hold);
  ew.advance(3s);
  ew.member(crash_member % 3).host().restart();
  ew.w.network().heal();
  ew.advance(3s);
  RC_ASSERT(committed_logs_agree(ew));
  return ew.w.trace().digest();
}

}  // namespace

TEST_CASE("consensus runs are deterministic: same seed and faults, same trace digest", "[consensus]") {
  rc::prop("same seed => same digest", [] {
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1000);
    const auto member = *rc::gen::inRange<std::uint32_t>(0, 3);
    const auto at = *rc::gen::inRange<std::int64_t>(500, 4000);
    const bool partition = *rc::gen::arbitrary<bool>();
    RC_ASSERT(faulty_run(seed, member, at, partition) == faulty_run(seed, member, at, partition));
  });
}

// ---- real etcd and ZooKeeper (live/) ---------------------------------------------
//
// [cp-live]: the live clusters (start, faults, teardown, refusals) and the
// four CP locks through the real clients. [cp_differential]: generated
// operation sequences against a real single-member service and the
// simulated one, reply by reply. Each test starts its own servers on free
// ports and stops them; a missing etcd or JRE fails, it never skips.

#include <signal.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "live/etcd_cluster.hpp"
#include "live/etcd_http_client.hpp"
#include "live/zk_c_client.hpp"
#include "live/zk_cluster.hpp"
#include "locks/hiredis/real_runtime.hpp"
#include "vocab/partition_mode.hpp"

namespace {

using LiveEtcdCluster = locksim::live::EtcdCluster;
using locksim::live::EtcdClusterSpec;
using locksim::live::EtcdHttpConn;
using locksim::live::ZkCClientConn;
using LiveZkCluster = locksim::live::ZkCluster;
using locksim::live::ZkClusterSpec;
using locksim::locks::EtcdCompare;
using locksim::locks::EtcdOp;

std::unique_ptr<LiveEtcdCluster> start_etcd(int members, std::vector<std::string> clients = {}) {
  EtcdClusterSpec spec;
  spec.cluster.members = members;
  spec.cluster.clients = std::move(clients);
  auto cluster = LiveEtcdCluster::start(spec);
  INFO((cluster ? std::string() : cluster.error().message));
  REQUIRE(cluster);
  return std::move(*cluster);
}

std::unique_ptr<LiveZkCluster> start_zk(int members, std::vector<std::string> clients = {}) {
  ZkClusterSpec spec;
  spec.cluster.members = members;
  spec.cluster.clients = std::move(clients);
  auto cluster = LiveZkCluster::start(spec);
  INFO((cluster ? std::string() : cluster.error().message));
  REQUIRE(cluster);
  return std::move(*cluster);
}

bool process_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

template <class T>
T now_sync(Task<T> t) {
  return locksim::sync_wait(std::move(t));
}

}  // namespace

TEST_CASE("live etcd and ZooKeeper: a missing binary or JRE is a clear exit-2 refusal", "[cp-live]") {
  EtcdClusterSpec etcd;
  etcd.binary = "/nonexistent/etcd";
  auto e = LiveEtcdCluster::start(etcd);
  REQUIRE_FALSE(e);
  CHECK(e.error().exit_code == 2);
  CHECK_THAT(e.error().message, Catch::Contains("/nonexistent/etcd") && Catch::Contains("etcd"));
  ZkClusterSpec no_java;
  no_java.java = "/nonexistent/java";
  auto j = LiveZkCluster::start(no_java);
  REQUIRE_FALSE(j);
  CHECK(j.error().exit_code == 2);
  CHECK_THAT(j.error().message, Catch::Contains("java"));
  ZkClusterSpec no_jar;
  no_jar.jar = "/nonexistent/zookeeper.jar";
  auto z = LiveZkCluster::start(no_jar);
  REQUIRE_FALSE(z);
  CHECK(z.error().exit_code == 2);
  CHECK_THAT(z.error().message, Catch::Contains("/nonexistent/zookeeper.jar") && Catch::Contains("zookeeper"));
}

TEST_CASE("live etcd and ZooKeeper: a start interrupted by Ctrl-C stops every member and says so", "[cp-live]") {
  const std::atomic<int> interrupted{2};  // what live mode's SIGINT handler sets
  EtcdClusterSpec etcd;
  etcd.cluster.members = 3;
  etcd.cluster.interrupted = &interrupted;
  auto e = LiveEtcdCluster::start(etcd);
  REQUIRE_FALSE(e);
  CHECK(e.error().interrupted);
  ZkClusterSpec zk;
  zk.cluster.interrupted = &interrupted;
  auto z = LiveZkCluster::start(zk);
  REQUIRE_FALSE(z);
  CHECK(z.error().interrupted);
  CHECK_THAT(z.error().message, Catch::Contains("every member was stopped"));
}

TEST_CASE("live etcd: three members on free ports; a killed member restarts and catches up; a paused one stalls", "[cp-live]") {
  std::vector<pid_t> pids;
  {
    auto cluster = start_etcd(3, {"A"});
    REQUIRE(cluster->size() == 3);
    CHECK(cluster->member(2).name == "etcd-3");
    pids = cluster->pids();
    REQUIRE(pids.size() == 3);
    EtcdHttpConn all(cluster->client_endpoints("A"), 2000ms);
    REQUIRE(now_sync(all.put("k", "1", 0)).ok());
    cluster->kill9(0);
    CHECK(process_gone(pids[0]));
    EtcdHttpConn rest({cluster->client_endpoints("A")[1], cluster->client_endpoints("A")[2]}, 2000ms);
    // Two of three are still a majority; if etcd-1 led, the put waits out an
    // election (etcd answers "leader changed" or times out meanwhile).
    locksim::locks::EtcdWrite written;
    for (int i = 0; i < 20 && !(written = now_sync(rest.put("k", "2", 0))).ok(); ++i) std::this_thread::sleep_for(250ms);
    INFO(written.error);
    REQUIRE(written.ok());
    REQUIRE(cluster->restart(0));
    EtcdHttpConn first({cluster->endpoints()[0]}, 2000ms);
    const auto read = now_sync(first.range("k", ""));  // linearizable: through the leader, after catching up
    REQUIRE(read.ok());
    REQUIRE(read.kvs.size() == 1);
    CHECK(read.kvs[0].value == "2");
    CHECK(read.revision == written.revision);
    cluster->pause(1);
    EtcdHttpConn paused({cluster->endpoints()[1]}, 500ms);
    CHECK_THAT(now_sync(paused.range("k", "")).error, Catch::StartsWith("IOERR"));
    cluster->resume(1);
    EtcdHttpConn resumed({cluster->endpoints()[1]}, 5000ms);
    // A resumed member that led has lost its leadership meanwhile: like the
    // put above, a linearizable read may wait out an election first (seen
    // once on a loaded 2-core CI machine).
    locksim::locks::EtcdRange after_resume;
    for (int i = 0; i < 20 && !(after_resume = now_sync(resumed.range("k", ""))).ok(); ++i)
      std::this_thread::sleep_for(250ms);
    INFO(after_resume.error);
    CHECK(after_resume.ok());
    cluster->proxy(2).cut("A", PartitionMode::Drop);
    EtcdHttpConn cut({cluster->client_endpoints("A")[2]}, 300ms);
    CHECK_FALSE(now_sync(cut.range("k", "")).ok());
    CHECK_FALSE(cluster->died_unexpectedly().has_value());
  }
  for (pid_t pid : pids) CHECK(process_gone(pid));  // every member stopped and reaped with the cluster
}

TEST_CASE("live ZooKeeper: a three-member ensemble; a killed member restarts; the session outlives it", "[cp-live]") {
  std::vector<pid_t> pids;
  {
    auto cluster = start_zk(3, {"A"});
    REQUIRE(cluster->size() == 3);
    CHECK(cluster->member(0).name == "zk-1");
    pids = cluster->pids();
    ZkCClientConn zk(LiveZkCluster::connect_string(cluster->client_endpoints("A")));
    REQUIRE(now_sync(zk.start(6s)).ok());
    CHECK(zk.state() == ZkState::Connected);
    CHECK(zk.negotiated_ms() == 6000);
    const auto created = now_sync(zk.create("/job", "", "persistent"));
    REQUIRE(created.ok());
    cluster->kill9(0);
    CHECK(process_gone(pids[0]));
    const auto child = now_sync(zk.create("/job/lock-", "", "ephemeral_sequential"));
    if (!child.ok()) CHECK(child.error == locksim::locks::kZkConnectionLoss);  // it may have talked to zk-1
    REQUIRE(cluster->restart(0));
    for (int i = 0; i < 100 && zk.state() != ZkState::Connected; ++i) std::this_thread::sleep_for(100ms);
    CHECK(zk.state() == ZkState::Connected);  // the same session, on another member
    const auto stat = now_sync(zk.exists("/job"));
    REQUIRE(stat.ok());
    CHECK(stat.exists);
    CHECK(stat.czxid == created.czxid);
    CHECK_FALSE(cluster->died_unexpectedly().has_value());
  }
  for (pid_t pid : pids) CHECK(process_gone(pid));
}

// ---- the four CP locks against real services ------------------------------------

namespace {

// Two clients, each on its own thread with a RealRuntime over its own CP
// connection, take the lock `rounds` times each. Holders are counted: a
// second holder at once is a failure; tokens must grow in grant order.
struct Contention {
  std::atomic<int> holders{0};
  std::atomic<int> overlaps{0};
  std::atomic<int> grants{0};
  std::mutex mutex;
  std::vector<std::int64_t> tokens;
};

void contend(locksim::locks::Runtime& rt, const std::string& kind, int rounds, Contention& c) {
  LockConfig config;
  config.key = "lock-smoke";
  config.ttl = 6s;
  config.retry = 50ms;
  config.acquire_timeout = 30s;
  auto lock = locksim::locks::make_lock(kind, rt, config);
  for (int i = 0; i < rounds; ++i) {
    std::optional<Lease> lease = locksim::sync_wait(lock->try_acquire());
    if (!lease) continue;
    if (c.holders.fetch_add(1) != 0) ++c.overlaps;
    ++c.grants;
    if (lease->fencing_token) {
      std::lock_guard g(c.mutex);
      c.tokens.push_back(*lease->fencing_token);
    }
    std::this_thread::sleep_for(150ms);
    c.holders.fetch_sub(1);
    CHECK(locksim::sync_wait(lock->release(*lease)));
  }
}

void check_contention(const Contention& c, const std::string& kind, int expected_grants) {
  INFO(kind);
  CHECK(c.overlaps.load() == 0);
  CHECK(c.grants.load() == expected_grants);
  const bool fenced = locksim::locks::find_lock(kind)->fencing;
  CHECK(c.tokens.size() == (fenced ? static_cast<std::size_t>(expected_grants) : 0u));
  for (std::size_t i = 1; i < c.tokens.size(); ++i) CHECK(c.tokens[i] > c.tokens[i - 1]);
}

template <class MakeConn>
void run_two_clients(const std::string& kind, MakeConn make_conn) {
  Contention c;
  auto client = [&](const std::string& name) {
    auto conn = make_conn(name);
    locksim::locks::RealRuntimeOptions options;
    options.service = conn.get();
    locksim::locks::RealRuntime rt({}, options);
    contend(rt, kind, 3, c);
  };
  std::thread a(client, "A");
  std::thread b(client, "B");
  a.join();
  b.join();
  check_contention(c, kind, 6);
}

}  // namespace

TEST_CASE("etcd-mutex and etcd-fenced acquire and release against a real etcd; two clients contend correctly", "[cp-live]") {
  auto cluster = start_etcd(3, {"A", "B"});
  for (const char* kind : {"etcd-mutex", "etcd-fenced"})
    run_two_clients(kind, [&](const std::string& name) {
      return std::make_unique<EtcdHttpConn>(cluster->client_endpoints(name), 5000ms);
    });
  // Every session was closed: no key is left under the lock prefix.
  EtcdHttpConn check(cluster->endpoints(), 2000ms);
  CHECK(now_sync(check.range("lock-smoke/", locksim::locks::etcd_prefix_end("lock-smoke/"))).kvs.empty());
}

TEST_CASE("zk-lock and zk-fenced acquire and release against a real ZooKeeper; two clients contend correctly", "[cp-live]") {
  auto cluster = start_zk(1, {"A", "B"});
  for (const char* kind : {"zk-lock", "zk-fenced"})
    run_two_clients(kind, [&](const std::string& name) {
      return std::make_unique<ZkCClientConn>(LiveZkCluster::connect_string(cluster->client_endpoints(name)));
    });
}

// ---- differential: real etcd / ZooKeeper vs the simulated members ----------------
//
// One generated operation sequence per seed (sim::Rng: the same sequence on
// every run), sent to a real single-member service and to a simulated
// single-member one through the same client interface; every reply is
// described as text with the service's own identities (lease ids, session
// ids, zxids) replaced by what both must agree on (the lease's grant index,
// "owned", the zxid order), and the two texts must be equal.

namespace {

using locksim::locks::EtcdDeleted;
using locksim::locks::EtcdLease;
using locksim::locks::EtcdRange;
using locksim::locks::EtcdTxn;
using locksim::locks::etcd_prefix_end;
using locksim::locks::EtcdWrite;

// Runs a client call on the simulated world until its reply is back.
template <class T, class M>
T sim_sync(CpWorld<M>& cw, Task<T> task) {
  auto out = std::make_shared<std::optional<T>>();
  auto wrap = [](Task<T> t, std::shared_ptr<std::optional<T>> o) -> Task<void> { *o = co_await std::move(t); };
  cw.a.spawn(wrap(std::move(task), out));
  for (int i = 0; i < 600000 && !out->has_value(); ++i) cw.advance(1ms);
  REQUIRE(out->has_value());
  return std::move(**out);
}

// Lease ids differ (etcd's are random, the simulator's count): each side's
// ids become their grant index.
struct LeaseNames {
  std::map<std::int64_t, std::size_t> index;
  std::string operator()(std::int64_t id) const {
    if (id == 0) return "none";
    auto it = index.find(id);
    return it == index.end() ? "unknown" : "#" + std::to_string(it->second);
  }
};

std::string describe(const EtcdRange& r, const LeaseNames& leases) {
  std::string s = r.error.empty() ? "rev " + std::to_string(r.revision) + " [" : "error " + r.error;
  if (!r.error.empty()) return s;
  for (const auto& kv : r.kvs)
    s += kv.key + "=" + kv.value + " c" + std::to_string(kv.create_revision) + " m" + std::to_string(kv.mod_revision) +
         " v" + std::to_string(kv.version) + " lease " + leases(kv.lease) + "; ";
  return s + "]";
}
std::string describe(const EtcdWrite& w) {
  return w.error.empty() ? "rev " + std::to_string(w.revision) + " deleted " + std::to_string(w.deleted) : "error " + w.error;
}
std::string describe(const EtcdTxn& t, const LeaseNames& leases) {
  if (!t.error.empty()) return "error " + t.error;
  std::string s = "rev " + std::to_string(t.revision) + (t.succeeded ? " then" : " else");
  for (const auto& r : t.ranges) s += " {" + describe(r, leases) + "}";
  return s;
}
std::string describe(const EtcdLease& l) { return l.error.empty() ? "ttl " + std::to_string(l.ttl) : "error " + l.error; }
std::string describe(const EtcdDeleted& d) {
  return d.error.empty() ? "deleted " + d.key + " at " + std::to_string(d.revision) : "error " + d.error;
}

struct EtcdSides {
  EtcdWorld sim{1, 7, etcd_config()};
  SimEtcdConn sim_conn;
  EtcdHttpConn real_conn;
  LeaseNames sim_leases, real_leases;
  std::vector<std::pair<std::int64_t, std::int64_t>> leases;  // (real id, sim id) in grant order
  explicit EtcdSides(const std::vector<std::string>& endpoints)
      : sim_conn(sim.a, member_ids(sim), 20s), real_conn(endpoints, 5000ms) {
    sim.elect();
  }
};

const char* const kEtcdKeys[] = {"k/0", "k/1", "k/2", "j", ""};
const char* const kEtcdValues[] = {"", "a", "bb", "ccc"};

std::string pick_key(Rng& rng) { return kEtcdKeys[rng.below(rng.chance(1, 40) ? 5 : 4)]; }

// A key range: one key, the "k/" prefix, or every key ("\0" both ends).
std::pair<std::string, std::string> pick_range(Rng& rng) {
  switch (rng.below(4)) {
    case 0: return {"k/", etcd_prefix_end("k/")};
    case 1: return {std::string(1, '\0'), std::string(1, '\0')};
    default: return {pick_key(rng), ""};
  }
}

// A lease for a put: none, one granted (maybe revoked since), or an id no
// side granted. Returns (real id, sim id).
std::pair<std::int64_t, std::int64_t> pick_lease(Rng& rng, const EtcdSides& s) {
  if (s.leases.empty() || rng.chance(1, 2)) return {0, 0};
  if (rng.chance(1, 10)) return {424242, 424242};
  return s.leases[rng.below(s.leases.size())];
}

EtcdOp pick_op(Rng& rng, const EtcdSides& s, bool real) {
  EtcdOp op{static_cast<EtcdOp::Kind>(rng.below(3)), "", "", 0};
  if (op.kind == EtcdOp::Kind::Put) {
    op.key = pick_key(rng);
    op.value_or_end = kEtcdValues[rng.below(4)];
    const auto lease = pick_lease(rng, s);
    op.lease = real ? lease.first : lease.second;
  } else {
    std::tie(op.key, op.value_or_end) = pick_range(rng);
  }
  return op;
}

EtcdCompare pick_compare(Rng& rng) {
  static const char* const ops[] = {"=", "!=", "<", ">"};
  EtcdCompare c{static_cast<EtcdCompare::Target>(rng.below(4)), pick_key(rng), ops[rng.below(4)], ""};
  c.operand = c.target == EtcdCompare::Target::Value ? kEtcdValues[rng.below(4)] : std::to_string(rng.below(12));
  return c;
}

// One generated request to both sides; the two descriptions.
std::pair<std::string, std::string> etcd_step(Rng& rng, EtcdSides& s, std::string& what) {
  auto run = [&](auto task_of, auto text) {
    auto real = now_sync(task_of(s.real_conn, true));
    auto sim = sim_sync(s.sim, task_of(s.sim_conn, false));
    return std::pair{text(real, s.real_leases), text(sim, s.sim_leases)};
  };
  switch (rng.below(10)) {
    case 0:
    case 1: {
      const std::string key = pick_key(rng), value = kEtcdValues[rng.below(4)];
      const auto lease = pick_lease(rng, s);
      what = "put " + key + "=" + value;
      return run([&](auto& c, bool real) { return c.put(key, value, real ? lease.first : lease.second); },
                 [](const EtcdWrite& w, const LeaseNames&) { return describe(w); });
    }
    case 2: {
      const auto range = pick_range(rng);  // not a structured binding: Clang 14 cannot capture one
      const std::string& key = range.first;
      const std::string& end = range.second;
      what = "range " + key;
      return run([&](auto& c, bool) { return c.range(key, end); },
                 [](const EtcdRange& r, const LeaseNames& l) { return describe(r, l); });
    }
    case 3: {
      const auto range = pick_range(rng);  // not a structured binding: Clang 14 cannot capture one
      const std::string& key = range.first;
      const std::string& end = range.second;
      what = "delete " + key;
      return run([&](auto& c, bool) { return c.delete_range(key, end); },
                 [](const EtcdWrite& w, const LeaseNames&) { return describe(w); });
    }
    case 4:
    case 5: {
      // The same draws for both sides: a copy of the generator for each.
      const std::size_t ncmp = rng.below(3), nthen = rng.below(3), nelse = rng.below(3);
      std::vector<EtcdCompare> cmps;
      for (std::size_t i = 0; i < ncmp; ++i) cmps.push_back(pick_compare(rng));
      Rng ops_rng = rng.fork("txn-ops-" + std::to_string(rng.next()));
      auto ops = [&](bool real) {
        Rng r = ops_rng;
        std::vector<EtcdOp> then, otherwise;
        for (std::size_t i = 0; i < nthen; ++i) then.push_back(pick_op(r, s, real));
        for (std::size_t i = 0; i < nelse; ++i) otherwise.push_back(pick_op(r, s, real));
        return std::pair{then, otherwise};
      };
      what = "txn " + std::to_string(ncmp) + " compares";
      return run([&](auto& c, bool real) {
                   auto [then, otherwise] = ops(real);
                   return c.txn(cmps, then, otherwise);
                 },
                 [](const EtcdTxn& t, const LeaseNames& l) { return describe(t, l); });
    }
    case 6: {
      const std::int64_t ttl = rng.chance(1, 2) ? 60 : 600;
      what = "lease grant " + std::to_string(ttl);
      const EtcdLease real = now_sync(s.real_conn.lease_grant(ttl));
      const EtcdLease sim = sim_sync(s.sim, s.sim_conn.lease_grant(ttl));
      if (real.ok() && sim.ok()) {
        s.real_leases.index[real.id] = s.leases.size();
        s.sim_leases.index[sim.id] = s.leases.size();
        s.leases.emplace_back(real.id, sim.id);
      }
      return {describe(real), describe(sim)};
    }
    case 7: {
      if (s.leases.empty()) return {"", ""};
      const auto lease = s.leases[rng.below(s.leases.size())];
      const bool revoke = rng.chance(1, 2);
      what = revoke ? "lease revoke" : "lease keep-alive";
      if (revoke)
        return {"revoke " + now_sync(s.real_conn.lease_revoke(lease.first)).error,
                "revoke " + sim_sync(s.sim, s.sim_conn.lease_revoke(lease.second)).error};
      return {describe(now_sync(s.real_conn.lease_keep_alive_once(lease.first))),
              describe(sim_sync(s.sim, s.sim_conn.lease_keep_alive_once(lease.second)))};
    }
    case 8: {
      // A watch from a past revision: the first deletion of the key since.
      const std::string key = kEtcdKeys[rng.below(4)];
      const std::int64_t now = sim_sync(s.sim, s.sim_conn.range("j", "")).revision;
      const std::int64_t from = 1 + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(now)));
      what = "watch delete " + key + " from " + std::to_string(from);
      return run([&](auto& c, bool) { return c.wait_delete(key, "", from, 300ms); },
                 [](const EtcdDeleted& d, const LeaseNames&) { return describe(d); });
    }
    default: {
      // clientv3 concurrency.Mutex's acquire txn (locks/etcd_mutex_lock.cpp).
      const std::string key = "k/" + std::to_string(rng.below(3));
      const auto lease = pick_lease(rng, s);
      what = "mutex txn " + key;
      return run([&](auto& c, bool real) {
                   const std::vector<EtcdCompare> cmp{{EtcdCompare::Target::Create, key, "=", "0"}};
                   const std::vector<EtcdOp> then{{EtcdOp::Kind::Put, key, "", real ? lease.first : lease.second},
                                                  {EtcdOp::Kind::Range, "k/", etcd_prefix_end("k/"), 0}};
                   const std::vector<EtcdOp> otherwise{{EtcdOp::Kind::Range, key, "", 0},
                                                       {EtcdOp::Kind::Range, "k/", etcd_prefix_end("k/"), 0}};
                   return c.txn(cmp, then, otherwise);
                 },
                 [](const EtcdTxn& t, const LeaseNames& l) { return describe(t, l); });
    }
  }
}

}  // namespace

TEST_CASE("etcd differential: generated put/range/delete/txn/lease/watch sequences, real etcd vs simulated", "[cp_differential]") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    auto cluster = start_etcd(1);
    EtcdSides sides(cluster->endpoints());
    // etcd raises a TTL below its minimum (lessor.go Grant: minLeaseTTL).
    CHECK(describe(now_sync(sides.real_conn.lease_grant(1))) == describe(sim_sync(sides.sim, sides.sim_conn.lease_grant(1))));
    Rng rng(seed);
    for (int step = 0; step < 150; ++step) {
      std::string what;
      const auto [real, sim] = etcd_step(rng, sides, what);
      INFO("seed " << seed << " step " << step << ": " << what);
      REQUIRE(real == sim);
    }
  }
}

// ---- ZooKeeper ----

namespace {

struct ZkSides {
  ZkWorld sim{1, 7};
  std::unique_ptr<SimZkConn> sim_conn;
  std::unique_ptr<ZkCClientConn> real_conn;
  std::vector<std::pair<std::int64_t, std::int64_t>> zxids;  // (real, sim) czxids seen
  ZkSides(const std::string& hosts, Duration timeout)
      : sim_conn(std::make_unique<SimZkConn>(sim.a, member_ids(sim))), real_conn(std::make_unique<ZkCClientConn>(hosts)) {
    sim.elect();
    REQUIRE(now_sync(real_conn->start(timeout)).ok());
    REQUIRE(sim_sync(sim, sim_conn->start(timeout)).ok());
  }
  ~ZkSides() { sim_conn.reset(); }

  // Both sides' zxids must be in the same order: each new pair compares
  // with every earlier one the same way on both sides.
  std::string order_of(std::int64_t real, std::int64_t sim) {
    std::string s;
    for (const auto& [r, m] : zxids)
      if ((real < r) != (sim < m) || (real == r) != (sim == m)) s += " zxid order differs";
    zxids.emplace_back(real, sim);
    return s;
  }
};

const char* const kZkPaths[] = {"/d", "/d/a", "/d/a/b", "/d/e", "/d/lock-", "/d/a/lock-", "/x/y"};
const char* const kZkModes[] = {"persistent", "ephemeral", "persistent_sequential", "ephemeral_sequential"};

std::pair<std::string, std::string> zk_step(Rng& rng, ZkSides& s, std::vector<std::string>& created, std::string& what) {
  auto existing_or_any = [&] {
    return !created.empty() && rng.chance(2, 3) ? created[rng.below(created.size())] : std::string(kZkPaths[rng.below(7)]);
  };
  switch (rng.below(6)) {
    case 0:
    case 1: {
      const std::string path = kZkPaths[rng.below(7)], mode = kZkModes[rng.below(4)];
      what = "create " + path + " " + mode;
      const auto real = now_sync(s.real_conn->create(path, "data", mode));
      const auto sim = sim_sync(s.sim, s.sim_conn->create(path, "data", mode));
      if (real.ok()) created.push_back(real.path);
      if (!real.ok() || !sim.ok()) return {"error " + real.error, "error " + sim.error};
      const std::string order = s.order_of(real.czxid, sim.czxid);
      return {real.path + order, sim.path};
    }
    case 2: {
      const std::string path = existing_or_any();
      const std::int64_t version = static_cast<std::int64_t>(rng.below(3)) - 1;
      what = "delete " + path + " version " + std::to_string(version);
      return {"delete " + now_sync(s.real_conn->remove(path, version)).error,
              "delete " + sim_sync(s.sim, s.sim_conn->remove(path, version)).error};
    }
    case 3: {
      const std::string path = existing_or_any();
      what = "children " + path;
      auto text = [](const locksim::locks::ZkChildren& c) {
        std::string t = "children " + c.error + " [";
        for (const auto& n : c.names) t += n + " ";
        return t + "]";
      };
      return {text(now_sync(s.real_conn->get_children(path))), text(sim_sync(s.sim, s.sim_conn->get_children(path)))};
    }
    default: {
      const std::string path = existing_or_any();
      what = "exists " + path;
      const auto real = now_sync(s.real_conn->exists(path));
      const auto sim = sim_sync(s.sim, s.sim_conn->exists(path));
      auto text = [](const locksim::locks::ZkStat& st, std::int64_t session) {
        if (!st.ok()) return "error " + st.error;
        if (!st.exists) return std::string("no node");
        return std::string("version ") + std::to_string(st.version) + (st.mzxid == st.czxid ? " unchanged" : " modified") +
               (st.ephemeral_owner == 0 ? " persistent" : st.ephemeral_owner == session ? " ours" : " someone's");
      };
      const std::string order = real.exists && sim.exists ? s.order_of(real.czxid, sim.czxid) : "";
      return {text(real, s.real_conn->session_id()) + order, text(sim, s.sim_conn->session_id())};
    }
  }
}

}  // namespace

TEST_CASE("ZooKeeper differential: generated create/delete/getChildren/exists sequences, real vs simulated", "[cp_differential]") {
  SECTION("the negotiated session timeout is clamped to 2..20 ticks on both") {
    auto cluster = start_zk(1);
    for (auto asked : {1000ms, 6000ms, 100000ms}) {
      ZkSides s(LiveZkCluster::connect_string(cluster->endpoints()), asked);
      INFO("asked " << asked.count() << " ms");
      CHECK(std::chrono::milliseconds(s.real_conn->negotiated_ms() * 2 / 3) == s.sim_conn->read_timeout());
    }
  }
  SECTION("generated sequences") {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      auto cluster = start_zk(1);  // a fresh tree: sequence numbers start at 0 on both
      ZkSides s(LiveZkCluster::connect_string(cluster->endpoints()), 10s);
      Rng rng(seed);
      std::vector<std::string> created;
      for (int step = 0; step < 150; ++step) {
        std::string what;
        const auto [real, sim] = zk_step(rng, s, created, what);
        INFO("seed " << seed << " step " << step << ": " << what);
        REQUIRE(real == sim);
      }
    }
  }
}

// ---- differential: when the client says Disconnected (issue 36) ------------------
//
// The same freeze on both sides: a client with a 10 s session (readTimeout
// 6666 ms; the C client, zookeeper.c zookeeper_interest, and ClientCnxn
// both time out 2/3 of the session after the last receive and ping after a
// third of it without a send) gets an answer, its server is frozen
// (SIGSTOP; in the simulator, the member's host paused) right away or 2 s
// later, and the time until the client reports Disconnected is measured.
// Both must be readTimeout after the last answer: the real one within
// scheduling noise (a loaded 2-core machine may wake its I/O thread late:
// up to 2.5 s), the simulated one within the answer's round trip. The old
// model, which waited for a ping of its own to time out, said so 10 s
// (a whole session timeout) after the answer.

namespace {

constexpr auto kDiffSession = 10s;
constexpr auto kDiffReadTimeout = 6666ms;

// Real: ms from the answer to Disconnected, freezing `freeze_after` it.
std::chrono::milliseconds real_answer_to_disconnected(LiveZkCluster& cluster, Duration freeze_after) {
  ZkCClientConn zk(LiveZkCluster::connect_string(cluster.endpoints()));
  REQUIRE(now_sync(zk.start(kDiffSession)).ok());
  REQUIRE(zk.negotiated_ms() == 10000);
  std::this_thread::sleep_for(500ms);
  REQUIRE(now_sync(zk.exists("/")).ok());
  const auto answered = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(freeze_after);
  cluster.pause(0);
  while (zk.state() == ZkState::Connected && std::chrono::steady_clock::now() - answered < 30s)
    std::this_thread::sleep_for(5ms);
  const auto lost = std::chrono::steady_clock::now();
  CHECK(zk.state() == ZkState::Disconnected);
  cluster.resume(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(lost - answered);
}

// Simulated: the same, on a one-member ensemble with ZooKeeper's 2 s tick.
std::chrono::milliseconds sim_answer_to_disconnected(Duration freeze_after) {
  ZkWorld zw(1, 5);
  zw.elect();
  SimZkConn zk(zw.a, member_ids(zw));
  REQUIRE(sim_sync(zw, zk.start(kDiffSession)).ok());
  REQUIRE(zk.read_timeout() == kDiffReadTimeout);
  zw.advance(500ms);
  REQUIRE(sim_sync(zw, zk.exists("/")).ok());
  const TrueInstant answered = zw.w.now();
  zw.advance(freeze_after);
  zw.member(0).host().pause(60s);
  while (zk.state() == ZkState::Connected && zw.w.now() - answered < 30s) zw.advance(1ms);
  CHECK(zk.state() == ZkState::Disconnected);
  return std::chrono::duration_cast<std::chrono::milliseconds>(zw.w.now() - answered);
}

}  // namespace

TEST_CASE("ZooKeeper differential: a frozen server is noticed readTimeout after the last answer, real C client and simulated",
          "[cp_differential]") {
  auto cluster = start_zk(1);
  for (const Duration freeze_after : {Duration(0ms), Duration(2000ms)}) {
    const auto real = real_answer_to_disconnected(*cluster, freeze_after);
    const auto sim = sim_answer_to_disconnected(freeze_after);
    INFO("frozen " << to_ms(freeze_after) << " ms after the answer: real Disconnected after " << real.count()
                   << " ms, simulated after " << sim.count() << " ms");
    CHECK(sim >= kDiffReadTimeout);
    CHECK(sim <= kDiffReadTimeout + 10ms);
    CHECK(real >= kDiffReadTimeout - 300ms);  // the answer was read a little before exists() returned
    CHECK(real <= kDiffReadTimeout + 2500ms);
    CHECK(std::chrono::abs(real - sim) <= 2500ms);
  }
}
