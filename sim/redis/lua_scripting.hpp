// LuaScripting: the embedded Lua 5.1 interpreter of one simulated Redis node
// (EVAL, EVALSHA, SCRIPT LOAD/EXISTS/FLUSH), with Redis 7.0's `redis` library
// and its reply conversions in both directions, so unlock scripts copied
// from articles and Redisson run unchanged.
//
// One lua_State per node, created at its first script; scripts are compiled once and kept
// by SHA-1 (and by body, so a repeated EVAL skips hashing). Commands called
// from a script go back to the engine through ScriptHost. Sandbox: no os,
// io, loadstring, load, dofile, require, print; globals are read-only and a
// read of a missing global raises Redis's error. A runaway script is stopped
// after an instruction budget with an error (redis-server would instead
// answer BUSY to other clients until SCRIPT KILL); memory is capped too.
// math.random is Redis's rand48: one deterministic sequence per server life.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "vocab/reply.hpp"

struct lua_State;

namespace locksim::sim::redis {

// The engine side of redis.call/redis.pcall: runs one command inside the
// running script and returns its reply (errors as Reply errors, with their
// code, e.g. "ERR ..." or "READONLY ...").
class ScriptHost {
 public:
  virtual Reply call_from_script(const Argv& argv) = 0;
  // Takes back a reply the script has read (its payload is now a Lua
  // string), so its buffer can carry the next one.
  virtual void recycle(Reply&& reply) = 0;

 protected:
  ~ScriptHost() = default;
};

class LuaScripting {
 public:
  explicit LuaScripting(std::uint64_t instruction_budget);
  ~LuaScripting();
  LuaScripting(const LuaScripting&) = delete;
  LuaScripting& operator=(const LuaScripting&) = delete;

  // EVAL: argv = {EVAL, body, numkeys, keys..., args...}, numkeys validated.
  Reply eval(const Argv& argv, std::size_t numkeys, ScriptHost& host);
  // EVALSHA with a 40-character sha (any case); NOSCRIPT when unknown.
  Reply evalsha(const Argv& argv, std::size_t numkeys, ScriptHost& host);
  // SCRIPT LOAD: the sha, or the compile error reply.
  Reply load(const std::string& body);
  bool exists(std::string_view sha) const;
  void flush();
  // math.random's sequence back to its start (a restarted server).
  void restart_math_random();

 private:
  struct Script {
    std::string sha;
    int ref = 0;  // the compiled function in the Lua registry
  };

  const Script* compile(const std::string& body, Reply& error);
  Reply run(const Script& script, const Argv& argv, std::size_t numkeys, ScriptHost& host);
  bool set_keys_and_argv(const Argv& argv, std::size_t numkeys);
  Reply error_reply_from_stack(const Script& script);
  void setup_state();

  void seed_rand48(std::int32_t seed);
  static void* allocate(void* ud, void* ptr, std::size_t old_size, std::size_t new_size);
  // Lua makes and frees many small objects per EVAL (KEYS/ARGV tables,
  // strings, the protected-call closure): blocks up to 256 bytes are kept
  // on free lists per 16-byte size class and reused.
  static constexpr std::size_t kSmallGranule = 16;
  static constexpr std::size_t kSmallClasses = 16;
  static std::size_t small_class(std::size_t n) { return (n - 1) / kSmallGranule; }
  void* take_block(std::size_t n);
  void give_block(void* p, std::size_t n);
  friend struct LuaCallbacks;

  lua_State* L_ = nullptr;
  int globals_ref_ = 0;  // the real globals table (KEYS/ARGV are set here)
  int proxy_ref_ = 0;    // the read-only view each script runs in
  std::map<std::string, Script, std::less<>> by_sha_;
  std::map<std::string, std::string, std::less<>> sha_by_body_;
  ScriptHost* host_ = nullptr;  // while a script runs
  Argv call_argv_;              // redis.call's arguments, reused call to call
  Argv spare_argv_;             // strings a shorter call set aside (collect_argv)
  std::uint64_t budget_ = 0;
  std::uint64_t executed_ = 0;  // instructions of the running script
  bool over_budget_ = false;
  std::size_t memory_used_ = 0;
  void* free_small_[kSmallClasses] = {};  // free lists: each block's first word links the next
  std::uint64_t rand48_state_ = 0;
};

}  // namespace locksim::sim::redis
