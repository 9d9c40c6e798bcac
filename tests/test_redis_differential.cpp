// Differential tests: the simulated Redis node (sim/redis/engine.hpp) against
// a real redis-server 7.0 through hiredis, plus the real-Redis side itself
// (HiredisConn, RealRuntime, the RedisServerProcess fixture).
//
// rapidcheck generates command sequences over a tiny alphabet of keys,
// fields and values (so strings, hashes, expiries and scripts collide) and
// runs each on a fresh Engine and on the real server after FLUSHALL + SCRIPT
// FLUSH. Every reply must be identical (Reply ==). The only exception is
// time itself: the engine reads the clock just before the server does, so
// PTTL and scripts returning a PTTL may differ by the measured gap between
// the two (a few ms: same type, -1/-2 exact, remaining times within 2 x the
// largest gap + 2 ms), and TTL by one second only when its rounding boundary
// falls inside that window. Relative expiries are either invalid or at least
// 100 s, absolute ones long past or in 2100, so no key expires during a
// sequence by accident.
//
// One server serves the whole run (a function-local static). The number of
// cases per property is LOCKSIM_PROPERTY_CASES, else RC_PARAMS' max_success,
// else default_cases below (the whole file then takes seconds on two cores);
// RC_PARAMS="seed=N" or the printed reproduce string replays a failure.
#include <rapidcheck.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "locks/hiredis/hiredis_conn.hpp"
#include "locks/hiredis/real_runtime.hpp"
#include "sim/redis/engine.hpp"
#include "vocab/task.hpp"
#include "tests/support/redis_server.hpp"

namespace {

using namespace std::chrono_literals;
using locksim::locks::HiredisConn;
using locksim::locks::HiredisOptions;
using locksim::locks::RealRuntime;
using locksim::locks::Runtime;
using locksim::Task;
using locksim::Argv;
using locksim::sim::redis::Engine;
using locksim::Reply;
using locksim::sim::redis::Role;
using locksim::tests::RedisServerOptions;
using locksim::tests::RedisServerProcess;
using locksim::tests::skip_without_redis_server;

constexpr int default_cases = 1000;  // ~1 ms each against a local server

// ---------------------------------------------------------------- fixture --

RedisServerProcess& shared_server() {
  skip_without_redis_server();
  static RedisServerProcess server;
  return server;
}

HiredisConn& shared_conn() {
  static HiredisConn conn(HiredisOptions{"127.0.0.1", shared_server().port(), 2000ms, 10000ms});
  return conn;
}

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ---------------------------------------------------------------- scripts --

// Scripts users copy from articles and Redisson, and scripts that exercise
// every Lua -> RESP conversion.
const std::string compare_and_delete =
    "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end";
const std::string redisson_lock =
    "if (redis.call('exists',KEYS[1])==0) or (redis.call('hexists',KEYS[1],ARGV[2])==1) then "
    "redis.call('hincrby',KEYS[1],ARGV[2],1); redis.call('pexpire',KEYS[1],ARGV[1]); return nil; end; "
    "return redis.call('pttl',KEYS[1]);";
const std::string redisson_unlock =
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; "
    "else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end; "
    "return nil;";
const std::string redisson_renew =
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then "
    "redis.call('pexpire', KEYS[1], ARGV[1]); return 1; end; return 0;";
const std::string set_nx_px_script = "return redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])";

// Scripts taking no keys and no arguments.
const std::vector<std::string> constant_scripts = {
    "return {1, 2.5, 'x', false, 'y'}",
    "return {1, {ok='fine'}, {err='bad'}, {2, 3}}",
    "return {1, 2, nil, 4}",
    "return {ok='fine'}",
    "return redis.status_reply('PONG')",
    "return {err='My Error'}",
    "return redis.error_reply('ERR custom')",
    "return redis.error_reply('custom')",
    "return nil",
    "return false",
    "return true",
    "return 3.99",
    "return -2.5",
    "return 'text'",
    "return {}",
    "return redis.pcall('nosuchcommand')",
    "return redis.call('nosuchcommand')",
    "return redis.pcall('get')",
    "return nil + 1",
    "retur 1",
};

// Scripts taking one key and one argument.
const std::vector<std::string> key_arg_scripts = {
    compare_and_delete,
    "return redis.call('get', KEYS[1])",
    "return redis.pcall('incr', KEYS[1])",
    "return redis.call('incr', KEYS[1])",
    "local r = redis.pcall('incr', KEYS[1]); if type(r) == 'table' and r.err then "
    "return 'caught: ' .. r.err end; return r",
    "return redis.call('set', KEYS[1], ARGV[1])",
    "return {KEYS[1], ARGV[1], #KEYS, #ARGV}",
    "return tonumber(ARGV[1])",
    "return redis.call('exists', KEYS[1]) == 1",
    "return redis.call('hset', KEYS[1], 'f', ARGV[1])",
};

std::vector<std::string> all_scripts() {
  std::vector<std::string> all = {redisson_lock, redisson_unlock, redisson_renew, set_nx_px_script};
  all.insert(all.end(), constant_scripts.begin(), constant_scripts.end());
  all.insert(all.end(), key_arg_scripts.begin(), key_arg_scripts.end());
  return all;
}

// SHA1 of each loadable script, asked of the real server once (the engine
// must agree: EVALSHA with these digests is part of the comparison).
const std::map<std::string, std::string>& script_shas() {
  static const std::map<std::string, std::string> shas = [] {
    std::map<std::string, std::string> out;
    for (const auto& body : all_scripts()) {
      Reply r = shared_conn().execute({"SCRIPT", "LOAD", body});
      if (r.type == Reply::Type::Bulk) out[body] = r.str;
    }
    shared_conn().execute({"SCRIPT", "FLUSH"});
    return out;
  }();
  return shas;
}

std::vector<std::string> sha_alphabet() {
  std::vector<std::string> out = {"0000000000000000000000000000000000000000", "abc"};
  for (const auto& [body, sha] : script_shas()) {
    if (body == compare_and_delete || body == redisson_lock || body == redisson_renew ||
        body == key_arg_scripts[2]) {
      out.push_back(sha);
      out.push_back(upper(sha));
    }
  }
  return out;
}

// ------------------------------------------------------------- comparison --

bool mentions_pttl(const std::string& script) { return lower(script).find("pttl") != std::string::npos; }

// Commands whose reply depends on the instant the server ran them.
bool time_sensitive(const Argv& argv) {
  if (argv.empty()) return false;
  const std::string name = upper(argv[0]);
  if (name == "PTTL" || name == "TTL") return true;
  if (name == "EVAL" && argv.size() > 1) return mentions_pttl(argv[1]);
  if (name == "EVALSHA" && argv.size() > 1) {
    for (const auto& [body, sha] : script_shas()) {
      if (sha == lower(argv[1])) return mentions_pttl(body);
    }
  }
  return false;
}

// Equal, except that non-negative integers (remaining times) may differ by
// `tolerance`; -1 and -2 and every other field must match exactly.
bool close_enough(const Reply& a, const Reply& b, std::int64_t tolerance) {
  if (a.type != b.type || a.str != b.str || a.elements.size() != b.elements.size()) return false;
  if (a.type == Reply::Type::Integer && a.integer != b.integer) {
    if (a.integer < 0 || b.integer < 0) return false;
    if (std::max(a.integer, b.integer) - std::min(a.integer, b.integer) > tolerance) return false;
  }
  for (std::size_t i = 0; i < a.elements.size(); ++i) {
    if (!close_enough(a.elements[i], b.elements[i], tolerance)) return false;
  }
  return true;
}

// What the comparison of a time-sensitive reply may allow for.
struct TimeSlack {
  // How far apart (ms) the engine's and the server's view of one remaining
  // time can be: the deadline was set, and is read, at instants that differ
  // by at most the measured gap between the engine call and the server reply.
  std::int64_t ms = 0;
  // The engine's remaining time of the key a TTL asked about, if it has one.
  std::optional<std::int64_t> engine_remaining_ms;
};

// TTL rounds the remaining milliseconds to the nearest second (db.c,
// ttlGenericCommand: (ttl+500)/1000). The two sides may differ by one
// second only when that rounding boundary lies within the slack window.
bool ttl_matches(const Reply& engine, const Reply& server, const TimeSlack& slack) {
  if (engine == server) return true;
  if (!close_enough(engine, server, 1) || !slack.engine_remaining_ms) return false;
  const std::int64_t r = *slack.engine_remaining_ms;
  auto rounded = [](std::int64_t ms) { return (ms + 500) / 1000; };
  return rounded(r - slack.ms) != rounded(r + slack.ms);
}

bool replies_match(const Argv& argv, const Reply& engine, const Reply& server, const TimeSlack& slack) {
  if (!time_sensitive(argv)) return engine == server;
  if (upper(argv[0]) == "TTL") return ttl_matches(engine, server, slack);
  return close_enough(engine, server, slack.ms);
}

// A Reply as text with every type spelled out, so Catch2 prints both sides
// of a failed comparison and a bulk "OK" never equals a status OK.
std::string shown(const Reply& r) {
  static const char* const names[] = {"nil", "status", "integer", "bulk", "error", "array"};
  std::string out = names[static_cast<int>(r.type)];
  if (r.type != Reply::Type::Array) return out + " " + r.to_string();
  out += " [";
  for (std::size_t i = 0; i < r.elements.size(); ++i) out += (i ? ", " : "") + shown(r.elements[i]);
  return out + "]";
}

std::string render(const Argv& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += '"' + a + '"';
  }
  return out;
}

