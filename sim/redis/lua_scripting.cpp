// The Lua 5.1 bridge of the simulated node: sandboxed state, the `redis`
// library, reply conversions and the script cache. See lua_scripting.hpp.
//
// Lua is C: its errors longjmp. Every C function registered here finishes
// its C++ work (and destroys its C++ objects) in an inner scope before it
// calls lua_error, so no destructor is ever skipped.
#include "sim/redis/lua_scripting.hpp"

#include <lua.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <vector>

#include "sim/redis/sha1.hpp"

namespace locksim::sim::redis {
namespace {

constexpr int kHookEvery = 10000;                  // instructions between budget checks
constexpr std::size_t kMemoryLimit = 256u << 20;   // bytes per node's Lua state
constexpr int kMaxReplyDepth = 1000;               // nesting of a returned table
constexpr std::int32_t kRand48Max = 0x7FFFFFFF;
constexpr std::uint64_t kRand48Initial = 0x1234ABCD330EULL;  // rand48's state before any seed
const char* const kChunkName = "@user_script";

// What (long long)lua_Number does on x86-64: NaN and out-of-range values
// become INT64_MIN (redis-server answers `return 1e20` with that).
std::int64_t number_to_integer(double d) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<std::int64_t>(d);
}

// Redis's addReplyErrorFormat: C-string, CR/LF trimmed at the ends and
// mapped to spaces inside, so the protocol stays valid.
std::string sanitize(std::string_view s, bool trim) {
  std::string out(s.substr(0, s.find('\0')));
  if (trim) {
    std::size_t b = out.find_first_not_of("\r\n");
    std::size_t e = out.find_last_not_of("\r\n");
    out = b == std::string::npos ? std::string() : out.substr(b, e - b + 1);
  }
  for (char& c : out) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return out;
}

// luaPushErrorBuff: "-CODE msg" keeps CODE, anything else gets ERR.
std::string lua_error_text(const std::string& reply_error) {
  std::size_t space = reply_error.find(' ');
  if (space == std::string::npos) return "ERR " + sanitize(reply_error, true);
  return reply_error.substr(0, space) + " " + sanitize(reply_error.substr(space + 1), true);
}

void push_error_table(lua_State* L, const std::string& text) {
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, text.data(), text.size());
  lua_setfield(L, -2, "err");
}

void push_reply(lua_State* L, const Reply& r) {
  lua_checkstack(L, 4);
  switch (r.type) {
    case Reply::Type::Nil: lua_pushboolean(L, 0); return;
    case Reply::Type::Integer: lua_pushnumber(L, static_cast<lua_Number>(r.integer)); return;
    case Reply::Type::Bulk: lua_pushlstring(L, r.str.data(), r.str.size()); return;
    case Reply::Type::Status:
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, r.str.data(), r.str.size());
      lua_setfield(L, -2, "ok");
      return;
    case Reply::Type::Error: push_error_table(L, lua_error_text(r.str)); return;
    case Reply::Type::Array:
      lua_createtable(L, static_cast<int>(r.elements.size()), 0);
      for (std::size_t i = 0; i < r.elements.size(); ++i) {
        push_reply(L, r.elements[i]);
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
      return;
  }
  lua_pushboolean(L, 0);
}

Reply to_reply(lua_State* L, int depth);

