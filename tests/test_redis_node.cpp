// The simulated redis-server around the engine: AOF persistence, crashes vs
// power loss, replication lag, failover, WAIT, min-replicas-to-write, expiry
// on the node's own wall clock, and the AOF on 7.0's everysec schedule.
#include <catch2/catch.hpp>

#include "vocab/partition_mode.hpp"
#include "sim/redis/node.hpp"
#include "sim/redis/sentinel.hpp"
#include "sim/world.hpp"

using namespace locksim;
using namespace locksim::sim;
using namespace locksim::sim::redis;
using namespace std::chrono_literals;

namespace {

// A NodeConfig with some fields set (GCC 12 warns on designated
// initializers that leave members out, and CI builds with -Werror).
template <class F>
NodeConfig config(F set) {
  NodeConfig c;
  set(c);
  return c;
}

// A client host and Redis nodes; `call` sends a command and runs the world
// until the reply is back.
struct RedisWorld {
  World w{1};
  Host& client = w.add_host("A");
  std::vector<std::unique_ptr<RedisNode>> nodes;

  RedisWorld() { w.network().set_latency(LatencyModel::fixed(1ms)); }

  RedisNode& add_node(const std::string& name, NodeConfig config = {}) {
    Host& h = w.add_host(name);
    nodes.push_back(std::make_unique<RedisNode>(h, config));
    h.start();
    return *nodes.back();
  }

  Reply call(RedisNode& node, Argv argv, Duration timeout = 5s) {
    Reply out;
    bool done = false;
    auto task = [](Connection& c, Argv a, Duration t, Reply& o, bool& d) -> Task<void> {
      o = co_await c.call(std::move(a), t);
      d = true;
    };
    client.spawn(task(w.network().connect(client.id(), node.id()), std::move(argv), timeout, out, done));
    while (!done) w.scheduler().run_until(w.now() + 1ms);
    return out;
  }

  void advance(Duration d) { w.scheduler().run_until(w.now() + d); }
};

// Runs the world to true instant `t` (the node's wall clock shows a whole
// second at 0: its boot second is [0 s, 1 s) while no clock is changed).
void run_to(RedisWorld& rw, Duration t) { rw.w.scheduler().run_until(TrueInstant{} + t); }

NodeConfig everysec() {
  return config([](NodeConfig& c) { c.appendonly = true; c.appendfsync = Fsync::Everysec; });
}

bool survives(RedisWorld& rw, RedisNode& node, const std::string& key, bool power_loss) {
  if (power_loss) node.power_loss();
  else node.host().crash();
  node.host().restart();
  rw.advance(10ms);
  return !rw.call(node, {"GET", key}).is_nil();
}

}  // namespace

TEST_CASE("a write in the node's boot second waits for the next second's catch-up fsync", "[redis]") {
  for (bool power_loss : {false, true}) {
    RedisWorld rw;
    RedisNode& node = rw.add_node("redis-1", everysec());
    run_to(rw, 200ms);
    REQUIRE(rw.call(node, {"SET", "lock", "A", "PX", "30000"}).is_ok());
    CHECK(node.aof_written() == 1);  // written before the reply
    run_to(rw, 900ms);
    CHECK(node.aof_fsynced() == 0);  // aof_last_fsync is the boot second
    // A process crash keeps what was written; a power loss keeps only the fsynced.
    CHECK(survives(rw, node, "lock", power_loss) == !power_loss);
  }
  RedisWorld rw;
  RedisNode& node = rw.add_node("redis-1", everysec());
  run_to(rw, 200ms);
  REQUIRE(rw.call(node, {"SET", "lock", "A", "PX", "30000"}).is_ok());
  run_to(rw, 1003ms);  // serverCron at 1.001 s starts it, it takes 3 ms
  CHECK(node.aof_fsynced() == 0);
  run_to(rw, 1005ms);
  CHECK(node.aof_fsynced() == 1);
}

TEST_CASE("on an idle node the first write of a second is durable milliseconds later", "[redis]") {
  RedisWorld rw;
  RedisNode& node = rw.add_node("redis-1", everysec());
  run_to(rw, 2200ms);
  REQUIRE(rw.call(node, {"SET", "lock", "A", "PX", "30000"}).is_ok());
  CHECK(node.aof_fsynced() == 0);  // the fsync runs in the background
  rw.advance(5ms);
  CHECK(node.aof_fsynced() == 1);
  CHECK(survives(rw, node, "lock", true));
}