std::string render(const std::vector<Argv>& seq) {
  std::string out;
  for (std::size_t i = 0; i < seq.size(); ++i) out += "  " + std::to_string(i + 1) + ". " + render(seq[i]) + "\n";
  return out;
}

void reset_server() {
  HiredisConn& conn = shared_conn();
  Reply flushed = conn.execute({"FLUSHALL"});
  Reply scripts = conn.execute({"SCRIPT", "FLUSH"});
  if (!flushed.is_ok() || !scripts.is_ok()) {
    throw std::runtime_error("cannot reset the server: " + flushed.to_string() + " / " + scripts.to_string());
  }
}

struct Mismatch {
  std::size_t index;  // 0-based position in the sequence
  Reply engine;
  Reply server;
};

// The engine's remaining time (ms) of the key argv[1], if it has a deadline.
std::optional<std::int64_t> remaining_ms(const Engine& engine, const Argv& argv, std::int64_t now_ms) {
  if (argv.size() < 2) return std::nullopt;
  auto view = engine.inspect(argv[1]);
  if (!view || !view->expire_at_ms) return std::nullopt;
  return *view->expire_at_ms - now_ms;
}

// Runs the sequence on a fresh engine and the reset real server; the first
// reply that differs, if any.
std::optional<Mismatch> first_mismatch(const std::vector<Argv>& seq) {
  reset_server();
  Engine engine;
  std::int64_t max_gap_ms = 0;
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const std::int64_t now_ms = wall_ms();
    Reply from_engine = engine.execute(seq[i], now_ms);
    Reply from_server = shared_conn().execute(seq[i]);
    max_gap_ms = std::max(max_gap_ms, wall_ms() - now_ms);
    if (from_server.is_error() && from_server.str.rfind(HiredisConn::io_error_prefix, 0) == 0) {
      throw std::runtime_error("lost the real server: " + from_server.str);
    }
    const TimeSlack slack{2 * max_gap_ms + 2, remaining_ms(engine, seq[i], now_ms)};
    if (!replies_match(seq[i], from_engine, from_server, slack)) {
      return Mismatch{i, std::move(from_engine), std::move(from_server)};
    }
  }
  return std::nullopt;
}

std::string describe(const std::vector<Argv>& seq, const Mismatch& m) {
  std::ostringstream out;
  out << "command " << (m.index + 1) << ": " << render(seq[m.index]) << "\n"
      << "  engine: " << shown(m.engine) << "\n"
      << "  server: " << shown(m.server) << "\n"
      << "sequence:\n"
      << render(seq);
  return out.str();
}