// A returned table: {err=string} error, {ok=string} status, else an array
// up to the first nil (luaReplyToRedisReply, RESP2).
Reply table_to_reply(lua_State* L, int depth) {
  if (depth > kMaxReplyDepth || !lua_checkstack(L, 4)) return Reply::error("ERR reached lua stack limit");
  lua_pushstring(L, "err");
  lua_rawget(L, -2);
  if (lua_type(L, -1) == LUA_TSTRING) {
    std::size_t n = 0;
    const char* s = lua_tolstring(L, -1, &n);
    std::string text = sanitize("-" + std::string(s, n), true);
    lua_pop(L, 1);
    return Reply::error(text.substr(1));
  }
  lua_pop(L, 1);
  lua_pushstring(L, "ok");
  lua_rawget(L, -2);
  if (lua_type(L, -1) == LUA_TSTRING) {
    std::size_t n = 0;
    const char* s = lua_tolstring(L, -1, &n);
    Reply status = Reply::status(sanitize(std::string_view(s, n), false));
    lua_pop(L, 1);
    return status;
  }
  lua_pop(L, 1);
  std::vector<Reply> items;
  for (int j = 1;; ++j) {
    lua_rawgeti(L, -1, j);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    items.push_back(to_reply(L, depth + 1));
    lua_pop(L, 1);
  }
  return Reply::array(std::move(items));
}

// The value on top of the stack (left there) as a reply.
Reply to_reply(lua_State* L, int depth) {
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      std::size_t n = 0;
      const char* s = lua_tolstring(L, -1, &n);
      return Reply::bulk(std::string(s, n));
    }
    case LUA_TBOOLEAN: return lua_toboolean(L, -1) ? Reply::integer_of(1) : Reply::nil();
    case LUA_TNUMBER: return Reply::integer_of(number_to_integer(lua_tonumber(L, -1)));
    case LUA_TTABLE: return table_to_reply(L, depth);
    default: return Reply::nil();
  }
}

// tostring() for the error handler, without calling into the globals.
std::string value_text(lua_State* L, int index) {
  switch (lua_type(L, index)) {
    case LUA_TNIL: return "nil";
    case LUA_TBOOLEAN: return lua_toboolean(L, index) ? "true" : "false";
    case LUA_TNUMBER:
    case LUA_TSTRING: {
      std::size_t n = 0;
      const char* s = lua_tolstring(L, index, &n);
      return std::string(s, n);
    }
    default: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s: %p", luaL_typename(L, index), lua_topointer(L, index));
      return buf;
    }
  }
}

// Redis 7.0's __redis__err__handler: wrap a non-table error as
// {err='ERR ' .. tostring(e)} and note where it was raised.
int error_handler(lua_State* L) {
  if (!lua_istable(L, 1)) {
    {
      std::string text = "ERR " + value_text(L, 1);
      push_error_table(L, text);
    }
    lua_replace(L, 1);
  }
  lua_settop(L, 1);
  lua_Debug ar;
  bool found = lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar);
  if (found && std::strcmp(ar.what, "C") == 0) found = lua_getstack(L, 2, &ar) && lua_getinfo(L, "Sl", &ar);
  if (found) {
    lua_pushstring(L, "source");
    lua_pushstring(L, ar.source);
    lua_rawset(L, 1);
    lua_pushstring(L, "line");
    lua_pushinteger(L, ar.currentline);
    lua_rawset(L, 1);
  }
  return 1;
}

int missing_global(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name ? name : "?");
}

int readonly_table(lua_State* L) { return luaL_error(L, "Attempt to modify a readonly table"); }

// luaRedisReturnSingleFieldTable: redis.status_reply / redis.error_reply.
int status_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error_table(L, "ERR wrong number or type of arguments");
    return 1;
  }
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}

int error_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error_table(L, "ERR wrong number or type of arguments");
    return 1;
  }
  {
    std::size_t n = 0;
    const char* s = lua_tolstring(L, 1, &n);
    std::string text(s, n);
    if (text.empty() || text[0] != '-') text = "-" + text;
    push_error_table(L, lua_error_text(text.substr(1)));
  }
  return 1;
}

int sha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) {
    push_error_table(L, "ERR wrong number of arguments");
    return lua_error(L);
  }
  {
    std::size_t n = 0;
    const char* s = lua_tolstring(L, 1, &n);
    std::string digest = sha1_hex(s ? std::string_view(s, n) : std::string_view());
    lua_pushlstring(L, digest.data(), digest.size());
  }
  return 1;
}

