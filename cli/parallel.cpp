// Shard parsing and worker threads for sweep and check (parallel.hpp).
#include "cli/parallel.hpp"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <utility>

#include "cli/commands.hpp"
#include "sim/scheduler.hpp"
#include "vocab/argv_pool.hpp"
#include "vocab/task.hpp"

namespace locksim::cli {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_stop_signals{0};
const char* g_second_signal_message = "";

// Async-signal-safe: atomics, write(2) and _exit(2) only.
void on_stop_signal(int) {
  if (g_stop_signals.fetch_add(1) == 0) {
    g_stop.store(true);
    return;
  }
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, g_second_signal_message, std::strlen(g_second_signal_message));
  ::_exit(kInterrupted);
}

}  // namespace

std::atomic<bool>& stop_flag() { return g_stop; }
void request_stop() { g_stop.store(true); }

void handle_stop_signals(const char* second) {
  g_second_signal_message = second;
  g_stop.store(false);
  g_stop_signals.store(0);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

std::pair<unsigned, unsigned> parse_shard(const std::string& command, const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos || text.find('/', slash + 1) != std::string::npos)
    throw InputError(command + ": --shard \"" + text + "\": expected K/N, e.g. 2/8");
  const reports::Bounds shard_bounds{1, std::numeric_limits<unsigned>::max()};
  const auto index = static_cast<unsigned>(option_number(command, "--shard K", text.substr(0, slash), shard_bounds));
  const auto count = static_cast<unsigned>(option_number(command, "--shard N", text.substr(slash + 1), shard_bounds));
  if (index > count)
    throw InputError(command + ": --shard \"" + text + "\": K must be at most N (shards are 1/N to N/N)");
  return {index, count};
}

namespace {

// A thread's first use of a thread_local with a destructor (the coroutine
// frame pool, the argv pool) registers that destructor with glibc, which
// allocates for it and aborts the whole process if it cannot. Each worker
// makes them before any run, while the heap has room; an out-of-memory in a
// run later is a std::bad_alloc, which the commands handle.
bool warm_thread_locals() {
  try {
    detail::FramePool::warm();
    argv_pool::warm();
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

// Under an address-space limit (`ulimit -v`), each new thread's malloc arena
// (glibc reserves 64 MB of address space for one) would take the room the
// runs need; and a thread whose first allocation finds none aborts the
// process. A few shared arenas leave that room.
void share_arenas_under_a_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) ::mallopt(M_ARENA_MAX, 2);
}

// Starts up to `extra` more workers (the caller's thread is one more).
// No worker takes work before all have started: running workers would fill
// the heap the next thread needs for its start-up state. A thread that
// cannot start (out of memory or threads: --jobs 2000 in a container, a
// `ulimit -v`) ends the spawning, and half of those started go home unused:
// the limit was reached by the threads alone, and the runs need room too.
std::vector<std::thread> start_workers(const std::string& command, unsigned extra, const std::function<void()>& worker,
                                       std::ostream& log) {
  // The spawning thread opens it once every started thread has made its
  // thread-locals; worker `number` (the caller's is 0) then works if it is
  // among the first `kept`.
  struct Gate {
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t ready = 0;
    bool open = false;
    std::size_t kept = static_cast<std::size_t>(-1);
    void arrive() {
      std::lock_guard<std::mutex> lock(mutex);
      ++ready;
      changed.notify_all();
    }
    void wait_ready(std::size_t n) {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return ready >= n; });
    }
    void open_now() {
      std::lock_guard<std::mutex> lock(mutex);
      open = true;
      changed.notify_all();
    }
    bool may_work(std::size_t number) {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return open; });
      return number < kept;
    }
  };
  share_arenas_under_a_limit();
  warm_thread_locals();  // the caller's thread is a worker too, and the heap is free now (if not, its first run says so)
  const auto gate = std::make_shared<Gate>();
  struct OpenOnExit {  // also when a start fails with an exception not caught below
    Gate& g;
    ~OpenOnExit() { g.open_now(); }
  } open_on_exit{*gate};
  std::vector<std::thread> threads;
  threads.reserve(extra);
  auto could_not_start = [&](const char* why) {
    const std::size_t started = threads.size() + 1;
    gate->kept = (started + 1) / 2;  // no worker reads it before the gate opens
    log << command << ": could start only " << started << " of " << extra + 1 << " jobs (" << why
        << "); continuing with " << gate->kept << ", to leave the memory of the others to the runs\n";
  };
  for (unsigned j = 0; j < extra; ++j) {
    try {
      threads.emplace_back([gate, worker, number = std::size_t{j} + 1] {
        const bool warmed = warm_thread_locals();
        gate->arrive();
        if (warmed && gate->may_work(number)) worker();  // not warmed: no room for this one, the others do its share
      });
    } catch (const std::system_error& e) {  // no stack could be mapped for it
      could_not_start(e.what());
      break;
    } catch (const std::bad_alloc&) {  // nor its start-up state allocated
      could_not_start("out of memory");
      break;
    }
  }
  gate->wait_ready(threads.size());  // none has run yet: all made their thread-locals with the heap still free
  gate->open_now();
  if (gate->kept < threads.size() + 1) {  // those past `kept` leave at once
    for (std::size_t i = gate->kept - 1; i < threads.size(); ++i) threads[i].join();
    threads.resize(gate->kept - 1);
  }
  return threads;
}

}  // namespace