// --------------------------------------------------------------- property --

// LOCKSIM_PROPERTY_CASES, else an explicit RC_PARAMS max_success, else ours.
int property_cases() {
  if (const char* env = std::getenv("LOCKSIM_PROPERTY_CASES")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  const int configured = rc::detail::configuration().testParams.maxSuccess;
  return configured != rc::detail::TestParams{}.maxSuccess ? configured : default_cases;
}

// Checks `property` with property_cases() cases (rapidcheck's other
// settings, e.g. the seed or a reproduce string, from RC_PARAMS) and fails
// the Catch2 test with rapidcheck's shrunk counterexample.
template <class Property>
void check_property(const std::string& name, Property property) {
  using namespace rc::detail;
  shared_server();
  script_shas();
  TestParams params = configuration().testParams;
  params.maxSuccess = property_cases();
  TestMetadata metadata{name, name};
  TestResult result = checkProperty(toProperty(std::move(property)), metadata, params);
  std::ostringstream message;
  printResultMessage(result, message);
  INFO(name << " (seed " << params.seed << ", " << params.maxSuccess << " cases)\n" << message.str());
  CHECK(result.template is<SuccessResult>());
}

// ------------------------------------------------------------- generators --

using Str = rc::Gen<std::string>;

Str lit(const char* s) { return rc::gen::just(std::string(s)); }
Str one_of(std::vector<std::string> values) { return rc::gen::elementOf(std::move(values)); }

Str key() { return one_of({"a", "b", "c"}); }
Str field() { return one_of({"f", "g", "1"}); }
Str value() {
  return one_of({"1", "v", "10", "-3", "abc", "", "9223372036854775807", "2.5", "007",
                 std::string("b\0in\r\n", 6)});
}
Str amount() {
  return one_of({"1", "-1", "0", "100", "abc", "9223372036854775807", "-9223372036854775808", "1.5", ""});
}
// Relative expiries: invalid, or long enough not to run out during a case.
Str rel_ms() { return one_of({"0", "-1", "abc", "100000", "3600000", "9223372036854775807", "1.5", ""}); }
Str rel_s() { return one_of({"0", "-1", "abc", "100", "86400", "9223372036854775807"}); }
// Absolute expiries: long past, or 2100-01-01.
Str abs_ms() { return one_of({"1", "0", "-1", "4102444800000", "abc", "9223372036854775807"}); }
Str abs_s() { return one_of({"1", "0", "-1", "4102444800", "abc", "9223372036854775807"}); }

rc::Gen<Argv> cmd(std::vector<Str> parts) {
  return rc::gen::exec([parts] {
    Argv argv;
    for (const auto& p : parts) argv.push_back(*p);
    return argv;
  });
}

// A variable number of extra words, e.g. keys for DEL or pairs for HSET.
rc::Gen<Argv> cmd_with_tail(std::vector<Str> head, Str tail_word, int max_tail) {
  return rc::gen::exec([=] {
    Argv argv;
    for (const auto& p : head) argv.push_back(*p);
    const int n = *rc::gen::inRange(0, max_tail + 1);
    for (int i = 0; i < n; ++i) argv.push_back(*tail_word);
    return argv;
  });
}

// Two relative expiries of the same length tie, and GT/LT would then depend
// on the millisecond each side ran in. Where GT/LT are generated, relative
// lengths are placeholders that distinct_lengths() replaces by lengths at
// least a second apart, in random order.
const std::string ms_placeholder = "<ms>";
const std::string s_placeholder = "<s>";
Str rel_ms_distinct() {
  return rc::gen::weightedOneOf<std::string>(
      {{1, one_of({"0", "-1", "abc", "9223372036854775807"})}, {3, rc::gen::just(ms_placeholder)}});
}
Str rel_s_distinct() {
  return rc::gen::weightedOneOf<std::string>(
      {{1, one_of({"0", "-1", "abc", "9223372036854775807"})}, {3, rc::gen::just(s_placeholder)}});
}

std::vector<Argv> distinct_lengths(std::vector<Argv> seq) {
  std::vector<std::string*> slots;
  for (auto& argv : seq) {
    for (auto& word : argv) {
      if (word == ms_placeholder || word == s_placeholder) slots.push_back(&word);
    }
  }
  const auto n = static_cast<long long>(slots.size());
  for (long long i = 0; i < n; ++i) {
    const long long seconds = 100 + *rc::gen::inRange(0, 1000) * n + i;  // distinct: = i mod n
    std::string& slot = *slots[static_cast<std::size_t>(i)];
    slot = std::to_string(slot == ms_placeholder ? seconds * 1000 : seconds);
  }
  return seq;
}

// The differential property over sequences drawn from `command`.
auto same_replies(rc::Gen<Argv> command, bool with_distinct_lengths = false) {
  return [command, with_distinct_lengths] {
    auto seq = *rc::gen::resize(40, rc::gen::container<std::vector<Argv>>(command));
    if (with_distinct_lengths) seq = distinct_lengths(std::move(seq));
    if (auto m = first_mismatch(seq)) RC_FAIL(describe(seq, *m));
  };
}

// SET key value [options...]: valid and invalid combinations of NX, XX,
// GET, KEEPTTL, PX, EX, PXAT, EXAT (either case), a stray word, a missing number.
rc::Gen<Argv> set_command(Str rel_ms_gen = rel_ms(), Str rel_s_gen = rel_s()) {
  using Words = std::vector<std::string>;
  auto option = rc::gen::weightedOneOf<Words>({
      {3, rc::gen::element(Words{"NX"}, Words{"XX"}, Words{"GET"}, Words{"KEEPTTL"}, Words{"nx"},
                           Words{"get"})},
      {2, rc::gen::map(rel_ms_gen, [](std::string v) { return Words{"PX", v}; })},
      {1, rc::gen::map(rel_s_gen, [](std::string v) { return Words{"EX", v}; })},
      {1, rc::gen::map(abs_ms(), [](std::string v) { return Words{"PXAT", v}; })},
      {1, rc::gen::map(abs_s(), [](std::string v) { return Words{"exat", v}; })},
      {1, rc::gen::map(rel_ms_gen, [](std::string v) { return Words{"px", v}; })},
      {1, rc::gen::element(Words{"PX"}, Words{"BOGUS"})},
  });
  return rc::gen::exec([option] {
    Argv argv = {"SET", *key(), *value()};
    const int n = *rc::gen::inRange(0, 4);
    for (int i = 0; i < n; ++i) {
      for (auto& w : *option) argv.push_back(w);
    }
    return argv;
  });
}

rc::Gen<Argv> string_command() {
  return rc::gen::weightedOneOf<Argv>({
      {6, set_command()},
      {4, cmd({lit("GET"), key()})},
      {2, cmd_with_tail({lit("DEL"), key()}, key(), 2)},
      {2, cmd_with_tail({lit("EXISTS"), key()}, key(), 2)},
      {2, cmd({lit("INCR"), key()})},
      {2, cmd({lit("INCRBY"), key(), amount()})},
      {1, cmd({lit("SETNX"), key(), value()})},
      {1, cmd({lit("GETDEL"), key()})},
      {1, rc::gen::element(Argv{"GETDEL"}, Argv{"GETDEL", "a", "b"}, Argv{"GET"}, Argv{"GET", "a", "b"},
                           Argv{"SET", "a"}, Argv{"INCR"}, Argv{"DEL"}, Argv{"EXISTS"}, Argv{"INCRBY", "a"},
                           Argv{"set"})},
      {1, rc::gen::element(Argv{"FOO"}, Argv{"foo", "a", "b"}, Argv{"SETX", "a", "1"},
                           Argv{"getdel2", "a"})},
      // Redis 8.4's conditional delete/set, which 7.0 does not know.
      {1, rc::gen::exec([] { return Argv{"DELEX", *key(), "IFEQ", *value()}; })},
      {1, rc::gen::exec([] { return Argv{"SET", *key(), *value(), "IFEQ", *value()}; })},
  });
}

rc::Gen<Argv> expiry_command() {
  return rc::gen::weightedOneOf<Argv>({
      {4, set_command()},
      {3, cmd({lit("GET"), key()})},
      {3, cmd({lit("PTTL"), key()})},
      {2, cmd({lit("TTL"), key()})},
      {2, cmd({lit("EXISTS"), key()})},
      {1, cmd({lit("DEL"), key()})},
      {2, cmd({lit("PEXPIRE"), key(), rel_ms()})},
      {2, cmd({lit("EXPIRE"), key(), rel_s()})},
      {2, cmd({lit("PEXPIREAT"), key(), abs_ms()})},
      {1, cmd({lit("PERSIST"), key()})},
      {1, rc::gen::element(Argv{"PEXPIRE", "a"}, Argv{"PTTL"}, Argv{"TTL", "a", "b"},
                           Argv{"PERSIST"}, Argv{"PEXPIREAT", "a"})},
  });
}

// EXPIRE's 7.0 options, kept apart so a gap there does not hide the rest;
// relative lengths are distinct (see distinct_lengths).
rc::Gen<Argv> expire_option_command() {
  Str opt = one_of({"NX", "XX", "GT", "LT", "nx", "BOGUS"});
  return rc::gen::weightedOneOf<Argv>({
      {2, set_command(rel_ms_distinct(), rel_s_distinct())},
      {2, cmd({lit("PTTL"), key()})},
      {1, cmd({lit("PERSIST"), key()})},
      {3, cmd_with_tail({lit("PEXPIRE"), key(), rel_ms_distinct()}, opt, 2)},
      {2, cmd_with_tail({lit("EXPIRE"), key(), rel_s_distinct()}, opt, 2)},
      {1, cmd_with_tail({lit("PEXPIREAT"), key(), abs_ms()}, opt, 1)},
  });
}

rc::Gen<Argv> hash_command() {
  return rc::gen::weightedOneOf<Argv>({
      {3, rc::gen::exec([] {
         Argv argv = {"HSET", *key()};
         const int pairs = *rc::gen::inRange(1, 3);
         for (int i = 0; i < pairs; ++i) {
           argv.push_back(*field());
           argv.push_back(*value());
         }
         return argv;
       })},
      {3, cmd({lit("HGET"), key(), field()})},
      {3, cmd({lit("HINCRBY"), key(), field(), amount()})},
      {2, cmd({lit("HEXISTS"), key(), field()})},
      {2, cmd_with_tail({lit("HDEL"), key(), field()}, field(), 2)},
      {2, cmd({lit("HLEN"), key()})},
      {2, set_command()},
      {2, cmd({lit("GET"), key()})},
      {1, cmd({lit("INCR"), key()})},
      {1, cmd({lit("DEL"), key()})},
      {1, cmd({lit("PEXPIRE"), key(), rel_ms()})},
      {1, cmd({lit("PTTL"), key()})},
      {1, rc::gen::element(Argv{"HSET", "a", "f"}, Argv{"HSET", "a"}, Argv{"HGET", "a"},
                           Argv{"HINCRBY", "a", "f"}, Argv{"HLEN"}, Argv{"HDEL", "a"},
                           Argv{"HEXISTS", "a"})},
  });
}

// A lease for the Redisson scripts: invalid, zero (deletes at once) or long.
Str lease() { return one_of({"100000", "30000", "0", "abc"}); }

// EVALSHA of a loaded-or-not script with the arguments that script takes, in
// either case of the digest (Redis lowercases it), or of an unknown digest.
rc::Gen<Argv> evalsha_command() {
  return rc::gen::exec([] {
    const auto& shas = script_shas();
    auto digest = [&](const std::string& body) {
      const std::string& sha = shas.at(body);
      return *rc::gen::arbitrary<bool>() ? upper(sha) : sha;
    };
    switch (*rc::gen::inRange(0, 5)) {
      case 0: return Argv{"EVALSHA", digest(compare_and_delete), "1", *key(), *value()};
      case 1: return Argv{"EVALSHA", digest(redisson_lock), "1", *key(), *lease(), *field()};
      case 2: return Argv{"EVALSHA", digest(redisson_renew), "1", *key(), *lease(), *field()};
      case 3: return Argv{"EVALSHA", digest(key_arg_scripts[2]), "1", *key(), *value()};
      default:
        return Argv{"EVALSHA", *one_of({"0000000000000000000000000000000000000000", "abc"}), "1", *key()};
    }
  });
}

rc::Gen<Argv> script_command() {
  const std::vector<std::string> shas = sha_alphabet();
  Str leases = lease();
  auto eval = [](const std::string& body, std::vector<Str> keys_then_args, int numkeys) {
    std::vector<Str> parts = {lit("EVAL"), rc::gen::just(body), rc::gen::just(std::to_string(numkeys))};
    parts.insert(parts.end(), keys_then_args.begin(), keys_then_args.end());
    return cmd(parts);
  };
  return rc::gen::weightedOneOf<Argv>({
      {3, eval(compare_and_delete, {key(), value()}, 1)},
      {3, eval(redisson_lock, {key(), leases, field()}, 1)},
      {3, rc::gen::exec([leases] {
         std::string k = *key();
         return Argv{"EVAL", redisson_unlock, "2", k, "redisson_lock__channel:{" + k + "}", "0",
                     *leases, *field()};
       })},
      {2, eval(redisson_renew, {key(), leases, field()}, 1)},
      {2, eval(set_nx_px_script, {key(), value(), rel_ms()}, 1)},
      {3, rc::gen::exec([] { return Argv{"EVAL", *one_of(constant_scripts), "0"}; })},
      {4, rc::gen::exec([] { return Argv{"EVAL", *one_of(key_arg_scripts), "1", *key(), *value()}; })},
      {2, evalsha_command()},
      {1, rc::gen::exec([] { return Argv{"SCRIPT", "LOAD", *one_of(all_scripts())}; })},
      {1, rc::gen::exec([shas] {
         return Argv{"SCRIPT", "EXISTS", *one_of(shas), *one_of(shas)};
       })},
      {1, rc::gen::element(Argv{"EVAL", "return 1", "-1"}, Argv{"EVAL", "return 1", "2", "a"},
                           Argv{"EVAL", "return 1", "x"}, Argv{"EVAL", "return 1"},
                           Argv{"EVALSHA", "abc"}, Argv{"SCRIPT", "FLUSH"}, Argv{"SCRIPT", "BOGUS"},
                           Argv{"SCRIPT"}, Argv{"SCRIPT", "LOAD"}, Argv{"SCRIPT", "EXISTS"},
                           Argv{"EVAL", "return 1", "1.0", "a"})},
      {3, set_command()},
      {2, cmd({lit("GET"), key()})},
      {2, cmd({lit("HGET"), key(), field()})},
      {1, cmd({lit("PTTL"), key()})},
      {1, cmd({lit("HSET"), key(), field(), value()})},
  });
}

// Command names are case-insensitive, and error texts quote them either as
// typed (unknown command) or as the command's own lowercase name (arity).
rc::Gen<Argv> in_random_case(rc::Gen<Argv> command) {
  return rc::gen::exec([command] {
    Argv argv = *command;
    if (argv.empty()) return argv;
    switch (*rc::gen::inRange(0, 3)) {
      case 0: break;
      case 1: argv[0] = lower(argv[0]); break;
      default:
        for (std::size_t i = 0; i < argv[0].size(); i += 2) {
          argv[0][i] = static_cast<char>(std::tolower(static_cast<unsigned char>(argv[0][i])));
        }
    }
    return argv;
  });
}

rc::Gen<Argv> any_command() {
  return in_random_case(rc::gen::oneOf(string_command(), expiry_command(), hash_command(), script_command()));
}

// ------------------------------------------------------------- scenarios --

struct Step {
  Argv argv;
  Reply expected;
};

Reply err(const std::string& text) { return Reply::error(text); }

// Exact texts pinned from redis-server 7.0.15.
const std::vector<Step> error_text_examples = {
    {{"SET", "k", "v", "PX", "0"}, err("ERR invalid expire time in 'set' command")},
    {{"SET", "k", "v", "EX", "-1"}, err("ERR invalid expire time in 'set' command")},
    {{"SET", "k", "v", "EX", "9223372036854775807"}, err("ERR invalid expire time in 'set' command")},
    {{"SET", "k", "v", "NX", "XX"}, err("ERR syntax error")},
    {{"SET", "k", "v", "KEEPTTL", "PX", "100"}, err("ERR syntax error")},
    {{"SET", "k", "v", "PX", "abc"}, err("ERR value is not an integer or out of range")},
    {{"GET"}, err("ERR wrong number of arguments for 'get' command")},
    {{"HSET", "h", "f"}, err("ERR wrong number of arguments for 'hset' command")},
    {{"foo", "a", "b"}, err("ERR unknown command 'foo', with args beginning with: 'a' 'b' ")},
    {{"SET", "n", "abc"}, Reply::ok()},
    {{"INCR", "n"}, err("ERR value is not an integer or out of range")},
    {{"INCRBY", "n2", "abc"}, err("ERR value is not an integer or out of range")},
    {{"SET", "m", "9223372036854775807"}, Reply::ok()},
    {{"INCR", "m"}, err("ERR increment or decrement would overflow")},
    {{"EXPIRE", "n", "abc"}, err("ERR value is not an integer or out of range")},
    {{"PEXPIRE", "n", "9223372036854775807"}, err("ERR invalid expire time in 'pexpire' command")},
    {{"HSET", "h", "f", "x"}, Reply::integer_of(1)},
    {{"HINCRBY", "h", "f", "1"}, err("ERR hash value is not an integer")},
    {{"GET", "h"}, err("WRONGTYPE Operation against a key holding the wrong kind of value")},
    {{"HGET", "n", "f"}, err("WRONGTYPE Operation against a key holding the wrong kind of value")},
    {{"EVALSHA", "0000000000000000000000000000000000000000", "0"},
     err("NOSCRIPT No matching script. Please use EVAL.")},
    {{"EVAL", "return 1", "-1"}, err("ERR Number of keys can't be negative")},
    {{"EVAL", "return 1", "2", "a"}, err("ERR Number of keys can't be greater than number of args")},
    {{"EVAL", "return redis.call('incr',KEYS[1])", "1", "n"},
     err("ERR value is not an integer or out of range script: "
         "6f5ade10a69975e903c6d07b10ea44c6382381a5, on @user_script:1.")},
    {{"EVAL", "return redis.pcall('incr',KEYS[1])", "1", "n"},
     err("ERR value is not an integer or out of range")},
    {{"EVAL", "return {err='My Error'}", "0"}, err("My Error")},
    {{"EVAL", "return redis.error_reply('custom')", "0"}, err("ERR custom")},
    {{"EVAL", "return redis.pcall('nosuch')", "0"}, err("ERR Unknown Redis command called from script")},
    {{"EVAL", "retur 1", "0"},
     err("ERR Error compiling script (new function): user_script:1: '=' expected near '1'")},
    {{"EVAL", "return nil + 1", "0"},
     err("ERR user_script:1: attempt to perform arithmetic on a nil value script: "
         "d13bc48d895ba57f297c4db70c1d256548a54e2d, on @user_script:1.")},
};

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

bool is_io_error(const Reply& r) {
  return r.is_error() && r.str.rfind(HiredisConn::io_error_prefix, 0) == 0;
}

// (Argv is built before co_await: GCC 12 rejects a braced list inside one.)
Task<Reply> acquire(Runtime& rt, std::string key, std::string token) {
  Argv set = {"SET", key, token, "NX", "PX", "30000"};
  co_return co_await rt.conn(0).command(std::move(set));
}

// A watchdog-like loop: renew, sleep, repeat, until cancelled.
Task<void> renew_forever(Runtime& rt, std::atomic<int>& renewals) {
  for (;;) {
    Argv incr = {"INCR", "renewals"};
    co_await rt.conn(0).command(std::move(incr));
    renewals.fetch_add(1);
    co_await rt.sleep(10s);
  }
}

}  // namespace

