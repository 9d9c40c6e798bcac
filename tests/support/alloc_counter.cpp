// The counting operator new of the test binary (see alloc_counter.hpp).
// Every replaceable form is replaced (plain, array, nothrow, aligned, sized
// delete) and all of them use malloc/free: if one were left to libstdc++'s
// default, memory from one family would be freed by the other, which ASan
// reports as an alloc-dealloc mismatch.
#include "tests/support/alloc_counter.hpp"

#include <cstdlib>
#include <new>

namespace {
thread_local std::uint64_t g_allocations = 0;

void* counted_malloc(std::size_t n) noexcept {
  ++g_allocations;
  return std::malloc(n == 0 ? 1 : n);
}
// aligned_alloc wants a size that is a multiple of the alignment.
void* counted_aligned(std::size_t n, std::align_val_t a) noexcept {
  ++g_allocations;
  const auto align = static_cast<std::size_t>(a);
  return std::aligned_alloc(align, (n + align - 1) / align * align);
}
void* or_throw(void* p) {
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace

namespace locksim::test {
std::uint64_t allocations_on_this_thread() { return g_allocations; }
}  // namespace locksim::test

void* operator new(std::size_t n) { return or_throw(counted_malloc(n)); }
void* operator new[](std::size_t n) { return or_throw(counted_malloc(n)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new(std::size_t n, std::align_val_t a) { return or_throw(counted_aligned(n, a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return or_throw(counted_aligned(n, a)); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return counted_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return counted_aligned(n, a); }

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
