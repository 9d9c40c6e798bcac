// EngineWorld's event loop and EngineRuntime (see engine_runtime.hpp).
#include "tests/support/engine_runtime.hpp"

#include <cassert>
#include <stdexcept>

namespace locksim::testing {

EngineWorld::EngineWorld(std::size_t nodes, sim::redis::EngineOptions options) {
  for (std::size_t i = 0; i < nodes; ++i) {
    Node node;
    node.engine = std::make_unique<sim::redis::Engine>(options);
    nodes_.push_back(std::move(node));
  }
}

// Pending events hold raw handles into root frames: drop them before the
// frames go (roots_ is destroyed after queue_ is cleared).
EngineWorld::~EngineWorld() {
  queue_.clear();
  roots_.clear();
}

std::int64_t EngineWorld::node_wall_ms(std::size_t node) const {
  return kWallEpochMs + locksim::to_ms(now_ + nodes_.at(node).wall_offset);
}

void EngineWorld::set_node_wall_offset(std::size_t node, Duration offset) {
  nodes_.at(node).wall_offset = offset;
}
void EngineWorld::set_node_down(std::size_t node, bool down) { nodes_.at(node).down = down; }
void EngineWorld::set_node_latency(std::size_t node, Duration latency) {
  nodes_.at(node).latency = latency;
}

void EngineWorld::resume_at(Duration at, std::coroutine_handle<> h) {
  queue_.emplace(std::pair{at, seq_++}, Event{current_root_, h, {}});
}

void EngineWorld::call_at(Duration at, std::uint64_t root, std::function<void()> fn) {
  queue_.emplace(std::pair{at, seq_++}, Event{root, {}, std::move(fn)});
}

bool EngineWorld::step() {
  if (queue_.empty()) return false;
  auto it = queue_.begin();
  const Duration at = it->first.first;
  Event event = std::move(it->second);
  queue_.erase(it);
  if (event.root != 0 && roots_.find(event.root) == roots_.end()) return true;  // cancelled
  if (at > now_) now_ = at;
  const std::uint64_t previous = current_root_;
  current_root_ = event.root;
  if (event.handle) {
    resume_chain(event.handle);
  } else {
    event.fn();
  }
  current_root_ = previous;
  if (event.root != 0) reap(event.root);
  return true;
}

// A finished background task is destroyed; its exception (a test bug) surfaces.
void EngineWorld::reap(std::uint64_t root) {
  auto it = roots_.find(root);
  if (it == roots_.end() || it->second.foreground || !it->second.task.done()) return;
  Task<void> task = std::move(it->second.task);
  roots_.erase(it);
  task.result();
}

void EngineWorld::run(Task<void> task) {
  const std::uint64_t id = next_root_++;
  roots_.emplace(id, Root{std::move(task), true});
  const std::uint64_t previous = current_root_;
  current_root_ = id;
  roots_.at(id).task.start();
  current_root_ = previous;
  while (!roots_.at(id).task.done()) {
    if (!step())
      throw std::logic_error("EngineWorld::run: the task waits but nothing is scheduled");
  }
  Task<void> done = std::move(roots_.at(id).task);
  roots_.erase(id);
  done.result();
}

void EngineWorld::advance(Duration d) {
  const Duration target = now_ + d;
  while (!queue_.empty() && queue_.begin()->first.first <= target) step();
  now_ = target;
}

std::uint64_t EngineWorld::spawn(Task<void> task) {
  const std::uint64_t id = next_root_++;
  roots_.emplace(id, Root{std::move(task), false});
  call_at(now_, id, [this, id] { roots_.at(id).task.start(); });
  return id;
}

void EngineWorld::cancel(std::uint64_t id) {
  auto it = roots_.find(id);
  if (it == roots_.end() || it->second.foreground) return;
  assert(id != current_root_ && "a task cannot cancel itself");
  roots_.erase(it);  // destroys the frame chain; its queued events are skipped
}

Reply EngineWorld::execute(std::size_t node, const Argv& argv) {
  ++commands_;
  return nodes_.at(node).engine->execute(argv, node_wall_ms(node));
}

Task<Reply> EngineWorld::command(std::size_t node, Argv argv, Duration timeout) {
  const Node& n = nodes_.at(node);
  if (n.down) co_return Reply::error("ERR connection refused (node down)");
  const Duration latency = n.latency;
  if (latency <= Duration::zero()) co_return execute(node, argv);
  if (timeout < latency) {
    // The request is on its way: it executes when its latency is up.
    call_at(now_ + latency, 0, [this, node, argv] { (void)execute(node, argv); });
    co_await sleep_for(timeout);
    co_return Reply::error("ERR timeout");
  }
  co_await sleep_for(latency);
  if (nodes_.at(node).down) co_return Reply::error("ERR connection reset (node down)");
  co_return execute(node, argv);
}

// ---------------------------------------------------------------------------

class EngineRuntime::Conn final : public locks::RedisConn {
 public:
  Conn(EngineRuntime& rt, std::size_t node) : rt_(rt), node_(node) {}
  Task<Reply> command(Argv argv) override {
    return rt_.world_.command(node_, std::move(argv), rt_.command_timeout_);
  }
  Task<Reply> command(Argv argv, Duration timeout) override {
    return rt_.world_.command(node_, std::move(argv), timeout);
  }