TEST_CASE("a second write in the same second waits for the first cron tick of the next", "[redis]") {
  RedisWorld rw;
  RedisNode& node = rw.add_node("redis-1", everysec());
  run_to(rw, 2200ms);
  REQUIRE(rw.call(node, {"SET", "a", "1"}).is_ok());
  run_to(rw, 2500ms);
  REQUIRE(rw.call(node, {"SET", "b", "1"}).is_ok());
  run_to(rw, 2990ms);
  CHECK(node.aof_written() == 2);
  CHECK(node.aof_fsynced() == 1);
  run_to(rw, 3010ms);  // tick at 3.001 s, fsync done at 3.004 s
  CHECK(node.aof_fsynced() == 2);
  // A power loss inside the window keeps the first write only.
  RedisWorld lost;
  RedisNode& n2 = lost.add_node("redis-1", everysec());
  run_to(lost, 2200ms);
  REQUIRE(lost.call(n2, {"SET", "a", "1"}).is_ok());
  run_to(lost, 2500ms);
  REQUIRE(lost.call(n2, {"SET", "b", "1"}).is_ok());
  run_to(lost, 2900ms);
  n2.power_loss();
  n2.host().restart();
  lost.advance(10ms);
  CHECK(lost.call(n2, {"GET", "a"}) == Reply::bulk("1"));
  CHECK(lost.call(n2, {"GET", "b"}).is_nil());
}

// The disk stalls from 2.1 s until 7.1 s; `a` (2.1 s) is written and its
// fsync hangs; `b` (3.2 s) is acknowledged but postponed in aof_buf.
RedisNode& node_with_postponed_write(RedisWorld& rw) {
  RedisNode& node = rw.add_node("redis-1", everysec());
  run_to(rw, 2100ms);
  node.stall_fsync(5s);
  REQUIRE(rw.call(node, {"SET", "a", "1"}).is_ok());
  run_to(rw, 3200ms);
  REQUIRE(rw.call(node, {"SET", "b", "1"}).is_ok());
  return node;
}

TEST_CASE("a write while an fsync is in flight is postponed: even a process crash loses it", "[redis]") {
  RedisWorld rw;
  RedisNode& node = node_with_postponed_write(rw);
  CHECK(node.aof_buffered() == 1);
  CHECK(node.aof_written() == 1);
  run_to(rw, 3500ms);
  node.host().crash();
  node.host().restart();
  rw.advance(10ms);
  CHECK(rw.call(node, {"GET", "a"}) == Reply::bulk("1"));
  CHECK(rw.call(node, {"GET", "b"}).is_nil());
}

TEST_CASE("after 2 s of postponement the write goes out without waiting for the fsync", "[redis]") {
  RedisWorld rw;
  RedisNode& node = node_with_postponed_write(rw);  // b postponed in second 3
  run_to(rw, 4950ms);
  CHECK(node.aof_buffered() == 1);
  run_to(rw, 5050ms);  // the tick at 5.001 s: 5 - 3 >= 2
  CHECK(node.aof_buffered() == 0);
  CHECK(node.aof_written() == 2);
  CHECK(node.aof_delayed_fsyncs() == 1);
  CHECK(node.aof_fsynced() == 0);  // nothing durable while the disk stalls
  run_to(rw, 7100ms + 500us);  // the stalled fsync of `a` ends at 7.1 s, covering `a` only
  CHECK(node.aof_fsynced() == 1);
  run_to(rw, 7200ms);  // the catch-up fsync of `b` starts at the 7.101 s cron tick
  CHECK(node.aof_fsynced() == 2);
}

TEST_CASE("a busy node keeps a write un-fsynced until the next second", "[redis]") {
  for (bool busy : {false, true}) {
    RedisWorld rw;
    RedisNode& node = rw.add_node("redis-1", config([busy](NodeConfig& c) {
      c.appendonly = true;
      c.appendfsync = Fsync::Everysec;
      c.background_writes_per_second = busy ? 20 : 0;
    }));
    run_to(rw, 2200ms);
    REQUIRE(rw.call(node, {"SET", "lock", "A", "PX", "30000"}).is_ok());
    run_to(rw, 2700ms);
    // Busy: the second's fsync already ran for an earlier background write.
    CHECK(survives(rw, node, "lock", true) == !busy);
  }
}

