// Engine: the keyspace and command table of one simulated Redis node, with
// redis-server 7.0.15's replies, error texts, expiry and propagation (each
// checked against a real server; see tests/test_redis_engine.cpp).
//
// The keyspace is an ordered map, so everything that walks it (active
// expiry, FLUSHALL's events) is deterministic. Hashes keep insertion order,
// as a small Redis hash (listpack) does, so HGETALL matches the server.
// Commands are methods of Impl, found by binary search in a sorted table;
// scripts (lua_scripting.hpp) come back in through call_from_script().
//
// Known differences from redis-server 7.0.15, on purpose or for lack of need:
// - Active expiry deletes every expired key per cycle, in key order, where
//   Redis samples 20 random keys (determinism; same keys die, maybe sooner).
// - apply() reports the applied command as an effect (a replica forwards its
//   master's stream to its own AOF); hosts replaying an AOF discard them.
// - PUBLISH answers 0 and is not propagated (7.0 sends it to replicas).
// - is_write_command() counts EVAL/EVALSHA, so a host enforcing
//   min-replicas-to-write refuses a whole script; 7.0 runs it and fails its
//   first write with "NOREPLICAS ... script: ...".
// - An empty argv answers "ERR empty command" (the server sends nothing).
// - A script over its instruction budget fails instead of making the server
//   BUSY; error({}) answers an error (it crashes 7.0.15); hashes always keep
//   insertion order (7.0 loses it past 128 fields or 64-byte values).
// - Not implemented: SCRIPT DEBUG YES/SYNC, shebang
//   flags, RESP3, the cjson/cmsgpack/struct/bit Lua libraries; DELEX's
//   IFDEQ/IFDNE (8.4 digests). SET IFEQ on a hash answers WRONGTYPE (8.4
//   behaviour assumed, not checked against an 8.4 server).
#include "sim/redis/engine.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <climits>
#include <map>
#include <string_view>
#include <utility>

#include "sim/redis/client_commands.hpp"
#include "sim/redis/command_args.hpp"
#include "sim/redis/lua_scripting.hpp"

namespace locksim::sim::redis {
namespace {

enum CommandFlag : unsigned { kWrite = 1, kMayReplicate = 2, kNoScript = 4 };

struct Entry {
  bool is_hash = false;
  std::string str;
  std::vector<std::pair<std::string, std::string>> hash;  // insertion order
  std::optional<std::int64_t> expire_at_ms;
};

Reply overflow() { return Reply::error("ERR increment or decrement would overflow"); }
Reply readonly() { return Reply::error("READONLY You can't write against a read only replica."); }
Reply invalid_expire(std::string_view fullname) {
  return Reply::error("ERR invalid expire time in '" + std::string(fullname) + "' command");
}

Reply unknown_command(const Argv& argv) {
  std::string args;
  for (std::size_t i = 1; i < argv.size() && args.size() < 128; ++i) {
    args += "'" + std::string(c_string(argv[i]).substr(0, 128 - args.size())) + "' ";
  }
  return format_error("ERR unknown command '" + std::string(c_string(argv[0]).substr(0, 128)) +
                      "', with args beginning with: " + args);
}

bool arity_ok(int arity, std::size_t argc) {
  const auto n = static_cast<long long>(argc);
  return arity > 0 ? n == arity : n >= -arity;
}

struct ScriptSubcommand {
  std::string_view name;
  int arity;
};
constexpr std::array<ScriptSubcommand, 6> kScriptSubcommands{{
    {"debug", 3}, {"exists", -3}, {"flush", -2}, {"help", 2}, {"kill", 2}, {"load", 3}}};

const ScriptSubcommand* find_script_subcommand(const std::string& name) {
  for (const ScriptSubcommand& s : kScriptSubcommands) {
    if (name.size() == s.name.size() && option_is(name, s.name) && c_string(name).size() == name.size()) return &s;
  }
  return nullptr;
}

}  // namespace

struct Engine::Impl final : ScriptHost {
  using Handler = Reply (Impl::*)(const Argv&);
  struct Command {
    std::string_view name;
    int arity;
    unsigned flags;
    Handler handler;
  };
  static const std::array<Command, 41> kCommands;

  explicit Impl(EngineOptions o) : options(o), lua(o.script_instruction_budget) {
    assert(std::is_sorted(kCommands.begin(), kCommands.end(),
                          [](const Command& a, const Command& b) { return a.name < b.name; }));
  }

