// The decision table and each lock's plain sentence (see decision.hpp), and
// the fault classes of a scenario (fault_class.hpp), read from its typed
// fault kinds and settings.
#include "reports/decision.hpp"

#include <algorithm>
#include <iterator>

#include "scenarios/scenario.hpp"

namespace locksim::reports {

// ---- fault classes ----

const std::vector<FaultClass>& all_fault_classes() {
  static const std::vector<FaultClass> all{
      FaultClass::ProcessPause,   FaultClass::ClockStep, FaultClass::ClockDrift, FaultClass::DelayedPacket,
      FaultClass::CrashPowerLoss, FaultClass::Failover,  FaultClass::Partition,  FaultClass::LongWork,
      FaultClass::None,           FaultClass::Unclassified};
  return all;
}

std::string_view fault_class_name(FaultClass fault) {
  switch (fault) {
    case FaultClass::ProcessPause: return "process pause";
    case FaultClass::ClockStep: return "clock step";
    case FaultClass::ClockDrift: return "clock drift";
    case FaultClass::DelayedPacket: return "delayed packet";
    case FaultClass::CrashPowerLoss: return "crash / power loss";
    case FaultClass::Failover: return "failover";
    case FaultClass::Partition: return "partition";
    case FaultClass::LongWork: return "job outlives TTL";
    case FaultClass::None: return "no fault";
    case FaultClass::Unclassified: return "unclassified";
  }
  return "unclassified";
}

std::string_view fault_class_id(FaultClass fault) {
  switch (fault) {
    case FaultClass::ProcessPause: return "process-pause";
    case FaultClass::ClockStep: return "clock-step";
    case FaultClass::ClockDrift: return "clock-drift";
    case FaultClass::DelayedPacket: return "delayed-packet";
    case FaultClass::CrashPowerLoss: return "crash-power-loss";
    case FaultClass::Failover: return "failover";
    case FaultClass::Partition: return "partition";
    case FaultClass::LongWork: return "long-work";
    case FaultClass::None: return "none";
    case FaultClass::Unclassified: return "unclassified";
  }
  return "unclassified";
}

ScenarioFaults scenario_faults_of(const scenarios::Scenario& s) {
  ScenarioFaults out;
  out.fencing = s.fencing;
  auto add = [&](scenarios::FaultKind kind) {
    if (auto c = scenarios::fault_kind_info(kind).report_class) out.classes.insert(*c);
  };
  for (const auto& f : s.faults) add(f.kind);
  if (s.nemesis)
    for (auto kind : s.nemesis->kinds) add(kind);
  for (const auto& client : s.clients) {
    if (client.clock_drift_ppm != 0) out.classes.insert(FaultClass::ClockDrift);
    if (client.work > s.lock.ttl) out.classes.insert(FaultClass::LongWork);
  }
  if (s.redis.failover_after.count() > 0 && s.redis.replicas > 0) out.classes.insert(FaultClass::Failover);
  if (out.classes.empty()) out.classes.insert(FaultClass::None);
  return out;
}

// ---- severity ----

std::string_view severity_id(Severity severity) {
  switch (severity) {
    case Severity::Corruption: return "corruption";
    case Severity::Overlap: return "overlap";
    case Severity::Unavailable: return "unavailable";
    case Severity::Safe: return "safe";
  }
  return "safe";
}

std::string_view severity_words(Severity severity) {
  switch (severity) {
    case Severity::Corruption: return "corrupts";
    case Severity::Overlap: return "2 holders";
    case Severity::Unavailable: return "unavailable";
    case Severity::Safe: return "survives";
  }
  return "survives";
}

namespace {

Severity kind_severity(const std::string& kind) {
  if (kind == "mutual-exclusion") return Severity::Overlap;
  if (kind == "lock-unavailable") return Severity::Unavailable;
  // stale-write, wrong-owner-release and the sale's three (oversell,
  // double-purchase, lost-order) corrupt data; a kind this report
  // does not know yet is counted as the worst rather than hidden.
  return Severity::Corruption;
}

// Kinds in reading order: what corrupts first.
const std::vector<std::string>& kinds_worst_first() {
  static const std::vector<std::string> order{"oversell", "lost-order", "double-purchase", "stale-write",
                                              "wrong-owner-release", "mutual-exclusion", "lock-unavailable"};
  return order;
}

}  // namespace

Severity severity_of(const std::set<std::string>& kinds) {
  Severity worst = Severity::Safe;
  for (const auto& k : kinds) worst = std::max(worst, kind_severity(k));
  return worst;
}

std::string_view kind_plain_words(const std::string& kind) {
  if (kind == "stale-write") return "stale writes accepted";
  if (kind == "wrong-owner-release") return "another's lock released";
  if (kind == "mutual-exclusion") return "two holders";
  if (kind == "lock-unavailable") return "unavailable";
  if (kind == "oversell") return "oversold";
  if (kind == "double-purchase") return "bought twice";
  if (kind == "lost-order") return "orders lost";
  return kind;
}

Severity DecisionCell::severity() const {
  Severity worst = Severity::Safe;
  for (const auto& [s, n] : runs_by_severity)
    if (n > 0) worst = std::max(worst, s);
  return worst;
}

double DecisionCell::share(Severity severity) const {
  auto it = runs_by_severity.find(severity);
  return runs == 0 || it == runs_by_severity.end() ? 0.0 : static_cast<double>(it->second) / static_cast<double>(runs);
}

const DecisionCell* Decision::cell(const std::string& lock, FaultClass fault) const {
  auto it = cells.find({lock, fault});
  return it == cells.end() ? nullptr : &it->second;
}

std::set<FaultClass> classes_of(const Comparison& c, const std::string& scenario) {
  auto it = c.scenario_faults.find(scenario);
  return it == c.scenario_faults.end() ? std::set<FaultClass>{FaultClass::Unclassified} : it->second.classes;
}

std::string decision_cell_text(const DecisionCell& cell) {
  std::string out;
  auto add = [&](const std::string& kind, std::uint64_t n) {
    if (n == 0 || cell.runs == 0) return;
    out += (out.empty() ? "" : ", ") + std::string(kind_plain_words(kind)) + " " +
           format_rate(static_cast<double>(n) / static_cast<double>(cell.runs));
  };
  for (const auto& k : kinds_worst_first())
    if (auto it = cell.runs_with_kind.find(k); it != cell.runs_with_kind.end()) add(k, it->second);
  for (const auto& [k, n] : cell.runs_with_kind)
    if (std::find(kinds_worst_first().begin(), kinds_worst_first().end(), k) == kinds_worst_first().end()) add(k, n);
  return out.empty() ? "no violation" : out;
}

// ---- the sentence ----

namespace {

std::string list_classes(const std::set<FaultClass>& classes) {
  std::string out;
  std::size_t i = 0;
  for (FaultClass f : classes) {
    out += (i == 0 ? "" : i + 1 == classes.size() ? " and " : ", ") + std::string(fault_class_name(f));
    ++i;
  }
  return out;
}

bool has_kind(const Cell& cell, const std::string& kind) {
  auto it = cell.runs_with_kind.find(kind);
  return it != cell.runs_with_kind.end() && it->second > 0;
}

bool corrupts(const Cell& cell) {
  return std::any_of(cell.runs_with_kind.begin(), cell.runs_with_kind.end(), [](const auto& kv) {
    return kv.second > 0 && kind_severity(kv.first) == Severity::Corruption;
  });
}

// Where a lock broke and how, by class: `worst` from the decision cells,
// `checked_*` from the scenarios whose storage checks fencing tokens.
struct LockEvidence {
  std::map<Severity, std::set<FaultClass>> worst;  // severity -> classes where it was the worst
  std::set<FaultClass> checked_held, checked_corrupt;  // checked storage: overlap without / with corruption
  std::uint64_t runs = 0;
};

LockEvidence evidence_of(const Comparison& c, const Decision& d, const std::string& lock) {
  LockEvidence e;
  for (const auto& [key, cell] : c.cells()) {
    if (key.second != lock) continue;
    e.runs += cell.runs;
    auto info = c.scenario_faults.find(key.first);
    if (info == c.scenario_faults.end() || !info->second.fencing) continue;
    for (FaultClass f : info->second.classes) {
      if (corrupts(cell)) e.checked_corrupt.insert(f);
      else if (has_kind(cell, "mutual-exclusion")) e.checked_held.insert(f);
    }
  }
  for (FaultClass f : d.classes)
    if (const DecisionCell* cell = d.cell(lock, f)) e.worst[cell->severity()].insert(f);
  return e;
}

// Says what the row of the table means for a user's data, shortest first:
// with fencing that held, that comes first (the storage is what decides).
std::string sentence_for(const std::string& lock, const LockEvidence& e) {
  auto worst = [&](Severity s) {
    auto it = e.worst.find(s);
    return it == e.worst.end() ? std::set<FaultClass>{} : it->second;
  };
  const auto corrupt = worst(Severity::Corruption), overlap = worst(Severity::Overlap),
             unavailable = worst(Severity::Unavailable);
  if (corrupt.empty() && overlap.empty() && unavailable.empty())
    return lock + ": survived every kind of fault tried (" + std::to_string(e.runs) + " runs).";
  std::vector<std::string> parts;
  if (!e.checked_held.empty()) {
    parts.push_back("safe for your data when the storage checks the token; two holders may still run at once");
    std::set<FaultClass> unchecked;
    std::set_difference(corrupt.begin(), corrupt.end(), e.checked_corrupt.begin(), e.checked_corrupt.end(),
                        std::inserter(unchecked, unchecked.end()));
    if (!e.checked_corrupt.empty()) parts.push_back("even with the check, data is corrupted under " + list_classes(e.checked_corrupt));
    if (!unchecked.empty()) parts.push_back("without it, under " + list_classes(unchecked));
  } else {
    if (!corrupt.empty()) parts.push_back("corrupts data under " + list_classes(corrupt));
    if (!overlap.empty()) parts.push_back("two holders at once, but no data corrupted, under " + list_classes(overlap));
  }
  if (!unavailable.empty()) parts.push_back("can leave the lock unavailable under " + list_classes(unavailable));
  std::string out = lock + ": ";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out + ".";
}

}  // namespace

Decision decide(const Comparison& c) {
  Decision d;
  d.locks = c.locks();
  std::set<FaultClass> present;
  for (const auto& [key, cell] : c.cells()) {
    for (FaultClass f : classes_of(c, key.first)) {
      present.insert(f);
      DecisionCell& dc = d.cells[{key.second, f}];
      dc.runs += cell.runs;
      dc.unmatched += cell.unmatched;
      dc.scenarios.push_back(key.first);  // cells() is sorted by scenario, so this stays sorted
      for (const auto& [kinds, n] : cell.outcomes) dc.runs_by_severity[severity_of(kinds)] += n;
      for (const auto& [kind, n] : cell.runs_with_kind) dc.runs_with_kind[kind] += n;
    }
  }
  for (FaultClass f : all_fault_classes())
    if (present.count(f)) d.classes.push_back(f);
  for (const auto& lock : d.locks) d.sentences[lock] = sentence_for(lock, evidence_of(c, d, lock));
  return d;
}

nlohmann::ordered_json decision_to_json(const Decision& d) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["fault_classes"] = ordered_json::array();
  for (FaultClass f : d.classes) j["fault_classes"].push_back({{"id", fault_class_id(f)}, {"name", fault_class_name(f)}});
  j["cells"] = ordered_json::array();
  for (const auto& lock : d.locks)
    for (FaultClass f : d.classes) {
      const DecisionCell* cell = d.cell(lock, f);
      if (!cell) continue;
      ordered_json runs = ordered_json::object();
      for (Severity s : kSeveritiesWorstFirst) {
        auto it = cell->runs_by_severity.find(s);
        runs[std::string(severity_id(s))] = it == cell->runs_by_severity.end() ? 0 : it->second;
      }
      j["cells"].push_back({{"lock", lock},
                            {"fault_class", fault_class_id(f)},
                            {"severity", severity_id(cell->severity())},
                            {"runs", cell->runs},
                            {"runs_by_severity", runs},
                            {"unmatched", cell->unmatched},
                            {"scenarios", cell->scenarios}});
    }
  j["sentences"] = ordered_json::object();
  for (const auto& [lock, text] : d.sentences) j["sentences"][lock] = text;
  return j;
}

}  // namespace locksim::reports