// ------------------------------------------------------------------ tests --

TEST_CASE("redis-server 7.0 and the engine answer with the same exact error texts",
          "[differential]") {
  reset_server();
  Engine engine;
  for (const auto& step : error_text_examples) {
    INFO("command: " << render(step.argv));
    Reply server = shared_conn().execute(step.argv);
    CHECK(shown(server) == shown(step.expected));
    CHECK(shown(engine.execute(step.argv, wall_ms())) == shown(step.expected));
  }
}

// The "field:value" lines of an INFO reply.
static std::map<std::string, std::string> info_fields(const std::string& text) {
  std::map<std::string, std::string> fields;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos && line[0] != '#') fields[line.substr(0, colon)] = line.substr(colon + 1);
  }
  return fields;
}

// The section titles of an INFO reply, in order.
static std::vector<std::string> info_sections(const std::string& text) {
  std::vector<std::string> titles;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("# ", 0) == 0) titles.push_back(line);
  return titles;
}

// Replies that may differ between two servers by design: a connection's
// CLIENT ID (HELLO's "id" too) and INFO's counters. The rest must be equal;
// INFO's fields the engine reports must have the server's values, and its
// sections must appear in the server's order.
static void check_same_connection_reply(const Argv& argv, const Reply& engine, const Reply& server) {
  INFO("command: " << render(argv) << "\n  engine: " << shown(engine) << "\n  server: " << shown(server));
  const std::string name = lower(argv[0]);
  if (name == "client" && argv.size() == 2 && lower(argv[1]) == "id") {
    CHECK((engine.type == Reply::Type::Integer && server.type == Reply::Type::Integer));
  } else if (name == "hello" && !engine.is_error() && engine.elements.size() == 14) {
    Reply masked_engine = engine, masked_server = server;
    masked_engine.elements[7] = masked_server.elements.at(7);  // the "id" value
    CHECK(shown(masked_engine) == shown(masked_server));
  } else if (name == "info" && engine.type == Reply::Type::Bulk && server.type == Reply::Type::Bulk) {
    const auto server_fields = info_fields(server.str);
    for (const auto& [field, value] : info_fields(engine.str)) {
      INFO("INFO field " << field);
      CHECK((server_fields.count(field) == 1 && server_fields.at(field) == value));
    }
    const auto titles = info_sections(server.str);
    std::size_t at = 0;
    for (const std::string& title : info_sections(engine.str)) {
      while (at < titles.size() && titles[at] != title) ++at;
      CHECK(at < titles.size());
    }
    CHECK(engine.str.empty() == server.str.empty());
  } else {
    CHECK(shown(engine) == shown(server));
  }
}

