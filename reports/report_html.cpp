// The HTML report: one self-contained file (inline CSS and SVG, no scripts,
// no network) written as XHTML, so it parses as HTML and as XML.
//
// Its header says when, by which locksim, with which command and from which
// inputs (Comparison::provenance). It opens with the decision
// (reports/decision.hpp): the recommendation drawn from it, then a lock ×
// fault-class table coloured by severity — data corruption, two holders
// without corruption, unavailability, safe — each cell with what it rests
// on (scenarios, runs) and a link to the timeline of the run behind its
// colour, the stories that take no lock in rows of their own, and one plain
// sentence per row under it. It is compact on purpose: at 1400 × 900 the
// etcd and ZooKeeper rows are on the first screen
// (tests/scripts/report_browser.sh checks). Then plots (runs by severity,
// time to acquire, sales), the full matrix (a row per scenario, a column per
// lock, coloured the same way, scrolling in its own box with its header and
// first column sticky; whether runs matched their expectation is said in
// words beside it, never as a colour), the runs not as expected, and folded
// (<details>) what is read on demand: one timeline per violated cell, grouped
// by (lock, failure mode) — the mode's first cell open, the others folded —
// the "confirmed on real Redis" table, and performance tables.
#include <optional>
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "locks/registry.hpp"
#include "reports/decision.hpp"
#include "reports/library_comparison.hpp"
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
       margin: 10px auto; max-width: 1320px; padding: 0 16px; line-height: 1.35; }
h1 { font-size: 20px; margin: 0 0 2px; }
h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
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
tr.family th { text-align: left; font-size: 11.5px; font-weight: 600; background: #eef1f6; padding: 1px 6px;
               line-height: 1.2; }