int redis_log(lua_State* L) {
  if (lua_gettop(L) < 2) {
    push_error_table(L, "ERR redis.log() requires two arguments or more.");
    return lua_error(L);
  }
  if (!lua_isnumber(L, 1)) {
    push_error_table(L, "ERR First argument must be a number (log level).");
    return lua_error(L);
  }
  return 0;  // the simulator keeps no server log
}

// Redis 7.0's pcall: an error table raised by redis.call reaches the
// script as its err string.
int pcall_unwrapping_errors(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc == 0) {
    lua_pushboolean(L, 0);
    lua_pushstring(L, "attempt to call a nil value");
    return 2;
  }
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) {
        lua_replace(L, -2);
      } else {
        lua_pop(L, 1);
      }
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

// True if the table at `index` is one the sandbox keeps read-only (its
// metatable says so).
bool is_protected(lua_State* L, int index) {
  if (!lua_istable(L, index) || !lua_getmetatable(L, index)) return false;
  lua_getfield(L, -1, "__newindex");
  bool guarded = lua_tocfunction(L, -1) == &readonly_table;
  lua_pop(L, 2);
  return guarded;
}

int raise_readonly(lua_State* L) {
  lua_pushstring(L, "Attempt to modify a readonly table");
  return lua_error(L);
}