TEST_CASE("the fsync schedule runs on the node's wall clock: a step back holds it", "[redis]") {
  RedisWorld rw;
  RedisNode& node = rw.add_node("redis-1", everysec());
  run_to(rw, 2200ms);
  REQUIRE(rw.call(node, {"SET", "a", "1"}).is_ok());  // aof_last_fsync = second 2
  node.host().clock().step(-3s);                        // now wall second -1
  run_to(rw, 2400ms);
  REQUIRE(rw.call(node, {"SET", "b", "1"}).is_ok());
  run_to(rw, 5950ms);  // wall second 2 still
  CHECK(node.aof_fsynced() == 1);
  run_to(rw, 6110ms);  // wall second 3 from true 6 s: a cron tick fsyncs
  CHECK(node.aof_fsynced() == 2);
}

TEST_CASE("appendfsync always loses no acknowledged write in a power loss", "[redis]") {
  RedisWorld rw;
  RedisNode& node = rw.add_node("redis-1", config([](NodeConfig& c) { c.appendonly = true; c.appendfsync = Fsync::Always; }));
  REQUIRE(rw.call(node, {"SET", "lock", "A"}).is_ok());
  node.power_loss();
  node.host().restart();
  rw.advance(10ms);
  CHECK(rw.call(node, {"GET", "lock"}) == Reply::bulk("A"));
}

// Always fsyncs in the main thread (aof.c flushAppendOnlyFile): a stalled
// disk stops the node — the write's reply and every other command wait for
// the fsync, and a power loss before it returns loses the write nobody was
// told of.
TEST_CASE("appendfsync always under a disk stall freezes the node until the fsync returns", "[redis]") {
  auto always = config([](NodeConfig& c) { c.appendonly = true; c.appendfsync = Fsync::Always; });
  SECTION("the reply and a second client's command wait for the held fsync") {
    RedisWorld rw;
    RedisNode& node = rw.add_node("redis-1", always);
    run_to(rw, 1s);
    node.stall_fsync(3s);  // until 4 s
    const Reply timed_out = rw.call(node, {"SET", "a", "1"}, 500ms);
    CHECK(timed_out.is_error());  // the call gave up; the SET ran and waits in its fsync
    CHECK(node.blocked_in_fsync());
    CHECK(node.aof_written() == 1);
    CHECK(node.aof_fsynced() == 0);
    CHECK(rw.call(node, {"GET", "a"}) == Reply::bulk("1"));
    CHECK(rw.w.now() >= TrueInstant{} + 4s);  // answered only once the stall ended
    CHECK_FALSE(node.blocked_in_fsync());
    CHECK(node.aof_fsynced() == 1);
  }
  SECTION("a power loss inside the stall loses the unanswered write; after it, nothing") {
    RedisWorld rw;
    RedisNode& node = rw.add_node("redis-1", always);
    run_to(rw, 1s);
    node.stall_fsync(3s);
    CHECK(rw.call(node, {"SET", "a", "1"}, 500ms).is_error());
    run_to(rw, 3s);
    node.power_loss();
    node.host().restart();
    rw.advance(10ms);
    CHECK_FALSE(node.blocked_in_fsync());
    CHECK(rw.call(node, {"GET", "a"}).is_nil());
    REQUIRE(rw.call(node, {"SET", "b", "1"}).is_ok());  // the stall ended at 4 s
    node.power_loss();
    node.host().restart();
    rw.advance(10ms);
    CHECK(rw.call(node, {"GET", "b"}) == Reply::bulk("1"));
  }
  SECTION("a stall extended while the fsync waits holds the node to its new end") {
    RedisWorld rw;
    RedisNode& node = rw.add_node("redis-1", always);
    run_to(rw, 1s);
    node.stall_fsync(3s);  // until 4 s
    CHECK(rw.call(node, {"SET", "a", "1"}, 500ms).is_error());
    run_to(rw, 2s);
    node.stall_fsync(5s);  // now until 7 s
    CHECK(rw.call(node, {"GET", "a"}, 10s) == Reply::bulk("1"));
    CHECK(rw.w.now() >= TrueInstant{} + 7s);
    CHECK(node.aof_fsynced() == 1);
  }
  SECTION("a replica held in its fsync acknowledges the stream only when it returns") {
    RedisWorld rw;
    RedisNode& master = rw.add_node("redis-1");
    RedisNode& replica = rw.add_node("redis-1-replica-1", always);
    master.attach_replica(replica);
    run_to(rw, 1s);
    replica.stall_fsync(3s);  // until 4 s
    REQUIRE(rw.call(master, {"SET", "k", "v"}).is_ok());
    CHECK(rw.call(master, {"WAIT", "1", "2000"}) == Reply::integer_of(0));  // 3 s: no ACK yet
    CHECK(replica.blocked_in_fsync());
    CHECK(rw.call(master, {"WAIT", "1", "2000"}) == Reply::integer_of(1));  // the ACK came at 4 s
    CHECK(rw.w.now() >= TrueInstant{} + 4s);
  }
  SECTION("without a write in the stall the node never waits") {
    RedisWorld rw;
    RedisNode& node = rw.add_node("redis-1", always);
    run_to(rw, 1s);
    node.stall_fsync(3s);
    const TrueInstant asked = rw.w.now();
    CHECK(rw.call(node, {"GET", "a"}).is_nil());
    CHECK(rw.w.now() - asked < 10ms);
  }
}