 private:
  EngineRuntime& rt_;
  std::size_t node_;
};

EngineRuntime::EngineRuntime(EngineWorld& world, std::string name)
    : world_(world), name_(std::move(name)), rng_(sim::fnv1a64(name_)) {
  for (std::size_t i = 0; i < world_.node_count(); ++i)
    conns_.push_back(std::make_unique<Conn>(*this, i));
}

EngineRuntime::~EngineRuntime() = default;

LocalInstant EngineRuntime::monotonic_now() { return LocalInstant{world_.now()}; }

LocalInstant EngineRuntime::wall_now() {
  return LocalInstant{std::chrono::milliseconds(EngineWorld::kWallEpochMs) + world_.now() +
                      wall_offset_};
}

Task<void> EngineRuntime::sleep(Duration d) { co_await world_.sleep_for(d); }

std::string EngineRuntime::random_token() { return name_ + "-tok-" + std::to_string(++tokens_); }

std::uint64_t EngineRuntime::random_below(std::uint64_t n) { return rng_.below(n); }

locks::RedisConn& EngineRuntime::conn(std::size_t node) { return *conns_.at(node); }

std::uint64_t EngineRuntime::spawn(Task<void> task) { return world_.spawn(std::move(task)); }

void EngineRuntime::cancel(std::uint64_t id) { world_.cancel(id); }

// ---------------------------------------------------------------------------

namespace {

class EngineLockWorld final : public LockWorld {
 public:
  explicit EngineLockWorld(const LockWorldSpec& spec)
      : world_(spec.nodes, sim::redis::EngineOptions{spec.redis84}) {
    for (std::size_t i = 0; i < spec.clients; ++i)
      clients_.push_back(
          std::make_unique<EngineRuntime>(world_, std::string(1, static_cast<char>('A' + i))));
  }
  std::string backend() const override { return "engine"; }
  std::size_t client_count() const override { return clients_.size(); }
  locks::Runtime& client(std::size_t i) override { return *clients_.at(i); }
  void run(std::size_t, Task<void> task) override { world_.run(std::move(task)); }
  void wait(Duration d) override { world_.advance(d); }

 private:
  EngineWorld world_;
  std::vector<std::unique_ptr<EngineRuntime>> clients_;
};

}  // namespace

std::unique_ptr<LockWorld> make_engine_lock_world(const LockWorldSpec& spec) {
  return std::make_unique<EngineLockWorld>(spec);
}

}  // namespace locksim::testing