  EngineOptions options;
  Role role = Role::Master;
  std::map<std::string, Entry, std::less<>> keys;
  std::vector<KeyEvent> events;
  std::vector<Argv> effects;
  std::vector<Argv> script_effects;
  bool in_script = false;
  bool read_only_script = false;  // EVAL_RO / EVALSHA_RO running
  bool applying = false;  // replication stream or AOF: no READONLY, no expiry by our clock
  std::int64_t now_ms = 0;
  LuaScripting lua;
  std::string spare_bulk;  // stored_bulk's buffer, back from a script (recycle)
  ClientSession own_session;              // for execute() without a session
  ClientSession* session = &own_session;  // the connection of the command running

  // ---- dispatch ---------------------------------------------------------------

  static const Command* find_command(const std::string& name, bool with_delex) {
    if (name.empty() || name.size() > 16) return nullptr;
    char buf[16];
    for (std::size_t i = 0; i < name.size(); ++i) buf[i] = lower(name[i]);
    std::string_view key(buf, name.size());
    auto it = std::lower_bound(kCommands.begin(), kCommands.end(), key,
                               [](const Command& c, std::string_view k) { return c.name < k; });
    if (it == kCommands.end() || it->name != key) return nullptr;
    if (it->name == "delex" && !with_delex) return nullptr;
    return &*it;
  }

  const Command* find_command(const std::string& name) const { return find_command(name, options.redis84_ifeq); }

  Reply dispatch(const Argv& argv) {
    if (argv.empty()) return Reply::error("ERR empty command");
    const Command* cmd = find_command(argv[0]);
    if (cmd == nullptr) return unknown_command(argv);
    if (cmd->name == "script" && argv.size() >= 2) return script_command(argv);
    if (!arity_ok(cmd->arity, argv.size())) return wrong_args(cmd->name);
    if (!applying && role == Role::Replica && (cmd->flags & kWrite)) return readonly();
    return (this->*cmd->handler)(argv);
  }

  // scriptCall(): the checks a command from redis.call() passes, in 7.0's order.
  Reply call_from_script(const Argv& argv) override {
    const Command* cmd = find_command(argv[0]);
    if (cmd == nullptr) return Reply::error("ERR Unknown Redis command called from script");
    if (cmd->name == "script" && argv.size() >= 2) {
      const ScriptSubcommand* sub = find_script_subcommand(argv[1]);
      if (sub == nullptr) return Reply::error("ERR Unknown Redis command called from script");
      if (!arity_ok(sub->arity, argv.size()))
        return Reply::error("ERR Wrong number of args calling Redis command from script");
    }
    if (!arity_ok(cmd->arity, argv.size()))
      return Reply::error("ERR Wrong number of args calling Redis command from script");
    if (cmd->flags & kNoScript) return Reply::error("ERR This Redis command is not allowed from script");
    if (read_only_script && (cmd->flags & (kWrite | kMayReplicate)))
      return Reply::error("ERR Write commands are not allowed from read-only scripts.");
    if ((cmd->flags & kWrite) && role == Role::Replica) return readonly();
    return (this->*cmd->handler)(argv);
  }

  // A bulk reply of a stored value, built in the buffer of the last bulk reply
  // a script read (recycle): a compare-and-delete's GET of another client's
  // token, refused attempt after refused attempt, allocates nothing. A reply
  // that leaves for the network takes the buffer with it.
  Reply stored_bulk(const std::string& value) {
    Reply r = Reply::bulk(std::move(spare_bulk));
    spare_bulk.clear();
    r.str.assign(value);
    return r;
  }
  void recycle(Reply&& reply) override {
    if (reply.str.capacity() > spare_bulk.capacity()) spare_bulk = std::move(reply.str);
  }

  // ---- keyspace helpers -----------------------------------------------------

  bool logically_expired(const Entry& e) const {
    return !applying && e.expire_at_ms.has_value() && now_ms > *e.expire_at_ms;
  }

  void event(const std::string& key, KeyEvent::Kind kind) { events.push_back({key, kind}); }

  void propagate(Argv argv) {
    assert(!argv.empty() && "an effect is a command");
    (in_script ? script_effects : effects).push_back(std::move(argv));
  }

  // lookupKey + expireIfNeeded: a master deletes an expired key (and
  // propagates DEL); a replica answers as if it were gone but keeps it.
  Entry* lookup(std::string_view key) {
    auto it = keys.find(key);
    if (it == keys.end()) return nullptr;
    if (!logically_expired(it->second)) return &it->second;
    if (role == Role::Master) expire_entry(it);
    return nullptr;
  }

  void expire_entry(std::map<std::string, Entry, std::less<>>::iterator it) {
    // A replica and a replayed command never expire a key: the master's DEL does (expireIfNeeded).
    assert(role == Role::Master && !applying && "only a master expires keys, on its own clock");
    event(it->first, KeyEvent::Kind::Expired);
    propagate({"DEL", it->first});
    keys.erase(it);
  }

  void delete_key(std::string_view key) {
    auto it = keys.find(key);
    if (it == keys.end()) return;
    event(it->first, KeyEvent::Kind::Deleted);
    keys.erase(it);
  }

