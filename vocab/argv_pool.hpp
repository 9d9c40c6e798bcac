// Recycled argv vectors for the simulated hot path.
//
// Lock code builds an argv for every command it sends (LockBase::argv_of),
// and the simulated network drops it once the server has run the command
// (Network::deliver). A recycled vector keeps its strings' buffers, so the
// next command of the same shape — a retry of the same SET, say — is built
// without a heap allocation. The pool is per thread and bounded; on a thread
// that never recycles (live mode, where hiredis sends the argv) `take` simply
// finds it empty and makes a new vector.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "vocab/reply.hpp"

namespace locksim::argv_pool {

namespace detail {
inline constexpr std::size_t kKept = 64;  // more than the commands in flight at once in a run
// Reserved when made, so `give` never allocates.
inline std::vector<Argv>& kept() {
  thread_local std::vector<Argv> pool = [] {
    std::vector<Argv> v;
    v.reserve(kKept);
    return v;
  }();
  return pool;
}
}  // namespace detail

// Makes this thread's pool now (see FramePool::warm in vocab/task.hpp: the
// first use registers a thread-exit destructor, which must not fail later).
inline void warm() { (void)detail::kept(); }

// `n` strings whose contents are unspecified: the caller assigns every one.
inline Argv take(std::size_t n) {
  std::vector<Argv>& pool = detail::kept();
  if (pool.empty()) return Argv(n);
  Argv argv = std::move(pool.back());
  pool.pop_back();
  argv.resize(n);
  return argv;
}

// Keeps `argv` (and its strings' buffers) for a later `take`.
inline void give(Argv&& argv) {
  std::vector<Argv>& pool = detail::kept();
  if (pool.size() < pool.capacity()) pool.push_back(std::move(argv));
}

}  // namespace locksim::argv_pool
