// Tests of the simulated node's command engine (sim/redis/engine.hpp): the
// replies and error texts of redis-server 7.0.15 (every expected string
// below was read off a real 7.0.15 server), expiry at the boundary, replica
// and promoted-replica expiry, what is propagated (PXAT, PEXPIREAT, lazy DEL,
// script effects), the unlock and Redisson scripts, EVALSHA, the 8.4 IFEQ
// option, READONLY, and a property that hostile argv never breaks execute().
#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "sim/redis/engine.hpp"
#include "sim/redis/sha1.hpp"

namespace {

using locksim::Argv;
using locksim::sim::redis::Engine;
using locksim::sim::redis::EngineOptions;
using locksim::sim::redis::KeyEvent;
using locksim::Reply;
using locksim::sim::redis::Role;

constexpr std::int64_t kT0 = 1'700'000'000'000;  // a wall clock in ms

const std::string kCompareAndDelete =
    "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end";
const std::string kRedissonLock =
    "if (redis.call('exists',KEYS[1])==0) or (redis.call('hexists',KEYS[1],ARGV[2])==1) then "
    "redis.call('hincrby',KEYS[1],ARGV[2],1); redis.call('pexpire',KEYS[1],ARGV[1]); return nil; end; "
    "return redis.call('pttl',KEYS[1]);";
const std::string kRedissonRenew =
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return 1; end; return 0;";
// Redisson 3.x RedissonLock#unlockInnerAsync (KEYS: lock, channel; ARGV:
// unlock message, lease, lock name).
const std::string kRedissonUnlock =
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; "
    "else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end; return nil;";

Reply err(const std::string& text) { return Reply::error(text); }
Reply bulk(const std::string& s) { return Reply::bulk(s); }
Reply integer(std::int64_t v) { return Reply::integer_of(v); }

std::vector<std::pair<std::string, KeyEvent::Kind>> events_of(const Engine& e) {
  std::vector<std::pair<std::string, KeyEvent::Kind>> out;
  for (const KeyEvent& ev : e.last_key_events()) out.emplace_back(ev.key, ev.kind);
  return out;
}

}  // namespace

// ------------------------------------------------------------------ expiry --

TEST_CASE("a key is alive at its deadline and gone one millisecond later", "[redis]") {
  Engine e;
  REQUIRE(e.execute({"SET", "k", "v", "PX", "100"}, kT0).is_ok());
  CHECK(e.execute({"GET", "k"}, kT0 + 100) == bulk("v"));
  CHECK(e.execute({"PTTL", "k"}, kT0 + 100) == integer(0));
  CHECK(e.execute({"GET", "k"}, kT0 + 101).is_nil());
  CHECK(e.execute({"PTTL", "k"}, kT0 + 101) == integer(-2));
}

TEST_CASE("SET NX PX answers OK, then nil while the key lives, then OK once it expired", "[redis]") {
  Engine e;
  CHECK(e.execute({"SET", "lock", "a", "NX", "PX", "30000"}, kT0).is_ok());
  CHECK(e.execute({"SET", "lock", "b", "NX", "PX", "30000"}, kT0 + 30000).is_nil());
  CHECK(e.execute({"SET", "lock", "b", "NX", "PX", "30000"}, kT0 + 30001).is_ok());
  CHECK(e.execute({"GET", "lock"}, kT0 + 30001) == bulk("b"));
}

TEST_CASE("PTTL and TTL report what is left, -1 without a TTL and -2 for a missing key", "[redis]") {
  Engine e;
  e.execute({"SET", "k", "v", "EX", "10"}, kT0);
  e.execute({"SET", "p", "v"}, kT0);
  CHECK(e.execute({"PTTL", "k"}, kT0 + 1400) == integer(8600));
  CHECK(e.execute({"TTL", "k"}, kT0 + 1400) == integer(9));   // (8600+500)/1000
  CHECK(e.execute({"TTL", "k"}, kT0 + 1600) == integer(8));
  CHECK(e.execute({"PTTL", "p"}, kT0) == integer(-1));
  CHECK(e.execute({"TTL", "nokey"}, kT0) == integer(-2));
  CHECK(e.execute({"PERSIST", "k"}, kT0) == integer(1));
  CHECK(e.execute({"PERSIST", "k"}, kT0) == integer(0));
  CHECK(e.execute({"PTTL", "k"}, kT0) == integer(-1));
}

TEST_CASE("lazy expiry on a master deletes the key, records Expired and propagates DEL", "[redis]") {
  Engine e;
  e.execute({"SET", "k", "v", "PX", "10"}, kT0);
  (void)e.take_effects();
  CHECK(e.execute({"EXISTS", "k"}, kT0 + 11) == integer(0));
  CHECK(events_of(e) == std::vector<std::pair<std::string, KeyEvent::Kind>>{{"k", KeyEvent::Kind::Expired}});
  CHECK(e.take_effects() == std::vector<Argv>{{"DEL", "k"}});
  CHECK(e.key_count() == 0);
}

TEST_CASE("SET NX on a logically expired key propagates the lazy DEL before the SET", "[redis]") {
  Engine e;
  e.execute({"SET", "k", "a", "PX", "10"}, kT0);
  (void)e.take_effects();
  CHECK(e.execute({"set", "k", "b", "NX"}, kT0 + 20).is_ok());
  CHECK(e.take_effects() == std::vector<Argv>{{"DEL", "k"}, {"set", "k", "b", "NX"}});
  CHECK(events_of(e) == std::vector<std::pair<std::string, KeyEvent::Kind>>{{"k", KeyEvent::Kind::Expired},
                                                                             {"k", KeyEvent::Kind::Created}});
}