TEST_CASE("connection commands and GETDEL answer like redis-server 7.0", "[differential]") {
  reset_server();
  HiredisConn conn(HiredisOptions{"127.0.0.1", shared_server().port(), 2000ms, 10000ms});  // a fresh session
  Engine engine;
  locksim::sim::redis::ClientSession session;
  const std::vector<Argv> commands = {
      {"HELLO"}, {"HELLO", "2"}, {"HELLO", "x"}, {"HELLO", "4"}, {"HELLO", "1", "FOO"}, {"HELLO", "2", "FOO"},
      {"HELLO", "3", "FOO"}, {"HELLO", "2", "AUTH"}, {"HELLO", "2", "AUTH", "foo", "bar"},
      {"HELLO", "2", "AUTH", "default", "x"}, {"HELLO", "2", "SETNAME", "a b"}, {"HELLO", "2", "SETNAME", "n1", "x"},
      {"HELLO", "2", "SETNAME", "n1"}, {"CLIENT", "GETNAME"}, {"CLIENT"}, {"CLIENT", "SETNAME"},
      {"CLIENT", "SETNAME", "a b"}, {"CLIENT", "SETNAME", "a\nb"}, {"CLIENT", "SETNAME", "conn-1"},
      {"client", "getname"}, {"CLIENT", "GETNAME", "x"}, {"CLIENT", "SETNAME", ""}, {"CLIENT", "GETNAME"},
      {"CLIENT", "ID"}, {"CLIENT", "ID", "x"}, {"CLIENT", "SETINFO", "lib-name", "x"}, {"CLIENT", "FOO"},
      {"SELECT", "0"}, {"SELECT", "x"}, {"SELECT", "16"}, {"SELECT", "-1"}, {"SELECT", "2147483648"}, {"SELECT"},
      {"GETDEL"}, {"GETDEL", "k"}, {"SET", "k", "v"}, {"GETDEL", "k"}, {"GETDEL", "k"}, {"HSET", "h", "f", "v"},
      {"GETDEL", "h"}, {"GETDEL", "a", "b"}, {"INFO"}, {"INFO", "server"}, {"INFO", "PERSISTENCE", "keyspace"},
      {"INFO", "default"}, {"INFO", "replication"}, {"INFO", "foo"}, {"INFO", "a", "b", "c"}, {"PING"},
      {"PING", "x"}, {"PING", "a", "b"}, {"ECHO"}, {"ECHO", "x"},
      {"EVAL", "return redis.call('client', 'id')", "0"}, {"EVAL", "return redis.call('select', '0')", "0"},
      {"EVAL", "return redis.call('getdel', 'k')", "0"}, {"QUIT", "x"},
  };
  for (const Argv& argv : commands) {
    const Reply server = conn.execute(argv);
    REQUIRE_FALSE(is_io_error(server));
    check_same_connection_reply(argv, engine.execute(argv, wall_ms(), session), server);
  }
  CHECK(session.close_after_reply);
}