TEST_CASE("a node without persistence restarts empty", "[redis]") {
  RedisWorld rw;
  RedisNode& node = rw.add_node("redis-1", config([](NodeConfig& c) { c.appendonly = false; }));
  REQUIRE(rw.call(node, {"SET", "lock", "A"}).is_ok());
  node.host().crash();
  node.host().restart();
  rw.advance(10ms);
  CHECK(rw.call(node, {"GET", "lock"}).is_nil());
}

TEST_CASE("the AOF holds relative expiry rewritten as absolute", "[redis]") {
  RedisWorld rw;
  RedisNode& node = rw.add_node("redis-1", config([](NodeConfig& c) { c.appendonly = true; c.appendfsync = Fsync::Always; }));
  REQUIRE(rw.call(node, {"SET", "lock", "A", "PX", "30000"}).is_ok());
  // After a restart long past the deadline the key is gone: the deadline was absolute.
  node.host().crash();
  rw.advance(40s);
  node.host().restart();
  rw.advance(10ms);
  CHECK(rw.call(node, {"GET", "lock"}).is_nil());
}

TEST_CASE("a forward clock step on the node expires a lock early", "[redis]") {
  RedisWorld rw;
  RedisNode& node = rw.add_node("redis-1");
  REQUIRE(rw.call(node, {"SET", "lock", "A", "PX", "10000"}).is_ok());
  rw.advance(1s);
  CHECK(rw.call(node, {"GET", "lock"}) == Reply::bulk("A"));
  node.host().clock().step(20s);
  CHECK(rw.call(node, {"GET", "lock"}).is_nil());
  CHECK(rw.call(node, {"SET", "lock", "B", "NX", "PX", "10000"}).is_ok());
}

TEST_CASE("a replica answers an expired key as missing but keeps it until the master's DEL", "[redis]") {
  RedisWorld rw;
  RedisNode& master = rw.add_node("redis-1");
  RedisNode& replica = rw.add_node("redis-1-replica-1");
  master.attach_replica(replica);
  REQUIRE(rw.call(master, {"SET", "lock", "A", "PX", "100"}).is_ok());
  rw.advance(50ms);
  CHECK(replica.engine().key_count() == 1);
  master.host().pause(10s);  // no active expiry, no DEL for a while
  rw.advance(500ms);
  CHECK(rw.call(replica, {"GET", "lock"}).is_nil());
  CHECK(replica.engine().key_count() == 1);
  rw.advance(10s);  // the master resumes, expires the key, streams the DEL
  CHECK(replica.engine().key_count() == 0);
}

TEST_CASE("writes replicate after the replication lag and WAIT counts the acks", "[redis]") {
  RedisWorld rw;
  RedisNode& master = rw.add_node("redis-1", config([](NodeConfig& c) { c.replication_lag = 50ms; }));
  RedisNode& replica = rw.add_node("redis-1-replica-1");
  master.attach_replica(replica);
  REQUIRE(rw.call(master, {"SET", "k", "v"}).is_ok());
  CHECK(replica.engine().key_count() == 0);
  CHECK(rw.call(master, {"WAIT", "1", "1000"}) == Reply::integer_of(1));
  CHECK(replica.engine().key_count() == 1);
  CHECK(rw.call(replica, {"SET", "x", "y"}) ==
        Reply::error("READONLY You can't write against a read only replica."));
}