TEST_CASE("active expiry deletes every expired key in key order, on a master only", "[redis]") {
  Engine e;
  e.execute({"SET", "b", "1", "PX", "10"}, kT0);
  e.execute({"SET", "a", "1", "PX", "10"}, kT0);
  e.execute({"SET", "c", "1", "PX", "1000"}, kT0);
  e.execute({"SET", "d", "1"}, kT0);
  (void)e.take_effects();
  e.set_role(Role::Replica);
  e.active_expire(kT0 + 50);
  CHECK(e.key_count() == 4);
  CHECK(e.take_effects().empty());
  e.set_role(Role::Master);
  e.active_expire(kT0 + 50);
  CHECK(e.key_count() == 2);
  CHECK(e.take_effects() == std::vector<Argv>{{"DEL", "a"}, {"DEL", "b"}});
  CHECK(events_of(e) == std::vector<std::pair<std::string, KeyEvent::Kind>>{{"a", KeyEvent::Kind::Expired},
                                                                             {"b", KeyEvent::Kind::Expired}});
}

TEST_CASE("a replica answers a logically expired key as missing but keeps it until the master's DEL", "[redis]") {
  Engine replica;
  replica.set_role(Role::Replica);
  replica.apply({"SET", "k", "v", "PXAT", std::to_string(kT0 + 100)}, kT0);
  // apply() reports the applied command as an effect (what a replica's own
  // AOF and sub-replicas get); reads report none.
  CHECK(replica.take_effects() == std::vector<Argv>{{"SET", "k", "v", "PXAT", std::to_string(kT0 + 100)}});
  CHECK(replica.execute({"GET", "k"}, kT0 + 100) == bulk("v"));
  CHECK(replica.execute({"GET", "k"}, kT0 + 101).is_nil());
  CHECK(replica.execute({"PTTL", "k"}, kT0 + 101) == integer(-2));
  CHECK(replica.execute({"TTL", "k"}, kT0 + 101) == integer(-2));
  CHECK(replica.execute({"EXISTS", "k"}, kT0 + 101) == integer(0));
  CHECK(replica.execute({"TYPE", "k"}, kT0 + 101) == Reply::status("none"));
  CHECK(replica.execute({"DBSIZE"}, kT0 + 101) == integer(1));  // DBSIZE counts it, as on 7.0
  CHECK(replica.key_count() == 1);
  CHECK(replica.last_key_events().empty());
  CHECK(replica.take_effects().empty());
  replica.apply({"DEL", "k"}, kT0 + 200);
  CHECK(replica.key_count() == 0);
  CHECK(events_of(replica) == std::vector<std::pair<std::string, KeyEvent::Kind>>{{"k", KeyEvent::Kind::Deleted}});
}

TEST_CASE("a promoted replica expires keys by its own clock", "[redis]") {
  Engine node;
  node.set_role(Role::Replica);
  node.apply({"SET", "k", "v", "PXAT", std::to_string(kT0 + 100)}, kT0);
  (void)node.take_effects();
  node.active_expire(kT0 + 500);
  CHECK(node.key_count() == 1);
  node.set_role(Role::Master);
  CHECK(node.execute({"SET", "k", "mine", "NX"}, kT0 + 500).is_ok());
  CHECK(node.take_effects() == std::vector<Argv>{{"DEL", "k"}, {"SET", "k", "mine", "NX"}});
}

TEST_CASE("apply() executes without READONLY and without expiring by the node's clock", "[redis]") {
  Engine replica;
  replica.set_role(Role::Replica);
  replica.apply({"SET", "k", "v", "PXAT", std::to_string(kT0)}, kT0 + 1000);  // already past
  CHECK(replica.key_count() == 1);
  replica.apply({"PEXPIREAT", "k", std::to_string(kT0 - 5)}, kT0 + 1000);      // past: kept, not deleted
  CHECK(replica.key_count() == 1);
  CHECK(replica.inspect("k")->expire_at_ms == kT0 - 5);
  replica.apply({"INCR", "n"}, kT0);
  replica.apply({"MULTI"}, kT0);
  replica.apply({"HSET", "h", "f", "1"}, kT0);
  replica.apply({"EXEC"}, kT0);
  CHECK(replica.inspect("n")->value == "1");
  CHECK(replica.inspect("h")->type == "hash");
}

TEST_CASE("an expiry at or before now deletes the key on a master and propagates DEL", "[redis]") {
  Engine e;
  for (const Argv& cmd : std::vector<Argv>{{"PEXPIRE", "k", "0"}, {"EXPIRE", "k", "-5"}, {"PEXPIREAT", "k", "1"}}) {
    e.execute({"SET", "k", "v"}, kT0);
    (void)e.take_effects();
    CHECK(e.execute(cmd, kT0) == integer(1));
    CHECK(e.key_count() == 0);
    CHECK(e.take_effects() == std::vector<Argv>{{"DEL", "k"}});
    CHECK(events_of(e) == std::vector<std::pair<std::string, KeyEvent::Kind>>{{"k", KeyEvent::Kind::Deleted}});
  }
}

// ------------------------------------------------------------- propagation --

TEST_CASE("a relative expiry propagates as SET PXAT with the absolute deadline", "[redis]") {
  Engine e;
  e.execute({"SET", "a", "1", "PX", "100000"}, kT0);
  e.execute({"SET", "b", "1", "EX", "100"}, kT0);
  e.execute({"set", "c", "1", "PXAT", "99999999999999", "NX", "GET"}, kT0);
  e.execute({"set", "d", "1", "GET"}, kT0);
  e.execute({"set", "d", "2", "GET", "KEEPTTL"}, kT0);
  e.execute({"set", "g", "1", "XX"}, kT0);  // not set: nothing to propagate
  e.execute({"SET", "s", "1", "EXAT", "1"}, kT0);
  CHECK(e.take_effects() == std::vector<Argv>{{"SET", "a", "1", "PXAT", std::to_string(kT0 + 100000)},
                                               {"SET", "b", "1", "PXAT", std::to_string(kT0 + 100000)},
                                               {"SET", "c", "1", "PXAT", "99999999999999"},
                                               {"set", "d", "1"},
                                               {"set", "d", "2", "KEEPTTL"},
                                               {"SET", "s", "1", "PXAT", "1000"}});
}

