// redlock-py-pr3: SPSCommerce/redlock-py before PR #3 (8b5989d, 2015-02-27),
// whose validity added the clock drift instead of subtracting it, beside
// `redlock-py`, the same library after the fix.
//
// Repository: github.com/SPSCommerce/redlock-py, file redlock/__init__.py,
// Redlock.lock. Report: PR #3 "Fix logic when calculating `validity`"
// (hellp, merged 2015-02-28): "By substracting twice, we accidentally *added*
// the drift" — before: validity = ttl - (elapsed - drift); after: validity =
// ttl - elapsed - drift. With the library's drift of int(ttl * 0.01) + 2 ms
// the holder believed its lock 2 x drift (~2% of the TTL) longer than the
// correct formula allows, and past the keys' expiry: a client relying on the
// validity (a job longer than the TTL that stops when the validity runs out)
// works on while the next client already holds the lock. The same class of
// slip: go-redsync#37 ("Why 2 milliseconds is added to the expire time"):
// `until := now + expiry - elapsed - expiry*factor + 2ms`, an extra 2 ms
// removed in 2019 — too small to model apart from this one (it only matters
// when the drift allowance is used up exactly), so it is cited here.
// At 8b5989d the code ran under Python 2, so the quorum is the integer
// len/2+1 (2 of 3). Read from the git history of the repository and PR #3.
#include "locks/redlock_py.hpp"
#include "locks/registry.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::locks {

LockInfo lock_info_redlock_py_pr3() {
  LockInfo info{"redlock-py-pr3",
                "redlock-py before PR #3: validity = ttl - (elapsed - drift), the drift added (cf. go-redsync#37)",
                "SPSCommerce/redlock-py redlock/__init__.py at 8b5989d; PR #3",
                3,
                false,
                false,
                true,
                redlock_py_factory({.true_division_quorum = false, .drift_added = true})};
  info.reproduces = Reproduction{"redlock-py", "1.0 at 8b5989d (Python 2)", "PR #3 (cf. go-redsync#37)",
                                 "redlock-py", std::string(violation_kind_name(ViolationKind::MutualExclusion))};
  info.long_jobs = true;
  info.options = redlock_options();
  return info;
}

}  // namespace locksim::locks