  // setKey(): a new value; the TTL goes unless KEEPTTL.
  Entry& set_string(const std::string& key, const std::string& value, bool keep_ttl) {
    auto [it, inserted] = keys.try_emplace(key);
    Entry& e = it->second;
    e.is_hash = false;
    e.hash.clear();
    e.str = value;
    if (!keep_ttl) e.expire_at_ms.reset();
    event(key, inserted ? KeyEvent::Kind::Created : KeyEvent::Kind::Modified);
    return e;
  }

  // ---- strings ----------------------------------------------------------------

  enum class ExpireKind { None, Ex, Px, Exat, Pxat };

  struct SetArgs {
    bool nx = false, xx = false, get = false, keep_ttl = false;
    ExpireKind kind = ExpireKind::None;
    const std::string* expire = nullptr;
    const std::string* ifeq = nullptr;
    std::vector<std::size_t> dropped;  // GET / IFEQ arguments, not propagated
  };

  bool expire_option(const Argv& a, std::size_t& j, SetArgs& o, std::string_view name, ExpireKind kind) {
    if (!option_is(a[j], name) || o.keep_ttl || j + 1 >= a.size()) return false;
    if (o.kind != ExpireKind::None && o.kind != kind) return false;
    o.kind = kind;
    o.expire = &a[++j];
    return true;
  }

  // parseExtendedStringArgumentsOrReply (COMMAND_SET) plus 8.4's IFEQ.
  std::optional<Reply> parse_set(const Argv& a, SetArgs& o) {
    for (std::size_t j = 3; j < a.size(); ++j) {
      const std::string& opt = a[j];
      if (option_is(opt, "nx") && !o.xx && !o.ifeq) {
        o.nx = true;
      } else if (option_is(opt, "xx") && !o.nx && !o.ifeq) {
        o.xx = true;
      } else if (option_is(opt, "get")) {
        o.get = true;
        o.dropped.push_back(j);
      } else if (option_is(opt, "keepttl") && o.kind == ExpireKind::None) {
        o.keep_ttl = true;
      } else if (expire_option(a, j, o, "ex", ExpireKind::Ex) || expire_option(a, j, o, "px", ExpireKind::Px) ||
                 expire_option(a, j, o, "exat", ExpireKind::Exat) ||
                 expire_option(a, j, o, "pxat", ExpireKind::Pxat)) {
        continue;
      } else if (options.redis84_ifeq && option_is(opt, "ifeq") && !o.nx && !o.xx && j + 1 < a.size()) {
        o.ifeq = &a[j + 1];
        o.dropped.push_back(j);
        o.dropped.push_back(++j);
      } else {
        return syntax_error();
      }
    }
    return std::nullopt;
  }

  // getExpireMillisecondsOrReply: the absolute deadline, or the error.
  std::optional<Reply> set_deadline(const SetArgs& o, std::int64_t& when) {
    auto v = parse_ll(*o.expire);
    if (!v) return not_integer();
    std::int64_t ms = *v;
    const bool seconds = o.kind == ExpireKind::Ex || o.kind == ExpireKind::Exat;
    if (ms <= 0 || (seconds && ms > LLONG_MAX / 1000)) return invalid_expire("set");
    if (seconds) ms *= 1000;
    if (o.kind == ExpireKind::Ex || o.kind == ExpireKind::Px) {
      if (__builtin_add_overflow(ms, now_ms, &ms)) return invalid_expire("set");
    }
    if (ms <= 0) return invalid_expire("set");
    when = ms;
    return std::nullopt;
  }

  Reply cmd_set(const Argv& a) {
    SetArgs o;
    if (auto err = parse_set(a, o)) return *err;
    std::int64_t when = 0;
    if (o.expire) {
      if (auto err = set_deadline(o, when)) return *err;
    }
    Reply old = Reply::nil();
    if (o.get) {
      Entry* e = lookup(a[1]);
      if (e && e->is_hash) return wrong_type();
      if (e) old = Reply::bulk(e->str);
    }
    Entry* e = lookup(a[1]);
    bool abort = (o.nx && e) || (o.xx && !e);
    if (o.ifeq) {
      if (e && e->is_hash) return wrong_type();
      abort = !e || e->str != *o.ifeq;
    }
    if (abort) return old;
    Entry& set = set_string(a[1], a[2], o.keep_ttl);
    if (o.expire) {
      set.expire_at_ms = when;
      propagate({"SET", a[1], a[2], "PXAT", std::to_string(when)});
    } else {
      propagate(without(a, o.dropped));
    }
    return o.get ? old : Reply::ok();
  }