TEST_CASE("the simulated node's documented connection-command differences from 7.0", "[differential]") {
  // client_commands.cpp: RESP2 only, one database, CLIENT's other subcommands unsupported.
  Engine engine;
  locksim::sim::redis::ClientSession session;
  CHECK(engine.execute({"HELLO", "3"}, 0, session) == Reply::error("NOPROTO unsupported protocol version"));
  CHECK(session.resp == 2);
  CHECK(engine.execute({"SELECT", "1"}, 0, session) == Reply::error("ERR DB index is out of range"));
  CHECK(engine.execute({"CLIENT", "LIST"}, 0, session) ==
        Reply::error("ERR CLIENT list is not supported by the simulated node"));
}

TEST_CASE("string commands answer like redis-server 7.0", "[differential]") {
  check_property("string commands", same_replies(string_command()));
}

TEST_CASE("expiry commands answer like redis-server 7.0", "[differential]") {
  check_property("expiry commands", same_replies(expiry_command()));
}

TEST_CASE("EXPIRE options NX XX GT LT answer like redis-server 7.0", "[differential]") {
  check_property("expire options", same_replies(expire_option_command(), true));
}

TEST_CASE("hash commands and WRONGTYPE answer like redis-server 7.0", "[differential]") {
  check_property("hash commands", same_replies(hash_command()));
}