TEST_CASE("EXPIRE, PEXPIRE and EXPIREAT propagate as PEXPIREAT; SETNX, INCR, PERSIST as sent", "[redis]") {
  Engine e;
  e.execute({"setnx", "e", "1"}, kT0);
  e.execute({"setnx", "e", "1"}, kT0);  // refused: not propagated
  e.execute({"pexpire", "e", "100000"}, kT0);
  e.execute({"expire", "e", "100"}, kT0);
  e.execute({"expireat", "e", "99999999999"}, kT0);
  e.execute({"pexpireat", "e", "99999999999999"}, kT0);
  e.execute({"persist", "e"}, kT0);
  e.execute({"persist", "e"}, kT0);  // nothing removed: not propagated
  e.execute({"incr", "i"}, kT0);
  e.execute({"decrby", "i", "2"}, kT0);
  e.execute({"del", "nokey"}, kT0);
  e.execute({"publish", "ch", "m"}, kT0);
  CHECK(e.take_effects() == std::vector<Argv>{{"setnx", "e", "1"},
                                               {"PEXPIREAT", "e", std::to_string(kT0 + 100000)},
                                               {"PEXPIREAT", "e", std::to_string(kT0 + 100000)},
                                               {"PEXPIREAT", "e", "99999999999000"},
                                               {"pexpireat", "e", "99999999999999"},
                                               {"persist", "e"},
                                               {"incr", "i"},
                                               {"decrby", "i", "2"}});
}

TEST_CASE("a script's writes replicate as the commands it ran, in MULTI/EXEC when there are several", "[redis]") {
  Engine e;
  e.execute({"SET", "a", "1"}, kT0);
  (void)e.take_effects();
  CHECK(e.execute({"EVAL", kCompareAndDelete, "1", "a", "1"}, kT0) == integer(1));
  CHECK(e.take_effects() == std::vector<Argv>{{"del", "a"}});
  CHECK(e.execute({"EVAL", "return redis.call('get', 'nokey')", "0"}, kT0).is_nil());
  CHECK(e.take_effects().empty());
  const std::string three =
      "redis.call('set', KEYS[1], 'v', 'PX', 5000); redis.call('pexpire', KEYS[1], 6000); "
      "return redis.call('incr', 'cnt')";
  CHECK(e.execute({"EVAL", three, "1", "q"}, kT0) == integer(1));
  CHECK(e.take_effects() == std::vector<Argv>{{"MULTI"},
                                               {"SET", "q", "v", "PXAT", std::to_string(kT0 + 5000)},
                                               {"PEXPIREAT", "q", std::to_string(kT0 + 6000)},
                                               {"incr", "cnt"},
                                               {"EXEC"}});
}

TEST_CASE("time is frozen at the script's start", "[redis]") {
  Engine e;
  const std::string script =
      "redis.call('set', KEYS[1], 'v', 'PX', 100); for i = 1, 100000 do end; return redis.call('pttl', KEYS[1])";
  CHECK(e.execute({"EVAL", script, "1", "k"}, kT0) == integer(100));
}

// --------------------------------------------------------- replies, errors --

