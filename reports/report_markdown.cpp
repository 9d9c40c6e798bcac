// The Markdown report (a CI job summary) and what every renderer shares:
// format names, cell summaries, and the dispatch on format.
#include <algorithm>
#include <sstream>

#include "reports/report.hpp"

namespace locksim::reports {

namespace {

// Kinds in the order a reader should see them: worst first.
const std::vector<std::string>& kind_order() {
  static const std::vector<std::string> order{"wrong-owner-release", "lock-unavailable", "stale-write",
                                              "mutual-exclusion"};
  return order;
}

std::string md_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '>') out += '\\';
    out += c;
  }
  return out;
}


void markdown_matrix(std::ostringstream& out, const Comparison& c) {
  const auto locks = c.locks();
  out << "## Matrix\n\nEach cell: the violation kinds found and the share of seeds that found them; "
         "✓ every run matched its expectation, ✗ some run did not; · not run. "
         "ME mutual-exclusion, WOR wrong-owner-release, SW stale-write, LU lock-unavailable.\n\n";
  out << "| scenario |";
  for (const auto& l : locks) out << " " << md_escape(l) << " |";
  out << "\n|---|";
  for (std::size_t i = 0; i < locks.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& s : c.scenarios()) {
    out << "| " << md_escape(s) << " |";
    for (const auto& l : locks) {
      const Cell* cell = c.cell(s, l);
      if (!cell) out << " · |";
      else out << " " << (cell->all_matched() ? "✓ " : "✗ ") << cell_summary(*cell) << " |";
    }
    out << "\n";
  }
}

void markdown_verdicts(std::ostringstream& out, const Comparison& c) {
  out << "\n## Verdicts\n\n";
  for (const auto& l : c.locks()) out << "- **" << md_escape(l) << "**: " << md_escape(c.verdict(l).text) << "\n";
}

void markdown_perf(std::ostringstream& out, const Comparison& c) {
  out << "\n## Performance in the simulation\n\n"
         "Over all scenarios of each lock: the median of the runs' acquire p50, the worst run's p99, "
         "Redis round trips per acquisition (retries included), acquisitions per simulated second.\n\n"
         "| lock | runs | acquire p50 (median) | acquire p99 (max) | round trips / acquisition | "
         "acquisitions / sim s | gave up |\n|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& l : c.locks()) {
    const CellPerf p = c.lock_perf(l);
    out << "| " << md_escape(l) << " | " << p.acquire_p50_us.count() << " | " << format_latency_us(p.median_acquire_p50_us())
        << " | " << format_latency_us(p.acquire_p99_us_max) << " | " << format_fixed(p.round_trips_per_acquisition(), 1) << " | "
        << format_fixed(p.acquisitions_per_sim_second(), 3) << " | " << p.gave_up << " |\n";
  }
}

void markdown_unmatched(std::ostringstream& out, const Comparison& c) {
  bool any = false;
  for (const auto& [key, cell] : c.cells()) {
    if (cell.all_matched()) continue;
    if (!any) out << "\n## Not as expected\n\n";
    any = true;
    out << "- **" << md_escape(key.first) << " × " << md_escape(key.second) << "**: " << cell.unmatched << " of "
        << cell.runs << " runs; expected " << md_escape(expected_text(cell)) << ", found "
        << md_escape(found_text(cell)) << "\n";
    for (const auto& r : cell.unmatched_examples) out << "  - `" << r.repro << "`\n";
  }
}

}  // namespace

std::optional<ReportFormat> report_format_from_name(std::string_view name) {
  if (name == "md" || name == "markdown") return ReportFormat::Markdown;
  if (name == "html") return ReportFormat::Html;
  if (name == "json") return ReportFormat::Json;
  if (name == "junit") return ReportFormat::Junit;
  return std::nullopt;
}

std::string_view report_format_name(ReportFormat format) {
  switch (format) {
    case ReportFormat::Markdown: return "md";
    case ReportFormat::Html: return "html";
    case ReportFormat::Json: return "json";
    case ReportFormat::Junit: return "junit";
  }
  return "md";
}

std::string report_file_name(ReportFormat format) {
  return format == ReportFormat::Junit ? "report.xml" : "report." + std::string(report_format_name(format));
}

std::string cell_summary(const Cell& cell) {
  std::string out;
  for (const auto& kind : kind_order())
    if (cell.rate(kind) > 0) out += (out.empty() ? "" : ", ") + violation_abbrev(kind) + " " + format_rate(cell.rate(kind));
  for (const auto& [kind, n] : cell.runs_with_kind)
    if (n > 0 && std::find(kind_order().begin(), kind_order().end(), kind) == kind_order().end())
      out += (out.empty() ? "" : ", ") + kind + " " + format_rate(cell.rate(kind));
  return out.empty() ? "safe" : out;
}

std::string expected_text(const Cell& cell) {
  if (cell.expected_varies) return "(varies between runs)";
  if (!cell.expected) return "no expectation (no violation)";
  std::string out, may;
  for (const auto& k : *cell.expected) out += (out.empty() ? "" : ", ") + k;
  for (const auto& k : cell.may) may += (may.empty() ? "" : ", ") + k;
  if (out.empty()) out = "none";
  return may.empty() ? out : out + " (may also: " + may + ")";
}

std::string found_text(const Cell& cell) {
  std::string out;
  for (const auto& [kind, n] : cell.runs_with_kind)
    out += (out.empty() ? "" : ", ") + kind + " in " + std::to_string(n) + "/" + std::to_string(cell.runs);
  return out.empty() ? "none" : out;
}

std::string render_markdown(const Comparison& c) {
  std::ostringstream out;
  out << "# locksim comparison report\n\n"
      << c.runs() << " runs (" << c.scenarios().size() << " scenarios × " << c.locks().size() << " locks) from "
      << md_escape(c.sources_label()) << ". ";
  if (c.duplicates()) out << c.duplicates() << " duplicate lines counted once. ";
  if (c.skipped_lines()) out << c.skipped_lines() << " truncated line(s) skipped. ";
  out << (c.unmatched_runs() == 0 ? "**Every run matched its expectation.**"
                                  : "**" + std::to_string(c.unmatched_runs()) + " runs did not match their expectation.**")
      << "\n\n";
  markdown_matrix(out, c);
  markdown_verdicts(out, c);
  markdown_perf(out, c);
  markdown_unmatched(out, c);
  return out.str();
}

std::string render_report(const Comparison& comparison, ReportFormat format) {
  switch (format) {
    case ReportFormat::Markdown: return render_markdown(comparison);
    case ReportFormat::Html: return render_html(comparison);
    case ReportFormat::Json: return render_json(comparison);
    case ReportFormat::Junit: return render_junit(comparison);
  }
  return render_markdown(comparison);
}

}  // namespace locksim::reports
