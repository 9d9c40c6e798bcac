// The Markdown report (a CI job summary: the decision table with a sentence
// per lock, the matrix, perf) and what every renderer shares: format names,
// cell summaries, and the dispatch on format.
#include <optional>
#include <algorithm>
#include <map>
#include <sstream>

#include "reports/decision.hpp"
#include "reports/library_comparison.hpp"
#include "reports/report.hpp"
#include "vocab/printable.hpp"

namespace locksim::reports {

namespace {

// Markdown's own characters escaped, and control characters (a report on
// stdout reaches a terminal: vocab/printable.hpp).
std::string md_escape(const std::string& raw) {
  const std::string text = printable(raw);
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '>') out += '\\';
    out += c;
  }
  return out;
}


// " — real: yes" after a matrix cell when the input has live runs.
std::string live_mark(const Comparison& c, const std::string& scenario, const std::string& lock) {
  if (!c.has_live()) return "";
  const auto status = c.agreement(scenario, lock).status;
  return " — real: " + std::string(status == Agreement::Status::NotRunLive ? "not run" : agreement_status_name(status));
}

// "✓ safe", "SW 100% (as expected)", "✗ SW 75%, ME 50%": a ✓ only where
// nothing was violated, so it never reads as "OK" over a violation.
std::string matrix_text(const Cell& cell) {
  if (!cell.all_matched()) return "✗ " + cell_summary(cell);
  return cell.violated() ? cell_summary(cell) + " (as expected)" : "✓ " + cell_summary(cell);
}

void markdown_matrix(std::ostringstream& out, const Comparison& c) {
  const auto locks = c.locks();
  out << "## Matrix\n\nEach cell: the violation kinds found and the share of seeds that found them; "
         "✓ safe and as expected; (as expected) violated as the scenario documents; ✗ some run did not "
         "find what its scenario expects; · not run. "
      << violation_abbrev_legend() << ".";
  if (c.has_live()) out << " real: confirmed on real Redis (see below).";
  out << "\n\n";
  out << "| scenario |";
  for (const auto& l : locks) out << " " << md_escape(l) << " |";
  out << "\n|---|";
  for (std::size_t i = 0; i < locks.size(); ++i) out << "---|";
  out << "\n| *family* |";
  for (const auto& l : locks) out << " *" << lock_group_label(l) << "* |";
  out << "\n";
  for (const auto& s : c.scenarios()) {
    out << "| " << md_escape(s) << " |";
    for (const auto& l : locks) {
      const Cell* cell = c.cell(s, l);
      if (!cell) out << " · |";
      else out << " " << matrix_text(*cell) << live_mark(c, s, l) << " |";
    }
    out << "\n";
  }
}

// Markdown has no colour: a square of the severity's colour says it.
const char* severity_square(Severity s) {
  switch (s) {
    case Severity::Corruption: return "🟥";
    case Severity::Overlap: return "🟧";
    case Severity::Unavailable: return "🟦";
    case Severity::Safe: return "🟩";
  }
  return "🟩";
}

// "🟥 corrupts 17% (2 sc., 40 runs)", "·" not tried.
std::string decision_cell_md(const DecisionCell* cell) {
  if (!cell) return " · |";
  const Severity s = cell->severity();
  std::string out = " " + std::string(severity_square(s)) + " " + std::string(severity_words(s));
  if (s != Severity::Safe) out += " " + format_rate(cell->share(s));
  out += " (" + std::to_string(cell->scenarios.size()) + " sc., " + std::to_string(cell->runs) +
         (cell->runs == 1 ? " run)" : " runs)");
  if (cell->unmatched) out += " ✗ " + std::to_string(cell->unmatched) + " not as expected";
  return out + " |";
}

void markdown_group_row(std::ostringstream& out, const Decision& d, const std::string& label) {
  out << "| *" << md_escape(label) << "* |";
  for (std::size_t i = 0; i < d.classes.size(); ++i) out << " |";
  out << "\n";
}

