// Folding sweep results into the comparison model, reading JSONL (with
// nlohmann::json, line by line, so memory stays with the cells), and the
// per-lock verdicts generated from the violations the runs found.
#include "reports/comparison.hpp"

#include "locks/registry.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <istream>
#include <limits>
#include <ostream>
#include <sstream>
#include <tuple>

#include "reports/run_record.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/input_file.hpp"
#include "scenarios/inventory_workload.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/services.hpp"
#include "vocab/joined.hpp"
#include "vocab/printable.hpp"

namespace locksim::reports {

namespace {

using nlohmann::json;

Failure<ReportError> bad(std::string message) {
  return failure(ReportError{ReportError::Kind::BadInput, std::move(message)});
}

// Rounds to three significant digits (values below 1000 stay exact).
std::int64_t round_3_digits(std::int64_t value) {
  if (value < 1000) return value;
  std::int64_t scale = 1;
  while (value / scale >= 1000) scale *= 10;
  return (value + scale / 2) / scale * scale;
}

// ---- one run record, as folded ----

// A run record (reports/run_record.hpp) with its violation set worked out once.
struct FoldedRun {
  const RunRecord& record;
  std::set<std::string> kinds;
};

// The parse callback: a violation's detail, evidence and clients are not
// aggregated, so they are dropped while parsing (fewer allocations: about
// a third of the time of reading a sweep).
bool skip_violation_details(int depth, json::parse_event_t event, json& parsed) {
  if (event != json::parse_event_t::key || depth != 3 || !parsed.is_string()) return true;
  const auto& key = parsed.get_ref<const std::string&>();
  return key != "evidence" && key != "detail" && key != "clients";
}

// ---- folding into a cell ----

RunRef make_ref(const FoldedRun& f) {
  return RunRef{f.record.seed, f.record.events, f.record.digest, f.record.repro, f.kinds, f.record.matched};
}

void keep_minimal(Cell& cell, const FoldedRun& f) {
  if (f.kinds.empty()) return;
  const auto& m = cell.minimal_failing;
  const RunRecord& r = f.record;
  if (!m || r.events < m->events || (r.events == m->events && r.seed < m->seed)) cell.minimal_failing = make_ref(f);
}

void keep_unmatched_example(Cell& cell, const FoldedRun& f) {
  auto& ex = cell.unmatched_examples;
  auto pos = std::lower_bound(ex.begin(), ex.end(), f.record.seed, [](const RunRef& r, std::uint64_t s) { return r.seed < s; });
  if (static_cast<std::size_t>(pos - ex.begin()) >= Cell::kMaxUnmatchedExamples) return;
  ex.insert(pos, make_ref(f));
  if (ex.size() > Cell::kMaxUnmatchedExamples) ex.pop_back();
}

void fold(Cell& cell, const FoldedRun& f) {
  const RunRecord& r = f.record;
  if (cell.runs == 0) {
    cell.source = r.source;
    cell.expected = r.expected;
    cell.may = r.may;
  } else if (cell.expected != r.expected || cell.may != r.may) {
    cell.expected_varies = true;
  }
  ++cell.runs;
  ++(r.matched ? cell.matched : cell.unmatched);
  if (!f.kinds.empty()) ++cell.runs_violated;
  for (const auto& k : f.kinds) ++cell.runs_with_kind[k];
  ++cell.outcomes[f.kinds];
  keep_minimal(cell, f);
  if (!r.matched) keep_unmatched_example(cell, f);
  const RunStats stats = r.stats.value_or(RunStats{});
  auto& p = cell.perf;
  p.acquire_p50_us.add(stats.acquire_p50_us);
  p.acquire_p99_us_max = std::max(p.acquire_p99_us_max, stats.acquire_p99_us);
  p.attempts += stats.attempts;
  p.acquisitions += stats.acquisitions;
  p.gave_up += stats.gave_up;
  p.round_trips += stats.round_trips;
  p.sim_time_ms += r.sim_time_ms;
  if (stats.sale) {
    p.sale_method = stats.sale->method;
    ++p.sale_runs;
    p.sale_orders_per_s_sum += stats.sale->orders_per_s;
    if (stats.sale->sold_out_ms) {
      ++p.sale_sold_out_runs;
      p.sale_sold_out_ms_sum += *stats.sale->sold_out_ms;
    }
  }
}

// ---- verdicts ----

std::string list_scenarios(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 3;
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kShown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kShown) out += ", +" + std::to_string(names.size() - kShown) + " more";
  return out;
}

std::vector<std::string> conditions_of(const scenarios::Scenario& s) {
  std::vector<scenarios::FaultKind> kinds;
  for (const auto& f : s.faults) kinds.push_back(f.kind);
  if (s.nemesis) kinds.insert(kinds.end(), s.nemesis->kinds.begin(), s.nemesis->kinds.end());
  std::vector<std::string> out;
  for (auto k : scenarios::all_fault_kinds()) {
    const std::string w(scenarios::fault_kind_info(k).report_words);
    if (!w.empty() && std::find(kinds.begin(), kinds.end(), k) != kinds.end()) out.push_back(w);
  }
  return out;
}

}  // namespace

