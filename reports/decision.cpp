// The decision table and each lock's plain sentence (see decision.hpp), and
// the fault classes of a scenario (fault_class.hpp), read from its typed
// fault kinds and settings.
#include "reports/decision.hpp"

#include <algorithm>
#include <iterator>

#include "locks/registry.hpp"
#include "scenarios/inventory_workload.hpp"
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
  if (s.workload == scenarios::WorkloadKind::Gate) out.no_lock_method = "gate";
  else if (s.workload == scenarios::WorkloadKind::Inventory && !scenarios::method_takes_lock(s.inventory.method))
    out.no_lock_method = scenarios::inventory_method_name(s.inventory.method);
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

// A kind the table does not know (a run file of another version) is
// counted as the worst rather than hidden.
Severity kind_severity(const std::string& kind) {
  const auto known = violation_kind_from_name(kind);
  return known ? violation_kind_info(*known).severity : Severity::Corruption;
}

}  // namespace

Severity severity_of(const std::set<std::string>& kinds) {
  Severity worst = Severity::Safe;
  for (const auto& k : kinds) worst = std::max(worst, kind_severity(k));
  return worst;
}

std::string_view kind_plain_words(const std::string& kind) {
  const auto known = violation_kind_from_name(kind);
  return known ? violation_kind_info(*known).short_words : std::string_view(kind);
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

const DecisionCell* Decision::no_lock_cell(const std::string& row, FaultClass fault) const {
  auto it = no_lock_cells.find({row, fault});
  return it == no_lock_cells.end() ? nullptr : &it->second;
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
  for (const auto& k : kinds_worst_first(cell.runs_with_kind)) add(k, cell.runs_with_kind.at(k));
  return out.empty() ? "no violation" : out;
}

// ---- the judgement, the sentence, the recommendation ----

std::string_view data_safety_id(DataSafety safety) {
  switch (safety) {
    case DataSafety::Held: return "held";
    case DataSafety::NoCorruption: return "no-corruption";
    case DataSafety::WithFencing: return "with-fencing";
    case DataSafety::Corrupts: return "corrupts";
  }
  return "corrupts";
}

namespace {

std::string list_words(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + words[i];
  return out;
}

std::string list_classes(const std::set<FaultClass>& classes) {
  std::vector<std::string> words;
  for (FaultClass f : classes) words.emplace_back(fault_class_name(f));
  return list_words(words);
}

// Whether some run of the cell shows a kind of that severity.
bool shows(const Cell& cell, Severity severity) {
  return std::any_of(cell.runs_with_kind.begin(), cell.runs_with_kind.end(), [&](const auto& kv) {
    return kv.second > 0 && kind_severity(kv.first) == severity;
  });
}

std::set<FaultClass> minus(const std::set<FaultClass>& a, const std::set<FaultClass>& b) {
  std::set<FaultClass> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

// The judgement of one lock from the matrix cells of the stories that take
// it (by scenario: whether its storage checked tokens) and from its row of
// the table (by class: the worst that happened).
LockJudgement judge(const Comparison& c, const Decision& d, const std::string& lock) {
  LockJudgement j;
  if (const auto info = locks::find_lock(lock)) j.gives_tokens = info->fencing;
  for (const auto& [key, cell] : c.cells()) {
    if (key.second != lock || !c.no_lock_method(key.first).empty()) continue;
    j.runs += cell.runs;
    ++j.scenarios;
    auto info = c.scenario_faults.find(key.first);
    const bool checked = info != c.scenario_faults.end() && info->second.fencing;
    const bool corrupted = shows(cell, Severity::Corruption), overlapped = !corrupted && shows(cell, Severity::Overlap);
    for (FaultClass f : classes_of(c, key.first)) {
      if (f != FaultClass::None) j.tried_with_faults = true;
      if (checked) j.checked.insert(f);
      if (corrupted) {
        j.corrupt.insert(f);
        (checked ? j.corrupt_checked : j.corrupt_unchecked).insert(f);
      } else if (overlapped) {
        (checked ? j.overlap_checked : j.overlap_unchecked).insert(f);
      }
    }
  }
  for (FaultClass f : d.classes)
    if (const DecisionCell* cell = d.cell(lock, f)) {
      if (cell->severity() == Severity::Overlap) j.overlap.insert(f);
      if (cell->severity() == Severity::Unavailable) j.unavailable.insert(f);
    }
  if (!j.corrupt.empty()) {
    // Fencing is credited only where it was tried: every class where data
    // was corrupted without the check must have been run with it, cleanly.
    const bool covered = minus(j.corrupt_unchecked, j.checked).empty();
    j.safety = j.gives_tokens && j.corrupt_checked.empty() && covered ? DataSafety::WithFencing : DataSafety::Corrupts;
  } else if (!j.overlap_unchecked.empty() || (!j.gives_tokens && !j.overlap_checked.empty())) {
    j.safety = DataSafety::NoCorruption;  // two holders and nothing checked a token: intact by timing
  } else {
    j.safety = j.overlap_checked.empty() ? DataSafety::Held : DataSafety::WithFencing;
  }
  return j;
}

std::string runs_and_scenarios(const LockJudgement& j) {
  return std::to_string(j.runs) + " run" + (j.runs == 1 ? "" : "s") + " in " + std::to_string(j.scenarios) +
         " scenario" + (j.scenarios == 1 ? "" : "s");
}

}  // namespace

// One claim about data, chosen by the judgement, then only clauses that
// qualify it: a branch never says both "safe" and "corrupted".
std::string sentence_for(const std::string& lock, const LockJudgement& j) {
  std::vector<std::string> parts;
  switch (j.safety) {
    case DataSafety::Held:
      parts.push_back(j.tried_with_faults ? "no two holders and no data corrupted under any fault tried (" +
                                                runs_and_scenarios(j) + ")"
                                          : "no violation, but tried under no fault (" + runs_and_scenarios(j) + ")");
      break;
    case DataSafety::NoCorruption: {
      // Where nothing checked a token: the storage did not, or the lock gives none.
      std::set<FaultClass> luck = j.overlap_unchecked;
      if (!j.gives_tokens) luck.insert(j.overlap_checked.begin(), j.overlap_checked.end());
      parts.push_back("no data corrupted in any run (" + runs_and_scenarios(j) + "), but two holders at once under " +
                      list_classes(luck) +
                      (j.gives_tokens ? ", where the storage did not check tokens" : ", with no fencing token to check"));
      break;
    }
    case DataSafety::WithFencing: {
      std::string claim = "safe for your data only when the storage checks its fencing token";
      if (!j.corrupt_unchecked.empty()) claim += ": without the check, data is corrupted under " + list_classes(j.corrupt_unchecked);
      parts.push_back(claim);
      if (!j.overlap_checked.empty())
        parts.push_back("with it, two holders under " + list_classes(j.overlap_checked) + " but no stale write accepted");
      break;
    }
    case DataSafety::Corrupts: {
      std::string claim = "corrupts data under " + list_classes(j.corrupt);
      const auto untried = minus(j.corrupt_unchecked, j.checked);
      if (!j.gives_tokens) claim += "; it gives no fencing token for the storage to check";
      else if (!j.corrupt_checked.empty() && j.corrupt_checked == j.corrupt) claim += ", even when the storage checks tokens";
      else if (!j.corrupt_checked.empty()) claim += "; even when the storage checks tokens under " + list_classes(j.corrupt_checked);
      else if (!untried.empty()) claim += "; a storage that checks tokens was not tried under " + list_classes(untried);
      parts.push_back(claim);
      if (!j.overlap.empty()) parts.push_back("two holders, data intact, under " + list_classes(j.overlap));
      break;
    }
  }
  if (!j.unavailable.empty()) parts.push_back("can leave the lock unavailable under " + list_classes(j.unavailable));
  std::string out = lock + ": ";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out + ".";
}

namespace {

bool reproduces(const std::string& lock) {
  const auto info = locks::find_lock(lock);
  return info && info->reproduces;
}

// A no-lock row's sentence: what the method did to the sale, by class.
std::string no_lock_sentence(const Decision& d, const std::string& row) {
  std::set<FaultClass> bad, fine;
  std::set<std::string> scenarios;
  for (FaultClass f : d.classes)
    if (const DecisionCell* cell = d.no_lock_cell(row, f)) {
      (cell->severity() == Severity::Safe ? fine : bad).insert(f);
      scenarios.insert(cell->scenarios.begin(), cell->scenarios.end());
    }
  std::string out = row + ", no lock taken (" + list_words({scenarios.begin(), scenarios.end()}) + "): ";
  if (bad.empty()) return out + "no violation under " + list_classes(fine) + ".";
  out += "the sale goes wrong under " + list_classes(bad);
  if (!fine.empty()) out += "; held under " + list_classes(fine);
  return out + ".";
}

}  // namespace

std::vector<std::string> recommend(const Decision& d) {
  std::map<DataSafety, std::vector<std::string>> by;
  std::vector<std::string> stuck;
  for (const auto& lock : d.locks) {
    auto it = d.judgements.find(lock);
    if (it == d.judgements.end() || reproduces(lock) || !it->second.tried_with_faults) continue;
    by[it->second.safety].push_back(lock);
    if (!it->second.unavailable.empty()) stuck.push_back(lock);
  }
  std::vector<std::string> out;
  // The locks recommended for data say what they rest on: a lock tried in
  // two scenarios is not one tried in twelve.
  auto with_basis = [&](const std::vector<std::string>& locks) {
    std::vector<std::string> words;
    for (const auto& lock : locks)
      words.push_back(lock + " (" + std::to_string(d.judgements.at(lock).scenarios) + " sc.)");
    return list_words(words);
  };
  auto line = [&](DataSafety s, const std::string& lead, const std::string& tail, bool basis) {
    if (by.count(s)) out.push_back(lead + (basis ? with_basis(by[s]) : list_words(by[s])) + tail);
  };
  line(DataSafety::Held, "Safe for your data on their own: ", ": no two holders, no data corrupted in any run.", true);
  line(DataSafety::WithFencing, "Safe for your data if the storage checks the fencing token: ",
       ": two holders can happen, the check refuses the stale writes.", true);
  line(DataSafety::NoCorruption, "Two holders at once, no data corrupted in these runs: ",
       " (fine for work that may run twice).", false);
  line(DataSafety::Corrupts, "For efficiency only (running twice must be harmless): ", ": each corrupts data under some fault.",
       false);
  if (!by.count(DataSafety::Held) && !by.count(DataSafety::WithFencing))
    out.insert(out.begin(), "No lock kept data safe under every fault tried.");
  if (!stuck.empty()) out.push_back("Can be left unavailable: " + list_words(stuck) + ".");
  std::vector<std::string> wrong;
  for (const auto& row : d.no_lock_rows)
    for (FaultClass f : d.classes)
      if (const DecisionCell* cell = d.no_lock_cell(row, f); cell && cell->severity() != Severity::Safe) {
        wrong.push_back(row);
        break;
      }
  if (!wrong.empty()) out.push_back("Without a lock, the sale goes wrong: " + list_words(wrong) + ".");
  return out;
}

namespace {

// The matrix cell a decision cell points at: the one whose minimal
// failing run is of the cell's worst severity, fewest events first.
void keep_worst_example(DecisionCell& dc, const Cell& cell) {
  if (!cell.minimal_failing) return;
  const Severity s = severity_of(cell.minimal_failing->kinds);
  if (dc.worst_example) {
    const Severity had = dc.worst_example_severity;
    if (s < had || (s == had && cell.minimal_failing->events >= dc.worst_example_events)) return;
  }
  dc.worst_example = std::make_pair(cell.scenario, cell.lock);
  dc.worst_example_severity = s;
  dc.worst_example_events = cell.minimal_failing->events;
}

void fold_into(DecisionCell& dc, const std::string& scenario, const Cell& cell) {
  dc.runs += cell.runs;
  dc.unmatched += cell.unmatched;
  if (dc.scenarios.empty() || dc.scenarios.back() != scenario) dc.scenarios.push_back(scenario);  // cells() is sorted
  for (const auto& [kinds, n] : cell.outcomes) dc.runs_by_severity[severity_of(kinds)] += n;
  for (const auto& [kind, n] : cell.runs_with_kind) dc.runs_with_kind[kind] += n;
  keep_worst_example(dc, cell);
}

}  // namespace

Decision decide(const Comparison& c) {
  Decision d;
  d.locks = c.locks();
  std::set<FaultClass> present;
  std::set<std::string> rows;
  for (const auto& [key, cell] : c.cells()) {
    const std::string method = c.no_lock_method(key.first);
    const std::string row = method.empty() ? "" : no_lock_row_name(method);
    if (!method.empty()) {
      rows.insert(row);
      d.no_lock_methods[row] = method;
    }
    for (FaultClass f : classes_of(c, key.first)) {
      present.insert(f);
      fold_into(method.empty() ? d.cells[{key.second, f}] : d.no_lock_cells[{row, f}], key.first, cell);
    }
  }
  d.no_lock_rows.assign(rows.begin(), rows.end());
  for (FaultClass f : all_fault_classes())
    if (present.count(f)) d.classes.push_back(f);
  for (const auto& lock : d.locks) {
    d.judgements[lock] = judge(c, d, lock);
    d.sentences[lock] = sentence_for(lock, d.judgements[lock]);
  }
  for (const auto& row : d.no_lock_rows) d.no_lock_sentences[row] = no_lock_sentence(d, row);
  d.recommendation = recommend(d);
  return d;
}

namespace {

nlohmann::ordered_json classes_json(const std::set<FaultClass>& classes) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (FaultClass f : classes) out.push_back(fault_class_id(f));
  return out;
}

nlohmann::ordered_json decision_cell_json(const std::string& row_key, const std::string& row, FaultClass f,
                                          const DecisionCell& cell) {
  using nlohmann::ordered_json;
  ordered_json runs = ordered_json::object();
  for (Severity s : kSeveritiesWorstFirst) {
    auto it = cell.runs_by_severity.find(s);
    runs[std::string(severity_id(s))] = it == cell.runs_by_severity.end() ? 0 : it->second;
  }
  ordered_json j{{row_key, row},
                 {"fault_class", fault_class_id(f)},
                 {"severity", severity_id(cell.severity())},
                 {"runs", cell.runs},
                 {"runs_by_severity", runs},
                 {"unmatched", cell.unmatched},
                 {"scenarios", cell.scenarios}};
  j["timeline"] = cell.worst_example
                      ? ordered_json{{"scenario", cell.worst_example->first}, {"lock", cell.worst_example->second}}
                      : ordered_json(nullptr);
  return j;
}

}  // namespace

nlohmann::ordered_json decision_to_json(const Decision& d) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["fault_classes"] = ordered_json::array();
  for (FaultClass f : d.classes) j["fault_classes"].push_back({{"id", fault_class_id(f)}, {"name", fault_class_name(f)}});
  j["cells"] = ordered_json::array();
  for (const auto& lock : d.locks)
    for (FaultClass f : d.classes)
      if (const DecisionCell* cell = d.cell(lock, f)) j["cells"].push_back(decision_cell_json("lock", lock, f, *cell));
  j["sentences"] = ordered_json::object();
  for (const auto& [lock, text] : d.sentences) j["sentences"][lock] = text;
  // Added after the fields above, which keep their names and meanings.
  j["judgements"] = ordered_json::object();
  for (const auto& [lock, e] : d.judgements)
    j["judgements"][lock] = {{"data", data_safety_id(e.safety)},
                             {"corrupt", classes_json(e.corrupt)},
                             {"corrupt_with_checking_storage", classes_json(e.corrupt_checked)},
                             {"tried_with_checking_storage", classes_json(e.checked)},
                             {"two_holders", classes_json(e.overlap)},
                             {"unavailable", classes_json(e.unavailable)},
                             {"runs", e.runs},
                             {"scenarios", e.scenarios},
                             {"tried_with_faults", e.tried_with_faults}};
  j["no_lock_rows"] = ordered_json::array();
  for (const auto& row : d.no_lock_rows) {
    ordered_json cells = ordered_json::array();
    for (FaultClass f : d.classes)
      if (const DecisionCell* cell = d.no_lock_cell(row, f)) cells.push_back(decision_cell_json("row", row, f, *cell));
    j["no_lock_rows"].push_back({{"row", row},
                                 {"method", d.no_lock_methods.at(row)},
                                 {"sentence", d.no_lock_sentences.at(row)},
                                 {"cells", cells}});
  }
  j["recommendation"] = d.recommendation;
  return j;
}

}  // namespace locksim::reports