int guarded_rawset(lua_State* L) {
  if (is_protected(L, 1)) return raise_readonly(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

int guarded_setmetatable(lua_State* L) {
  if (is_protected(L, 1)) return raise_readonly(L);
  int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
  if (luaL_getmetafield(L, 1, "__metatable")) return luaL_error(L, "cannot change a protected metatable");
  lua_settop(L, 2);
  lua_setmetatable(L, 1);
  return 1;
}

int return_nothing(lua_State*) { return 0; }

int return_true(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

int return_false(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}

}  // namespace

// C functions that need the LuaScripting object (an upvalue).
struct LuaCallbacks {
  static LuaScripting& self(lua_State* L) {
    return *static_cast<LuaScripting*>(lua_touserdata(L, lua_upvalueindex(1)));
  }

  // luaArgsToRedisArgv: strings as they are, numbers as %.17g, else an error.
  // Fills argv in place (assign keeps each string's buffer from the last
  // call: redis.call runs on every script's hot path). A shorter call sets
  // the surplus strings aside in `spare` rather than free them, and a
  // longer one takes them back: EXISTS k then HEXISTS k field, attempt after
  // attempt, allocates nothing.
  static bool collect_argv(lua_State* L, Argv& argv, Argv& spare) {
    const int argc = lua_gettop(L);
    const auto count = static_cast<std::size_t>(argc);
    for (; argv.size() > count; argv.pop_back()) spare.push_back(std::move(argv.back()));
    for (; argv.size() < count; spare.pop_back()) {
      if (spare.empty()) spare.emplace_back();
      argv.push_back(std::move(spare.back()));
    }
    for (int j = 1; j <= argc; ++j) {
      std::string& arg = argv[static_cast<std::size_t>(j - 1)];
      if (lua_type(L, j) == LUA_TNUMBER) {
        char buf[64];
        int n = std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(lua_tonumber(L, j)));
        arg.assign(buf, static_cast<std::size_t>(n));
      } else if (lua_type(L, j) == LUA_TSTRING) {
        std::size_t n = 0;
        const char* str = lua_tolstring(L, j, &n);
        arg.assign(str, n);
      } else {
        return false;
      }
    }
    return true;
  }

  // No C++ exception may cross Lua's C frames.
  static Reply call_host(ScriptHost& host, const Argv& argv) {
    try {
      return host.call_from_script(argv);
    } catch (const std::exception& e) {
      return Reply::error(std::string("ERR internal error: ") + e.what());
    }
  }

  static int call_generic(lua_State* L, bool raise) {
    bool failed = false;
    {
      LuaScripting& s = self(L);
      Argv& argv = s.call_argv_;  // a command called from a script never runs another script
      if (lua_gettop(L) == 0) {
        failed = true;
        push_error_table(L, "ERR Please specify at least one argument for this redis lib call");
      } else if (!collect_argv(L, argv, s.spare_argv_)) {
        failed = true;
        push_error_table(L, "ERR Lua redis lib command arguments must be strings or integers");
      } else if (s.host_ == nullptr) {
        failed = true;
        push_error_table(L, "ERR redis.call outside a script");
      } else {
        Reply reply = call_host(*s.host_, argv);
        failed = reply.is_error();
        push_reply(L, reply);
        s.host_->recycle(std::move(reply));
      }
    }
    if (failed && raise) return lua_error(L);
    return 1;
  }

  static int call(lua_State* L) { return call_generic(L, true); }
  static int pcall(lua_State* L) { return call_generic(L, false); }

  // Redis's math.random: its own rand48, one sequence for the server's life
  // (not reseeded per script; math.randomseed seeds it).
  static int math_random(lua_State* L) {
    LuaScripting& s = self(L);
    s.rand48_state_ = (0x5DEECE66DULL * s.rand48_state_ + 0xB) & ((1ULL << 48) - 1);
    auto next = static_cast<std::int32_t>(s.rand48_state_ >> 17);
    lua_Number r = static_cast<lua_Number>(next % kRand48Max) / static_cast<lua_Number>(kRand48Max);
    switch (lua_gettop(L)) {
      case 0: lua_pushnumber(L, r); break;
      case 1: {
        int u = luaL_checkint(L, 1);
        luaL_argcheck(L, 1 <= u, 1, "interval is empty");
        lua_pushnumber(L, std::floor(r * u) + 1);
        break;
      }
      case 2: {
        int l = luaL_checkint(L, 1);
        int u = luaL_checkint(L, 2);
        luaL_argcheck(L, l <= u, 2, "interval is empty");
        lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
        break;
      }
      default: return luaL_error(L, "wrong number of arguments");
    }
    return 1;
  }

  static int math_randomseed(lua_State* L) {
    self(L).seed_rand48(luaL_checkint(L, 1));
    return 0;
  }

  static void hook(lua_State* L, lua_Debug*) {
    void* ud = nullptr;
    lua_getallocf(L, &ud);
    auto& s = *static_cast<LuaScripting*>(ud);
    if (!s.over_budget_) {
      s.executed_ += kHookEvery;
      if (s.executed_ <= s.budget_) return;
      // From now on fail at every instruction, so a pcall in the script
      // cannot swallow the stop.
      s.over_budget_ = true;
      lua_sethook(L, &LuaCallbacks::hook, LUA_MASKCOUNT, 1);
    }
    push_error_table(L,
                     "ERR Script exceeded the instruction budget of the simulated node "
                     "(redis-server would stay BUSY until SCRIPT KILL)");
    lua_error(L);
  }
};

// The lua_State is made on the first script, not with the node: building
// the libraries is most of a short run's cost, and most locks never EVAL.
LuaScripting::LuaScripting(std::uint64_t instruction_budget) : budget_(instruction_budget) {
  restart_math_random();
}

LuaScripting::~LuaScripting() {
  if (L_ != nullptr) lua_close(L_);
  for (void* head : free_small_) {
    while (head != nullptr) {
      void* next = *static_cast<void**>(head);
      std::free(head);
      head = next;
    }
  }
}

void* LuaScripting::take_block(std::size_t n) {
  const std::size_t c = small_class(n);
  if (c >= kSmallClasses) return std::malloc(n);
  void*& head = free_small_[c];
  if (head == nullptr) return std::malloc((c + 1) * kSmallGranule);
  void* block = head;
  head = *static_cast<void**>(block);
  return block;
}

void LuaScripting::give_block(void* p, std::size_t n) {
  const std::size_t c = small_class(n);
  if (c >= kSmallClasses) return std::free(p);
  *static_cast<void**>(p) = free_small_[c];
  free_small_[c] = p;
}

// lua_Alloc: Lua passes the block's current size, so small blocks can live
// on free lists (take_block/give_block) and only large ones use realloc.
void* LuaScripting::allocate(void* ud, void* ptr, std::size_t old_size, std::size_t new_size) {
  auto& self = *static_cast<LuaScripting*>(ud);
  if (ptr == nullptr) old_size = 0;
  if (new_size == 0) {
    if (ptr != nullptr) self.give_block(ptr, old_size);
    self.memory_used_ -= old_size;
    return nullptr;
  }
  if (new_size > old_size && self.memory_used_ + (new_size - old_size) > kMemoryLimit) return nullptr;
  void* moved = nullptr;
  if (ptr != nullptr && small_class(old_size) == small_class(new_size)) {
    moved = ptr;  // the same block still fits (or both are large: realloc)
    if (small_class(new_size) >= kSmallClasses) moved = std::realloc(ptr, new_size);
  } else {
    moved = self.take_block(new_size);
    if (moved != nullptr && ptr != nullptr) {
      std::memcpy(moved, ptr, std::min(old_size, new_size));
      self.give_block(ptr, old_size);
    }
  }
  if (moved == nullptr) return nullptr;
  self.memory_used_ = self.memory_used_ - old_size + new_size;
  return moved;
}

void LuaScripting::seed_rand48(std::int32_t seed) {
  rand48_state_ = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(seed)) << 16) | 0x330E;
}