TEST_CASE("error texts match redis-server 7.0.15", "[redis]") {
  Engine e;
  e.execute({"SET", "s", "abc"}, kT0);
  e.execute({"HSET", "h", "f", "abc"}, kT0);
  e.execute({"SET", "max", "9223372036854775807"}, kT0);
  const std::vector<std::pair<Argv, Reply>> cases = {
      {{"get"}, err("ERR wrong number of arguments for 'get' command")},
      {{"GET", "a", "b"}, err("ERR wrong number of arguments for 'get' command")},
      {{"set", "a"}, err("ERR wrong number of arguments for 'set' command")},
      {{"set", "a", "b", "NX", "XX"}, err("ERR syntax error")},
      {{"set", "a", "b", "KEEPTTL", "PX", "10"}, err("ERR syntax error")},
      {{"set", "a", "b", "PX", "10", "EX", "10"}, err("ERR syntax error")},
      {{"set", "a", "b", "PX"}, err("ERR syntax error")},
      {{"set", "a", "b", "foo"}, err("ERR syntax error")},
      {{"set", "a", "b", "IFEQ", "x"}, err("ERR syntax error")},
      {{"set", "a", "b", "PX", "0"}, err("ERR invalid expire time in 'set' command")},
      {{"set", "a", "b", "PX", "-1"}, err("ERR invalid expire time in 'set' command")},
      {{"set", "a", "b", "PXAT", "0"}, err("ERR invalid expire time in 'set' command")},
      {{"set", "a", "b", "PX", "9223372036854775807"}, err("ERR invalid expire time in 'set' command")},
      {{"set", "a", "b", "EX", "9223372036854775"}, err("ERR invalid expire time in 'set' command")},
      {{"set", "a", "b", "PX", "abc"}, err("ERR value is not an integer or out of range")},
      {{"set", "a", "b", "PX", "010"}, err("ERR value is not an integer or out of range")},
      {{"foo", "a", "b"}, err("ERR unknown command 'foo', with args beginning with: 'a' 'b' ")},
      {{"foo"}, err("ERR unknown command 'foo', with args beginning with: ")},
      {{"FOO", "a\nb"}, err("ERR unknown command 'FOO', with args beginning with: 'a b' ")},
      {{"delex", "a"}, err("ERR unknown command 'delex', with args beginning with: 'a' ")},
      {{"incr", "s"}, err("ERR value is not an integer or out of range")},
      {{"incr", "max"}, err("ERR increment or decrement would overflow")},
      {{"decrby", "x", "-9223372036854775808"}, err("ERR decrement would overflow")},
      {{"incrby", "a", "1", "2"}, err("ERR wrong number of arguments for 'incrby' command")},
      {{"hset", "s", "f", "v"}, err("WRONGTYPE Operation against a key holding the wrong kind of value")},
      {{"get", "h"}, err("WRONGTYPE Operation against a key holding the wrong kind of value")},
      {{"hset", "h", "f", "v", "g"}, err("ERR wrong number of arguments for 'hset' command")},
      {{"hincrby", "h", "f", "1"}, err("ERR hash value is not an integer")},
      {{"hincrby", "h", "f", "x"}, err("ERR value is not an integer or out of range")},
      {{"ping", "x", "y"}, err("ERR wrong number of arguments for 'ping' command")},
      {{"dbsize", "x"}, err("ERR wrong number of arguments for 'dbsize' command")},
      {{"flushall", "x"}, err("ERR syntax error")},
      {{"pexpire", "s", "10", "foo"}, err("ERR Unsupported option foo")},
      {{"pexpire", "s", "10", "nx", "xx"}, err("ERR NX and XX, GT or LT options at the same time are not compatible")},
      {{"expire", "s", "10", "gt", "lt"}, err("ERR GT and LT options at the same time are not compatible")},
      {{"expire", "s", "9223372036854775807"}, err("ERR invalid expire time in 'expire' command")},
      {{"pexpire", "s", "9223372036854775807"}, err("ERR invalid expire time in 'pexpire' command")},
      {{"eval", "return 1"}, err("ERR wrong number of arguments for 'eval' command")},
      {{"eval", "return 1", "x"}, err("ERR value is not an integer or out of range")},
      {{"eval", "return 1", "-1"}, err("ERR Number of keys can't be negative")},
      {{"eval", "return 1", "2", "a"}, err("ERR Number of keys can't be greater than number of args")},
      {{"evalsha", "abc", "x"}, err("NOSCRIPT No matching script. Please use EVAL.")},
      {{"script"}, err("ERR wrong number of arguments for 'script' command")},
      {{"script", "foo"}, err("ERR unknown subcommand 'foo'. Try SCRIPT HELP.")},
      {{"script", "load"}, err("ERR wrong number of arguments for 'script|load' command")},
      {{"script", "flush", "x"}, err("ERR SCRIPT FLUSH only support SYNC|ASYNC option")},
      {{"script", "kill"}, err("NOTBUSY No scripts in execution right now.")},
      {{"script", "load", "return 'x' .. "},
       err("ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'")},
  };
  for (const auto& [argv, expected] : cases) {
    INFO(argv[0] << (argv.size() > 1 ? " " + argv[1] : std::string()));
    CHECK(e.execute(argv, kT0) == expected);
  }
}

TEST_CASE("SET GET returns the old value; with NX it does not overwrite", "[redis]") {
  Engine e;
  CHECK(e.execute({"SET", "a", "b", "GET", "NX"}, kT0).is_nil());
  CHECK(e.execute({"SET", "a", "c", "NX", "GET"}, kT0) == bulk("b"));
  CHECK(e.execute({"GET", "a"}, kT0) == bulk("b"));
  CHECK(e.execute({"SET", "a", "d", "GET"}, kT0) == bulk("b"));
  CHECK(e.execute({"SET", "a", "b", "ex", "10", "ex", "20"}, kT0).is_ok());  // a repeated option: last wins
  CHECK(e.execute({"TTL", "a"}, kT0) == integer(20));
  CHECK(e.execute({"SET", "a", "e", "KEEPTTL"}, kT0).is_ok());
  CHECK(e.execute({"TTL", "a"}, kT0) == integer(20));
  CHECK(e.execute({"SET", "a", "f"}, kT0).is_ok());
  CHECK(e.execute({"TTL", "a"}, kT0) == integer(-1));
  CHECK(e.execute({"SETNX", "a", "x"}, kT0) == integer(0));
  CHECK(e.execute({"SETNX", "n", "x"}, kT0) == integer(1));
}

TEST_CASE("strings, counters and keys answer like 7.0", "[redis]") {
  Engine e;
  CHECK(e.execute({"PING"}, kT0) == Reply::status("PONG"));
  CHECK(e.execute({"PING", "x"}, kT0) == bulk("x"));
  CHECK(e.execute({"ECHO", "a\0b"}, kT0) == bulk("a\0b"));
  CHECK(e.execute({"INCR", "c"}, kT0) == integer(1));
  CHECK(e.execute({"INCRBY", "c", "41"}, kT0) == integer(42));
  CHECK(e.execute({"DECR", "c"}, kT0) == integer(41));
  CHECK(e.execute({"DECRBY", "c", "-9"}, kT0) == integer(50));
  e.execute({"SET", "z", "007"}, kT0);
  CHECK(e.execute({"INCR", "z"}, kT0) == err("ERR value is not an integer or out of range"));
  CHECK(e.execute({"EXISTS", "c", "c", "z", "nokey"}, kT0) == integer(3));
  CHECK(e.execute({"TYPE", "c"}, kT0) == Reply::status("string"));
  CHECK(e.execute({"DBSIZE"}, kT0) == integer(2));
  CHECK(e.execute({"DEL", "c", "c", "nokey"}, kT0) == integer(1));
  CHECK(e.execute({"FLUSHALL"}, kT0).is_ok());
  CHECK(e.execute({"DBSIZE"}, kT0) == integer(0));
  CHECK(e.execute({"PUBLISH", "ch", "m"}, kT0) == integer(0));
}

