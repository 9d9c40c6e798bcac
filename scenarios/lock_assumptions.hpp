// What a lock assumes of the world it runs in, beyond the kind of service
// it refuses to run without (a CP service for the etcd and ZooKeeper
// locks): that the storage checks its fencing tokens, and that there are
// as many Redis masters as it needs (Redlock's majority of N). A fenced
// lock's token is only a promise the storage keeps; with `[storage]
// fencing = false` a stale write says "a token nobody checks is useless",
// not "the fenced lock is broken".
//
// So the generators (hunt, check, the property suite) give each lock the
// environment it assumes and say so, and a run outside a lock's assumptions
// carries the reason in its result (RunResult::outside_assumptions, the run
// record's "outside_assumptions") so verdicts never blame the lock for it.
// A scenario file with too few masters for its lock is refused instead
// (scenario.cpp, runner.cpp unsupported_lock): the lock cannot run at all.
#pragma once

#include <string>
#include <vector>

#include "locks/registry.hpp"
#include "scenarios/scenario.hpp"

namespace locksim::scenarios {

// The lock's assumptions, one sentence each ("the storage checks fencing
// tokens"); empty for a lock that assumes nothing beyond its topology.
std::vector<std::string> stated_assumptions(const locks::LockInfo& lock);

// Gives a generated scenario what `lock` assumes (fencing storage for a
// lock whose leases carry a token, `min_nodes` Redis masters).
void give_assumed_environment(Scenario& s, const locks::LockInfo& lock);

// Each assumption of `lock` that `s` does not meet, as a sentence naming the
// field ("[storage] fencing = false: fenced assumes the storage checks
// fencing tokens").
std::vector<std::string> unmet_assumptions(const Scenario& s, const locks::LockInfo& lock);

// Each stated assumption as given to a run made from `base`, saying what
// `base` had where it fell short ("at least 3 Redis masters (given; the
// scenario has [redis] masters = 1)").
std::vector<std::string> assumptions_given_to(const Scenario& base, const locks::LockInfo& lock);

}  // namespace locksim::scenarios