  static Argv without(const Argv& a, const std::vector<std::size_t>& dropped) {
    Argv out;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (std::find(dropped.begin(), dropped.end(), i) == dropped.end()) out.push_back(a[i]);
    }
    return out;
  }

  Reply cmd_setnx(const Argv& a) {
    if (lookup(a[1])) return Reply::integer_of(0);
    set_string(a[1], a[2], false);
    propagate(a);
    return Reply::integer_of(1);
  }

  Reply cmd_get(const Argv& a) {
    Entry* e = lookup(a[1]);
    if (!e) return Reply::nil();
    if (e->is_hash) return wrong_type();
    return stored_bulk(e->str);
  }

  // getdelCommand (src/t_string.c): GET, then delete; propagated as DEL.
  Reply cmd_getdel(const Argv& a) {
    Entry* e = lookup(a[1]);
    if (!e) return Reply::nil();
    if (e->is_hash) return wrong_type();
    Reply reply = Reply::bulk(std::move(e->str));
    delete_key(a[1]);
    propagate({"DEL", a[1]});
    return reply;
  }

  Reply incr_by(const Argv& a, std::int64_t incr) {
    Entry* e = lookup(a[1]);
    if (e && e->is_hash) return wrong_type();
    std::int64_t value = 0;
    if (e) {
      auto v = parse_ll(e->str);
      if (!v) return not_integer();
      value = *v;
    }
    if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) || (incr > 0 && value > 0 && incr > LLONG_MAX - value))
      return overflow();
    value += incr;
    if (e) {
      e->str = std::to_string(value);
      event(a[1], KeyEvent::Kind::Modified);
    } else {
      set_string(a[1], std::to_string(value), false);
    }
    propagate(a);
    return Reply::integer_of(value);
  }

  Reply cmd_incr(const Argv& a) { return incr_by(a, 1); }
  Reply cmd_decr(const Argv& a) { return incr_by(a, -1); }
  Reply cmd_incrby(const Argv& a) {
    auto v = parse_ll(a[2]);
    return v ? incr_by(a, *v) : not_integer();
  }
  Reply cmd_decrby(const Argv& a) {
    auto v = parse_ll(a[2]);
    if (!v) return not_integer();
    if (*v == LLONG_MIN) return Reply::error("ERR decrement would overflow");
    return incr_by(a, -*v);
  }

  // ---- keys -------------------------------------------------------------------

  Reply cmd_del(const Argv& a) {
    std::int64_t deleted = 0;
    for (std::size_t j = 1; j < a.size(); ++j) {
      if (!lookup(a[j])) continue;  // an expired key is expired (and propagated) first
      delete_key(a[j]);
      ++deleted;
    }
    if (deleted > 0) propagate(a);
    return Reply::integer_of(deleted);
  }

  Reply cmd_exists(const Argv& a) {
    std::int64_t count = 0;
    for (std::size_t j = 1; j < a.size(); ++j) count += lookup(a[j]) ? 1 : 0;
    return Reply::integer_of(count);
  }

  Reply cmd_type(const Argv& a) {
    Entry* e = lookup(a[1]);
    return Reply::status(!e ? "none" : e->is_hash ? "hash" : "string");
  }

  Reply ttl_generic(const Argv& a, bool ms) {
    Entry* e = lookup(a[1]);
    if (!e) return Reply::integer_of(-2);
    if (!e->expire_at_ms) return Reply::integer_of(-1);
    std::int64_t ttl = std::max<std::int64_t>(*e->expire_at_ms - now_ms, 0);
    return Reply::integer_of(ms ? ttl : (ttl + 500) / 1000);
  }
  Reply cmd_ttl(const Argv& a) { return ttl_generic(a, false); }
  Reply cmd_pttl(const Argv& a) { return ttl_generic(a, true); }

  Reply cmd_persist(const Argv& a) {
    Entry* e = lookup(a[1]);
    if (!e || !e->expire_at_ms) return Reply::integer_of(0);
    e->expire_at_ms.reset();
    event(a[1], KeyEvent::Kind::Modified);
    propagate(a);
    return Reply::integer_of(1);
  }

  enum ExpireFlag : unsigned { kNx = 1, kXx = 2, kGt = 4, kLt = 8 };

  // parseExtendedExpireArgumentsOrReply.
  std::optional<Reply> parse_expire_flags(const Argv& a, unsigned& flags) {
    for (std::size_t j = 3; j < a.size(); ++j) {
      if (option_is(a[j], "nx")) flags |= kNx;
      else if (option_is(a[j], "xx")) flags |= kXx;
      else if (option_is(a[j], "gt")) flags |= kGt;
      else if (option_is(a[j], "lt")) flags |= kLt;
      else return format_error("ERR Unsupported option " + std::string(c_string(a[j])));
    }
    if ((flags & kNx) && (flags & (kXx | kGt | kLt)))
      return Reply::error("ERR NX and XX, GT or LT options at the same time are not compatible");
    if ((flags & kGt) && (flags & kLt)) return Reply::error("ERR GT and LT options at the same time are not compatible");
    return std::nullopt;
  }

  static bool expire_condition_fails(unsigned flags, std::optional<std::int64_t> current, std::int64_t when) {
    if ((flags & kNx) && current) return true;
    if ((flags & kXx) && !current) return true;
    if ((flags & kGt) && (!current || when <= *current)) return true;
    if ((flags & kLt) && current && when >= *current) return true;
    return false;
  }

  // expireGenericCommand: EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT, propagated as
  // PEXPIREAT <abs ms> (or DEL when the deadline has already passed).
  Reply expire_generic(const Argv& a, bool relative, bool seconds, std::string_view fullname) {
    unsigned flags = 0;
    if (auto err = parse_expire_flags(a, flags)) return *err;
    auto v = parse_ll(a[2]);
    if (!v) return not_integer();
    std::int64_t when = *v;
    if (seconds) {
      if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) return invalid_expire(fullname);
      when *= 1000;
    }
    if (relative && __builtin_add_overflow(when, now_ms, &when)) return invalid_expire(fullname);
    Entry* e = lookup(a[1]);
    if (!e) return Reply::integer_of(0);
    if (expire_condition_fails(flags, e->expire_at_ms, when)) return Reply::integer_of(0);
    if (when <= now_ms && !applying && role == Role::Master) {
      delete_key(a[1]);
      propagate({"DEL", a[1]});
      return Reply::integer_of(1);
    }
    e->expire_at_ms = when;
    event(a[1], KeyEvent::Kind::Modified);
    Argv out = a;
    if (fullname != "pexpireat") out[0] = "PEXPIREAT";
    if (relative || seconds) out[2] = std::to_string(when);
    propagate(std::move(out));
    return Reply::integer_of(1);
  }

  Reply cmd_expire(const Argv& a) { return expire_generic(a, true, true, "expire"); }
  Reply cmd_pexpire(const Argv& a) { return expire_generic(a, true, false, "pexpire"); }
  Reply cmd_expireat(const Argv& a) { return expire_generic(a, false, true, "expireat"); }
  Reply cmd_pexpireat(const Argv& a) { return expire_generic(a, false, false, "pexpireat"); }

  // 8.4: DELEX key [IFEQ v | IFNE v]; propagated as DEL.
  Reply cmd_delex(const Argv& a) {
    if (a.size() != 2 && a.size() != 4) return syntax_error();
    const bool conditional = a.size() == 4;
    const bool ifeq = conditional && option_is(a[2], "ifeq");
    if (conditional && !ifeq && !option_is(a[2], "ifne")) return syntax_error();
    Entry* e = lookup(a[1]);
    if (!e) return Reply::integer_of(0);
    if (conditional) {
      if (e->is_hash) return wrong_type();
      if ((e->str == a[3]) != ifeq) return Reply::integer_of(0);
    }
    delete_key(a[1]);
    propagate({"DEL", a[1]});
    return Reply::integer_of(1);
  }

  // ---- server -----------------------------------------------------------------

  Reply cmd_ping(const Argv& a) {
    if (a.size() > 2) return wrong_args("ping");
    return a.size() == 1 ? Reply::status("PONG") : Reply::bulk(a[1]);
  }
  Reply cmd_echo(const Argv& a) { return Reply::bulk(a[1]); }
  Reply cmd_dbsize(const Argv&) { return Reply::integer_of(static_cast<std::int64_t>(keys.size())); }
  Reply cmd_publish(const Argv&) { return Reply::integer_of(0); }  // no subscribers in the simulation

  // The connection commands (client_commands.hpp): the session is the
  // calling connection's, or the engine's own when the caller has none.
  ServerFacts facts() const {
    std::size_t expiring = 0;
    for (const auto& [key, entry] : keys) expiring += entry.expire_at_ms.has_value() ? 1 : 0;
    return {role == Role::Replica, keys.size(), expiring};
  }
  Reply cmd_hello(const Argv& a) { return hello_command(a, *session, facts()); }
  Reply cmd_client(const Argv& a) { return client_command(a, *session); }
  Reply cmd_select(const Argv& a) { return select_command(a, *session); }
  Reply cmd_info(const Argv& a) { return info_command(a, facts()); }
  Reply cmd_quit(const Argv&) { return quit_command(*session); }

  Reply cmd_flushall(const Argv& a) {
    if (a.size() == 2 && !option_is(a[1], "sync") && !option_is(a[1], "async")) return syntax_error();
    if (a.size() > 2) return syntax_error();
    for (const auto& [key, entry] : keys) event(key, KeyEvent::Kind::Deleted);
    keys.clear();
    propagate(a);
    return Reply::ok();
  }

  // ---- hashes -----------------------------------------------------------------

  static std::string* field_of(Entry& e, const std::string& field) {
    for (auto& [f, v] : e.hash) {
      if (f == field) return &v;
    }
    return nullptr;
  }

  // hashTypeLookupWriteOrCreate: the hash at key, created if missing; null
  // (WRONGTYPE) if the key holds a string.
  Entry* hash_for_write(const std::string& key) {
    Entry* e = lookup(key);
    if (e) {
      if (!e->is_hash) return nullptr;
      event(key, KeyEvent::Kind::Modified);
      return e;
    }
    Entry& created = keys[key];
    created.is_hash = true;
    event(key, KeyEvent::Kind::Created);
    return &created;
  }

  Reply cmd_hset(const Argv& a) {
    if (a.size() % 2 == 1) return wrong_args("hset");
    Entry* e = lookup(a[1]);
    if (e && !e->is_hash) return wrong_type();
    e = hash_for_write(a[1]);
    std::int64_t created = 0;
    for (std::size_t j = 2; j + 1 < a.size(); j += 2) {
      if (std::string* v = field_of(*e, a[j])) {
        *v = a[j + 1];
      } else {
        e->hash.emplace_back(a[j], a[j + 1]);
        ++created;
      }
    }
    propagate(a);
    return Reply::integer_of(created);
  }

  Reply cmd_hget(const Argv& a) {
    Entry* e = lookup(a[1]);
    if (!e) return Reply::nil();
    if (!e->is_hash) return wrong_type();
    std::string* v = field_of(*e, a[2]);
    return v ? stored_bulk(*v) : Reply::nil();
  }

  Reply cmd_hincrby(const Argv& a) {
    auto incr = parse_ll(a[3]);
    if (!incr) return not_integer();
    Entry* e = lookup(a[1]);
    if (e && !e->is_hash) return wrong_type();
    std::int64_t value = 0;
    if (e) {
      if (std::string* v = field_of(*e, a[2])) {
        auto parsed = parse_ll(*v);
        if (!parsed) return Reply::error("ERR hash value is not an integer");
        value = *parsed;
      }
    }
    if ((*incr < 0 && value < 0 && *incr < LLONG_MIN - value) || (*incr > 0 && value > 0 && *incr > LLONG_MAX - value))
      return overflow();
    value += *incr;
    e = hash_for_write(a[1]);
    if (std::string* v = field_of(*e, a[2])) {
      *v = std::to_string(value);
    } else {
      e->hash.emplace_back(a[2], std::to_string(value));
    }
    propagate(a);
    return Reply::integer_of(value);
  }

  Reply cmd_hexists(const Argv& a) {
    Entry* e = lookup(a[1]);
    if (!e) return Reply::integer_of(0);
    if (!e->is_hash) return wrong_type();
    return Reply::integer_of(field_of(*e, a[2]) ? 1 : 0);
  }

  Reply cmd_hdel(const Argv& a) {
    Entry* e = lookup(a[1]);
    if (!e) return Reply::integer_of(0);
    if (!e->is_hash) return wrong_type();
    std::int64_t deleted = 0;
    for (std::size_t j = 2; j < a.size(); ++j) {
      deleted += static_cast<std::int64_t>(
          std::erase_if(e->hash, [&](const auto& fv) { return fv.first == a[j]; }));
    }
    if (deleted == 0) return Reply::integer_of(0);
    if (e->hash.empty()) {
      delete_key(a[1]);
    } else {
      event(a[1], KeyEvent::Kind::Modified);
    }
    propagate(a);
    return Reply::integer_of(deleted);
  }

  Reply cmd_hlen(const Argv& a) {
    Entry* e = lookup(a[1]);
    if (!e) return Reply::integer_of(0);
    if (!e->is_hash) return wrong_type();
    return Reply::integer_of(static_cast<std::int64_t>(e->hash.size()));
  }

  Reply cmd_hgetall(const Argv& a) {
    Entry* e = lookup(a[1]);
    if (!e) return Reply::array({});
    if (!e->is_hash) return wrong_type();
    std::vector<Reply> items;
    for (const auto& [f, v] : e->hash) {
      items.push_back(Reply::bulk(f));
      items.push_back(Reply::bulk(v));
    }
    return Reply::array(std::move(items));
  }

  // ---- scripting --------------------------------------------------------------

  Reply eval_generic(const Argv& a, bool by_sha) {
    if (by_sha && a[1].size() != 40) return Reply::error("NOSCRIPT No matching script. Please use EVAL.");
    auto numkeys = parse_ll(a[2]);
    if (!numkeys) return not_integer();
    if (*numkeys > static_cast<std::int64_t>(a.size()) - 3)
      return Reply::error("ERR Number of keys can't be greater than number of args");
    if (*numkeys < 0) return Reply::error("ERR Number of keys can't be negative");
    const auto n = static_cast<std::size_t>(*numkeys);
    in_script = true;
    script_effects.clear();
    Reply reply = by_sha ? lua.evalsha(a, n, *this) : lua.eval(a, n, *this);
    in_script = false;
    flush_script_effects();
    return reply;
  }

  // A script's effects replicate as the commands it ran, in MULTI/EXEC when
  // there is more than one (what 7.0 writes to the AOF and replicas).
  void flush_script_effects() {
    if (script_effects.size() > 1) effects.push_back({"MULTI"});
    for (Argv& e : script_effects) effects.push_back(std::move(e));
    if (script_effects.size() > 1) effects.push_back({"EXEC"});
    script_effects.clear();
  }

  Reply cmd_eval(const Argv& a) { return eval_generic(a, false); }
  Reply cmd_evalsha(const Argv& a) { return eval_generic(a, true); }
  Reply cmd_eval_ro(const Argv& a) { return read_only(a, false); }
  Reply cmd_evalsha_ro(const Argv& a) { return read_only(a, true); }

  // EVAL_RO/EVALSHA_RO: the script may not call write or may-replicate commands.
  Reply read_only(const Argv& a, bool by_sha) {
    read_only_script = true;
    Reply reply = eval_generic(a, by_sha);
    read_only_script = false;
    return reply;
  }

  Reply script_command(const Argv& a) {
    const ScriptSubcommand* sub = find_script_subcommand(a[1]);
    if (sub == nullptr) return unknown_subcommand(a);
    if (!arity_ok(sub->arity, a.size())) return wrong_args("script|" + std::string(sub->name));
    if (sub->name == "load") return lua.load(a[2]);
    if (sub->name == "exists") {
      std::vector<Reply> items;
      for (std::size_t j = 2; j < a.size(); ++j) items.push_back(Reply::integer_of(lua.exists(a[j]) ? 1 : 0));
      return Reply::array(std::move(items));
    }
    if (sub->name == "flush") {
      if (a.size() == 3 && !option_is(a[2], "sync") && !option_is(a[2], "async"))
        return Reply::error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
      if (a.size() > 3) return Reply::error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
      lua.flush();
      return Reply::ok();
    }
    if (sub->name == "kill") return Reply::error("NOTBUSY No scripts in execution right now.");
    if (sub->name == "debug") {
      if (option_is(a[2], "no")) return Reply::ok();
      if (option_is(a[2], "yes") || option_is(a[2], "sync"))
        return Reply::error("ERR SCRIPT DEBUG is not supported by the simulated node");
      return Reply::error("ERR Use SCRIPT DEBUG YES/SYNC/NO");
    }
    return script_help();
  }

  static Reply script_help() {
    static const char* const kLines[] = {
        "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        "HELP",
        "    Prints this help."};
    std::vector<Reply> items;
    for (const char* line : kLines) items.push_back(Reply::status(line));
    return Reply::array(std::move(items));
  }

  Reply cmd_script(const Argv&) { return wrong_args("script"); }  // only reached with no subcommand

  // ---- expiry -----------------------------------------------------------------

  void active_expire(std::int64_t now) {
    events.clear();
    if (role != Role::Master) return;
    now_ms = now;
    // Deterministic stand-in for Redis's random sampling: every expired key,
    // in key order, in one cycle.
    for (auto it = keys.begin(); it != keys.end();) {
      auto next = std::next(it);
      if (logically_expired(it->second)) expire_entry(it);
      it = next;
    }
  }
};