TEST_CASE("WAIT times out with the acks it has when a replica is cut off", "[redis]") {
  RedisWorld rw;
  RedisNode& master = rw.add_node("redis-1");
  RedisNode& replica = rw.add_node("redis-1-replica-1");
  master.attach_replica(replica);
  rw.w.network().partition({{master.id(), rw.client.id()}, {replica.id()}}, PartitionMode::Drop);
  REQUIRE(rw.call(master, {"SET", "k", "v"}).is_ok());
  const TrueInstant before = rw.w.now();
  CHECK(rw.call(master, {"WAIT", "1", "200"}) == Reply::integer_of(0));
  CHECK(rw.w.now() - before >= 200ms);
}

TEST_CASE("min-replicas-to-write refuses writes once the replica stops acking", "[redis]") {
  RedisWorld rw;
  RedisNode& master = rw.add_node("redis-1", config([](NodeConfig& c) { c.min_replicas_to_write = 1; c.min_replicas_max_lag = 10s; }));
  RedisNode& replica = rw.add_node("redis-1-replica-1");
  master.attach_replica(replica);
  rw.advance(2s);
  CHECK(rw.call(master, {"SET", "k", "v"}).is_ok());
  replica.host().crash();
  rw.advance(12s);
  CHECK(rw.call(master, {"SET", "k", "v"}) == Reply::error("NOREPLICAS Not enough good replicas to write."));
  CHECK(rw.call(master, {"GET", "k"}) == Reply::bulk("v"));
}

TEST_CASE("a lock key is lost on failover when replication lags", "[redis]") {
  RedisWorld rw;
  RedisNode& master = rw.add_node("redis-1", config([](NodeConfig& c) { c.replication_lag = 50ms; }));
  RedisNode& replica = rw.add_node("redis-1-replica-1");
  master.attach_replica(replica);
  Sentinel sentinel(rw.w.add_host("sentinel"), {{&master, {&replica}}}, 1s);
  rw.w.find_host("sentinel")->start();
  REQUIRE(rw.call(master, {"SET", "lock", "A", "NX", "PX", "30000"}).is_ok());
  master.host().crash();  // before the key left the replication buffer
  rw.advance(1500ms);
  REQUIRE(&sentinel.master_of(0) == &replica);
  CHECK(replica.role() == Role::Master);
  CHECK(rw.call(replica, {"SET", "lock", "B", "NX", "PX", "30000"}).is_ok());
}

TEST_CASE("an isolated old master accepts writes that are lost when it is demoted", "[redis]") {
  RedisWorld rw;
  RedisNode& master = rw.add_node("redis-1");
  RedisNode& replica = rw.add_node("redis-1-replica-1");
  master.attach_replica(replica);
  Host& sentinel_host = rw.w.add_host("sentinel");
  Sentinel sentinel(sentinel_host, {{&master, {&replica}}}, 1s);
  sentinel_host.start();
  rw.w.network().partition({{master.id(), rw.client.id()}, {replica.id(), sentinel_host.id()}},
                           PartitionMode::Drop);
  rw.advance(1500ms);
  REQUIRE(&sentinel.master_of(0) == &replica);
  CHECK(rw.call(master, {"SET", "order", "1"}).is_ok());  // the old master still says OK
  rw.w.network().heal();
  // sentinel.c +convert-to-slave: 8 s after it reported master, at the next
  // 10 s INFO; then a full resync (its history diverged) after 5 s.
  rw.advance(5s);
  CHECK(master.role() == Role::Master);
  rw.advance(15s);
  CHECK(master.role() == Role::Replica);
  CHECK(master.full_syncs() == 1);
  CHECK(rw.call(master, {"GET", "order"}).is_nil());
}

