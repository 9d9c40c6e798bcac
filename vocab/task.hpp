// Task<T>: the coroutine type of every simulated process and lock algorithm.
//
// Lazy (nothing runs until awaited or started), move-only, and with
// symmetric transfer done by a trampoline so long await chains do not grow
// the stack at any optimisation level: C++ symmetric transfer (returning a
// handle from await_suspend) is a tail call only when the optimiser makes it
// one, so at -O0 every await of a child that finishes at once nested a
// resume() (a million awaits overflowed the stack). Here await_suspend hands
// the next handle to the innermost `resume_chain` loop of this thread, which
// resumes it after the current coroutine has suspended: the same order as
// symmetric transfer, with constant stack depth. Every resume goes through
// resume_chain. An exception
// thrown inside a task is rethrown in its awaiter. Destroying a Task destroys
// its frame, and with it every child frame it is suspended in: this is how a
// host crash (or a cancelled renewal task) tears down a whole call stack.
// `live_task_frames()` counts frames on this thread so tests can prove there
// are no leaks on completion, crash and cancellation.
//
// On the real runtime nothing suspends for real, so `sync_wait` runs a task
// to completion on the caller's stack.
#pragma once

#include <cassert>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <utility>

namespace locksim {

inline std::int64_t& live_task_frames() {
  thread_local std::int64_t count = 0;
  return count;
}
// Every frame ever created on this thread: a deterministic cost counter for
// the performance guard (tests/test_runner.cpp, "[perf]").
inline std::uint64_t& created_task_frames() {
  thread_local std::uint64_t count = 0;
  return count;
}

template <class T>
class Task;

namespace detail {

inline std::coroutine_handle<>*& next_to_resume() {
  thread_local std::coroutine_handle<>* slot = nullptr;  // the innermost resume_chain's
  return slot;
}

}  // namespace detail

// Resumes h and every coroutine it transfers to, until the chain suspends
// without a transfer. Nested calls (a coroutine resuming another directly)
// get their own loop, so a nested chain finishes before its caller goes on.
inline void resume_chain(std::coroutine_handle<> h) {
  std::coroutine_handle<> next = h;
  struct Restore {
    std::coroutine_handle<>* outer;
    ~Restore() { detail::next_to_resume() = outer; }
  } restore{std::exchange(detail::next_to_resume(), &next)};
  while (next) std::exchange(next, {}).resume();
}

namespace detail {

// Called in await_suspend: `h` runs as soon as the current coroutine has
// suspended (the trampoline's symmetric transfer).
inline void transfer_to(std::coroutine_handle<> h) noexcept {
  if (std::coroutine_handle<>* slot = next_to_resume()) *slot = h;
  else resume_chain(h);  // resumed outside any loop: start one
}

// Coroutine frames come from a per-thread free list per 64-byte size class:
// a run creates and destroys a frame for every command and sleep, and a
// reused block is several times cheaper than malloc + free. Blocks are kept
// (at most the peak number of live frames) and freed when the thread ends.
// A frame freed on another thread than the one that made it (live mode hands
// tasks to threads) simply joins that thread's list.
class FramePool {
 public:
  static constexpr std::size_t kGranule = 64;
  static constexpr std::size_t kClasses = 32;  // frames up to 2 KiB are pooled

  static void* allocate(std::size_t n) {
    const std::size_t c = size_class(n);
    if (c >= kClasses) return ::operator new(n);
    Block*& head = local().free_[c];
    if (!head) return ::operator new(c * kGranule + kGranule);
    return std::exchange(head, head->next);
  }
  // Makes this thread's pool now: its first use registers a thread-exit
  // destructor, and glibc aborts the process if that registration cannot
  // allocate. Worker threads call this before any work, while there is room.
  static void warm() { (void)local(); }
  static void release(void* p, std::size_t n) noexcept {
    const std::size_t c = size_class(n);
    if (c >= kClasses) return ::operator delete(p);
    Block*& head = local().free_[c];
    head = new (p) Block{head};
  }

 private:
  struct Block {
    Block* next;
  };
  static std::size_t size_class(std::size_t n) { return (n - 1) / kGranule; }
  static FramePool& local() {
    thread_local FramePool pool;
    return pool;
  }
  FramePool() = default;
  ~FramePool() {
    for (Block* head : free_)
      while (head) ::operator delete(std::exchange(head, head->next));
  }
  Block* free_[kClasses] = {};
};

struct PromiseBase {
  std::coroutine_handle<> continuation = std::noop_coroutine();
  std::exception_ptr error;

  PromiseBase() {
    ++live_task_frames();
    ++created_task_frames();
  }
  ~PromiseBase() { --live_task_frames(); }
  PromiseBase(const PromiseBase&) = delete;
  PromiseBase& operator=(const PromiseBase&) = delete;

  static void* operator new(std::size_t n) { return FramePool::allocate(n); }
  static void operator delete(void* p, std::size_t n) noexcept { FramePool::release(p, n); }

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    void await_suspend(std::coroutine_handle<P> h) noexcept {
      transfer_to(h.promise().continuation);  // back to the awaiter
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
};

template <class T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <class U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T take() {
    if (error) std::rethrow_exception(error);
    assert(value.has_value());
    return std::move(*value);
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void take() {
    if (error) std::rethrow_exception(error);
  }
};

}  // namespace detail

template <class T = void>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : handle_(h) {}
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  bool valid() const { return static_cast<bool>(handle_); }
  bool done() const { return handle_ && handle_.done(); }
  void reset() {
    if (handle_) std::exchange(handle_, {}).destroy();
  }

  // Start a root task (no awaiter): runs until its first suspension.
  void start() {
    assert(handle_ && !handle_.done());
    resume_chain(handle_);
  }
  // The result of a finished root task (rethrows its exception).
  T result() {
    assert(done());
    return handle_.promise().take();
  }
  // The exception a finished root task ended with, if any.
  std::exception_ptr error() const { return done() ? handle_.promise().error : nullptr; }

  struct Awaiter {
    Handle handle;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> awaiting) noexcept {
      handle.promise().continuation = awaiting;
      detail::transfer_to(handle);  // into the child
    }
    T await_resume() { return handle.promise().take(); }
  };
  Awaiter operator co_await() && {
    assert(handle_);
    return Awaiter{handle_};
  }

 private:
  Handle handle_;
};

namespace detail {
template <class T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}
}  // namespace detail

// Runs a task that never suspends on anything external (the real runtime:
// every await completes synchronously) and returns its result.
template <class T>
T sync_wait(Task<T> task) {
  task.start();
  assert(task.done() && "sync_wait: task suspended on an external event");
  return task.result();
}

}  // namespace locksim
