// EngineRuntime: a quick test Runtime for lock code, over in-process
// sim::redis::Engines with a manual clock — no network, no scheduler, no
// hosts. Not the simulation (that is SimRuntime); a test tool for the lock
// contract suite and lock unit tests.
//
// EngineWorld holds the engines, one true clock and a tiny event loop: an
// ordered queue of (time, seq) events. `run(task)` drives one task to
// completion: whenever it sleeps, the loop jumps the clock to the next due
// event (another client's spawned watchdog, a delayed command) and runs it;
// `advance(d)` lets d pass, running what falls due. Commands execute at once
// unless a node has a latency: then the caller sleeps that long, and a
// per-call timeout shorter than the latency returns an error while the
// command still executes when its latency is up (as on a real network).
// Spawned tasks start at the next event-loop step, are resumed only by their
// own timers, and are destroyed by cancel(). Everything is deterministic:
// tokens are "<client>-tok-<n>", random_below draws from a sim::Rng seeded
// by the client's name.
//
// LockWorld is the interface the contract suite is written against (N
// client runtimes over shared Redis nodes + a way to let time pass), so the
// same suite runs on this engine world, on real redis-servers (RealRuntime)
// and on the simulator (SimRuntime).
#pragma once

#include <coroutine>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "locks/runtime.hpp"
#include "sim/redis/engine.hpp"
#include "sim/rng.hpp"

namespace locksim::testing {

class EngineWorld {
 public:
  explicit EngineWorld(std::size_t nodes, sim::redis::EngineOptions options = {});
  ~EngineWorld();
  EngineWorld(const EngineWorld&) = delete;
  EngineWorld& operator=(const EngineWorld&) = delete;

  std::size_t node_count() const { return nodes_.size(); }
  sim::redis::Engine& engine(std::size_t node) { return *nodes_.at(node).engine; }
  Duration now() const { return now_; }  // true time since the world began

  // Node i's wall clock in ms (what its expiry uses): epoch + now + offset.
  std::int64_t node_wall_ms(std::size_t node) const;
  void set_node_wall_offset(std::size_t node, Duration offset);  // a clock step on node i
  void set_node_down(std::size_t node, bool down);  // commands fail at once ("connection refused")
  void set_node_latency(std::size_t node, Duration latency);  // time until the reply

  // Drives `task` to completion, running due events; rethrows its exception.
  void run(Task<void> task);
  // Lets d pass, running every event that falls due.
  void advance(Duration d);

  // --- for EngineRuntime ---
  struct SleepAwaiter {
    EngineWorld* world;
    Duration d;
    bool await_ready() const noexcept { return d <= Duration::zero(); }
    void await_suspend(std::coroutine_handle<> h) { world->resume_at(world->now_ + d, h); }
    void await_resume() const noexcept {}
  };
  SleepAwaiter sleep_for(Duration d) { return {this, d}; }
  std::uint64_t spawn(Task<void> task);
  void cancel(std::uint64_t id);
  Task<Reply> command(std::size_t node, Argv argv, Duration timeout);
  std::uint64_t commands_executed() const { return commands_; }

  static constexpr std::int64_t kWallEpochMs = 1'700'000'000'000;

 private:
  struct Node {
    std::unique_ptr<sim::redis::Engine> engine;
    Duration wall_offset{};
    Duration latency{};
    bool down = false;
  };
  struct Event {
    std::uint64_t root = 0;  // the task the event belongs to (0 = none: always runs)
    std::coroutine_handle<> handle;
    std::function<void()> fn;
  };
  struct Root {
    Task<void> task;
    bool foreground = false;
  };

  void resume_at(Duration at, std::coroutine_handle<> h);
  void call_at(Duration at, std::uint64_t root, std::function<void()> fn);
  bool step();  // runs the next event; false if none
  void reap(std::uint64_t root);
  Reply execute(std::size_t node, const Argv& argv);

  std::vector<Node> nodes_;
  Duration now_{};
  std::uint64_t seq_ = 0;
  std::uint64_t next_root_ = 1;
  std::uint64_t current_root_ = 0;
  std::uint64_t commands_ = 0;
  std::map<std::pair<Duration, std::uint64_t>, Event> queue_;
  std::map<std::uint64_t, Root> roots_;
};

// One client's view of an EngineWorld.
class EngineRuntime final : public locks::Runtime {
 public:
  EngineRuntime(EngineWorld& world, std::string name);
  ~EngineRuntime() override;

  LocalInstant monotonic_now() override;
  LocalInstant wall_now() override;
  Task<void> sleep(Duration d) override;
  std::string random_token() override;
  std::uint64_t random_below(std::uint64_t n) override;
  locks::RedisConn& conn(std::size_t node) override;
  std::size_t node_count() const override { return world_.node_count(); }
  std::uint64_t spawn(Task<void> task) override;
  void cancel(std::uint64_t id) override;

  const std::string& name() const { return name_; }
  void set_wall_offset(Duration offset) { wall_offset_ = offset; }  // a clock step on this client
  // The connection timeout for command(argv) without its own (default: none).
  void set_command_timeout(Duration timeout) { command_timeout_ = timeout; }
  Duration command_timeout() const { return command_timeout_; }

 private:
  class Conn;
  EngineWorld& world_;
  std::string name_;
  sim::Rng rng_;
  std::uint64_t tokens_ = 0;
  Duration wall_offset_{};
  Duration command_timeout_ = Duration::max();
  std::vector<std::unique_ptr<Conn>> conns_;
};

// ---------------------------------------------------------------------------
// The contract suite's view of a backend.

struct LockWorldSpec {
  std::size_t nodes = 1;    // independent Redis masters
  std::size_t clients = 3;  // client runtimes "A", "B", "C", ...
  bool redis84 = false;     // the nodes answer DELEX / SET IFEQ
};

class LockWorld {
 public:
  virtual ~LockWorld() = default;
  virtual std::string backend() const = 0;  // "engine", "real", "sim"
  virtual std::size_t client_count() const = 0;
  virtual locks::Runtime& client(std::size_t i) = 0;
  // Runs a task of client i to completion (on the simulator: a root task of
  // that client's host); background tasks keep running as time passes.
  virtual void run(std::size_t client, Task<void> task) = 0;
  // Lets d pass (background tasks run meanwhile).
  virtual void wait(Duration d) = 0;
};

using LockWorldFactory = std::function<std::unique_ptr<LockWorld>(const LockWorldSpec&)>;

// An EngineWorld with one EngineRuntime per client.
std::unique_ptr<LockWorld> make_engine_lock_world(const LockWorldSpec& spec);

namespace detail {
template <class T>
Task<void> store_result(Task<T> task, std::optional<T>& out) {
  out.emplace(co_await std::move(task));
}
}  // namespace detail

// Runs a task of client i that returns a value and returns the value.
template <class T>
T run_task(LockWorld& world, std::size_t client, Task<T> task) {
  std::optional<T> out;
  world.run(client, detail::store_result(std::move(task), out));
  return std::move(*out);
}

}  // namespace locksim::testing
