// The HTML report: one self-contained file (inline CSS and SVG, no scripts,
// no network) written as XHTML, so it parses as HTML and as XML.
//
// It opens with the decision (reports/decision.hpp): a lock × fault-class
// table coloured by severity — data corruption, two holders without
// corruption, unavailability, safe — with one plain sentence per lock, then
// plots (runs by severity, time to acquire), then the full matrix (a row per
// scenario, a column per lock, coloured the same way; whether runs matched
// their expectation is said in words beside it, never as a colour), the
// runs not as expected, and folded (<details>) what is read on demand: the
// "confirmed on real Redis" table, performance tables, and one timeline per
// (lock, failure mode) — the minimal failing run of the first cell of that
// mode, with the other cells of the same mode listed, not drawn again.
#include <optional>
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "locks/registry.hpp"
#include "reports/decision.hpp"
#include "reports/report.hpp"
#include "reports/report_plots.hpp"
#include "reports/timeline_svg.hpp"
#include "reports/xml_text.hpp"
#include "scenarios/catalog.hpp"
#include "sim/trace.hpp"

namespace locksim::reports {

namespace {

constexpr const char* kCss = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1d2329;
       margin: 16px auto; max-width: 1320px; padding: 0 16px; line-height: 1.35; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
.summary { color: #444; margin: 2px 0 10px; font-size: 14px; }
.bad { color: #b42318; font-weight: 600; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 4px 7px; }
th { background: #f3f5f7; text-align: left; }
.sev-corruption { background: #f4aaa2; color: #5e0f08; }
.sev-overlap { background: #fbdc94; color: #4f3500; }
.sev-unavailable { background: #c6d4f5; color: #1d3570; }
.sev-safe { background: #d5f0da; color: #14532d; }
.notrun { background: #ececec; color: #8a8a8a; }
table.decision { width: 100%; table-layout: fixed; }
tr.family th { text-align: left; font-size: 12px; font-weight: 600; background: #eef1f6; padding: 2px 6px; }
table.decision th.lock, table.decision td.sentence { text-align: left; }
table.decision th.lock { width: 112px; font-weight: 600; }
table.decision th.fault { text-align: center; font-size: 12px; font-weight: 600; line-height: 1.15; }
table.decision th.sentence-head { width: 40%; }
table.decision td.dc { text-align: center; padding: 1px 3px; font-size: 11.5px; line-height: 1.1; }
table.decision td.sentence { font-size: 12px; line-height: 1.2; padding: 2px 7px; }
.sev { display: block; font-weight: 700; }
.share { display: block; font-size: 11px; }
.sevbar { display: flex; height: 5px; margin: 2px 2px 0; background: #fff; }
.sevbar span { display: block; height: 5px; }
.unexp { display: inline-block; background: #111; color: #fff; border-radius: 3px; font-size: 10.5px;
         padding: 0 4px; margin-top: 1px; font-weight: 700; white-space: nowrap; }
.legend { font-size: 13px; color: #444; margin: 6px 0; }
.legend span.sw { display: inline-block; width: 14px; height: 14px; vertical-align: -2px;
                  border: 1px solid #aaa; margin: 0 4px 0 12px; }
.plots { display: flex; flex-wrap: wrap; gap: 24px; }
.plots figure { margin: 0; }
.plots figcaption { font-size: 14px; font-weight: 600; margin-bottom: 2px; }
table.matrix th.lock { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left;
                       vertical-align: bottom; white-space: nowrap; padding: 6px 4px; }
table.matrix td { min-width: 50px; padding: 2px 4px; text-align: center; vertical-align: middle; font-size: 12px; }
table.matrix th.scenario { white-space: nowrap; font-weight: 500; }
td a { color: inherit; text-decoration: none; display: block; }
.kind { display: block; white-space: nowrap; }
.expect { display: block; font-size: 10.5px; color: #333; font-style: italic; white-space: nowrap; }
.scroll { overflow-x: auto; }
ul.unmatched li { margin: 4px 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { background: #f3f5f7; padding: 1px 5px; border-radius: 3px; font-size: 12.5px; overflow-wrap: anywhere; }
details { margin-top: 8px; }
details > summary { cursor: pointer; font-weight: 600; }
details.fold > summary { font-size: 16px; }
details.mode { border-top: 1px solid #e3e6ea; padding-top: 4px; margin-left: 12px; }
details.mode > summary { font-weight: 500; font-size: 14px; }
.mode p { margin: 4px 0; font-size: 13.5px; }
ul.repeats { margin: 2px 0 6px; font-size: 13px; }
.timeline { overflow-x: auto; margin-top: 8px; }
.note { color: #7a3b00; }
.real { display: block; font-size: 10.5px; color: #333; white-space: nowrap; }
.real-differs { color: #7a1a10; font-weight: 700; }
td.agree-yes { background: #d5f0da; }
td.agree-differs { background: #f9d0cb; font-weight: 600; }
td.agree-not-run-live, td.agree-not-simulated { color: #666; }
)";

std::string esc(const std::string& text) { return xml_escape(text); }
std::string esc(std::string_view text) { return xml_escape(std::string(text)); }

// An id from free text: letters, digits and '-' only.
std::string html_id(const std::string& prefix, const std::string& text) {
  std::string out = prefix;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
  return out;
}
std::string cell_id(const Cell& cell) { return html_id("cx-", cell.scenario + "--" + cell.lock); }

std::string plural(std::uint64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// The worst severity any run of the cell showed.
Severity cell_severity(const Cell& cell) {
  Severity worst = Severity::Safe;
  for (const auto& [kinds, n] : cell.outcomes)
    if (n > 0) worst = std::max(worst, severity_of(kinds));
  return worst;
}

std::string severity_class(Severity s) { return "sev-" + std::string(severity_id(s)); }

void html_head(std::ostringstream& out, const Comparison& c) {
  out << "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      << "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      << "<title>locksim: which lock survives which fault</title>\n<style>" << kCss
      << "</style>\n</head>\n<body>\n<h1>Which lock survives which fault</h1>\n<p class=\"summary\">" << c.runs()
      << " simulated runs, " << c.scenarios().size() << " scenarios × " << c.locks().size() << " locks, from "
      << esc(c.sources_label()) << ".";
  if (c.duplicates()) out << " " << c.duplicates() << " duplicate lines counted once.";
  if (c.skipped_lines()) out << " " << c.skipped_lines() << " truncated line(s) skipped.";
  // Matching is about the scenarios' documentation, not about safety: the
  // catalog expects the violations it demonstrates.
  if (c.unmatched_runs() == 0)
    out << " Every run found what its scenario expects (known breakages included): the expectations hold, which "
           "says nothing about safety.";
  else
    out << " <span class=\"bad\">" << c.unmatched_runs() << " runs did not find what their scenario expects</span> "
        << "(<a href=\"#unmatched\">which</a>).";
  out << "</p>\n";
}

void severity_legend(std::ostringstream& out) {
  out << "<span class=\"sw sev-corruption\"></span>corrupts data (stale write accepted, another's lock released)"
         "<span class=\"sw sev-overlap\"></span>two holders at once, no data corrupted"
         "<span class=\"sw sev-unavailable\"></span>lock unavailable"
         "<span class=\"sw sev-safe\"></span>survives"
         "<span class=\"sw notrun\"></span>not tried";
}

void decision_cell(std::ostringstream& out, const std::string& lock, FaultClass fault, const DecisionCell* cell) {
  if (!cell) {
    out << "<td class=\"dc notrun\" title=\"" << esc(lock + " was not run under " + std::string(fault_class_name(fault)))
        << "\">·</td>";
    return;
  }
  const Severity s = cell->severity();
  std::string scenarios;
  for (const auto& name : cell->scenarios) scenarios += (scenarios.empty() ? "" : ", ") + name;
  const std::string tip = lock + " under " + std::string(fault_class_name(fault)) + ": " + decision_cell_text(*cell) +
                          " (" + plural(cell->runs, "run") + "; scenarios: " + scenarios + ")";
  out << "<td class=\"dc " << severity_class(s) << "\" data-severity=\"" << severity_id(s) << "\" title=\""
      << esc(tip) << "\"><span class=\"sev\">" << severity_words(s) << "</span><span class=\"share\">";
  if (s != Severity::Safe) out << format_rate(cell->share(s)) << " of runs";
  else out << plural(cell->runs, "run");
  out << "</span><span class=\"sevbar\">";
  for (Severity each : kSeveritiesWorstFirst) {
    const auto it = cell->runs_by_severity.find(each);
    if (it == cell->runs_by_severity.end() || it->second == 0 || cell->runs == 0) continue;
    out << "<span style=\"flex: " << it->second << "; background: " << severity_colour(each) << "\"></span>";
  }
  out << "</span>";
  if (cell->unmatched) out << "<span class=\"unexp\">✗ " << cell->unmatched << " not as expected</span>";
  out << "</td>";
}

bool is_reproduction(const std::string& lock) {
  const auto info = locks::find_lock(lock);
  return info && info->reproduces;
}

// A lock this sweep tried under no fault at all: a row of "not tried"
// cells says nothing, so it is named under the table instead.
bool tried_only_without_faults(const Decision& d, const std::string& lock) {
  return std::all_of(d.classes.begin(), d.classes.end(),
                     [&](FaultClass f) { return f == FaultClass::None || d.cell(lock, f) == nullptr; });
}

// One decision table: the locks one would choose between, or (apart, after
// the legend) the reproductions of shipped client bugs.
void decision_table(std::ostringstream& out, const Decision& d, bool reproductions, const char* id) {
  out << "<table class=\"decision\" id=\"" << id << "\">\n<tr><th class=\"lock\">"
      << (reproductions ? "reproduction" : "lock") << "</th>";
  for (FaultClass f : d.classes) out << "<th class=\"fault\">" << esc(fault_class_name(f)) << "</th>";
  out << "<th class=\"sentence-head\">in one sentence</th></tr>\n";
  std::optional<std::string> group;
  for (const auto& lock : d.locks) {
    if (is_reproduction(lock) != reproductions || tried_only_without_faults(d, lock)) continue;
    if (group != lock_group_label(lock)) {  // a group row: single Redis, Redis multi-node, etcd, ZooKeeper
      group = lock_group_label(lock);
      out << "<tr class=\"family\"><th colspan=\"" << d.classes.size() + 2 << "\">" << esc(*group) << "</th></tr>\n";
    }
    out << "<tr><th class=\"lock\">" << esc(lock) << "</th>";
    for (FaultClass f : d.classes) decision_cell(out, lock, f, d.cell(lock, f));
    out << "<td class=\"sentence\">" << esc(d.sentences.at(lock)) << "</td></tr>\n";
  }
  out << "</table>\n";
  std::string untried;
  for (const auto& lock : d.locks)
    if (is_reproduction(lock) == reproductions && tried_only_without_faults(d, lock))
      untried += (untried.empty() ? "" : ", ") + lock;
  if (!untried.empty())
    out << "<p class=\"legend\">Run here only in scenarios without faults (no violation): " << esc(untried)
        << ".</p>\n";
}

void html_decision(std::ostringstream& out, const Comparison& c, const Decision& d) {
  decision_table(out, d, false, "decision");
  out << "<p class=\"legend\">";
  severity_legend(out);
  out << "<br/>A cell: the worst that happened in any run of the scenarios with that kind of fault, and in how many "
         "of their runs; the bar splits the runs by their worst violation. A scenario with several kinds of fault "
         "counts under each. ✗: runs that did not find what their scenario expects.";
  if (c.scenario_faults.empty()) out << " The scenarios could not be loaded to classify their faults.";
  out << "</p>\n";
  if (std::any_of(d.locks.begin(), d.locks.end(), is_reproduction)) {
    out << "<h3>Reproductions of shipped client bugs</h3>\n<p class=\"legend\">Each behaves as a released "
           "library did (docs/reproductions.md); its fix is among the locks above.</p>\n";
    decision_table(out, d, true, "decision-reproductions");
  }
}

void html_plots(std::ostringstream& out, const Comparison& c, const Decision& d) {
  out << "<div class=\"plots\">\n<figure><figcaption>How often each lock broke, and how badly</figcaption>\n"
      << severity_share_svg(c, d) << "</figure>\n<figure><figcaption>Time to acquire (simulated time)</figcaption>\n"
      << acquire_latency_svg(c) << "</figure>\n";
  if (const std::string sales = sale_throughput_svg(c); !sales.empty())
    out << "<figure><figcaption>Sales: orders per simulated second (bars, per method)</figcaption>\n" << sales
        << "</figure>\n";
  out << "</div>\n";
}

// The live mark under a matrix cell: "real ✓" (confirmed), "real ≠", "real –".
std::string live_mark(const Comparison& c, const Cell& cell) {
  if (!c.has_live()) return "";
  const Agreement a = c.agreement(cell.scenario, cell.lock);
  const char* mark = a.status == Agreement::Status::Yes ? "real ✓" : a.status == Agreement::Status::Differs ? "real ≠" : "real –";
  return "<span class=\"real" + std::string(a.status == Agreement::Status::Differs ? " real-differs" : "") +
         "\" title=\"confirmed on real Redis: " + esc(agreement_text(a)) + "\">" + mark + "</span>";
}

// Whether runs matched, in words that cannot be read as "OK".
std::string expectation_mark(const Cell& cell) {
  if (!cell.all_matched()) return "<span class=\"unexp\">✗ not as expected</span>";
  return cell.violated() ? "<span class=\"expect\">as expected</span>" : "";
}

void matrix_cell(std::ostringstream& out, const Comparison& c, const Cell* cell) {
  if (!cell) {
    out << "<td class=\"notrun\" title=\"not run\">·</td>";
    return;
  }
  const Severity s = cell_severity(*cell);
  std::string cls = severity_class(s);
  if (!cell->all_matched()) cls += " unexpected";
  const std::string title = cell->scenario + " × " + cell->lock + ": " + std::to_string(cell->runs) +
                            " runs; expected " + expected_text(*cell) + "; matched " +
                            std::to_string(cell->matched) + "/" + std::to_string(cell->runs);
  out << "<td class=\"" << cls << "\" title=\"" << esc(title) << "\">";
  if (cell->violated()) out << "<a href=\"#" << cell_id(*cell) << "\">";
  std::string summary = cell_summary(*cell);
  std::size_t start = 0;
  while (start <= summary.size()) {  // one kind per line
    const std::size_t end = summary.find(", ", start);
    out << "<span class=\"kind\">" << esc(summary.substr(start, end - start)) << "</span>";
    if (end == std::string::npos) break;
    start = end + 2;
  }
  out << expectation_mark(*cell) << live_mark(c, *cell);
  if (cell->violated()) out << "</a>";
  out << "</td>";
}

void html_matrix(std::ostringstream& out, const Comparison& c) {
  const auto locks = c.locks();
  out << "<h2>Every scenario × lock</h2>\n<p class=\"legend\">Each cell: the violation kinds found and the share "
         "of seeds that found them, coloured by the worst. ME mutual-exclusion (two holders), WOR "
         "wrong-owner-release, SW stale-write, LU lock-unavailable, OS oversell, DP double-purchase, LO lost-order. "
         "\"as expected\": the scenario documents this "
         "breakage; a violated cell links to its timeline.<br/>";
  severity_legend(out);
  out << "</p>\n<div class=\"scroll\"><table class=\"matrix\">\n<tr class=\"family\"><th></th>";
  for (std::size_t i = 0; i < locks.size();) {  // one header cell per run of locks of a family
    std::size_t j = i;
    while (j < locks.size() && lock_group_label(locks[j]) == lock_group_label(locks[i])) ++j;
    out << "<th colspan=\"" << j - i << "\">" << esc(lock_group_label(locks[i])) << "</th>";
    i = j;
  }
  out << "</tr>\n<tr><th>scenario</th>";
  for (const auto& l : locks) out << "<th class=\"lock\">" << esc(l) << "</th>";
  out << "</tr>\n";
  for (const auto& s : c.scenarios()) {
    out << "<tr><th class=\"scenario\">" << esc(s) << "</th>";
    for (const auto& l : locks) matrix_cell(out, c, c.cell(s, l));
    out << "</tr>\n";
  }
  out << "</table></div>\n";
}

void perf_row(std::ostringstream& out, const std::string& label, const CellPerf& p) {
  out << "<tr><td>" << esc(label) << "</td><td class=\"num\">" << p.acquire_p50_us.count() << "</td><td class=\"num\">"
      << format_latency_us(p.median_acquire_p50_us()) << "</td><td class=\"num\">" << format_latency_us(p.acquire_p99_us_max)
      << "</td><td class=\"num\">" << format_fixed(p.round_trips_per_acquisition(), 1) << "</td><td class=\"num\">"
      << format_fixed(p.acquisitions_per_sim_second(), 3) << "</td><td class=\"num\">" << p.gave_up << "</td></tr>\n";
}

void perf_header(std::ostringstream& out, const char* first) {
  out << "<table>\n<tr><th>" << first
      << "</th><th>runs</th><th>acquire p50 (median)</th><th>acquire p99 (max)</th>"
         "<th>round trips / acquisition</th><th>acquisitions / sim s</th><th>gave up</th></tr>\n";
}

// A CSS class from a status name: "not run live" -> "agree-not-run-live".
std::string agreement_class(Agreement::Status status) {
  std::string out = "agree-";
  for (char ch : agreement_status_name(status)) out += ch == ' ' ? '-' : ch;
  return out;
}

void html_agreement(std::ostringstream& out, const Comparison& c) {
  if (!c.has_live()) return;
  out << "<details class=\"fold\" id=\"live\"><summary>Confirmed on real Redis: " << esc(agreement_counts_text(c))
      << "</summary>\n<p class=\"legend\">" << esc(agreement_legend(c))
      << "</p>\n<table>\n<tr><th>scenario</th><th>lock</th><th>simulated</th><th>live</th><th>time scale</th>"
         "<th>how produced live</th><th>confirmed on real Redis</th></tr>\n";
  for (const auto& key : c.agreement_keys()) {
    const Agreement a = c.agreement(key.first, key.second);
    out << "<tr><td>" << esc(key.first) << "</td><td>" << esc(key.second) << "</td><td>"
        << esc(simulated_outcomes_text(c, key)) << "</td><td>" << esc(live_outcomes_text(c, key)) << "</td><td>"
        << esc(live_time_scales_text(c, key)) << "</td><td>" << esc(live_mechanisms_text(c, key))
        << "</td><td class=\"" << agreement_class(a.status) << "\">"
        << esc(agreement_text(a)) << "</td></tr>\n";
  }
  out << "</table>\n</details>\n";
}

void html_perf(std::ostringstream& out, const Comparison& c) {
  out << "<details class=\"fold\" id=\"perf\"><summary>Performance tables</summary>\n<p class=\"legend\">Simulated "
         "time, so these compare the algorithms, not machines: the median of each run's acquire-latency p50, the "
         "worst run's p99, Redis round trips per acquisition (retries included) and acquisitions per simulated "
         "second.</p>\n";
  perf_header(out, "lock");
  for (const auto& l : c.locks()) perf_row(out, l, c.lock_perf(l));
  out << "</table>\n<h3>Per scenario and lock</h3>\n";
  perf_header(out, "scenario × lock");
  for (const auto& [key, cell] : c.cells()) perf_row(out, key.first + " × " + key.second, cell.perf);
  out << "</table>\n</details>\n";
}

void html_unmatched(std::ostringstream& out, const Comparison& c) {
  bool any = false;
  for (const auto& [key, cell] : c.cells()) {
    if (cell.all_matched()) continue;
    if (!any) out << "<h2 id=\"unmatched\">Not as expected</h2>\n<ul class=\"unmatched\">\n";
    any = true;
    out << "<li><strong>" << esc(key.first) << " × " << esc(key.second) << "</strong>: " << cell.unmatched << " of "
        << cell.runs << " runs; expected " << esc(expected_text(cell)) << ", found " << esc(found_text(cell));
    for (const auto& r : cell.unmatched_examples) out << "<br/><code>" << esc(r.repro) << "</code>";
    out << "</li>\n";
  }
  if (any) out << "</ul>\n";
}

void timeline(std::ostringstream& out, const Cell& cell, const RunRef& ref, const HtmlOptions& options) {
  auto run = options.rerun(cell, ref);
  if (!run) {
    out << "<p class=\"note\">No timeline: " << esc(run.error()) << "</p>\n";
    return;
  }
  if (!ref.digest.empty() && sim::Trace::hex(run->digest) != ref.digest)
    out << "<p class=\"note\">The re-run's digest " << sim::Trace::hex(run->digest) << " differs from the recorded "
        << esc(ref.digest) << ": the scenario or the code changed since the sweep.</p>\n";
  out << "<div class=\"timeline\">\n" << render_timeline_svg(*run) << "</div>\n";
}

// A failure mode: one lock and the violation kinds of a cell's minimal
// failing run. Cells of one mode tell the same story (under whatever
// faults), so the report draws it once and lists the others.
struct FailureMode {
  std::string lock;
  std::set<std::string> kinds;
  bool operator<(const FailureMode& o) const { return std::tie(lock, kinds) < std::tie(o.lock, o.kinds); }
};

std::string classes_text(const std::set<FaultClass>& classes) {
  std::string out;
  for (FaultClass f : classes) out += (out.empty() ? "" : ", ") + std::string(fault_class_name(f));
  return out;
}

// The cells of each mode, the one with the fewest-event counterexample first.
std::map<FailureMode, std::vector<const Cell*>> failure_modes(const Comparison& c) {
  std::map<FailureMode, std::vector<const Cell*>> modes;
  for (const auto& [key, cell] : c.cells())
    if (cell.minimal_failing)
      modes[{key.second, cell.minimal_failing->kinds}].push_back(&cell);
  for (auto& [mode, cells] : modes)
    std::stable_sort(cells.begin(), cells.end(), [](const Cell* a, const Cell* b) {
      return a->minimal_failing->events < b->minimal_failing->events;
    });
  return modes;
}

void html_mode(std::ostringstream& out, const Comparison& c, const FailureMode& mode,
               const std::vector<const Cell*>& cells, const HtmlOptions& options) {
  const Cell& first = *cells.front();
  const RunRef& r = *first.minimal_failing;
  std::set<FaultClass> classes;
  for (const Cell* cell : cells)
    for (FaultClass f : classes_of(c, cell->scenario)) classes.insert(f);
  out << "<details class=\"mode\" id=\"" << html_id("mode-", mode.lock + "--" + kinds_text(mode.kinds))
      << "\"><summary><strong>" << esc(mode.lock) << "</strong>: " << esc(kinds_text(mode.kinds)) << " under "
      << esc(classes_text(classes)) << " (" << plural(cells.size(), "scenario") << ")</summary>\n";
  for (const Cell* cell : cells) out << "<span id=\"" << cell_id(*cell) << "\"></span>";
  out << "\n<p>Drawn: " << esc(first.scenario) << ", seed " << r.seed << " (" << r.events << " events), "
      << (r.matched ? "as its scenario expects" : "<span class=\"bad\">not as its scenario expects</span>")
      << " (expected: " << esc(expected_text(first)) << "). Repro: <code>" << esc(r.repro) << "</code></p>\n";
  if (cells.size() > 1) {
    out << "<p>The same failure, not drawn again:</p>\n<ul class=\"repeats\">\n";
    for (std::size_t i = 1; i < cells.size(); ++i) {
      const RunRef& other = *cells[i]->minimal_failing;
      out << "<li>" << esc(cells[i]->scenario) << ", seed " << other.seed << " (" << other.events
          << " events): <code>" << esc(other.repro) << "</code></li>\n";
    }
    out << "</ul>\n";
  }
  if (options.timelines) timeline(out, first, r, options);
  out << "</details>\n";
}

void html_timelines(std::ostringstream& out, const Comparison& c, const HtmlOptions& options) {
  const auto modes = failure_modes(c);
  if (modes.empty()) return;
  std::size_t cells = 0;
  for (const auto& [mode, list] : modes) cells += list.size();
  out << "<details class=\"fold\" id=\"timelines\"><summary>Timelines: " << plural(modes.size(), "failure mode")
      << " (" << cells << " violated cells)</summary>\n<p class=\"legend\">One timeline per lock and failure mode "
         "(the violations its minimal failing run found): the failing run with the fewest events, re-run and drawn "
         "in true time; the other scenarios that failed the same way are listed under it.</p>\n";
  for (const auto& [mode, list] : modes) html_mode(out, c, mode, list, options);
  out << "</details>\n";
}

}  // namespace

Result<scenarios::RunResult, std::string> rerun_for_timeline(const Cell& cell, const RunRef& run) {
  auto scenario = scenarios::resolve_scenario(cell.source);
  if (!scenario) return failure(scenario.error().to_string());
  scenarios::RunOptions options;
  options.lock_kind = cell.lock;
  options.seed = run.seed;
  options.record_trace = true;
  options.scenario_ref = cell.source;
  return scenarios::run_scenario(*scenario, options);
}

std::string render_html(const Comparison& c, const HtmlOptions& options) {
  const Decision decision = decide(c);
  std::ostringstream out;
  html_head(out, c);
  html_decision(out, c, decision);
  html_plots(out, c, decision);
  html_matrix(out, c);
  html_unmatched(out, c);
  out << "<h2>Details</h2>\n";
  html_timelines(out, c, options);
  html_agreement(out, c);
  html_perf(out, c);
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace locksim::reports