TEST_CASE("scripts answer like redis-server 7.0", "[differential]") {
  check_property("scripts", same_replies(script_command()));
}

TEST_CASE("mixed command sequences answer like redis-server 7.0", "[differential]") {
  check_property("mixed commands", same_replies(any_command()));
}

TEST_CASE("a hiredis connection turns a killed server into an error reply and reconnects after restart",
          "[differential]") {
  skip_without_redis_server();
  RedisServerOptions aof;
  aof.appendonly = true;
  RedisServerProcess server(aof);
  HiredisConn conn(HiredisOptions{"127.0.0.1", server.port(), 500ms, 1000ms});
  REQUIRE(conn.execute({"SET", "k", "v"}).is_ok());

  server.kill9();
  const auto start = std::chrono::steady_clock::now();
  Reply lost = conn.execute({"GET", "k"});
  Reply refused = conn.execute({"GET", "k"});
  CHECK(std::chrono::steady_clock::now() - start < 3s);
  CHECK(is_io_error(lost));
  CHECK(is_io_error(refused));

  server.restart();
  // A process crash loses nothing already written to the AOF.
  CHECK(shown(conn.execute({"GET", "k"})) == shown(Reply::bulk("v")));
}

TEST_CASE("a hiredis connection survives a server restart between two commands", "[differential]") {
  skip_without_redis_server();
  RedisServerOptions aof;
  aof.appendonly = true;
  aof.appendfsync = "always";
  RedisServerProcess server(aof);
  HiredisConn conn(HiredisOptions{"127.0.0.1", server.port(), 500ms, 1000ms});
  REQUIRE(conn.execute({"SET", "k", "v"}).is_ok());
  server.restart();
  // The closed connection is noticed before sending, not by a failed command.
  CHECK(shown(conn.execute({"GET", "k"})) == shown(Reply::bulk("v")));
}

TEST_CASE("a hiredis command to a hung server times out with an error reply", "[differential]") {
  skip_without_redis_server();
  RedisServerProcess server;
  HiredisConn conn(HiredisOptions{"127.0.0.1", server.port(), 500ms, 600ms});
  REQUIRE(shown(conn.execute({"PING"})) == shown(Reply::status("PONG")));
  auto timed = [](auto&& run) {
    const auto start = std::chrono::steady_clock::now();
    Reply r = run();
    return std::pair{r, std::chrono::steady_clock::now() - start};
  };

  server.pause();
  auto [timed_out, elapsed] = timed([&] { return conn.execute({"SET", "k", "v"}); });
  // A per-call timeout (Redlock's) overrides the connection's, also when
  // the call has to reconnect first.
  auto [short_timeout, short_elapsed] =
      timed([&] { return locksim::sync_wait(conn.command({"GET", "k"}, 50ms)); });
  server.resume();

  CHECK(is_io_error(timed_out));
  CHECK(timed_out.str.find("timed out after 600 ms") != std::string::npos);
  CHECK(elapsed >= 550ms);
  CHECK(elapsed < 2s);
  CHECK(is_io_error(short_timeout));
  CHECK(short_elapsed < 400ms);
  // The timed-out SET still ran once the server resumed; the late replies
  // were dropped with the old connection.
  CHECK(shown(conn.execute({"GET", "k"})) == shown(Reply::bulk("v")));
}

