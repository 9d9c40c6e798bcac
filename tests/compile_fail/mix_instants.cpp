// Compile-fail check (run by ctest twice): with LOCKSIM_MIX=0 this file must
// compile; with LOCKSIM_MIX=1 it must not, because a host's LocalInstant and
// the scheduler's TrueInstant are different types.
#include "vocab/time.hpp"

using namespace locksim;

int main() {
  TrueInstant t = true_epoch + 5s;
  LocalInstant l{3s};
#if LOCKSIM_MIX
  auto d = t - l;  // must not compile
  t = l;           // must not compile
#else
  auto d = (t - true_epoch) - l.time_since_epoch();
#endif
  return static_cast<int>(d.count() & 1);
}