table.decision th.lock { text-align: left; width: 180px; font-weight: 600; font-size: 12.5px; padding: 0 6px;
                         white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
table.decision th.fault { text-align: center; font-size: 11.5px; font-weight: 600; line-height: 1.1; padding: 2px; }
table.decision td.dc { text-align: center; padding: 0 2px 3px; font-size: 10.5px; line-height: 1;
                        position: relative; }
.sev { display: block; font-weight: 700; white-space: nowrap; }
.sevbar { display: flex; height: 3px; position: absolute; left: 2px; right: 2px; bottom: 1px; background: #fff; }
.sevbar span { display: block; height: 3px; }
.sentences { columns: 2; column-gap: 28px; font-size: 12.5px; margin: 6px 0; }
.sentences h3 { font-size: 12.5px; margin: 2px 0; break-after: avoid; }
.sentences ul { margin: 0 0 6px; padding-left: 18px; }
.sentences li { margin: 1px 0; break-inside: avoid; }
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
.matrix-box { max-height: 86vh; overflow: auto; border: 1px solid #d0d7de; }
table.matrix { border-collapse: separate; border-spacing: 0; }
table.matrix th, table.matrix td { border-width: 0 1px 1px 0; }
table.matrix thead { position: sticky; top: 0; z-index: 3; }
table.matrix th.scenario, table.matrix th.corner { position: sticky; left: 0; z-index: 2; background: #f3f5f7; }
table.matrix thead th.corner { z-index: 4; }
.provenance { color: #444; margin: 0 0 4px; font-size: 12px; line-height: 1.3; }
.provenance .pline { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.provenance code { font-size: 11px; padding: 0 4px; }
ul.recommendation { margin: 4px 0 6px; padding: 4px 12px 4px 26px; background: #f6f8fa; border: 1px solid #d0d7de;
                    border-radius: 4px; font-size: 12px; line-height: 1.25; }
ul.recommendation li { margin: 1px 0; }
.basis { display: block; font-size: 9px; line-height: 0.95; white-space: nowrap; }
.cell-timeline { margin: 6px 0 10px; }
.cell-timeline p { margin: 4px 0; font-size: 13.5px; }
details.repeat { margin-left: 12px; }
details.repeat > summary { font-weight: 400; font-size: 13px; }
ul.unmatched li { margin: 4px 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { background: #f3f5f7; padding: 1px 5px; border-radius: 3px; font-size: 12.5px; overflow-wrap: anywhere; }
details { margin-top: 8px; }
details > summary { cursor: pointer; font-weight: 600; }
details.fold > summary { font-size: 16px; }
details.mode { border-top: 1px solid #e3e6ea; padding-top: 4px; margin-left: 12px; }
details.mode > summary { font-weight: 500; font-size: 14px; }
.mode p { margin: 4px 0; font-size: 13.5px; }
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

// Where the report comes from (when, which locksim, which command, which
// inputs), then what the inputs hold, in two lines.
void html_provenance(std::ostringstream& out, const Comparison& c) {
  const Provenance& p = c.provenance;
  // Each line stays one line (long paths are cut with "…", the whole line
  // in its title): the decision table's last rows must stay on the first
  // screen whatever the paths.
  std::string made;
  if (!p.generated_at.empty()) made = "Made " + p.generated_at;
  if (!p.version.empty()) made += (p.generated_at.empty() ? "Made" : "") + std::string(" by ") + p.version;
  out << "<p class=\"provenance\" id=\"provenance\"><span class=\"pline\" title=\""
      << esc(made + (p.command.empty() ? "" : ": " + p.command)) << "\">" << esc(made);
  if (!p.command.empty()) out << ": <code>" << esc(p.command) << "</code>";
  out << "</span><span class=\"pline\">Inputs: ";
  std::size_t i = 0;
  for (const InputFile& f : c.input_files()) {
    out << (i++ ? "; " : "") << "<code>" << esc(f.name) << "</code> (" << plural(f.runs, "run");
    if (f.duplicates) out << ", " << f.duplicates << " counted before";
    if (f.live_lines) out << ", " << plural(f.live_lines, "live line");
    out << ")";
  }
  out << ": " << c.runs() << " simulated runs, " << c.scenarios().size() << " scenarios × " << c.locks().size()
      << " locks.";
  if (c.duplicates()) out << " " << c.duplicates() << " duplicate lines counted once.";
  if (c.skipped_lines()) out << " " << c.skipped_lines() << " truncated line(s) skipped.";
  // Matching is about the scenarios' documentation, not about safety: the
  // catalog expects the violations it demonstrates.
  if (c.unmatched_runs() == 0)
    out << " Every run found what its scenario expects (known breakages included), which says nothing about "
           "safety.</span>";
  else  // on a line of its own, never cut
    out << "</span><span class=\"bad\">" << c.unmatched_runs() << " runs did not find what their scenario expects</span> "
        << "(<a href=\"#unmatched\">which</a>).";
  out << "</p>\n";
}

void html_head(std::ostringstream& out, const Comparison& c) {
  out << "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      << "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      << "<title>locksim: which lock survives which fault</title>\n<style>" << kCss
      << "</style>\n</head>\n<body>\n<h1>Which lock survives which fault</h1>\n";
  html_provenance(out, c);
}

void severity_legend(std::ostringstream& out) {
  out << "<span class=\"sw sev-corruption\"></span>corrupts data (stale write accepted, another's lock released, "
         "oversold)"
         "<span class=\"sw sev-overlap\"></span>two holders at once, no data corrupted"
         "<span class=\"sw sev-unavailable\"></span>lock unavailable"
         "<span class=\"sw sev-safe\"></span>survives"
         "<span class=\"sw notrun\">·</span>not tried: no scenario with that kind of fault ran it";
}

// The anchor of a matrix cell's own timeline.
std::string timeline_id(const std::string& scenario, const std::string& lock) {
  return html_id("tl-", scenario + "--" + lock);
}

std::string scenario_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// One cell of the decision table: the worst that happened and in what
// share of runs, what it rests on (scenarios, runs), a bar of the runs by
// severity, and a link to the timeline of the run behind its colour.
void decision_cell(std::ostringstream& out, const std::string& row, FaultClass fault, const DecisionCell* cell) {
  if (!cell) {
    out << "<td class=\"dc notrun\" title=\""
        << esc("not tried: no scenario with " + std::string(fault_class_name(fault)) + " ran " + row) << "\">·</td>";
    return;
  }
  const Severity s = cell->severity();
  const std::string tip = row + " under " + std::string(fault_class_name(fault)) + ": " + decision_cell_text(*cell) +
                          " (" + plural(cell->runs, "run") + " in " + plural(cell->scenarios.size(), "scenario") +
                          ": " + scenario_list(cell->scenarios) + ")";
  out << "<td class=\"dc " << severity_class(s) << "\" data-severity=\"" << severity_id(s) << "\" data-scenarios=\""
      << cell->scenarios.size() << "\" data-runs=\"" << cell->runs << "\" title=\"" << esc(tip) << "\">";
  if (cell->worst_example)
    out << "<a href=\"#" << timeline_id(cell->worst_example->first, cell->worst_example->second)
        << "\" data-cell=\"" << esc(cell->worst_example->first + " × " + cell->worst_example->second) << "\">";
  out << "<span class=\"sev\">" << severity_words(s);
  if (s != Severity::Safe) out << " " << format_rate(cell->share(s));
  out << "</span><span class=\"basis\">" << plural(cell->scenarios.size(), "scenario") << ", "
      << plural(cell->runs, "run")
      << "</span><span class=\"sevbar\">";
  for (Severity each : kSeveritiesWorstFirst) {
    const auto it = cell->runs_by_severity.find(each);
    if (it == cell->runs_by_severity.end() || it->second == 0 || cell->runs == 0) continue;
    out << "<span style=\"flex: " << it->second << "; background: " << severity_colour(each) << "\"></span>";
  }
  out << "</span>";
  if (cell->unmatched) out << "<span class=\"unexp\">✗ " << cell->unmatched << " not as expected</span>";
  if (cell->worst_example) out << "</a>";
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

void group_row(std::ostringstream& out, const Decision& d, const std::string& label) {
  out << "<tr class=\"family\"><th colspan=\"" << d.classes.size() + 1 << "\">" << esc(label) << "</th></tr>\n";
}

// The sentence of each row, under its table, grouped as the rows are.
void sentences(std::ostringstream& out, const Decision& d, bool reproductions) {
  out << "<div class=\"sentences\" id=\"" << (reproductions ? "sentences-reproductions" : "sentences") << "\">";
  std::optional<std::string> group;
  for (const auto& lock : d.locks) {
    if (is_reproduction(lock) != reproductions || tried_only_without_faults(d, lock)) continue;
    if (group != lock_group_label(lock)) {
      out << (group ? "</ul>\n" : "") << "<h3>" << esc(*(group = lock_group_label(lock))) << "</h3><ul>\n";
    }
    out << "<li data-lock=\"" << esc(lock) << "\">" << esc(d.sentences.at(lock)) << "</li>\n";
  }
  if (!reproductions && !d.no_lock_rows.empty()) {
    out << (group ? "</ul>\n" : "") << "<h3>no lock taken</h3><ul>\n";
    group = "no lock";
    for (const auto& row : d.no_lock_rows) out << "<li>" << esc(d.no_lock_sentences.at(row)) << "</li>\n";
  }
  out << (group ? "</ul>" : "") << "</div>\n";
}

// One decision table: the locks one would choose between and the stories
// that take no lock, or (apart, after the legend) the reproductions of
// shipped client bugs.
void decision_table(std::ostringstream& out, const Decision& d, bool reproductions, const char* id) {
  out << "<table class=\"decision\" id=\"" << id << "\">\n<tr><th class=\"lock\">"
      << (reproductions ? "reproduction" : "lock") << "</th>";
  for (FaultClass f : d.classes) out << "<th class=\"fault\">" << esc(fault_class_name(f)) << "</th>";
  out << "</tr>\n";
  std::optional<std::string> group;
  for (const auto& lock : d.locks) {
    if (is_reproduction(lock) != reproductions || tried_only_without_faults(d, lock)) continue;
    if (group != lock_group_label(lock)) group_row(out, d, *(group = lock_group_label(lock)));
    out << "<tr data-family=\"" << esc(lock_family_name(lock_family(lock))) << "\" data-lock=\"" << esc(lock)
        << "\"><th class=\"lock\" title=\"" << esc(d.sentences.at(lock)) << "\">" << esc(lock) << "</th>";
    for (FaultClass f : d.classes) decision_cell(out, lock, f, d.cell(lock, f));
    out << "</tr>\n";
  }
  if (!reproductions && !d.no_lock_rows.empty()) {
    group_row(out, d, "no lock taken: the workload's own method (never counted against a lock above)");
    for (const auto& row : d.no_lock_rows) {
      out << "<tr data-family=\"no lock\"><th class=\"lock\" title=\"" << esc(d.no_lock_sentences.at(row)) << "\">"
          << esc(row) << "</th>";
      for (FaultClass f : d.classes) decision_cell(out, row, f, d.no_lock_cell(row, f));
      out << "</tr>\n";
    }
  }
  out << "</table>\n";
  sentences(out, d, reproductions);
  std::string untried;
  for (const auto& lock : d.locks)
    if (is_reproduction(lock) == reproductions && tried_only_without_faults(d, lock))
      untried += (untried.empty() ? "" : ", ") + lock;
  if (!untried.empty())
    out << "<p class=\"legend\">Run here only in scenarios without faults (no violation): " << esc(untried)
        << ".</p>\n";
}

// What the table decides, above it.
void html_recommendation(std::ostringstream& out, const Decision& d) {
  if (d.recommendation.empty()) return;
  out << "<ul class=\"recommendation\" id=\"recommendation\">\n";
  for (const auto& line : d.recommendation) out << "<li>" << esc(line) << "</li>\n";
  out << "</ul>\n";
}

void html_decision(std::ostringstream& out, const Comparison& c, const Decision& d) {
  html_recommendation(out, d);
  decision_table(out, d, false, "decision");
  out << "<p class=\"legend\">";
  severity_legend(out);
  out << "<br/>A cell: the worst that happened in any run of the scenarios with that kind of fault, and in what "
         "share of their runs; under it what it rests on (scenarios and runs); the bar "
         "splits the runs by their worst violation; a click opens the timeline of the run behind the colour. A "
         "scenario with several kinds of fault counts under each. A story that takes no lock counts only in its "
         "method's row. ✗: runs that did not find what their scenario expects.";
  if (c.scenario_faults.empty()) out << " The scenarios could not be loaded to classify their faults.";
  out << "</p>\n";
  if (std::any_of(d.locks.begin(), d.locks.end(), is_reproduction)) {
    out << "<h3>Reproductions of shipped client bugs</h3>\n<p class=\"legend\">Each behaves as a released "
           "library did (docs/reproductions.md); its fix is among the locks above.</p>\n";
    decision_table(out, d, true, "decision-reproductions");
  }
}

void html_plots(std::ostringstream& out, const Comparison& c, const Decision& d) {
  out << "<div class=\"plots\" id=\"plots\">\n<figure><figcaption>How often each lock broke, and how badly</figcaption>\n"
      << severity_share_svg(c, d) << "</figure>\n<figure><figcaption>Time to acquire (simulated time)</figcaption>\n"
      << acquire_latency_svg(c) << "</figure>\n";
  if (const std::string sales = sale_throughput_svg(c); !sales.empty())
    out << "<figure><figcaption>Sales: orders per simulated second, per lock and per method</figcaption>\n" << sales
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
    out << "<td class=\"notrun\" title=\"not run: the sweep did not run this scenario with this lock\">·</td>";
    return;
  }
  const Severity s = cell_severity(*cell);
  std::string cls = severity_class(s);
  if (!cell->all_matched()) cls += " unexpected";
  const std::string title = cell->scenario + " × " + cell->lock + ": " + std::to_string(cell->runs) +
                            " runs; expected " + expected_text(*cell) + "; matched " +
                            std::to_string(cell->matched) + "/" + std::to_string(cell->runs);
  out << "<td class=\"" << cls << "\" title=\"" << esc(title) << "\">";
  if (cell->minimal_failing)
    out << "<a href=\"#" << timeline_id(cell->scenario, cell->lock) << "\" data-cell=\""
        << esc(cell->scenario + " × " + cell->lock) << "\">";
  std::string summary = cell_summary(*cell);
  std::size_t start = 0;
  while (start <= summary.size()) {  // one kind per line
    const std::size_t end = summary.find(", ", start);
    out << "<span class=\"kind\">" << esc(summary.substr(start, end - start)) << "</span>";
    if (end == std::string::npos) break;
    start = end + 2;
  }
  out << expectation_mark(*cell) << live_mark(c, *cell);
  if (cell->minimal_failing) out << "</a>";
  out << "</td>";
}

void html_matrix(std::ostringstream& out, const Comparison& c) {
  const auto locks = c.locks();
  out << "<h2>Every scenario × lock</h2>\n<p class=\"legend\">Each cell: the violation kinds found and the share "
         "of seeds that found them, coloured by the worst. "
      << violation_abbrev_legend() << ". "
         "\"as expected\": the scenario documents this "
         "breakage; a violated cell links to its own timeline. · not run: the sweep did not run that scenario "
         "with that lock. The header and the scenario column stay in view while the table scrolls.<br/>";
  severity_legend(out);
  out << "</p>\n<div class=\"scroll matrix-box\"><table class=\"matrix\">\n<thead><tr class=\"family\">"
         "<th class=\"corner\"></th>";
  for (std::size_t i = 0; i < locks.size();) {  // one header cell per run of locks of a family
    std::size_t j = i;
    while (j < locks.size() && lock_group_label(locks[j]) == lock_group_label(locks[i])) ++j;
    out << "<th colspan=\"" << j - i << "\">" << esc(lock_group_label(locks[i])) << "</th>";
    i = j;
  }
  out << "</tr>\n<tr><th class=\"corner\">scenario</th>";
  for (const auto& l : locks) out << "<th class=\"lock\">" << esc(l) << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (const auto& s : c.scenarios()) {
    out << "<tr><th class=\"scenario\">" << esc(s) << "</th>";
    for (const auto& l : locks) matrix_cell(out, c, c.cell(s, l));
    out << "</tr>\n";
  }
  out << "</tbody></table></div>\n";
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

void html_libraries(std::ostringstream& out, const Comparison& c) {
  const std::vector<LibraryRow> rows = library_rows(c);
  if (rows.empty()) return;
  out << "<details class=\"fold\" id=\"libraries\"><summary>Client libraries beside their ports</summary>\n"
         "<p class=\"legend\">" << esc(library_legend())
      << "</p>\n<table>\n<tr><th>scenario</th><th>library (live)</th><th>its outcome</th><th>port</th>"
         "<th>port simulated</th><th>port live</th><th></th></tr>\n";
  for (const LibraryRow& r : rows)
    out << "<tr><td>" << esc(r.scenario) << "</td><td>" << esc(r.library) << "</td><td>" << esc(r.library_live)
        << "</td><td>" << esc(r.port.empty() ? "—" : r.port) << "</td><td>" << esc(r.port_simulated) << "</td><td>"
        << esc(r.port_live) << "</td><td" << (r.differs ? " class=\"agree-differs\">" : ">")
        << esc(library_row_mark(r, false)) << "</td></tr>\n";
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

// One matrix cell's minimal failing run: its anchor (what the matrix and
// the decision table link to, data-cell naming the cell), the repro, and
// its timeline.
void cell_timeline(std::ostringstream& out, const Cell& cell, const HtmlOptions& options) {
  const RunRef& r = *cell.minimal_failing;
  out << "<div class=\"cell-timeline\" id=\"" << timeline_id(cell.scenario, cell.lock) << "\" data-cell=\""
      << esc(cell.scenario + " × " + cell.lock) << "\">\n<p><strong>" << esc(cell.scenario) << " × "
      << esc(cell.lock) << "</strong>, seed " << r.seed << " (" << r.events << " events), "
      << (r.matched ? "as its scenario expects" : "<span class=\"bad\">not as its scenario expects</span>")
      << " (expected: " << esc(expected_text(cell)) << "). Repro: <code>" << esc(r.repro) << "</code></p>\n";
  if (options.timelines) timeline(out, cell, r, options);
  out << "</div>\n";
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

// A failure mode: its first cell (fewest events) drawn open; every other
// cell of the mode has its own timeline too, folded, so a link from the
// matrix or the decision table lands on the cell it came from.
void html_mode(std::ostringstream& out, const Comparison& c, const FailureMode& mode,
               const std::vector<const Cell*>& cells, const HtmlOptions& options) {
  std::set<FaultClass> classes;
  for (const Cell* cell : cells)
    for (FaultClass f : classes_of(c, cell->scenario)) classes.insert(f);
  out << "<details class=\"mode\" id=\"" << html_id("mode-", mode.lock + "--" + kinds_text(mode.kinds))
      << "\"><summary><strong>" << esc(mode.lock) << "</strong>: " << esc(kinds_text(mode.kinds)) << " under "
      << esc(classes_text(classes)) << " (" << plural(cells.size(), "scenario") << ")</summary>\n";
  cell_timeline(out, *cells.front(), options);
  if (cells.size() > 1) {
    out << "<p>The same failure in other scenarios, each with its own timeline:</p>\n";
    for (std::size_t i = 1; i < cells.size(); ++i) {
      const RunRef& other = *cells[i]->minimal_failing;
      out << "<details class=\"repeat\"><summary>" << esc(cells[i]->scenario) << ", seed " << other.seed << " ("
          << other.events << " events)</summary>\n";
      cell_timeline(out, *cells[i], options);
      out << "</details>\n";
    }
  }
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
  html_libraries(out, c);
  html_perf(out, c);
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace locksim::reports