// ---- QuantileSketch, CellPerf, Cell ----

void QuantileSketch::add(std::int64_t value) {
  ++buckets_[round_3_digits(std::max<std::int64_t>(value, 0))];
  ++count_;
}

void QuantileSketch::merge(const QuantileSketch& other) {
  for (const auto& [v, n] : other.buckets_) buckets_[v] += n;
  count_ += other.count_;
}

std::int64_t QuantileSketch::percentile(int p) const {
  if (count_ == 0) return 0;
  const std::uint64_t rank = std::clamp<std::uint64_t>((count_ * static_cast<std::uint64_t>(p) + 99) / 100, 1, count_);
  std::uint64_t seen = 0;
  for (const auto& [v, n] : buckets_) {
    seen += n;
    if (seen >= rank) return v;
  }
  return buckets_.rbegin()->first;
}

void CellPerf::merge(const CellPerf& o) {
  acquire_p50_us.merge(o.acquire_p50_us);
  acquire_p99_us_max = std::max(acquire_p99_us_max, o.acquire_p99_us_max);
  attempts += o.attempts;
  acquisitions += o.acquisitions;
  gave_up += o.gave_up;
  round_trips += o.round_trips;
  sim_time_ms += o.sim_time_ms;
  if (sale_method.empty()) sale_method = o.sale_method;
  sale_runs += o.sale_runs;
  sale_orders_per_s_sum += o.sale_orders_per_s_sum;
  sale_sold_out_runs += o.sale_sold_out_runs;
  sale_sold_out_ms_sum += o.sale_sold_out_ms_sum;
}

double CellPerf::round_trips_per_acquisition() const {
  return acquisitions ? static_cast<double>(round_trips) / static_cast<double>(acquisitions) : 0.0;
}

double CellPerf::acquisitions_per_sim_second() const {
  return sim_time_ms > 0 ? static_cast<double>(acquisitions) * 1000.0 / static_cast<double>(sim_time_ms) : 0.0;
}

double Cell::rate(const std::string& kind) const {
  auto it = runs_with_kind.find(kind);
  return runs && it != runs_with_kind.end() ? static_cast<double>(it->second) / static_cast<double>(runs) : 0.0;
}

std::string_view verdict_level_name(LockVerdict::Level level) {
  switch (level) {
    case LockVerdict::Level::Safe: return "safe";
    case LockVerdict::Level::FencingOnly: return "fencing-only";
    case LockVerdict::Level::EfficiencyOnly: return "efficiency-only";
    case LockVerdict::Level::Unsafe: return "unsafe";
  }
  return "unsafe";
}

// ---- SeedIndex ----

std::optional<std::uint64_t> SeedIndex::insert(std::uint64_t seed, std::uint64_t digest) {
  if (count_ == 0 && digests_.empty()) base_ = seed;
  // Dense while the seed stays near the range seen so far; otherwise sparse.
  const std::uint64_t limit = std::max<std::uint64_t>(4096, 4 * count_);
  if (seed < base_ && base_ - seed + digests_.size() < limit) {  // shards read in reverse: grow downwards
    const std::uint64_t grow = std::min(base_, std::max<std::uint64_t>(base_ - seed, digests_.size()));
    digests_.insert(digests_.begin(), static_cast<std::size_t>(grow), 0);
    present_.insert(present_.begin(), static_cast<std::size_t>(grow), false);
    base_ -= grow;
  }
  if (seed >= base_ && seed - base_ < limit) {
    const std::size_t i = static_cast<std::size_t>(seed - base_);
    if (i >= digests_.size()) {
      digests_.resize(std::max(i + 1, digests_.size() * 2));
      present_.resize(digests_.size());
    }
    if (present_[i]) return digests_[i];
    present_[i] = true;
    digests_[i] = digest;
  } else {
    auto [it, inserted] = sparse_.emplace(seed, digest);
    if (!inserted) return it->second;
  }
  ++count_;
  return std::nullopt;
}

