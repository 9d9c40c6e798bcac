// What a lock assumes of its environment (lock_assumptions.hpp).
#include "scenarios/lock_assumptions.hpp"

#include <array>
#include <string>

namespace locksim::scenarios {

namespace {

// One assumption: which locks state it, in words, whether a scenario meets
// it, how to give it, and the scenario field that falls short.
struct Assumption {
  bool (*stated_by)(const locks::LockInfo&);
  std::string (*text)(const locks::LockInfo&);
  bool (*met)(const Scenario&, const locks::LockInfo&);
  void (*give)(Scenario&, const locks::LockInfo&);
  std::string (*field)(const Scenario&);
};

const std::array<Assumption, 2> kAssumptions{{
    // Redlock and its kin take a majority of N masters (min_nodes).
    {[](const locks::LockInfo& l) { return l.topology == locks::Topology::Redis && l.min_nodes > 1; },
     [](const locks::LockInfo& l) { return "at least " + std::to_string(l.min_nodes) + " Redis masters"; },
     [](const Scenario& s, const locks::LockInfo& l) {
       return s.topology != locks::Topology::Redis || static_cast<std::size_t>(s.redis.masters) >= l.min_nodes;
     },
     [](Scenario& s, const locks::LockInfo& l) { s.redis.masters = static_cast<int>(l.min_nodes); },
     [](const Scenario& s) { return "[redis] masters = " + std::to_string(s.redis.masters); }},
    // A fencing token is a promise the storage keeps.
    {[](const locks::LockInfo& l) { return l.fencing; },
     [](const locks::LockInfo&) { return std::string("the storage checks fencing tokens"); },
     [](const Scenario& s, const locks::LockInfo&) { return s.fencing; },
     [](Scenario& s, const locks::LockInfo&) { s.fencing = true; },
     [](const Scenario&) { return std::string("[storage] fencing = false"); }},
}};

}  // namespace

std::vector<std::string> stated_assumptions(const locks::LockInfo& lock) {
  std::vector<std::string> stated;
  for (const Assumption& a : kAssumptions)
    if (a.stated_by(lock)) stated.push_back(a.text(lock));
  return stated;
}

void give_assumed_environment(Scenario& s, const locks::LockInfo& lock) {
  for (const Assumption& a : kAssumptions)
    if (a.stated_by(lock) && !a.met(s, lock)) a.give(s, lock);
}

std::vector<std::string> unmet_assumptions(const Scenario& s, const locks::LockInfo& lock) {
  std::vector<std::string> unmet;
  for (const Assumption& a : kAssumptions)
    if (a.stated_by(lock) && !a.met(s, lock)) unmet.push_back(a.field(s) + ": " + lock.name + " assumes " + a.text(lock));
  return unmet;
}

std::vector<std::string> assumptions_given_to(const Scenario& base, const locks::LockInfo& lock) {
  std::vector<std::string> given;
  for (const Assumption& a : kAssumptions) {
    if (!a.stated_by(lock)) continue;
    given.push_back(a.text(lock) + (a.met(base, lock) ? " (given)" : " (given; the scenario has " + a.field(base) + ")"));
  }
  return given;
}

}  // namespace locksim::scenarios