TEST_CASE("a hiredis connection authenticates with REDISCLI_AUTH", "[differential]") {
  skip_without_redis_server();
  RedisServerOptions protected_server;
  protected_server.extra_args = {"--requirepass", "s3cret pass"};
  RedisServerProcess server(protected_server);
  HiredisOptions options{"127.0.0.1", server.port(), 500ms, 1000ms};
  {
    ScopedEnv env("REDISCLI_AUTH", "s3cret pass");
    HiredisConn conn(options);
    CHECK(shown(conn.execute({"PING"})) == shown(Reply::status("PONG")));
  }
  {
    ScopedEnv env("REDISCLI_AUTH", nullptr);
    HiredisConn conn(options);
    CHECK(shown(conn.execute({"PING"})) == shown(Reply::error("NOAUTH Authentication required.")));
  }
  {
    ScopedEnv env("REDISCLI_AUTH", "wrong");
    HiredisConn conn(options);
    Reply r = conn.execute({"PING"});
    CHECK(is_io_error(r));
    CHECK(r.str.find("AUTH failed: WRONGPASS") != std::string::npos);
  }
}

TEST_CASE("a replica started by the fixture follows its master and refuses writes like the engine",
          "[differential]") {
  skip_without_redis_server();
  RedisServerOptions as_master;
  as_master.extra_args = {"--repl-diskless-sync-delay", "0"};
  RedisServerProcess master(as_master);
  RedisServerOptions as_replica;
  as_replica.replicaof_port = master.port();
  RedisServerProcess replica(as_replica);
  HiredisConn to_master(HiredisOptions{"127.0.0.1", master.port(), 500ms, 2000ms});
  HiredisConn to_replica(HiredisOptions{"127.0.0.1", replica.port(), 500ms, 2000ms});

  REQUIRE(to_master.execute({"SET", "k", "v"}).is_ok());
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (!to_master.execute({"WAIT", "1", "100"}).is_integer(1) &&
         std::chrono::steady_clock::now() < deadline) {
  }
  CHECK(shown(to_replica.execute({"GET", "k"})) == shown(Reply::bulk("v")));

  Reply refused = to_replica.execute({"SET", "k", "w"});
  CHECK(shown(refused) == shown(Reply::error("READONLY You can't write against a read only replica.")));
  Engine engine;
  engine.set_role(Role::Replica);
  CHECK(shown(engine.execute({"SET", "k", "w"}, wall_ms())) == shown(refused));
}

TEST_CASE("a destroyed server fixture leaves no process and no directory behind", "[differential]") {
  skip_without_redis_server();
  pid_t pid = -1;
  std::filesystem::path dir;
  {
    RedisServerProcess server;
    pid = server.pid();
    dir = server.dir();
    REQUIRE(::kill(pid, 0) == 0);
    server.pause();  // even a stopped server is stopped for good
  }
  CHECK(::kill(pid, 0) == -1);
  CHECK(!std::filesystem::exists(dir));
}

TEST_CASE("a hiredis connection carries binary-safe arguments and replies", "[differential]") {
  reset_server();
  const std::string binary("a\0b\r\n\xff", 6);
  CHECK(shared_conn().execute({"SET", binary, binary}).is_ok());
  CHECK(shown(shared_conn().execute({"GET", binary})) == shown(Reply::bulk(binary)));
  CHECK(shown(shared_conn().execute({"EVAL", "return {1, 'x', {ok='y'}}", "0"})) ==
        shown(Reply::array({Reply::integer_of(1), Reply::bulk("x"), Reply::status("y")})));
}

TEST_CASE("the real runtime runs a lock acquire to completion with sync_wait", "[differential]") {
  reset_server();
  RealRuntime rt({shared_server().endpoint()});
  REQUIRE(rt.node_count() == 1);
  const std::string token = rt.random_token();
  CHECK(std::regex_match(token, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
  CHECK(rt.random_token() != token);
  CHECK(locksim::sync_wait(acquire(rt, "lock", token)).is_ok());
  CHECK(locksim::sync_wait(acquire(rt, "lock", rt.random_token())).is_nil());
  CHECK(shown(shared_conn().execute({"GET", "lock"})) == shown(Reply::bulk(token)));
  for (int i = 0; i < 100; ++i) CHECK(rt.random_below(3) < 3);
  const auto earlier = rt.monotonic_now();
  CHECK(earlier <= rt.monotonic_now());
  CHECK(std::abs(locksim::to_ms(rt.wall_now()) - wall_ms()) < 1000);
}

TEST_CASE("the real runtime rejects an endpoint that is not host:port", "[differential]") {
  CHECK_THROWS_AS(RealRuntime({"localhost"}), std::invalid_argument);
  CHECK_THROWS_AS(RealRuntime({"localhost:99999"}), std::invalid_argument);
  CHECK_THROWS_AS(RealRuntime({"localhost:6379x"}), std::invalid_argument);
  CHECK(locksim::locks::parse_endpoint("[::1]:6380").host == "::1");
}

TEST_CASE("a spawned task on the real runtime stops promptly when cancelled in its sleep",
          "[differential]") {
  reset_server();
  const auto frames_before = locksim::live_task_frames();
  std::atomic<int> renewals{0};
  {
    RealRuntime rt({shared_server().endpoint()});
    const auto id = rt.spawn(renew_forever(rt, renewals));
    while (renewals.load() == 0) std::this_thread::sleep_for(1ms);
    CHECK(rt.running_tasks() == 1);

    const auto start = std::chrono::steady_clock::now();
    rt.cancel(id);
    CHECK(std::chrono::steady_clock::now() - start < 1s);
    CHECK(rt.running_tasks() == 0);
    rt.cancel(id);  // a second cancel does nothing

    rt.spawn(renew_forever(rt, renewals));  // left running: the destructor cancels it
    while (renewals.load() < 2) std::this_thread::sleep_for(1ms);
  }
  CHECK(renewals.load() == 2);
  CHECK(shown(shared_conn().execute({"GET", "renewals"})) == shown(Reply::bulk("2")));
  CHECK(locksim::live_task_frames() == frames_before);
}