// Sorted by name (binary search).
const std::array<Engine::Impl::Command, 41> Engine::Impl::kCommands{{
    {"client", -2, kNoScript, &Impl::cmd_client},
    {"dbsize", 1, 0, &Impl::cmd_dbsize},
    {"decr", 2, kWrite, &Impl::cmd_decr},
    {"decrby", 3, kWrite, &Impl::cmd_decrby},
    {"del", -2, kWrite, &Impl::cmd_del},
    {"delex", -2, kWrite, &Impl::cmd_delex},
    {"echo", 2, 0, &Impl::cmd_echo},
    {"eval", -3, kMayReplicate | kNoScript, &Impl::cmd_eval},
    {"eval_ro", -3, kNoScript, &Impl::cmd_eval_ro},
    {"evalsha", -3, kMayReplicate | kNoScript, &Impl::cmd_evalsha},
    {"evalsha_ro", -3, kNoScript, &Impl::cmd_evalsha_ro},
    {"exists", -2, 0, &Impl::cmd_exists},
    {"expire", -3, kWrite, &Impl::cmd_expire},
    {"expireat", -3, kWrite, &Impl::cmd_expireat},
    {"flushall", -1, kWrite, &Impl::cmd_flushall},
    {"get", 2, 0, &Impl::cmd_get},
    {"getdel", 2, kWrite, &Impl::cmd_getdel},
    {"hdel", -3, kWrite, &Impl::cmd_hdel},
    {"hello", -1, kNoScript, &Impl::cmd_hello},
    {"hexists", 3, 0, &Impl::cmd_hexists},
    {"hget", 3, 0, &Impl::cmd_hget},
    {"hgetall", 2, 0, &Impl::cmd_hgetall},
    {"hincrby", 4, kWrite, &Impl::cmd_hincrby},
    {"hlen", 2, 0, &Impl::cmd_hlen},
    {"hset", -4, kWrite, &Impl::cmd_hset},
    {"incr", 2, kWrite, &Impl::cmd_incr},
    {"incrby", 3, kWrite, &Impl::cmd_incrby},
    {"info", -1, 0, &Impl::cmd_info},
    {"persist", 2, kWrite, &Impl::cmd_persist},
    {"pexpire", -3, kWrite, &Impl::cmd_pexpire},
    {"pexpireat", -3, kWrite, &Impl::cmd_pexpireat},
    {"ping", -1, 0, &Impl::cmd_ping},
    {"pttl", 2, 0, &Impl::cmd_pttl},
    {"publish", 3, kMayReplicate, &Impl::cmd_publish},
    {"quit", -1, kNoScript, &Impl::cmd_quit},
    {"script", -2, kNoScript, &Impl::cmd_script},
    {"select", 2, 0, &Impl::cmd_select},
    {"set", -3, kWrite, &Impl::cmd_set},
    {"setnx", 3, kWrite, &Impl::cmd_setnx},
    {"ttl", 2, 0, &Impl::cmd_ttl},
    {"type", 2, 0, &Impl::cmd_type},
}};

