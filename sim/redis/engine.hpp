// Engine: the keyspace and command table of one simulated Redis node.
//
// Pure data + logic, no I/O and no time source of its own: every call gets
// the node's wall-clock time in milliseconds (`now_ms`), because Redis
// decides expiry on its wall clock (docs/redis-model.md, "Expiry"). The node
// host (sim/redis/node.hpp) wraps an Engine with the network, the AOF,
// replication, WAIT and min-replicas-to-write. Fidelity target: redis-server
// 7.0 replies, byte for byte (checked by tests/test_redis_differential.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/redis/client_commands.hpp"
#include "vocab/reply.hpp"

namespace locksim::sim::redis {

enum class Role : std::uint8_t { Master, Replica };

struct EngineOptions {
  // Redis 8.4's `DELEX key IFEQ v` and `SET ... IFEQ v`; off as on 7.0
  // (then they answer like 7.0: unknown command / syntax error).
  bool redis84_ifeq = false;
  // Lua VM instructions one script may run before it is stopped with an
  // error (redis-server would answer BUSY to others until SCRIPT KILL; a
  // simulation must not hang). About a tenth of a second of Lua.
  std::uint64_t script_instruction_budget = 50'000'000;
};

// What one command did to the keyspace, for checkers and timelines.
struct KeyEvent {
  enum class Kind : std::uint8_t { Created, Modified, Deleted, Expired };
  std::string key;
  Kind kind;
};

// A read-only view of one key, for tests and timelines.
struct KeyView {
  std::string type;                  // "string" | "hash"
  std::string value;                 // string value (empty for hashes)
  std::optional<std::int64_t> expire_at_ms;  // absolute wall-clock deadline
};

class Engine {
 public:
  explicit Engine(EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // One client command at the node's wall time. Never throws, whatever argv holds.
  Reply execute(const Argv& argv, std::int64_t now_ms);
  // The same, for a command of one client connection: the connection
  // commands (HELLO, CLIENT, SELECT, QUIT) read and change `session`.
  Reply execute(const Argv& argv, std::int64_t now_ms, ClientSession& session);

  // A command from the master's replication stream or from AOF replay: no
  // READONLY check, and expiry is not decided here (the stream carries DELs).
  // MULTI/EXEC (around a script's effects) are accepted and ignored. The
  // applied command shows up in take_effects(), as a replica forwards it.
  void apply(const Argv& argv, std::int64_t now_ms);

  // The write effects since the last call, in the form Redis propagates them
  // to the AOF and replicas: relative expiry rewritten to absolute
  // (SET ... PXAT, PEXPIREAT), lazy and active expiry as DEL, a script's
  // effects as the commands it ran.
  std::vector<Argv> take_effects();

  // What the last execute()/apply()/active_expire() did to the keyspace.
  const std::vector<KeyEvent>& last_key_events() const;

  // One active-expiry cycle (masters only; a replica waits for the master's DEL).
  void active_expire(std::int64_t now_ms);

  Role role() const;
  void set_role(Role role);  // a promoted replica starts expiring on its own clock
  void flush_all();          // restart without persistence: empty keyspace and script cache

  // Write or may-replicate commands (incl. EVAL/EVALSHA), which
  // min-replicas-to-write refuses with -NOREPLICAS.
  static bool is_write_command(const Argv& argv);

  std::size_t key_count() const;
  bool has_expiring_keys() const;  // any key with a TTL (what an active expiry cycle could remove)
  std::optional<KeyView> inspect(const std::string& key) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace locksim::sim::redis