bool SeedIndex::contains(std::uint64_t seed) const {
  if (seed >= base_ && seed - base_ < digests_.size()) return present_[static_cast<std::size_t>(seed - base_)];
  return sparse_.count(seed) > 0;
}

// ---- Comparison ----

Result<bool, ReportError> Comparison::add_run(const nlohmann::json& run) {
  auto record = read_run_record(run);
  if (!record) return bad(record.error());
  if (record->is_live()) return add_live_run(*record);
  const RunRecord& r = *record;
  const Key key{r.scenario, r.lock};
  std::map<std::uint64_t, SeedIndex>& by_format = seen_[key];
  if (auto mixed = check_one_format(r, by_format); !mixed) return mixed;
  if (auto previous = by_format[r.digest_format].insert(r.seed, r.digest_value)) {
    if (*previous != r.digest_value) {
      std::ostringstream msg;
      msg << "determinism broke: " << r.scenario << " with " << r.lock << " seed " << r.seed
          << " was recorded twice with different digests (" << std::hex << *previous << " and " << r.digest
          << "); replay it with `" << r.repro << "`";
      return failure(ReportError{ReportError::Kind::Nondeterminism, msg.str()});
    }
    ++duplicates_;
    if (!input_files_.empty()) ++input_files_.back().duplicates;
    return false;
  }
  if (!input_files_.empty()) ++input_files_.back().runs;
  Cell& cell = cells_[key];
  cell.scenario = r.scenario;
  cell.lock = r.lock;
  fold(cell, FoldedRun{r, r.violation_kinds()});
  ++runs_;
  if (!r.matched) ++unmatched_runs_;
  return true;
}

// A run already recorded in another digest format (an older sweep merged
// with a newer one): its digests cannot be compared, so it is neither a
// duplicate nor a determinism failure; the files are of different formats.
Result<bool, ReportError> Comparison::check_one_format(const RunRecord& r, const std::map<std::uint64_t, SeedIndex>& by_format) {
  const std::string input = inputs_.empty() ? std::string("this file") : inputs_.back();
  format_input_.emplace(r.digest_format, input);
  for (const auto& [format, seeds] : by_format) {
    if (format == r.digest_format || !seeds.contains(r.seed)) continue;
    return bad(r.scenario + " with " + r.lock + " seed " + std::to_string(r.seed) + " is recorded with digest format " +
               std::to_string(r.digest_format) + " here and with format " + std::to_string(format) + " in " +
               format_input_[format] +
               ": the files are of different formats (written by different locksim versions), whose digests "
               "cannot be compared; report files of one format (sweep the older one again)");
  }
  return true;
}

// A live line: a run (its violation set counts) or a skip (its reason).
Result<bool, ReportError> Comparison::add_live_run(const RunRecord& run) {
  LiveCell& cell = live_cells_[{run.scenario, run.lock}];
  cell.scenario = run.scenario;
  cell.lock = run.lock;
  ++live_lines_;
  if (!input_files_.empty()) ++input_files_.back().live_lines;
  if (run.is_skip()) {
    cell.skipped = *run.live->skipped;
    return true;
  }
  ++cell.runs;
  ++cell.outcomes[run.violation_kinds()];
  cell.time_scales.insert(run.live->time_scale);
  if (!run.live->fault_mechanisms) ++cell.runs_without_mechanisms;
  else
    for (const auto& m : *run.live->fault_mechanisms) scenarios::merge_fault_mechanism(cell.fault_mechanisms, m);
  return true;
}

std::uint64_t Comparison::live_runs() const {
  std::uint64_t n = 0;
  for (const auto& [key, cell] : live_cells_) n += cell.runs;
  return n;
}

const LiveCell* Comparison::live_cell(const std::string& scenario, const std::string& lock) const {
  auto it = live_cells_.find({scenario, lock});
  return it == live_cells_.end() ? nullptr : &it->second;
}

