// The counting operator new of the test binary (see alloc_counter.hpp).
// Array and nothrow forms reach these through libstdc++'s defaults.
#include "tests/support/alloc_counter.hpp"

#include <cstdlib>
#include <new>

namespace {
thread_local std::uint64_t g_allocations = 0;
}

namespace locksim::test {
std::uint64_t allocations_on_this_thread() { return g_allocations; }
}  // namespace locksim::test

void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