void markdown_decision(std::ostringstream& out, const Comparison& c) {
  const Decision d = decide(c);
  out << "## Which lock survives which fault\n\n";
  for (const auto& line : d.recommendation) out << "- " << md_escape(line) << "\n";
  if (!d.recommendation.empty()) out << "\n";
  out << "🟥 corrupts data (stale write accepted, another's lock released, oversold) · 🟧 two holders at once, no "
         "data corrupted · 🟦 lock unavailable · 🟩 survives · \"·\" not tried: no scenario with that kind of fault "
         "ran it. A cell: the worst in any run of the scenarios with that kind of fault, the share of their runs it "
         "happened in, and what it rests on (\"2 sc., 40 runs\": 2 scenarios, 40 runs). A story that takes no lock "
         "counts only in its method's row.\n\n| lock |";
  for (FaultClass f : d.classes) out << " " << md_escape(std::string(fault_class_name(f))) << " |";
  out << "\n|---|";
  for (std::size_t i = 0; i < d.classes.size(); ++i) out << "---|";
  out << "\n";
  std::optional<std::string> group;
  for (const auto& lock : d.locks) {
    if (group != lock_group_label(lock)) markdown_group_row(out, d, *(group = lock_group_label(lock)));
    out << "| **" << md_escape(lock) << "** |";
    for (FaultClass f : d.classes) out << decision_cell_md(d.cell(lock, f));
    out << "\n";
  }
  if (!d.no_lock_rows.empty()) {
    markdown_group_row(out, d, "no lock taken: the workload's own method");
    for (const auto& row : d.no_lock_rows) {
      out << "| **" << md_escape(row) << "** |";
      for (FaultClass f : d.classes) out << decision_cell_md(d.no_lock_cell(row, f));
      out << "\n";
    }
  }
  out << "\n";
  group.reset();
  for (const auto& lock : d.locks) {
    if (group != lock_group_label(lock)) out << (group ? "\n" : "") << "*" << *(group = lock_group_label(lock)) << "*\n\n";
    out << "- " << md_escape(d.sentences.at(lock)) << "\n";
  }
  if (!d.no_lock_rows.empty()) {
    out << "\n*no lock taken*\n\n";
    for (const auto& row : d.no_lock_rows) out << "- " << md_escape(d.no_lock_sentences.at(row)) << "\n";
  }
  out << "\n";
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
  for (const auto& kind : kinds_worst_first(cell.runs_with_kind))
    out += (out.empty() ? "" : ", ") + violation_abbrev(kind) + " " + format_rate(cell.rate(kind));
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

std::string agreement_text(const Agreement& a) {
  const std::string status(agreement_status_name(a.status));
  return a.status == Agreement::Status::NotRunLive ? status + ": " + a.reason : status;
}

std::string simulated_outcomes_text(const Comparison& c, const Comparison::Key& key) {
  const Cell* cell = c.cell(key.first, key.second);
  return cell ? outcomes_text(cell->outcomes) : "—";
}

std::string live_outcomes_text(const Comparison& c, const Comparison::Key& key) {
  const LiveCell* cell = c.live_cell(key.first, key.second);
  return cell && cell->runs ? outcomes_text(cell->outcomes) : "—";
}

std::string live_time_scales_text(const Comparison& c, const Comparison::Key& key) {
  const LiveCell* cell = c.live_cell(key.first, key.second);
  std::string out;
  if (cell)
    for (double scale : cell->time_scales) out += (out.empty() ? "" : ", ") + nlohmann::json(scale).dump();
  return out.empty() ? "—" : out;
}

std::string live_mechanisms_text(const Comparison& c, const Comparison::Key& key) {
  const LiveCell* cell = c.live_cell(key.first, key.second);
  if (!cell || cell->runs == 0) return "—";
  if (cell->runs_without_mechanisms == cell->runs) return "not recorded";
  std::string out;
  for (const auto& m : cell->fault_mechanisms) out += (out.empty() ? "" : "; ") + scenarios::fault_mechanism_text(m);
  if (out.empty()) out = "no faults";
  if (cell->runs_without_mechanisms)
    out += " (" + std::to_string(cell->runs_without_mechanisms) + " run" + (cell->runs_without_mechanisms == 1 ? "" : "s") +
           ": not recorded)";
  return out;
}

std::string agreement_legend(const Comparison& c) {
  return "Each scenario × lock run live against real redis-server processes (locksim sweep --live, time scaled) "
         "beside the simulation. yes: every live run found a violation set the simulation found for that cell; "
         "differs: a live run found another; not run live: live mode cannot reproduce it (the reason). How produced "
         "live: each fault as live mode made it — real (the process, clock, disk or link itself: SIGSTOP/SIGCONT, "
         "SIGKILL, the preload's server clock and fsync hold, the client runtime's clocks, the proxy's delay or cut), "
         "observed (a power loss cut back to what the server's fsyncs made durable) or emulated (said how). Live runs "
         "are not deterministic and do not count in the rates and verdicts. " +
         agreement_counts_text(c);
}

std::string agreement_counts_text(const Comparison& c) {
  std::map<Agreement::Status, std::size_t> counts;
  for (const auto& key : c.agreement_keys()) ++counts[c.agreement(key.first, key.second).status];
  std::string out = std::to_string(c.live_runs()) + " live run" + (c.live_runs() == 1 ? "" : "s") + ": " +
                    std::to_string(counts[Agreement::Status::Yes]) + " cells confirmed, " +
                    std::to_string(counts[Agreement::Status::Differs]) + " differ, " +
                    std::to_string(counts[Agreement::Status::NotRunLive]) + " not run live";
  if (counts[Agreement::Status::NotSimulated])
    out += ", " + std::to_string(counts[Agreement::Status::NotSimulated]) + " not simulated";
  return out + ".";
}

std::string render_agreement_markdown(const Comparison& c) {
  if (!c.has_live()) return "";
  std::ostringstream out;
  out << "## Confirmed on real Redis\n\n" << agreement_legend(c) << "\n\n"
      << "| scenario | lock | simulated | live | time scale | how produced live | confirmed on real Redis |\n"
         "|---|---|---|---|---|---|---|\n";
  for (const auto& key : c.agreement_keys()) {
    const Agreement a = c.agreement(key.first, key.second);
    const std::string text = md_escape(agreement_text(a));
    out << "| " << md_escape(key.first) << " | " << md_escape(key.second) << " | "
        << md_escape(simulated_outcomes_text(c, key)) << " | " << md_escape(live_outcomes_text(c, key)) << " | "
        << live_time_scales_text(c, key) << " | " << md_escape(live_mechanisms_text(c, key)) << " | "
        << (a.status == Agreement::Status::Differs ? "**" + text + "**" : text) << " |\n";
  }
  return out.str();
}

std::string render_library_markdown(const Comparison& c) {
  const std::vector<LibraryRow> rows = library_rows(c);
  if (rows.empty()) return "";
  std::ostringstream out;
  out << "## Client libraries beside their ports\n\n" << library_legend() << "\n\n"
      << "| scenario | library (live) | its outcome | port | port simulated | port live | |\n"
         "|---|---|---|---|---|---|---|\n";
  for (const LibraryRow& r : rows)
    out << "| " << md_escape(r.scenario) << " | " << md_escape(r.library) << " | " << md_escape(r.library_live) << " | "
        << (r.port.empty() ? "—" : md_escape(r.port)) << " | " << md_escape(r.port_simulated) << " | "
        << md_escape(r.port_live) << " | " << library_row_mark(r, true) << " |\n";
  return out.str();
}

std::string render_markdown(const Comparison& c) {
  std::ostringstream out;
  out << "# locksim comparison report\n\n";
  const Provenance& p = c.provenance;
  if (!p.generated_at.empty() || !p.version.empty()) out << "Made " << p.generated_at << " by " << md_escape(p.version);
  if (!p.command.empty()) out << ": `" << printable(p.command) << "`";
  if (!p.generated_at.empty() || !p.version.empty() || !p.command.empty()) out << "  \n";
  out << "Inputs: ";
  std::size_t i = 0;
  for (const InputFile& f : c.input_files())
    out << (i++ ? "; " : "") << "`" << printable(f.name) << "` (" << f.runs << " runs"
        << (f.duplicates ? ", " + std::to_string(f.duplicates) + " counted before" : "")
        << (f.live_lines ? ", " + std::to_string(f.live_lines) + " live lines" : "") << ")";
  out << ".\n\n" << c.runs() << " runs (" << c.scenarios().size() << " scenarios × " << c.locks().size() << " locks). ";
  if (c.duplicates()) out << c.duplicates() << " duplicate lines counted once. ";
  if (c.skipped_lines()) out << c.skipped_lines() << " truncated line(s) skipped. ";
  out << (c.unmatched_runs() == 0
              ? "Every run found what its scenario expects (known breakages included), which says nothing about safety."
              : "**" + std::to_string(c.unmatched_runs()) + " runs did not find what their scenario expects.**")
      << "\n\n";
  markdown_decision(out, c);
  markdown_matrix(out, c);
  if (c.has_live()) out << "\n" << render_agreement_markdown(c);
  if (const std::string libraries = render_library_markdown(c); !libraries.empty()) out << "\n" << libraries;
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