Agreement Comparison::agreement(const std::string& scenario, const std::string& lock) const {
  using Status = Agreement::Status;
  const LiveCell* live = live_cell(scenario, lock);
  if (!live || live->runs == 0)
    return {Status::NotRunLive, live && live->skipped ? *live->skipped : "no live run in the input"};
  const Cell* simulated = cell(scenario, lock);
  if (!simulated) return {Status::NotSimulated, "no simulated run in the input"};
  for (const auto& [kinds, n] : live->outcomes)
    if (!simulated->outcomes.count(kinds)) return {Status::Differs, ""};
  return {Status::Yes, ""};
}

std::string no_lock_row_name(const std::string& method) {
  if (method == "gate") return "SET NX gate";
  if (method == "decr") return "DECR";
  if (method == "lua") return "Lua";
  return "no lock (" + method + ")";
}

bool method_takes_no_lock(const std::string& method) {
  if (method == "gate") return true;
  const auto m = scenarios::inventory_method_of(method);
  return m && !scenarios::method_takes_lock(*m);
}

std::string Comparison::no_lock_method(const std::string& scenario) const {
  if (auto it = scenario_faults.find(scenario); it != scenario_faults.end()) return it->second.no_lock_method;
  for (auto it = cells_.lower_bound({scenario, ""}); it != cells_.end() && it->first.first == scenario; ++it)
    if (method_takes_no_lock(it->second.perf.sale_method)) return it->second.perf.sale_method;
  return "";
}

std::vector<Comparison::Key> Comparison::agreement_keys() const {
  std::set<Key> keys;
  for (const auto& [key, cell] : cells_) keys.insert(key);
  for (const auto& [key, cell] : live_cells_) keys.insert(key);
  return {keys.begin(), keys.end()};
}

std::string_view agreement_status_name(Agreement::Status status) {
  switch (status) {
    case Agreement::Status::Yes: return "yes";
    case Agreement::Status::Differs: return "differs";
    case Agreement::Status::NotRunLive: return "not run live";
    case Agreement::Status::NotSimulated: return "not simulated";
  }
  return "not run live";
}

const Cell* Comparison::cell(const std::string& scenario, const std::string& lock) const {
  auto it = cells_.find({scenario, lock});
  return it == cells_.end() ? nullptr : &it->second;
}

std::vector<std::string> Comparison::scenarios() const {
  std::set<std::string> names;
  for (const auto& [key, cell] : cells_) names.insert(key.first);
  return {names.begin(), names.end()};
}

LockFamily lock_family(const std::string& lock) {
  const auto info = locks::find_lock(lock);
  if (!info) return {};
  return {info->topology, info->topology == locks::Topology::Redis && info->min_nodes > 1};
}

// The service row's family (scenarios/services.hpp); Redis splits by the
// lock's node count.
std::string_view lock_family_name(LockFamily family) {
  if (family.multi_node) return "Redis multi-node";
  return scenarios::service_row(family.service).report_family;
}

std::string lock_group_label(const std::string& lock) {
  const auto info = locks::find_lock(lock);
  const std::string family(lock_family_name(lock_family(lock)));
  return info && info->reproduces ? "reproductions: " + family : family;
}

// Recommended and textbook locks first, grouped by family (single Redis,
// Redis multi-node, etcd, ZooKeeper), then the reproductions of shipped
// client bugs (locks::LockInfo::reproduces), each group by name.
std::vector<std::string> Comparison::locks() const {
  std::set<std::tuple<bool, LockFamily, std::string>> names;
  for (const auto& [key, cell] : cells_) {
    const auto info = locks::find_lock(key.second);
    names.insert({info && info->reproduces, lock_family(key.second), key.second});
  }
  std::vector<std::string> out;
  for (const auto& [reproduction, family, name] : names) out.push_back(name);
  return out;
}

std::string Comparison::sources_label() const {
  return joined(inputs_);
}

CellPerf Comparison::lock_perf(const std::string& lock) const {
  CellPerf perf;
  for (const auto& [key, cell] : cells_)
    if (key.second == lock && no_lock_method(key.first).empty()) perf.merge(cell.perf);
  return perf;
}