TEST_CASE("hashes answer like 7.0 and keep insertion order", "[redis]") {
  Engine e;
  CHECK(e.execute({"HSET", "h", "f", "v", "g", "w"}, kT0) == integer(2));
  CHECK(e.execute({"HSET", "h", "f", "v2", "z", "1"}, kT0) == integer(1));
  CHECK(e.execute({"HGETALL", "h"}, kT0) ==
        Reply::array({bulk("f"), bulk("v2"), bulk("g"), bulk("w"), bulk("z"), bulk("1")}));
  CHECK(e.execute({"HGET", "h", "g"}, kT0) == bulk("w"));
  CHECK(e.execute({"HGET", "h", "nope"}, kT0).is_nil());
  CHECK(e.execute({"HINCRBY", "h", "z", "9223372036854775807"}, kT0) == err("ERR increment or decrement would overflow"));
  CHECK(e.execute({"HINCRBY", "h", "new", "-5"}, kT0) == integer(-5));
  CHECK(e.execute({"HEXISTS", "h", "new"}, kT0) == integer(1));
  CHECK(e.execute({"HLEN", "h"}, kT0) == integer(4));
  CHECK(e.execute({"HDEL", "h", "new", "nope", "f"}, kT0) == integer(2));
  CHECK(e.execute({"HDEL", "h", "g", "z"}, kT0) == integer(2));
  CHECK(e.execute({"EXISTS", "h"}, kT0) == integer(0));  // the last field took the key with it
  CHECK(events_of(e) == std::vector<std::pair<std::string, KeyEvent::Kind>>{});
  CHECK(e.execute({"HGETALL", "h"}, kT0) == Reply::array({}));
}

TEST_CASE("key events say who created, modified, deleted or expired a key", "[redis]") {
  using K = KeyEvent::Kind;
  Engine e;
  e.execute({"SET", "k", "v", "NX", "PX", "100"}, kT0);
  CHECK(events_of(e) == std::vector<std::pair<std::string, K>>{{"k", K::Created}});
  e.execute({"SET", "k", "v", "NX", "PX", "100"}, kT0);
  CHECK(events_of(e).empty());
  e.execute({"PEXPIRE", "k", "500"}, kT0);
  CHECK(events_of(e) == std::vector<std::pair<std::string, K>>{{"k", K::Modified}});
  e.execute({"EVAL", kCompareAndDelete, "1", "k", "v"}, kT0);
  CHECK(events_of(e) == std::vector<std::pair<std::string, K>>{{"k", K::Deleted}});
  e.execute({"HSET", "h", "f", "1"}, kT0);
  CHECK(events_of(e) == std::vector<std::pair<std::string, K>>{{"h", K::Created}});
  e.execute({"FLUSHALL"}, kT0);
  CHECK(events_of(e) == std::vector<std::pair<std::string, K>>{{"h", K::Deleted}});
}

// ---------------------------------------------------------------- replicas --

TEST_CASE("writes on a replica answer READONLY while reads, PUBLISH and read-only scripts run", "[redis]") {
  Engine e;
  e.set_role(Role::Replica);
  const Reply ro = err("READONLY You can't write against a read only replica.");
  for (const Argv& w : std::vector<Argv>{{"set", "a", "b"}, {"del", "a"}, {"incr", "a"}, {"flushall"},
                                         {"hset", "h", "f", "v"}, {"pexpire", "a", "10"}, {"persist", "a"},
                                         {"setnx", "a", "b"}}) {
    CHECK(e.execute(w, kT0) == ro);
  }
  CHECK(e.execute({"set", "a"}, kT0) == err("ERR wrong number of arguments for 'set' command"));  // arity first
  CHECK(e.execute({"get", "a"}, kT0).is_nil());
  CHECK(e.execute({"publish", "c", "m"}, kT0) == integer(0));
  CHECK(e.execute({"eval", "return 1", "0"}, kT0) == integer(1));
  CHECK(e.execute({"script", "load", "return 1"}, kT0) == bulk("e0e1f9fabfc9d4800c877a703b823ac0578ff8db"));
}

TEST_CASE("a script that writes on a replica fails with READONLY; pcall returns it", "[redis]") {
  Engine e;
  e.set_role(Role::Replica);
  CHECK(e.execute({"eval", "return redis.call('set','a','b')", "0"}, kT0) ==
        err("READONLY You can't write against a read only replica. script: "
            "ff967d0ae0e68b4f9e360fa91c54598bc25ad9b6, on @user_script:1."));
  CHECK(e.execute({"eval", "return redis.pcall('del','a')", "1", "a"}, kT0) ==
        err("READONLY You can't write against a read only replica."));
  CHECK(e.execute({"eval", "return redis.call('publish','a','b')", "0"}, kT0) == integer(0));
}

// --------------------------------------------------------------- scripting --

TEST_CASE("the compare-and-delete unlock deletes only the owner's lock", "[redis]") {
  Engine e;
  e.execute({"SET", "lock", "token-b", "NX", "PX", "10000"}, kT0);
  CHECK(e.execute({"EVAL", kCompareAndDelete, "1", "lock", "token-a"}, kT0) == integer(0));
  CHECK(e.execute({"GET", "lock"}, kT0) == bulk("token-b"));
  CHECK(e.execute({"EVAL", kCompareAndDelete, "1", "lock", "token-b"}, kT0) == integer(1));
  CHECK(e.execute({"EXISTS", "lock"}, kT0) == integer(0));
  CHECK(e.execute({"EVAL", kCompareAndDelete, "1", "lock", "token-b"}, kT0) == integer(0));
}