namespace {
// A master with two replicas and a Sentinel (failover after 1 s).
struct TwoReplicaShard {
  RedisWorld rw;
  RedisNode& master;
  RedisNode& r1;
  RedisNode& r2;
  Host& sentinel_host;
  Sentinel sentinel;
  explicit TwoReplicaShard(NodeConfig c = {}, SentinelConfig sc = SentinelConfig{1s})
      : master(rw.add_node("redis-1", c)),
        r1(rw.add_node("redis-1-replica-1", c)),
        r2(rw.add_node("redis-1-replica-2", c)),
        sentinel_host(rw.w.add_host("sentinel")),
        sentinel(sentinel_host, {{&master, {&r1, &r2}}}, sc) {
    master.attach_replica(r1);
    master.attach_replica(r2);
    sentinel_host.start();
  }
};
}  // namespace

TEST_CASE("after a failover the other replica follows the new master (partial resync)", "[redis]") {
  TwoReplicaShard s;
  REQUIRE(s.rw.call(s.master, {"SET", "a", "1"}).is_ok());
  s.rw.advance(100ms);
  s.master.host().crash();
  s.rw.advance(3s);
  RedisNode& promoted = s.sentinel.master_of(0);
  REQUIRE(&promoted == &s.r1);
  CHECK(s.sentinel.config_epoch(0) == 1);
  CHECK(s.r2.master() == &s.r1);  // sentinelFailoverReconfNextSlave
  CHECK(s.r2.link_up());
  CHECK(s.r2.partial_syncs() == 1);  // PSYNC on r1's replid2
  CHECK(s.r2.full_syncs() == 0);
  CHECK_FALSE(s.sentinel.failover_in_progress(0));
  // What the new master accepts reaches the other replica, so a second
  // failover promotes a replica that has it.
  REQUIRE(s.rw.call(promoted, {"SET", "lock", "B", "NX", "PX", "30000"}).is_ok());
  s.rw.advance(100ms);
  s.r1.host().crash();
  s.rw.advance(3s);
  REQUIRE(&s.sentinel.master_of(0) == &s.r2);
  CHECK(s.sentinel.config_epoch(0) == 2);
  CHECK(s.rw.call(s.r2, {"GET", "lock"}) == Reply::bulk("B"));
  CHECK(s.rw.call(s.r2, {"SET", "lock", "C", "NX", "PX", "30000"}).is_nil());
}

TEST_CASE("with min-replicas-to-write the new master accepts writes once a replica follows it", "[redis]") {
  TwoReplicaShard s(config([](NodeConfig& c) { c.min_replicas_to_write = 1; }));
  s.rw.advance(2s);
  REQUIRE(s.rw.call(s.master, {"SET", "a", "1"}).is_ok());
  s.master.host().crash();
  s.rw.advance(3s);
  RedisNode& promoted = s.sentinel.master_of(0);
  REQUIRE(&promoted == &s.r1);
  CHECK(s.rw.call(promoted, {"SET", "b", "2"}).is_ok());
  s.rw.advance(20s);  // acks keep it good (refreshGoodSlavesCount)
  CHECK(s.rw.call(promoted, {"SET", "c", "3"}).is_ok());
}

TEST_CASE("parallel_syncs 1: the replicas are re-pointed one after the other", "[redis]") {
  RedisWorld rw;
  RedisNode& master = rw.add_node("redis-1");
  std::vector<RedisNode*> rs;
  for (int i = 1; i <= 3; ++i) rs.push_back(&rw.add_node("redis-1-replica-" + std::to_string(i)));
  for (RedisNode* r : rs) master.attach_replica(*r);
  Host& sh = rw.w.add_host("sentinel");
  Sentinel sentinel(sh, {{&master, rs}}, SentinelConfig{1s, 1, 180s});
  sh.start();
  rw.advance(100ms);
  master.host().crash();
  rw.advance(1200ms);  // promoted; the first REPLICAOF sent
  REQUIRE(&sentinel.master_of(0) == rs[0]);
  CHECK(rs[1]->master() == rs[0]);
  CHECK(rs[2]->master() == &master);  // waits for the first's INFO (1 s)
  CHECK(rs[1]->link_up());
  CHECK(sentinel.failover_in_progress(0));
  rw.advance(2s);
  CHECK(rs[2]->master() == rs[0]);
}

