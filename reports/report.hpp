// The renderers of `locksim report`: one Comparison, four audiences.
//
//  - Markdown: a CI job summary (GitHub's $GITHUB_STEP_SUMMARY): the matrix
//    (a row per scenario, a column per lock), the per-lock verdicts, perf.
//  - HTML: one self-contained file (inline CSS and SVG, no scripts, no
//    network) that also parses as XML: the colour-coded matrix, verdicts,
//    perf, and for each violated cell its minimal counterexample re-run and
//    drawn as an SVG timeline with its repro command.
//  - JSON: the aggregate for machines (cells, rates, verdicts, perf).
//  - JUnit XML: one <testcase classname="locksim.<scenario>" name="<lock>">
//    per cell run, with a <failure> when a run of the cell did not match its
//    expectation, so CI systems show which combinations regressed.
//
// Every renderer is a pure function of the Comparison (the HTML one also of
// the re-run timelines, which are deterministic), so the same input renders
// to the same bytes.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/comparison.hpp"
#include "scenarios/runner.hpp"

namespace locksim::reports {

enum class ReportFormat { Markdown, Html, Json, Junit };

// "md" (or "markdown"), "html", "json", "junit"; nullopt for anything else.
std::optional<ReportFormat> report_format_from_name(std::string_view name);
std::string_view report_format_name(ReportFormat format);  // "md", "html", ...
std::string report_file_name(ReportFormat format);         // "report.md", "report.html", "report.json", "report.xml" (junit)

std::string render_markdown(const Comparison& comparison);
// The "## Confirmed on real Redis" section of the Markdown report alone
// ("" without live input): the agreement table the README carries.
std::string render_agreement_markdown(const Comparison& comparison);

// How the HTML report gets the timeline of a minimal failing run. The
// default re-runs it: resolve_scenario(source) + run_scenario with a trace.
// An error string is shown in place of the figure.
using RerunFn = std::function<Result<scenarios::RunResult, std::string>(const Cell& cell, const RunRef& run)>;
Result<scenarios::RunResult, std::string> rerun_for_timeline(const Cell& cell, const RunRef& run);

struct HtmlOptions {
  bool timelines = true;  // draw the minimal counterexample of each violated cell
  RerunFn rerun = rerun_for_timeline;
};
std::string render_html(const Comparison& comparison, const HtmlOptions& options = {});

nlohmann::ordered_json comparison_to_json(const Comparison& comparison);
std::string render_json(const Comparison& comparison);  // pretty-printed, newline-terminated

std::string render_junit(const Comparison& comparison);

std::string render_report(const Comparison& comparison, ReportFormat format);

// Shared by the renderers: a cell's violation kinds with rates, worst
// first ("ME 100%, SW 33%"), "safe" without any; the expectation as text.
std::string cell_summary(const Cell& cell);
std::string expected_text(const Cell& cell);
std::string found_text(const Cell& cell);

// "confirmed on real Redis" shared by the renderers: the status with its
// reason ("not run live: fault (line 40) delay: ..."), each side's violation
// sets ("—" without runs) and the live time scales ("0.01", "0.01, 0.3").
std::string agreement_text(const Agreement& agreement);
std::string simulated_outcomes_text(const Comparison& comparison, const Comparison::Key& key);
std::string live_outcomes_text(const Comparison& comparison, const Comparison::Key& key);
std::string live_time_scales_text(const Comparison& comparison, const Comparison::Key& key);
// How live mode produced the cell's faults, one per fault and way, "; "
// between: "pause redis-1: real (SIGSTOP, SIGCONT after the duration)";
// "no faults"; "—" without live runs; runs whose lines predate the record
// add "(N runs: not recorded)".
std::string live_mechanisms_text(const Comparison& comparison, const Comparison::Key& key);
// One sentence: "42 live runs: 30 cells confirmed, 2 differ, 10 not run live."
std::string agreement_counts_text(const Comparison& comparison);
// What the section says (for people), ending with agreement_counts_text.
std::string agreement_legend(const Comparison& comparison);

}  // namespace locksim::reports