namespace {

void open_library(lua_State* L, lua_CFunction open, const char* name) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

void set_closure(lua_State* L, void* self, const char* name, lua_CFunction f) {
  lua_pushlightuserdata(L, self);
  lua_pushcclosure(L, f, 1);
  lua_setfield(L, -2, name);
}

void set_function(lua_State* L, const char* name, lua_CFunction f) {
  lua_pushcfunction(L, f);
  lua_setfield(L, -2, name);
}

void set_number(lua_State* L, const char* name, int value) {
  lua_pushinteger(L, value);
  lua_setfield(L, -2, name);
}

// An empty table whose reads fall through to the table at `index` and whose
// writes fail.
void push_readonly_view(lua_State* L, int index) {
  lua_pushvalue(L, index);
  lua_newtable(L);  // the view
  lua_newtable(L);  // its metatable
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, &readonly_table);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_remove(L, -2);
}

}  // namespace

void LuaScripting::setup_state() {
  L_ = lua_newstate(&LuaScripting::allocate, this);
  lua_State* L = L_;
  open_library(L, luaopen_base, "");
  open_library(L, luaopen_table, LUA_TABLIBNAME);
  open_library(L, luaopen_string, LUA_STRLIBNAME);
  open_library(L, luaopen_math, LUA_MATHLIBNAME);
  for (const char* name : {"loadstring", "load", "dofile", "loadfile", "print", "getfenv", "setfenv",
                           "require", "module", "newproxy", "os", "io", "package", "debug"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  lua_getglobal(L, "math");
  set_closure(L, this, "random", &LuaCallbacks::math_random);
  set_closure(L, this, "randomseed", &LuaCallbacks::math_randomseed);
  lua_pop(L, 1);

  lua_newtable(L);
  set_closure(L, this, "call", &LuaCallbacks::call);
  set_closure(L, this, "pcall", &LuaCallbacks::pcall);
  set_function(L, "sha1hex", &sha1hex);
  set_function(L, "error_reply", &error_reply);
  set_function(L, "status_reply", &status_reply);
  set_function(L, "log", &redis_log);
  set_function(L, "setresp", &return_nothing);
  set_function(L, "set_repl", &return_nothing);
  set_function(L, "replicate_commands", &return_true);
  set_function(L, "breakpoint", &return_false);
  set_function(L, "debug", &return_nothing);
  set_number(L, "LOG_DEBUG", 0);
  set_number(L, "LOG_VERBOSE", 1);
  set_number(L, "LOG_NOTICE", 2);
  set_number(L, "LOG_WARNING", 3);
  set_number(L, "REPL_NONE", 0);
  set_number(L, "REPL_AOF", 1);
  set_number(L, "REPL_SLAVE", 2);
  set_number(L, "REPL_REPLICA", 2);
  set_number(L, "REPL_ALL", 3);
  lua_setglobal(L, "redis");
  lua_pushcfunction(L, &pcall_unwrapping_errors);
  lua_setglobal(L, "pcall");
  lua_pushcfunction(L, &guarded_rawset);
  lua_setglobal(L, "rawset");
  lua_pushcfunction(L, &guarded_setmetatable);
  lua_setglobal(L, "setmetatable");
  // Library tables are read-only, as in 7.0: each global library becomes a
  // proxy that reads through to it and refuses writes.
  for (const char* lib : {"redis", "string", "math", "table", "coroutine"}) {
    lua_getglobal(L, lib);
    push_readonly_view(L, -1);
    lua_setglobal(L, lib);
    lua_pop(L, 1);
  }

  // Scripts run in an empty proxy whose reads fall through to the globals
  // and whose writes fail; a read of a missing global fails as well.
  push_readonly_view(L, LUA_GLOBALSINDEX);
  proxy_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);

  lua_newtable(L);  // the globals' metatable
  lua_pushcfunction(L, &missing_global);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, &readonly_table);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, LUA_GLOBALSINDEX);
}