TEST_CASE("Redisson's lock, renew and unlock scripts run unchanged", "[redis]") {
  Engine e;
  const std::string owner = "8f1c:1", other = "77aa:1";
  // Lock: nil on success (re-entrant), the PTTL when someone else holds it.
  CHECK(e.execute({"EVAL", kRedissonLock, "1", "lock", "30000", owner}, kT0).is_nil());
  CHECK(e.execute({"EVAL", kRedissonLock, "1", "lock", "30000", owner}, kT0 + 10).is_nil());
  CHECK(e.execute({"HGET", "lock", owner}, kT0 + 10) == bulk("2"));
  CHECK(e.execute({"EVAL", kRedissonLock, "1", "lock", "30000", other}, kT0 + 1010) == integer(29000));
  // Renew: 1 for the owner (TTL back to the lease), 0 for anyone else.
  CHECK(e.execute({"EVAL", kRedissonRenew, "1", "lock", "30000", owner}, kT0 + 5000) == integer(1));
  CHECK(e.execute({"PTTL", "lock"}, kT0 + 5000) == integer(30000));
  CHECK(e.execute({"EVAL", kRedissonRenew, "1", "lock", "30000", other}, kT0 + 5000) == integer(0));
  // Unlock: a non-owner gets nil and deletes nothing; the owner counts down.
  const Argv unlock_by_other{"EVAL", kRedissonUnlock, "2", "lock", "redisson_lock__channel:{lock}", "0", "30000", other};
  CHECK(e.execute(unlock_by_other, kT0 + 6000).is_nil());
  Argv unlock = unlock_by_other;
  unlock.back() = owner;
  CHECK(e.execute(unlock, kT0 + 6000) == integer(0));
  CHECK(e.execute(unlock, kT0 + 6000) == integer(1));
  CHECK(e.execute({"EXISTS", "lock"}, kT0 + 6000) == integer(0));
}

TEST_CASE("EVALSHA runs a loaded script and answers NOSCRIPT otherwise; SCRIPT FLUSH forgets", "[redis]") {
  Engine e;
  const std::string sha = locksim::sim::redis::sha1_hex(kCompareAndDelete);
  CHECK(e.execute({"EVALSHA", sha, "1", "k", "v"}, kT0) == err("NOSCRIPT No matching script. Please use EVAL."));
  CHECK(e.execute({"SCRIPT", "LOAD", kCompareAndDelete}, kT0) == bulk(sha));
  e.execute({"SET", "k", "v"}, kT0);
  std::string upper = sha;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(e.execute({"EVALSHA", upper, "1", "k", "v"}, kT0) == integer(1));
  CHECK(e.execute({"SCRIPT", "EXISTS", sha, "nope"}, kT0) == Reply::array({integer(1), integer(0)}));
  CHECK(e.execute({"SCRIPT", "FLUSH"}, kT0).is_ok());
  CHECK(e.execute({"EVALSHA", sha, "1", "k", "v"}, kT0) == err("NOSCRIPT No matching script. Please use EVAL."));
  CHECK(e.execute({"EVAL", kCompareAndDelete, "1", "k", "v"}, kT0) == integer(0));  // EVAL caches it again
  CHECK(e.execute({"EVALSHA", sha, "1", "k", "v"}, kT0) == integer(0));
  e.flush_all();  // a restart without persistence forgets scripts too
  CHECK(e.execute({"EVALSHA", sha, "1", "k", "v"}, kT0) == err("NOSCRIPT No matching script. Please use EVAL."));
}

TEST_CASE("Lua values convert to replies as in 7.0", "[redis]") {
  Engine e;
  const std::vector<std::pair<std::string, Reply>> cases = {
      {"return 3.99", integer(3)},
      {"return -3.99", integer(-3)},
      {"return 1e20", integer(INT64_MIN)},
      {"return true", integer(1)},
      {"return false", Reply::nil()},
      {"return nil", Reply::nil()},
      {"return 'a\\0b'", bulk(std::string("a\0b", 3))},
      {"return {1,2,nil,4}", Reply::array({integer(1), integer(2)})},
      {"return {1,'a',{2,false},true}",
       Reply::array({integer(1), bulk("a"), Reply::array({integer(2), Reply::nil()}), integer(1)})},
      {"return {ok='fine'}", Reply::status("fine")},
      {"return {err='boom'}", err("boom")},
      {"return {err=''}", err("")},
      {"return {ok=1}", Reply::array({})},
      {"return redis.status_reply('S')", Reply::status("S")},
      {"return redis.error_reply('x')", err("ERR x")},
      {"return redis.error_reply('MY x')", err("MY x")},
      {"return redis.error_reply('-X y')", err("X y")},
      {"return redis.sha1hex('')", bulk("da39a3ee5e6b4b0d3255bfef95601890afd80709")},
      {"return {math.random()*1000000, math.random(100)}", Reply::array({integer(396464), integer(85)})},
  };
  for (const auto& [script, expected] : cases) {
    INFO(script);
    CHECK(e.execute({"EVAL", script, "0"}, kT0) == expected);
  }
}

TEST_CASE("replies convert to Lua as in 7.0: nil is false, status {ok=}, errors raise or return", "[redis]") {
  Engine e;
  e.execute({"SET", "s", "abc"}, kT0);
  const std::vector<std::pair<std::string, Reply>> cases = {
      {"return tostring(redis.call('get','nokey'))", bulk("false")},
      {"return redis.call('ping')['ok']", bulk("PONG")},
      {"return redis.call('incr','n') + 1", integer(2)},
      {"return type(redis.pcall('incr','s'))", bulk("table")},
      {"return redis.pcall('incr','s')['err']", bulk("ERR value is not an integer or out of range")},
      {"return redis.pcall('incr','s')", err("ERR value is not an integer or out of range")},
      {"local ok, e = pcall(function() redis.call('hset','s','f','v') end); return e",
       bulk("WRONGTYPE Operation against a key holding the wrong kind of value")},
      {"return redis.call('get', 10)", Reply::nil()},
      {"return redis.call('set','n2',0.1) and redis.call('get','n2')", bulk("0.10000000000000001")},
  };
  for (const auto& [script, expected] : cases) {
    INFO(script);
    CHECK(e.execute({"EVAL", script, "0"}, kT0) == expected);
  }
  const std::string raising = "return redis.call('incr','s')";
  CHECK(e.execute({"EVAL", raising, "0"}, kT0) ==
        err("ERR value is not an integer or out of range script: " + locksim::sim::redis::sha1_hex(raising) +
            ", on @user_script:1."));
}