// ---- the public interface ---------------------------------------------------------

Engine::Engine(EngineOptions options) : impl_(std::make_unique<Impl>(options)) {}
Engine::~Engine() = default;

Reply Engine::execute(const Argv& argv, std::int64_t now_ms) { return execute(argv, now_ms, impl_->own_session); }

Reply Engine::execute(const Argv& argv, std::int64_t now_ms, ClientSession& session) {
  assert(!impl_->applying && !impl_->in_script && "one command at a time");
  impl_->session = &session;
  impl_->events.clear();
  impl_->now_ms = now_ms;
  try {
    return impl_->dispatch(argv);
  } catch (const std::exception& e) {  // allocation failure on hostile input
    impl_->in_script = false;
    impl_->read_only_script = false;
    return Reply::error(std::string("ERR internal error: ") + e.what());
  }
}

void Engine::apply(const Argv& argv, std::int64_t now_ms) {
  impl_->events.clear();
  impl_->session = &impl_->own_session;
  if (argv.empty() || option_is(argv[0], "multi") || option_is(argv[0], "exec")) return;
  impl_->now_ms = now_ms;
  impl_->applying = true;
  try {
    (void)impl_->dispatch(argv);
  } catch (const std::exception&) {
    impl_->in_script = false;
  }
  impl_->applying = false;
  assert(!impl_->in_script && "a replayed script's effects are whole commands");
}

