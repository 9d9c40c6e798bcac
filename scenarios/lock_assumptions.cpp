// What a lock assumes of its environment (lock_assumptions.hpp).
#include "scenarios/lock_assumptions.hpp"

namespace locksim::scenarios {

namespace {

constexpr const char* kFencingStorage = "the storage checks fencing tokens";

}  // namespace

std::vector<std::string> stated_assumptions(const locks::LockInfo& lock) {
  if (lock.fencing) return {kFencingStorage};
  return {};
}

void give_assumed_environment(Scenario& s, const locks::LockInfo& lock) {
  if (lock.fencing) s.fencing = true;
}

std::vector<std::string> unmet_assumptions(const Scenario& s, const locks::LockInfo& lock) {
  std::vector<std::string> unmet;
  if (lock.fencing && !s.fencing)
    unmet.push_back("[storage] fencing = false: " + lock.name + " assumes " + kFencingStorage);
  return unmet;
}

}  // namespace locksim::scenarios