TEST_CASE("script errors carry 7.0's text and the script suffix", "[redis]") {
  Engine e;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"return x", "ERR user_script:1: Script attempted to access nonexistent global variable 'x' script: "
                   "03c387736bb5cc009ff35151572cee04677aa374, on @user_script:1."},
      {"x = 1", "ERR user_script:1: Attempt to modify a readonly table script: "
                "34bce5f775de97f557a34088509c8bfe1ea17e52, on @user_script:1."},
      {"return redis.call('foo')", "ERR Unknown Redis command called from script script: "
                                   "cc78c5a793d041f28ab0f6b117a82d1428ccfd13, on @user_script:1."},
      {"return redis.call('get')", "ERR Wrong number of args calling Redis command from script script: "
                                   "f187dee77f607f7cff00bbabc9df38507582c78d, on @user_script:1."},
      {"return redis.call()", "ERR Please specify at least one argument for this redis lib call script: "
                              "0a907e1429221a4d85516cab7fd219a82a9439d8, on @user_script:1."},
      {"return redis.call({})", "ERR Lua redis lib command arguments must be strings or integers script: "
                                "80747816df1f4411f7c442b928fce6a814214839, on @user_script:1."},
      {"error('boom')", "ERR user_script:1: boom script: 82903a0434f1503e152f89c03c9acd881a0e8150, on "
                        "@user_script:1."},
      {"error({err='NOPE my err'})", "NOPE my err script: 51f1f0064294272757d539613e17da9022bc56db, on "
                                     "@user_script:1."},
      {"return redis.call('eval','return 1','0')", "ERR This Redis command is not allowed from script script: "
                                                   "1e5046f3a9119d3dc9cf5824428b6d9fedd305d2, on @user_script:1."},
      {"local a = {}; return a.b.c", "ERR user_script:1: attempt to index field 'b' (a nil value) script: "
                                     "1e5368315835e5c963003d2a6a778ba46354dfa3, on @user_script:1."},
      {"return 'x' .. ", "ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'"},
  };
  for (const auto& [script, expected] : cases) {
    INFO(script);
    CHECK(e.execute({"EVAL", script, "0"}, kT0) == err(expected));
  }
}

TEST_CASE("the sandbox has no os, io or loadstring and keeps globals and libraries read-only", "[redis]") {
  Engine e;
  for (const char* name : {"os", "io", "loadstring", "dofile", "require", "print", "getfenv"}) {
    const std::string script = std::string("return ") + name;
    Reply r = e.execute({"EVAL", script, "0"}, kT0);
    INFO(script << " -> " << r.to_string());
    CHECK(r.str.find("Script attempted to access nonexistent global variable '" + std::string(name) + "'") !=
          std::string::npos);
  }
  CHECK(e.execute({"EVAL", "redis.call = nil", "0"}, kT0).str.find("Attempt to modify a readonly table") !=
        std::string::npos);
  CHECK(e.execute({"EVAL", "string.foo = 1", "0"}, kT0).str.find("Attempt to modify a readonly table") !=
        std::string::npos);
  CHECK(e.execute({"EVAL", "rawset(_G, 'y', 1)", "0"}, kT0).str.find("Attempt to modify a readonly table") !=
        std::string::npos);
  CHECK(e.execute({"EVAL", "return type(redis.call)", "0"}, kT0) == bulk("function"));
}

TEST_CASE("an endless script stops with an error instead of hanging the simulation", "[redis]") {
  EngineOptions options;
  options.script_instruction_budget = 1'000'000;
  Engine e(options);
  for (const char* script : {"while true do end", "while true do pcall(function() while true do end end) end"}) {
    Reply r = e.execute({"EVAL", script, "0"}, kT0);
    INFO(script << " -> " << r.to_string());
    CHECK(r.is_error());
    CHECK(r.str.rfind("ERR Script exceeded the instruction budget", 0) == 0);
  }
  CHECK(e.execute({"EVAL", "return 1", "0"}, kT0) == integer(1));  // the state is usable afterwards
}

TEST_CASE("EVAL_RO runs reads and refuses writes with 7.0's error", "[redis]") {
  Engine e;
  e.execute({"SET", "a", "1"}, kT0);
  CHECK(e.execute({"EVAL_RO", "return redis.call('get', KEYS[1])", "1", "a"}, kT0) == bulk("1"));
  CHECK(e.execute({"eval_ro", "return redis.call('set','a','b')", "1", "a"}, kT0) ==
        err("ERR Write commands are not allowed from read-only scripts. script: "
            "ff967d0ae0e68b4f9e360fa91c54598bc25ad9b6, on @user_script:1."));
  CHECK(e.execute({"eval_ro", "return redis.pcall('set','a','b')", "1", "a"}, kT0) ==
        err("ERR Write commands are not allowed from read-only scripts."));
  // Cached by the EVAL_RO above; by sha it still may not write.
  CHECK(e.execute({"EVALSHA_RO", "ff967d0ae0e68b4f9e360fa91c54598bc25ad9b6", "0"}, kT0).str.rfind(
            "ERR Write commands are not allowed from read-only scripts.", 0) == 0);
  CHECK(e.execute({"GET", "a"}, kT0) == bulk("1"));
  CHECK(e.execute({"EVAL", "return redis.call('set','a','b')", "0"}, kT0).is_ok());  // plain EVAL may write
  CHECK_FALSE(Engine::is_write_command({"EVAL_RO", "return 1", "0"}));
}