// The conditions ("process pauses", ...) of the scenarios where the
// headline kinds appeared, in first-seen order, as " under a, b and c".
std::string Comparison::conditions_text(const std::vector<std::string>& scenarios) const {
  std::vector<std::string> words;
  for (const auto& s : scenarios)
    if (auto c = scenario_conditions.find(s); c != scenario_conditions.end())
      for (const auto& w : c->second)
        if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
  std::string under;
  for (std::size_t i = 0; i < words.size(); ++i)
    under += (i == 0 ? " under " : i + 1 == words.size() ? " and " : ", ") + words[i];
  return under;
}

namespace {

// The verdict's level, and the kinds that decide it (their scenarios give
// "under ..."): a wrong-owner release or a stuck lock is unsafe outright;
// stale writes alone (with or without two holders) cost efficiency; two
// holders alone need fencing; anything else is unsafe.
LockVerdict::Level verdict_level(const std::map<std::string, std::vector<std::string>>& where,
                                 std::vector<std::string>& headline) {
  auto name = [](ViolationKind k) { return std::string(violation_kind_name(k)); };
  for (ViolationKind k : {ViolationKind::WrongOwnerRelease, ViolationKind::LockUnavailable})
    if (where.count(name(k))) headline.push_back(name(k));
  const bool stale = where.count(name(ViolationKind::StaleWrite)) > 0;
  const bool holders_only = where.size() == 1 && where.count(name(ViolationKind::MutualExclusion));
  if (!headline.empty() || (!stale && !holders_only)) {
    if (headline.empty())
      for (const auto& [kind, names] : where) headline.push_back(kind);
    return LockVerdict::Level::Unsafe;
  }
  headline = {name(stale ? ViolationKind::StaleWrite : ViolationKind::MutualExclusion)};
  return stale ? LockVerdict::Level::EfficiencyOnly : LockVerdict::Level::FencingOnly;
}

}  // namespace

LockVerdict Comparison::verdict(const std::string& lock) const {
  std::map<std::string, std::vector<std::string>> where;  // kind -> scenarios (sorted: map order)
  std::uint64_t runs = 0, scenario_count = 0;
  for (const auto& [key, cell] : cells_) {
    if (key.second != lock || !no_lock_method(key.first).empty()) continue;  // a story without the lock
    runs += cell.runs;
    ++scenario_count;
    for (const auto& [kind, n] : cell.runs_with_kind)
      if (n > 0) where[kind].push_back(key.first);
  }
  LockVerdict v;
  if (where.empty()) {
    v.text = "safe in every scenario run (" + std::to_string(scenario_count) + " scenario" +
             (scenario_count == 1 ? "" : "s") + ", " + std::to_string(runs) + " run" + (runs == 1 ? "" : "s") + ")";
    return v;
  }
  std::vector<std::string> headline;
  v.level = verdict_level(where, headline);
  std::vector<std::string> headline_scenarios;
  for (const auto& k : headline) headline_scenarios.insert(headline_scenarios.end(), where[k].begin(), where[k].end());
  const std::string under = conditions_text(headline_scenarios);
  std::string found;
  for (const ViolationKindInfo* row : violation_kinds_worst_first()) {
    auto it = where.find(std::string(row->name));
    if (it == where.end()) continue;
    found += (found.empty() ? "" : "; ") + std::string(row->verdict_words) + " (" + list_scenarios(it->second) + ")";
    where.erase(it);
  }
  for (const auto& [kind, names] : where)  // kinds the table does not know (a run file of another version)
    found += (found.empty() ? "" : "; ") + kind + " (" + list_scenarios(names) + ")";
  switch (v.level) {
    case LockVerdict::Level::Unsafe: v.text = "unsafe" + under + ": " + found; break;
    case LockVerdict::Level::EfficiencyOnly:
      v.text = "safe for efficiency, not correctness" + under + ": " + found;
      break;
    default: v.text = "correct only with fencing" + under + ": " + found + ", though storage accepted no stale write";
  }
  return v;
}

// ---- reading JSONL ----

