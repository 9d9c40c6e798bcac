// RealRuntime: std::chrono clocks, real sleeps, random tokens, hiredis
// connections and one thread per spawned task (see real_runtime.hpp).
#include "locks/hiredis/real_runtime.hpp"

#include <cassert>
#include <charconv>
#include <condition_variable>
#include <coroutine>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace locksim::locks {

struct RealRuntime::Spawned {
  Task<void> task;
  std::thread thread;
  std::mutex mutex;
  std::condition_variable wake;
  bool cancelled = false;
  bool finished = false;

  // Sleeps d unless cancelled first; true when cancelled.
  bool sleep_unless_cancelled(Duration d) {
    std::unique_lock lock(mutex);
    return wake.wait_for(lock, d, [this] { return cancelled; });
  }
  void request_cancel() {
    {
      std::lock_guard lock(mutex);
      cancelled = true;
    }
    wake.notify_all();
  }
  bool is_finished() {
    std::lock_guard lock(mutex);
    return finished;
  }
};

namespace {

// The spawned task running on this thread, if any: its sleeps are cancellable.
thread_local RealRuntime::Spawned* current_spawned = nullptr;

// Suspends for good: the frames above it are destroyed, never resumed.
struct NeverResume {
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  void await_resume() const noexcept {}
};

void run_spawned(RealRuntime::Spawned* s) {
  current_spawned = s;
  ++live_task_frames();  // the root frame's count moves with it to this thread
  s->task.start();            // returns when done, or when a cancelled sleep suspended it
  if (auto error = s->task.error()) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "locksim: a spawned task ended with an exception: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "locksim: a spawned task ended with an unknown exception\n");
    }
  }
  s->task.reset();  // destroys every frame, suspended or finished, on this thread
  current_spawned = nullptr;
  std::lock_guard lock(s->mutex);
  s->finished = true;
}

}  // namespace

HiredisOptions parse_endpoint(const std::string& endpoint) {
  const auto colon = endpoint.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == endpoint.size()) {
    throw std::invalid_argument("endpoint '" + endpoint + "' is not host:port");
  }
  HiredisOptions out;
  out.host = endpoint.substr(0, colon);
  if (out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  const char* first = endpoint.data() + colon + 1;
  const char* last = endpoint.data() + endpoint.size();
  auto [end, ec] = std::from_chars(first, last, out.port);
  if (ec != std::errc() || end != last || out.port < 1 || out.port > 65535) {
    throw std::invalid_argument("endpoint '" + endpoint + "' has no valid port (1-65535)");
  }
  return out;
}

RealRuntime::RealRuntime(const std::vector<std::string>& endpoints, RealRuntimeOptions options)
    : service_(options.service) {
  for (const auto& endpoint : endpoints) {
    HiredisOptions o = parse_endpoint(endpoint);
    o.connect_timeout = options.connect_timeout;
    o.command_timeout = options.command_timeout;
    conns_.push_back(std::make_unique<HiredisConn>(std::move(o)));
  }
}

RealRuntime::~RealRuntime() {
  // One at a time until none is left: a task may spawn another meanwhile.
  for (;;) {
    std::uint64_t id = 0;
    {
      std::lock_guard lock(tasks_mutex_);
      if (tasks_.empty()) break;
      id = tasks_.begin()->first;
    }
    cancel(id);
  }
  for (auto& s : self_cancelled_) {
    if (s->thread.joinable()) s->thread.join();
  }
}

LocalInstant RealRuntime::monotonic_now() {
  auto since = std::chrono::steady_clock::now().time_since_epoch();
  return LocalInstant{std::chrono::duration_cast<Duration>(since)};
}

LocalInstant RealRuntime::wall_now() {
  auto since = std::chrono::system_clock::now().time_since_epoch();
  return LocalInstant{std::chrono::duration_cast<Duration>(since)};
}

Task<void> RealRuntime::sleep(Duration d) {
  if (d <= Duration::zero()) co_return;
  if (Spawned* self = current_spawned) {
    if (self->sleep_unless_cancelled(d)) co_await NeverResume{};
    co_return;
  }
  std::this_thread::sleep_for(d);
}

std::uint64_t RealRuntime::random_u64() {
  std::lock_guard lock(random_mutex_);
  auto hi = static_cast<std::uint64_t>(random_device_());
  auto lo = static_cast<std::uint64_t>(random_device_());
  return (hi << 32) ^ lo;  // random_device yields 32-bit values
}

std::string RealRuntime::random_token() {
  std::uint64_t hi = random_u64();
  std::uint64_t lo = random_u64();
  hi = (hi & ~0xF000ull) | 0x4000ull;                   // version 4
  lo = (lo & ~(0xCull << 60)) | (0x8ull << 60);         // variant 10xx
  char out[37];
  std::snprintf(out, sizeof out, "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xFFFF),
                static_cast<unsigned>(hi & 0xFFFF), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return out;
}

std::uint64_t RealRuntime::random_below(std::uint64_t n) {
  assert(n > 0 && "random_below(0)");
  const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n: reject below it, no bias
  for (;;) {
    std::uint64_t x = random_u64();
    if (x >= threshold) return x % n;
  }
}

RedisConn& RealRuntime::conn(std::size_t node) {
  assert(node < conns_.size() && "RealRuntime::conn: no such node");
  return *conns_.at(node);
}

std::size_t RealRuntime::node_count() const { return conns_.size(); }

void RealRuntime::reap_finished() {
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    if (it->second->is_finished()) {
      it->second->thread.join();
      it = tasks_.erase(it);
    } else {
      ++it;
    }
  }
}

std::uint64_t RealRuntime::spawn(Task<void> task) {
  assert(task.valid() && "RealRuntime::spawn: empty task");
  auto s = std::make_shared<Spawned>();
  s->task = std::move(task);
  --live_task_frames();  // counted again on the task's own thread
  std::lock_guard lock(tasks_mutex_);
  reap_finished();
  const std::uint64_t id = next_task_id_++;
  s->thread = std::thread(run_spawned, s.get());
  tasks_.emplace(id, std::move(s));
  return id;
}

void RealRuntime::cancel(std::uint64_t id) {
  std::shared_ptr<Spawned> s;
  {
    std::lock_guard lock(tasks_mutex_);
    auto it = tasks_.find(id);
    if (it == tasks_.end()) return;
    s = std::move(it->second);
    tasks_.erase(it);
    s->request_cancel();
    if (s->thread.get_id() == std::this_thread::get_id()) {
      self_cancelled_.push_back(std::move(s));  // cannot join itself; stops at its next sleep
      return;
    }
  }
  s->thread.join();
}

std::size_t RealRuntime::running_tasks() {
  std::lock_guard lock(tasks_mutex_);
  std::size_t n = 0;
  for (const auto& [id, s] : tasks_) n += s->is_finished() ? 0 : 1;
  return n;
}

}  // namespace locksim::locks