// ---------------------------------------------------------------- options --

TEST_CASE("with the 8.4 option DELEX IFEQ and SET IFEQ compare values; without it they answer as 7.0", "[redis]") {
  Engine old;
  old.execute({"SET", "k", "v"}, kT0);
  CHECK(old.execute({"DELEX", "k", "IFEQ", "v"}, kT0) ==
        err("ERR unknown command 'DELEX', with args beginning with: 'k' 'IFEQ' 'v' "));
  CHECK(old.execute({"SET", "k", "w", "IFEQ", "v"}, kT0) == err("ERR syntax error"));

  Engine e(EngineOptions{.redis84_ifeq = true});
  e.execute({"SET", "k", "v"}, kT0);
  (void)e.take_effects();
  CHECK(e.execute({"DELEX", "k", "IFEQ", "other"}, kT0) == integer(0));
  CHECK(e.execute({"SET", "k", "w", "IFEQ", "other"}, kT0).is_nil());
  CHECK(e.execute({"SET", "k", "w", "IFEQ", "v", "PX", "100"}, kT0).is_ok());
  CHECK(e.execute({"SET", "nokey", "w", "IFEQ", "v"}, kT0).is_nil());  // never creates
  CHECK(e.execute({"SET", "k", "x", "NX", "IFEQ", "w"}, kT0) == err("ERR syntax error"));
  CHECK(e.execute({"DELEX", "k", "IFEQ", "w"}, kT0) == integer(1));
  CHECK(e.take_effects() == std::vector<Argv>{{"SET", "k", "w", "PXAT", std::to_string(kT0 + 100)}, {"DEL", "k"}});
  CHECK(e.key_count() == 0);
}

TEST_CASE("is_write_command knows the write and may-replicate commands", "[redis]") {
  for (const char* w : {"SET", "set", "DEL", "INCR", "INCRBY", "DECR", "DECRBY", "SETNX", "PEXPIRE", "PEXPIREAT",
                        "EXPIRE", "EXPIREAT", "PERSIST", "FLUSHALL", "HSET", "HINCRBY", "HDEL", "EVAL", "EVALSHA",
                        "PUBLISH", "DELEX"}) {
    INFO(w);
    CHECK(Engine::is_write_command({w, "k", "v"}));
  }
  for (const char* r : {"GET", "EXISTS", "PTTL", "TTL", "PING", "ECHO", "TYPE", "DBSIZE", "HGET", "HEXISTS", "HLEN",
                        "HGETALL", "SCRIPT", "WAIT", "nonsense"}) {
    INFO(r);
    CHECK_FALSE(Engine::is_write_command({r, "k"}));
  }
  CHECK_FALSE(Engine::is_write_command({}));
}

TEST_CASE("SHA-1 matches known answers", "[redis]") {
  using locksim::sim::redis::sha1_hex;
  CHECK(sha1_hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(sha1_hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  CHECK(sha1_hex(std::string(1000, 'a')) == "291e9a6c66994949b57ba5e650361e98fc36b1ba");
}

// ----------------------------------------------------------- hostile input --

TEST_CASE("random argv never crashes or throws out of execute() or apply()", "[redis]") {
  const std::vector<std::string> words = {
      "SET", "GET", "DEL", "EXISTS", "INCR", "INCRBY", "DECR", "DECRBY", "SETNX", "PEXPIRE", "PEXPIREAT", "EXPIRE",
      "EXPIREAT", "PTTL", "TTL", "PERSIST", "PING", "ECHO", "TYPE", "FLUSHALL", "DBSIZE", "HSET", "HGET", "HINCRBY",
      "HEXISTS", "HDEL", "HLEN", "HGETALL", "PUBLISH", "EVAL", "EVALSHA", "SCRIPT", "DELEX", "LOAD", "EXISTS",
      "FLUSH", "NX", "XX", "PX", "EX", "PXAT", "EXAT", "KEEPTTL", "GET", "IFEQ", "IFNE", "GT", "LT", "k", "h", "0",
      "1", "-1", "100", "9223372036854775807", "-9223372036854775808", "99999999999999999999", "",
      std::string("a\0b", 3), "\r\n", kCompareAndDelete, "return redis.call(ARGV[1], KEYS[1])",
      "return redis.pcall(unpack(ARGV))", "return {err=ARGV[1]}", "error(KEYS)", "return KEYS"};
  const auto token = rc::gen::oneOf(rc::gen::elementOf(words), rc::gen::arbitrary<std::string>());
  const bool ok = rc::check("hostile argv", [&] {
    Engine e(EngineOptions{.redis84_ifeq = *rc::gen::arbitrary<bool>(), .script_instruction_budget = 100000});
    if (*rc::gen::arbitrary<bool>()) e.set_role(Role::Replica);
    const auto commands = *rc::gen::container<std::vector<Argv>>(rc::gen::container<Argv>(token));
    std::int64_t now = *rc::gen::inRange<std::int64_t>(-1000, 4'000'000'000'000);
    for (const Argv& argv : commands) {
      now += *rc::gen::inRange<std::int64_t>(0, 200);
      if (*rc::gen::inRange(0, 5) == 0) {
        e.apply(argv, now);
      } else {
        const Reply r = e.execute(argv, now);
        RC_ASSERT(r.type != Reply::Type::Error || r.str.find('\n') == std::string::npos);
      }
      e.active_expire(now);
      (void)e.take_effects();
    }
  });
  CHECK(ok);
}