Result<bool, ReportError> read_jsonl(std::istream& in, const std::string& name, Comparison& into,
                                     std::ostream& warnings) {
  into.add_input(name);
  JsonlLine next;
  for (std::size_t number = 1; next_jsonl_line(in, next); ++number) {
    const std::string& line = next.text;
    const std::string where = name + ":" + std::to_string(number) + ": ";
    if (next.too_long) return bad(where + "the line " + jsonl_line_too_long());
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    bool too_deep = false;
    json j = parse_json_line(line, skip_violation_details, &too_deep);
    if (too_deep) return bad(where + json_too_deep());
    if (j.is_discarded()) {
      if (classify_bad_line(line, next.terminated) == LineDamage::Garbage) return bad(where + "not valid JSON");
      warnings << "locksim: warning: " << printable(where)
               << "skipped a truncated last line (a sweep stopped mid-write?)\n";
      into.count_skipped_line();
    } else if (j.is_object() && j.contains("check") && !j.contains("scenario")) {
      continue;  // `check --out`'s summary line: `check --merge` reads it, a report has no use for it
    } else if (auto added = into.add_run(j); !added) {
      ReportError e = added.error();
      e.message = where + e.message;
      return failure(std::move(e));
    }
  }
  if (in.bad()) return bad(name + ": read error");
  return true;
}

Result<bool, ReportError> read_jsonl_file(const std::string& path, Comparison& into, std::ostream& warnings) {
  // Regular files only (a FIFO would block, /dev/zero never ends); no size
  // cap: a sweep's file is streamed, and its size is the user's choice.
  if (auto problem = scenarios::input_file_problem(path, std::numeric_limits<std::uintmax_t>::max()))
    return bad(path + ": " + *problem);
  std::ifstream in(path, std::ios::binary);
  if (!in) return bad(path + ": cannot open the file");
  return read_jsonl(in, path, into, warnings);
}

void annotate_faults(Comparison& comparison) {
  std::map<std::string, std::string> sources;  // scenario -> source
  for (const auto& [key, cell] : comparison.cells()) sources.emplace(key.first, cell.source);
  for (const auto& [scenario, source] : sources) {
    auto loaded = scenarios::resolve_scenario(source);
    if (!loaded) continue;
    comparison.scenario_conditions[scenario] = conditions_of(*loaded);
    comparison.scenario_faults[scenario] = scenario_faults_of(*loaded);
  }
}

std::string violation_abbrev(const std::string& kind) {
  const auto known = violation_kind_from_name(kind);
  return known ? std::string(violation_kind_info(*known).abbreviation) : kind;
}

std::string violation_abbrev_legend() {
  std::string out;
  for (const auto& row : violation_kind_table())
    out += (out.empty() ? "" : ", ") + std::string(row.abbreviation) + " " + std::string(row.name);
  return out;
}

std::vector<std::string> kinds_worst_first(const std::map<std::string, std::uint64_t>& runs_with_kind) {
  std::vector<std::string> out;
  auto counted = [&](std::string_view kind) {
    auto it = runs_with_kind.find(std::string(kind));
    return it != runs_with_kind.end() && it->second > 0;
  };
  for (const ViolationKindInfo* row : violation_kinds_worst_first())
    if (counted(row->name)) out.emplace_back(row->name);
  for (const auto& [kind, n] : runs_with_kind)
    if (n > 0 && !violation_kind_from_name(kind)) out.push_back(kind);
  return out;
}

std::string kinds_text(const std::set<std::string>& kinds) {
  return kinds.empty() ? "none" : joined(kinds);
}

std::string outcomes_text(const std::map<std::set<std::string>, std::uint64_t>& outcomes) {
  if (outcomes.size() == 1) return kinds_text(outcomes.begin()->first);
  std::string out;
  for (const auto& [kinds, n] : outcomes)
    out += (out.empty() ? "" : "; ") + kinds_text(kinds) + " (" + std::to_string(n) + (n == 1 ? " run)" : " runs)");
  return out.empty() ? "—" : out;
}

std::string format_fixed(double value, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << value;
  return s.str();
}

std::string format_latency_us(std::int64_t us) {
  if (us >= 1'000'000) return format_fixed(static_cast<double>(us) / 1e6, 2) + " s";
  return format_fixed(static_cast<double>(us) / 1000.0, 1) + " ms";
}

std::string format_rate(double rate) {
  if (rate <= 0) return "0%";
  if (rate >= 1) return "100%";
  const double pct = rate * 100.0;
  if (pct < 0.1) return "<0.1%";
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(pct < 10 ? 1 : 0);
  s << pct << "%";
  std::string out = s.str();
  if (out == "100%") out = ">99%";
  return out;
}

}  // namespace locksim::reports