void WorkerPool::run(unsigned jobs, const std::function<Next()>& step, const std::function<void()>& on_leave) {
  std::vector<std::thread> threads = start_workers(command_, jobs - 1, [&] { work(step, on_leave); }, log_);
  work(step, on_leave);
  for (auto& t : threads) t.join();
  if (retired_.load() > 0 && !g_stop.load()) work(step, on_leave);  // work given back after the others had finished
  if (error_) std::rethrow_exception(error_);
}

void WorkerPool::work(const std::function<Next()>& step, const std::function<void()>& on_leave) {
  ++active_;
  Next next = Next::More;
  try {
    while (!g_stop.load() && (next = step()) == Next::More) {
    }
  } catch (const sim::Scheduler::Stopped&) {  // a signal during this run: nothing to keep of it
  } catch (...) {
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_) error_ = std::current_exception();
    g_stop.store(true);
  }
  if (next != Next::Retired) --active_;  // a retired worker was counted out by may_retire
  on_leave();
}

bool WorkerPool::may_retire() {
  unsigned n = active_.load();
  while (n > 1 && !active_.compare_exchange_weak(n, n - 1)) {
  }
  if (n <= 1) return false;
  ++retired_;
  if (!told_retiring_.exchange(true))
    log_ << command_ << ": out of memory with " << n << " jobs running; going on with fewer\n";
  return true;
}

namespace {

constexpr std::size_t kReserveBlock = 1 << 20;
std::mutex reserve_mutex;
std::vector<void*> reserve_blocks;
std::atomic<unsigned> retirements_requested{0};
std::new_handler handler_before = nullptr;

void give_back_a_block() {
  std::lock_guard<std::mutex> lock(reserve_mutex);
  if (reserve_blocks.empty()) throw std::bad_alloc();
  std::free(reserve_blocks.back());
  reserve_blocks.pop_back();
  ++retirements_requested;
}

}  // namespace

MemoryReserve::MemoryReserve(std::size_t blocks) {
  std::lock_guard<std::mutex> lock(reserve_mutex);
  reserve_blocks.reserve(blocks);
  for (std::size_t i = 0; i < blocks; ++i)
    if (void* p = std::malloc(kReserveBlock)) reserve_blocks.push_back(p);
  retirements_requested = 0;
  handler_before = std::set_new_handler(&give_back_a_block);
}

MemoryReserve::~MemoryReserve() {
  std::set_new_handler(handler_before);
  std::lock_guard<std::mutex> lock(reserve_mutex);
  for (void* p : reserve_blocks) std::free(p);
  reserve_blocks.clear();
}

bool MemoryReserve::retirement_requested() {
  unsigned n = retirements_requested.load();
  while (n > 0 && !retirements_requested.compare_exchange_weak(n, n - 1)) {
  }
  return n > 0;
}

namespace {

class ThreadedHuntCases final : public scenarios::HuntCaseSource {
 public:
  ThreadedHuntCases(const scenarios::HuntOptions& o, unsigned jobs) : o_(o), jobs_(jobs) {
    try {
      for (unsigned t = 0; t < jobs; ++t) threads_.emplace_back([this] { work(); });
    } catch (const std::system_error&) {  // no more threads: the search goes on with those it has
    }
  }
  ~ThreadedHuntCases() override {
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    room_.notify_all();
    for (auto& t : threads_) t.join();
  }
  ThreadedHuntCases(const ThreadedHuntCases&) = delete;
  ThreadedHuntCases& operator=(const ThreadedHuntCases&) = delete;

  scenarios::HuntCase take(std::uint64_t index) override {
    if (threads_.empty()) return scenarios::run_hunt_case(o_, index);
    std::unique_lock lock(mutex_);
    done_changed_.wait(lock, [&] { return done_.count(index) != 0; });
    scenarios::HuntCase c = std::move(done_.at(index));
    done_.erase(index);
    taken_ = index + 1;
    lock.unlock();
    room_.notify_all();
    return c;
  }

 private:
  static constexpr std::uint64_t kAhead = 4;

  void work() {
    for (;;) {
      std::uint64_t index = 0;
      {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return stopped_ || next_ >= o_.budget || next_ < taken_ + kAhead * jobs_; });
        if (stopped_ || next_ >= o_.budget) return;
        index = next_++;
      }
      scenarios::HuntCase c = scenarios::run_hunt_case(o_, index);
      {
        std::lock_guard lock(mutex_);
        done_.emplace(index, std::move(c));
      }
      done_changed_.notify_all();
    }
  }

  const scenarios::HuntOptions& o_;
  const unsigned jobs_;
  std::mutex mutex_;
  std::condition_variable done_changed_, room_;
  std::map<std::uint64_t, scenarios::HuntCase> done_;
  std::uint64_t next_ = 0, taken_ = 0;
  bool stopped_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

std::function<std::unique_ptr<scenarios::HuntCaseSource>(const scenarios::HuntOptions&)> hunt_cases_on_threads(
    unsigned jobs) {
  if (jobs <= 1) return {};
  return [jobs](const scenarios::HuntOptions& o) { return std::make_unique<ThreadedHuntCases>(o, jobs); };
}

}  // namespace locksim::cli