const LuaScripting::Script* LuaScripting::compile(const std::string& body, Reply& error) {
  if (L_ == nullptr) setup_state();
  if (auto known = sha_by_body_.find(body); known != sha_by_body_.end()) return &by_sha_.find(known->second)->second;
  std::string sha = sha1_hex(body);
  if (auto it = by_sha_.find(sha); it != by_sha_.end()) return &it->second;
  if (luaL_loadbuffer(L_, body.data(), body.size(), kChunkName) != 0) {
    const char* msg = lua_tostring(L_, -1);
    error = Reply::error(sanitize("ERR Error compiling script (new function): " + std::string(msg ? msg : "?"), true));
    lua_pop(L_, 1);
    return nullptr;
  }
  lua_rawgeti(L_, LUA_REGISTRYINDEX, proxy_ref_);
  lua_setfenv(L_, -2);
  Script script{sha, luaL_ref(L_, LUA_REGISTRYINDEX)};
  sha_by_body_.emplace(body, sha);
  return &by_sha_.emplace(sha, std::move(script)).first->second;
}

Reply LuaScripting::load(const std::string& body) {
  Reply error;
  const Script* script = compile(body, error);
  return script ? Reply::bulk(script->sha) : error;
}

bool LuaScripting::exists(std::string_view sha) const {
  if (sha.size() != 40) return false;
  std::string lower(sha);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return by_sha_.count(lower) > 0;
}

void LuaScripting::restart_math_random() { rand48_state_ = kRand48Initial; }

void LuaScripting::flush() {
  if (L_ == nullptr) return;  // no script was ever compiled
  for (const auto& [sha, script] : by_sha_) luaL_unref(L_, LUA_REGISTRYINDEX, script.ref);
  by_sha_.clear();
  sha_by_body_.clear();
  lua_gc(L_, LUA_GCCOLLECT, 0);
}

Reply LuaScripting::eval(const Argv& argv, std::size_t numkeys, ScriptHost& host) {
  Reply error;
  const Script* script = compile(argv[1], error);
  if (script == nullptr) return error;
  return run(*script, argv, numkeys, host);
}