// sentinelFailoverDetectEnd: a replica whose link to the new master never
// comes up keeps the failover going until failover_timeout ends it (before
// the 10 s sentinel_slave_reconf_timeout would have).
TEST_CASE("failover_timeout ends a reconfiguration that cannot finish", "[redis]") {
  const auto in_progress_at_5s = [](Duration failover_timeout) {
    TwoReplicaShard s({}, SentinelConfig{1s, 1, failover_timeout});
    s.rw.advance(100ms);
    // r2 keeps the Sentinel but cannot reach r1: its REPLICAOF r1 is sent, its link never up.
    s.rw.w.network().partition({{s.r1.id()}, {s.r2.id()}}, PartitionMode::Drop);
    s.master.host().crash();
    s.rw.advance(1500ms);
    REQUIRE(&s.sentinel.master_of(0) == &s.r1);
    CHECK(s.r2.master() == &s.r1);
    CHECK_FALSE(s.r2.link_up());
    CHECK(s.sentinel.failover_in_progress(0));
    s.rw.advance(3500ms);
    return s.sentinel.failover_in_progress(0);
  };
  CHECK_FALSE(in_progress_at_5s(3s));  // +failover-end-for-timeout
  CHECK(in_progress_at_5s(180s));      // still waiting for r2 (reconf timeout 10 s)
}

// sentinelRefreshInstanceInfo, +fix-slave-config: a replica the failover
// could not reach still follows the dead old master; once reachable again
// it is re-pointed at an INFO (every 10 s here: its link never went down
// in the simulation) that comes failover_timeout after the failover's end
// and after its last SDOWN.
TEST_CASE("a replica left on the old master is re-pointed after failover_timeout (+fix-slave-config)", "[redis]") {
  const auto follows_new_master_at_14s = [](Duration failover_timeout) {
    TwoReplicaShard s({}, SentinelConfig{1s, 1, failover_timeout});
    s.rw.advance(100ms);
    s.rw.w.network().partition({{s.sentinel_host.id()}, {s.r2.id()}}, PartitionMode::Drop);
    s.master.host().crash();
    s.rw.advance(2500ms);  // r1 promoted; r2 SDOWN, so the failover ended without it
    REQUIRE(&s.sentinel.master_of(0) == &s.r1);
    REQUIRE_FALSE(s.sentinel.failover_in_progress(0));
    s.rw.w.network().heal();
    s.rw.advance(1500ms);  // reachable, INFO seen, but within failover_timeout
    CHECK(s.r2.master() == &s.master);
    s.rw.advance(10s);
    if (s.r2.master() != &s.r1) return false;
    REQUIRE(s.rw.call(s.r1, {"SET", "k", "v"}).is_ok());
    s.rw.advance(2s);
    CHECK(s.rw.call(s.r2, {"GET", "k"}) == Reply::bulk("v"));
    return true;
  };
  CHECK(follows_new_master_at_14s(3s));
  CHECK_FALSE(follows_new_master_at_14s(60s));
}

TEST_CASE("a refused command appears in the trace with its error", "[redis]") {
  RedisWorld rw;
  rw.w.trace().set_recording(true);
  RedisNode& master = rw.add_node("redis-1", config([](NodeConfig& c) { c.min_replicas_to_write = 1; }));
  CHECK(rw.call(master, {"SET", "k", "v"}) == Reply::error("NOREPLICAS Not enough good replicas to write."));
  bool seen = false;
  for (const TraceRecord& r : rw.w.trace().records())
    seen = seen || (r.kind == "command" && r.detail.find("NOREPLICAS") != std::string::npos);
  CHECK(seen);
}

TEST_CASE("a script's effects reach the replica as the commands it ran", "[redis]") {
  RedisWorld rw;
  RedisNode& master = rw.add_node("redis-1");
  RedisNode& replica = rw.add_node("redis-1-replica-1");
  master.attach_replica(replica);
  REQUIRE(rw.call(master, {"SET", "lock", "tok", "PX", "30000"}).is_ok());
  const std::string unlock =
      "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end";
  CHECK(rw.call(master, {"EVAL", unlock, "1", "lock", "tok"}) == Reply::integer_of(1));
  rw.advance(100ms);
  CHECK(replica.engine().key_count() == 0);
}

TEST_CASE("a paused node answers after the pause, in order", "[redis]") {
  RedisWorld rw;
  RedisNode& node = rw.add_node("redis-1");
  node.host().pause(2s);
  const TrueInstant before = rw.w.now();
  CHECK(rw.call(node, {"PING"}, 5s) == Reply::status("PONG"));
  CHECK(rw.w.now() - before >= 2s);
}