std::vector<Argv> Engine::take_effects() { return std::exchange(impl_->effects, {}); }

const std::vector<KeyEvent>& Engine::last_key_events() const { return impl_->events; }

void Engine::active_expire(std::int64_t now_ms) { impl_->active_expire(now_ms); }

Role Engine::role() const { return impl_->role; }
void Engine::set_role(Role role) { impl_->role = role; }

void Engine::flush_all() {
  impl_->keys.clear();
  impl_->events.clear();
  impl_->effects.clear();
  impl_->lua.flush();
  impl_->lua.restart_math_random();
}

bool Engine::is_write_command(const Argv& argv) {
  if (argv.empty()) return false;
  const Impl::Command* cmd = Impl::find_command(argv[0], true);
  return cmd != nullptr && (cmd->flags & (kWrite | kMayReplicate)) != 0;
}

std::size_t Engine::key_count() const { return impl_->keys.size(); }

bool Engine::has_expiring_keys() const {
  return std::any_of(impl_->keys.begin(), impl_->keys.end(), [](const auto& k) { return k.second.expire_at_ms.has_value(); });
}

std::optional<KeyView> Engine::inspect(const std::string& key) const {
  auto it = impl_->keys.find(key);
  if (it == impl_->keys.end()) return std::nullopt;
  const Entry& e = it->second;
  return KeyView{e.is_hash ? "hash" : "string", e.is_hash ? std::string() : e.str, e.expire_at_ms};
}

}  // namespace locksim::sim::redis