Reply LuaScripting::evalsha(const Argv& argv, std::size_t numkeys, ScriptHost& host) {
  std::string lower = argv[1];
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  auto it = by_sha_.find(lower);
  if (it == by_sha_.end()) return Reply::error("NOSCRIPT No matching script. Please use EVAL.");
  return run(it->second, argv, numkeys, host);
}

namespace {

struct ScriptArguments {
  const Argv* argv;
  std::size_t numkeys;
};

void push_array(lua_State* L, const Argv& argv, std::size_t from, std::size_t to) {
  lua_createtable(L, static_cast<int>(to - from), 0);
  for (std::size_t i = from; i < to; ++i) {
    lua_pushlstring(L, argv[i].data(), argv[i].size());
    lua_rawseti(L, -2, static_cast<int>(i - from + 1));
  }
}

// Run under lua_cpcall: a huge argv may exhaust the Lua memory cap, and an
// error outside a protected call would abort the process.
int set_keys_and_argv_protected(lua_State* L) {
  const auto& args = *static_cast<const ScriptArguments*>(lua_touserdata(L, 1));
  const Argv& argv = *args.argv;
  lua_pushstring(L, "KEYS");
  push_array(L, argv, 3, 3 + args.numkeys);
  lua_rawset(L, LUA_GLOBALSINDEX);
  lua_pushstring(L, "ARGV");
  push_array(L, argv, 3 + args.numkeys, argv.size());
  lua_rawset(L, LUA_GLOBALSINDEX);
  return 0;
}

}  // namespace

bool LuaScripting::set_keys_and_argv(const Argv& argv, std::size_t numkeys) {
  ScriptArguments args{&argv, numkeys};
  if (lua_cpcall(L_, &set_keys_and_argv_protected, &args) == 0) return true;
  lua_pop(L_, 1);
  return false;
}

Reply LuaScripting::run(const Script& script, const Argv& argv, std::size_t numkeys, ScriptHost& host) {
  lua_settop(L_, 0);
  if (!set_keys_and_argv(argv, numkeys)) return Reply::error("ERR the script's KEYS and ARGV exceed the Lua memory cap");
  lua_pushcfunction(L_, &error_handler);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, script.ref);
  host_ = &host;
  executed_ = 0;
  over_budget_ = false;
  lua_sethook(L_, &LuaCallbacks::hook, LUA_MASKCOUNT, kHookEvery);
  int rc = lua_pcall(L_, 0, 1, 1);
  lua_sethook(L_, nullptr, 0, 0);
  host_ = nullptr;
  Reply reply = rc == 0 ? to_reply(L_, 0) : error_reply_from_stack(script);
  lua_settop(L_, 0);
  return reply;
}

// luaCallFunction's error path: "<msg> script: <sha>, on <source>:<line>."
Reply LuaScripting::error_reply_from_stack(const Script& script) {
  if (!lua_istable(L_, -1)) {
    const char* msg = lua_isstring(L_, -1) ? lua_tostring(L_, -1) : "execution failure";
    std::string text = "Error running script " + script.sha + ", " + std::string(msg).substr(0, 100);
    return Reply::error("ERR " + sanitize(text, true));
  }
  auto field = [&](const char* name) -> std::optional<std::string> {
    lua_pushstring(L_, name);
    lua_rawget(L_, -2);
    std::optional<std::string> value;
    if (lua_isstring(L_, -1)) {
      std::size_t n = 0;
      const char* s = lua_tolstring(L_, -1, &n);
      value.emplace(s, n);
    }
    lua_pop(L_, 1);
    return value;
  };
  // error({}) crashes redis-server 7.0.15; answer with a plain error instead.
  std::string text = field("err").value_or("ERR script raised an error without a message");
  auto source = field("source");
  auto line = field("line");
  if (source && line) text += " script: " + script.sha + ", on " + *source + ":" + *line + ".";
  return Reply::error(sanitize(text, false));
}

}  // namespace locksim::sim::redis
