// The HTML report: one self-contained file (inline CSS and SVG, no scripts,
// no network) written as XHTML, so it parses as HTML and as XML.
//
// Sections: a summary line, the colour-coded matrix (a row per scenario, a
// column per lock: green safe, red violated, grey not run, an "unexpected"
// mark when a run did not match its expectation; a violated cell links to
// its counterexample), the per-lock verdicts, performance, and for each
// violated cell its minimal failing run, re-run with a trace and drawn with
// render_timeline_svg, under its repro command. With live input, each
// matrix cell also says whether real Redis confirmed it ("real ✓", "real ≠",
// "real –"), and a "Confirmed on real Redis" table gives both sides.
#include <cctype>
#include <sstream>

#include "reports/report.hpp"
#include "reports/xml_text.hpp"
#include "reports/timeline_svg.hpp"
#include "scenarios/catalog.hpp"
#include "sim/trace.hpp"

namespace locksim::reports {

namespace {

constexpr const char* kCss = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1d2329;
       margin: 24px auto; max-width: 1240px; padding: 0 16px; line-height: 1.4; }
h1 { font-size: 24px; margin-bottom: 4px; }
h2 { font-size: 19px; margin-top: 32px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 16px; margin: 28px 0 6px; }
.summary { color: #444; }
.ok { color: #1a7f37; font-weight: 600; }
.bad { color: #b42318; font-weight: 600; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 4px 7px; }
th { background: #f3f5f7; text-align: left; }
table.matrix th.lock { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left;
                       vertical-align: bottom; white-space: nowrap; padding: 6px 4px; }
table.matrix td { min-width: 50px; padding: 3px 4px; height: 34px; text-align: center; vertical-align: middle; }
table.matrix th.scenario { white-space: nowrap; font-weight: 500; }
td.safe { background: #d5f0da; color: #14532d; }
td.violated { background: #f9d0cb; color: #7a1a10; }
td.notrun { background: #e8e8e8; color: #8a8a8a; }
td.unexpected { outline: 3px solid #111; outline-offset: -3px; }
td a { color: inherit; text-decoration: none; display: block; }
.kind { display: block; white-space: nowrap; font-size: 12px; }
.mark { display: inline-block; background: #111; color: #fff; border-radius: 3px; font-size: 11px;
        padding: 0 5px; margin-top: 2px; font-weight: 700; }
.scroll { overflow-x: auto; }
.legend span.sw { display: inline-block; width: 14px; height: 14px; vertical-align: -2px;
                  border: 1px solid #aaa; margin: 0 4px 0 12px; }
.legend { font-size: 13px; color: #444; margin: 8px 0; }
ul.verdicts li, ul.unmatched li { margin: 4px 0; }
.level { display: inline-block; min-width: 110px; font-size: 12px; font-weight: 700; padding: 1px 6px;
         border-radius: 3px; margin-right: 6px; text-align: center; }
.level-safe { background: #d5f0da; color: #14532d; }
.level-fencing-only { background: #fff1c2; color: #6b4e00; }
.level-efficiency-only { background: #ffe0c2; color: #7a3b00; }
.level-unsafe { background: #f9d0cb; color: #7a1a10; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { background: #f3f5f7; padding: 1px 5px; border-radius: 3px; font-size: 13px; }
.cx { border-top: 1px solid #e3e6ea; }
.cx p { margin: 4px 0; font-size: 14px; }
.timeline { overflow-x: auto; margin-top: 8px; }
.note { color: #7a3b00; }
details { margin-top: 10px; }
.real { display: block; font-size: 11px; color: #333; white-space: nowrap; }
.real-differs { color: #7a1a10; font-weight: 700; }
td.agree-yes { background: #d5f0da; }
td.agree-differs { background: #f9d0cb; font-weight: 600; }
td.agree-not-run-live, td.agree-not-simulated { color: #666; }
)";

std::string esc(const std::string& text) { return xml_escape(text); }

// An id for a cell's counterexample: letters, digits and '-' only.
std::string cell_id(const Cell& cell) {
  std::string out = "cx-";
  for (char c : cell.scenario + "--" + cell.lock)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
  return out;
}


void html_head(std::ostringstream& out, const Comparison& c) {
  out << "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      << "<meta charset=\"utf-8\"/>\n<title>locksim comparison report</title>\n<style>" << kCss
      << "</style>\n</head>\n<body>\n<h1>locksim comparison report</h1>\n<p class=\"summary\">" << c.runs()
      << " runs, " << c.scenarios().size() << " scenarios × " << c.locks().size() << " locks, from "
      << esc(c.sources_label()) << ".";
  if (c.duplicates()) out << " " << c.duplicates() << " duplicate lines counted once.";
  if (c.skipped_lines()) out << " " << c.skipped_lines() << " truncated line(s) skipped.";
  out << " " << (c.unmatched_runs() == 0
                     ? std::string("<span class=\"ok\">Every run matched its expectation.</span>")
                     : "<span class=\"bad\">" + std::to_string(c.unmatched_runs()) +
                           " runs did not match their expectation.</span>")
      << "</p>\n";
}

// The live mark under a matrix cell: "real ✓" (confirmed), "real ≠", "real –".
std::string live_mark(const Comparison& c, const Cell& cell) {
  if (!c.has_live()) return "";
  const Agreement a = c.agreement(cell.scenario, cell.lock);
  const char* mark = a.status == Agreement::Status::Yes ? "real ✓" : a.status == Agreement::Status::Differs ? "real ≠" : "real –";
  return "<span class=\"real" + std::string(a.status == Agreement::Status::Differs ? " real-differs" : "") +
         "\" title=\"confirmed on real Redis: " + esc(agreement_text(a)) + "\">" + mark + "</span>";
}

void matrix_cell(std::ostringstream& out, const Comparison& c, const Cell* cell) {
  if (!cell) {
    out << "<td class=\"notrun\" title=\"not run\">·</td>";
    return;
  }
  std::string cls = cell->violated() ? "violated" : "safe";
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
  out << (cell->all_matched() ? "<span class=\"kind\">✓</span>" : "<span class=\"mark\">✗</span>");
  out << live_mark(c, *cell);
  if (cell->violated()) out << "</a>";
  out << "</td>";
}

void html_matrix(std::ostringstream& out, const Comparison& c) {
  const auto locks = c.locks();
  out << "<h2>Matrix: scenarios × locks</h2>\n<p class=\"legend\">Each cell: the violation kinds found and the "
         "share of seeds that found them. ME mutual-exclusion, WOR wrong-owner-release, SW stale-write, LU "
         "lock-unavailable. ✓ every run matched its expectation.<br/>"
         "<span class=\"sw\" style=\"background:#d5f0da\"></span>safe"
         "<span class=\"sw\" style=\"background:#f9d0cb\"></span>violated (click for the counterexample)"
         "<span class=\"sw\" style=\"background:#e8e8e8\"></span>not run"
         "<span class=\"sw\" style=\"background:#fff;outline:3px solid #111;outline-offset:-3px\"></span>"
         "✗ a run did not match its expectation</p>\n";
  out << "<div class=\"scroll\"><table class=\"matrix\">\n<tr><th>scenario</th>";
  for (const auto& l : locks) out << "<th class=\"lock\">" << esc(l) << "</th>";
  out << "</tr>\n";
  for (const auto& s : c.scenarios()) {
    out << "<tr><th class=\"scenario\">" << esc(s) << "</th>";
    for (const auto& l : locks) matrix_cell(out, c, c.cell(s, l));
    out << "</tr>\n";
  }
  out << "</table></div>\n";
}

void html_verdicts(std::ostringstream& out, const Comparison& c) {
  out << "<h2>Verdicts</h2>\n<ul class=\"verdicts\">\n";
  for (const auto& l : c.locks()) {
    const LockVerdict v = c.verdict(l);
    const std::string level(verdict_level_name(v.level));
    out << "<li><span class=\"level level-" << level << "\">" << level << "</span><strong>" << esc(l)
        << "</strong>: " << esc(v.text) << "</li>\n";
  }
  out << "</ul>\n";
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
  out << "<h2>Confirmed on real Redis</h2>\n<p class=\"legend\">" << esc(agreement_legend(c))
      << "</p>\n<table>\n<tr><th>scenario</th><th>lock</th><th>simulated</th><th>live</th><th>time scale</th>"
         "<th>confirmed on real Redis</th></tr>\n";
  for (const auto& key : c.agreement_keys()) {
    const Agreement a = c.agreement(key.first, key.second);
    out << "<tr><td>" << esc(key.first) << "</td><td>" << esc(key.second) << "</td><td>"
        << esc(simulated_outcomes_text(c, key)) << "</td><td>" << esc(live_outcomes_text(c, key)) << "</td><td>"
        << esc(live_time_scales_text(c, key)) << "</td><td class=\"" << agreement_class(a.status) << "\">"
        << esc(agreement_text(a)) << "</td></tr>\n";
  }
  out << "</table>\n";
}

void html_perf(std::ostringstream& out, const Comparison& c) {
  out << "<h2>Performance in the simulation</h2>\n<p class=\"legend\">Simulated time, so these compare the "
         "algorithms, not machines: the median of each run's acquire-latency p50, the worst run's p99, Redis "
         "round trips per acquisition (retries included) and acquisitions per simulated second.</p>\n";
  perf_header(out, "lock");
  for (const auto& l : c.locks()) perf_row(out, l, c.lock_perf(l));
  out << "</table>\n<details><summary>per scenario and lock</summary>\n";
  perf_header(out, "scenario × lock");
  for (const auto& [key, cell] : c.cells()) perf_row(out, key.first + " × " + key.second, cell.perf);
  out << "</table>\n</details>\n";
}

void html_unmatched(std::ostringstream& out, const Comparison& c) {
  bool any = false;
  for (const auto& [key, cell] : c.cells()) {
    if (cell.all_matched()) continue;
    if (!any) out << "<h2>Not as expected</h2>\n<ul class=\"unmatched\">\n";
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

void html_counterexamples(std::ostringstream& out, const Comparison& c, const HtmlOptions& options) {
  out << "<h2>Minimal counterexamples</h2>\n<p class=\"legend\">For each violated cell, the failing run with the "
         "fewest events (lowest seed on a tie), re-run and drawn in true time.</p>\n";
  for (const auto& [key, cell] : c.cells()) {
    if (!cell.minimal_failing) continue;
    const RunRef& r = *cell.minimal_failing;
    std::string kinds;
    for (const auto& k : r.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
    out << "<div class=\"cx\" id=\"" << cell_id(cell) << "\">\n<h3>" << esc(cell.scenario) << " × "
        << esc(cell.lock) << ": seed " << r.seed << " (" << r.events << " events)</h3>\n"
        << "<p>found: " << esc(kinds) << "; expected: " << esc(expected_text(cell)) << "; "
        << (r.matched ? "<span class=\"ok\">as expected</span>" : "<span class=\"bad\">unexpected</span>")
        << "</p>\n<p>repro: <code>" << esc(r.repro) << "</code></p>\n";
    if (options.timelines) timeline(out, cell, r, options);
    out << "</div>\n";
  }
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
  std::ostringstream out;
  html_head(out, c);
  html_matrix(out, c);
  html_verdicts(out, c);
  html_unmatched(out, c);
  html_agreement(out, c);
  html_perf(out, c);
  html_counterexamples(out, c, options);
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace locksim::reports
