// What a lock assumes of the world it runs in, beyond the topology it
// refuses to run without (min_nodes, Redis 8.4, a CP service): today, that
// the storage checks its fencing tokens. A fenced lock's token is only a
// promise the storage keeps; with `[storage] fencing = false` a stale write
// says "a token nobody checks is useless", not "the fenced lock is broken".
//
// So the generators (hunt, check, the property suite) give each lock the
// environment it assumes and say so, and a run outside a lock's assumptions
// carries the reason in its result (RunResult::outside_assumptions, the run
// record's "outside_assumptions") so verdicts never blame the lock for it.
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
// lock whose leases carry a token).
void give_assumed_environment(Scenario& s, const locks::LockInfo& lock);

// Each assumption of `lock` that `s` does not meet, as a sentence naming the
// field ("[storage] fencing = false: fenced assumes the storage checks
// fencing tokens").
std::vector<std::string> unmet_assumptions(const Scenario& s, const locks::LockInfo& lock);

}  // namespace locksim::scenarios
