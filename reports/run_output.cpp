// JSON and text renderings of a single run.
#include "reports/run_output.hpp"

#include <algorithm>
#include <sstream>

#include "reports/run_record.hpp"
#include "scenarios/checkers.hpp"
#include "sim/trace.hpp"
#include "vocab/joined.hpp"
#include "vocab/printable.hpp"

namespace locksim::reports {

namespace {

// ANSI SGR colours: red for a violation or a surprise, green for "nothing
// went wrong", bold for headings; plain text without colour.
std::string paint(const TextStyle& style, const std::string& text, const char* sgr) {
  return style.colour ? std::string("\x1b[") + sgr + "m" + text + "\x1b[0m" : text;
}
constexpr const char* kRed = "1;31";
constexpr const char* kGreen = "32";

std::string join(const std::set<std::string>& items) {
  return items.empty() ? "none" : joined(items);
}

}  // namespace

std::int64_t percentile(std::vector<std::int64_t> values, int p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t rank = (values.size() * static_cast<std::size_t>(p) + 99) / 100;
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

nlohmann::ordered_json run_to_json(const scenarios::RunResult& run) { return to_json(record_of(run)); }

std::string run_to_text(const scenarios::RunResult& run, const std::string& description, TextStyle style) {
  std::ostringstream out;
  out << "seed      " << run.seed << "\n";
  // Every name and sentence below comes from what a user wrote (scenario,
  // clients, lock, file): printable() keeps a control character in one from
  // acting on the terminal (a newline printing a forged verdict line).
  out << "scenario  " << printable(run.scenario) << (description.empty() ? "" : " — " + printable(description)) << "\n";
  out << "lock      " << printable(run.lock) << "\n\n";
  const auto found = run.violation_kinds();
  for (const std::string& kind : scenarios::violation_names()) {
    if (!run.history.sale && scenarios::is_sale_violation(kind)) continue;  // a lock run sells nothing
    const auto n = std::count_if(run.violations.begin(), run.violations.end(),
                                 [&](const auto& v) { return v.kind == kind; });
    out << "  " << (n ? paint(style, "VIOLATED", kRed) + " " : paint(style, "ok", kGreen) + "       ") << kind;
    if (n) out << " (" << n << ")";
    out << "\n";
  }
  if (!run.violations.empty()) out << "\nwhat went wrong:\n";
  int i = 0;
  for (const auto& v : run.violations) {
    out << "  " << ++i << ". " << format_seconds(v.at.time_since_epoch()) << "  " << v.kind << ": " << printable(v.detail) << "\n";
    for (const auto& e : v.evidence) out << "       - " << printable(e) << "\n";
  }
  out << "\n";
  if (const auto& sale = run.summary.sale) {
    out << "sale      " << sale->method << ": " << sale->orders << " orders stored";
    if (sale->refused) out << " (" << sale->refused << " refused)";
    out << ", " << sale->orders_per_s_milli / 1000 << "." << std::to_string(1000 + sale->orders_per_s_milli % 1000).substr(1)
        << " per simulated second, "
        << (sale->sold_out_ms ? "sold out at " + format_seconds(std::chrono::milliseconds(*sale->sold_out_ms))
                              : std::string("not sold out"))
        << "\n";
  }
  if (run.expected) {
    out << "expected  " << join(*run.expected) << (run.may.empty() ? "" : " (may also: " + join(run.may) + ")") << "\n";
    out << "found     " << join(found) << "\n";
    out << "verdict   " << (run.matched ? std::string("as expected") : paint(style, "UNEXPECTED", kRed)) << "\n";
  } else if (!run.matched && !run.outside_assumptions.empty()) {
    out << "verdict   violations found outside " << printable(run.lock) << "'s assumptions: they show what happens "
        << "without them, not a fault of " << printable(run.lock) << "\n";
  } else {
    out << "verdict   "
        << (run.matched ? paint(style, "safe: no violation", kGreen)
                        : paint(style, "UNSAFE: violations found (none expected)", kRed))
        << "\n";
  }
  for (const auto& why : run.outside_assumptions) out << "outside   " << printable(why) << "\n";
  for (const auto& what : run.adjusted) out << "adjusted  " << printable(what) << "\n";
  out << "repro     " << printable(run.repro) << "\n";
  out << "digest    " << sim::Trace::hex(run.digest) << " (" << run.events << " events, "
      << format_seconds(std::chrono::milliseconds(run.sim_time_ms)) << " simulated)\n";
  return out.str();
}

std::string trace_to_text(const scenarios::RunResult& run) {
  std::ostringstream out;
  for (const auto& r : run.trace) {
    const std::string host = r.host < run.host_names.size() ? run.host_names[r.host] : "-";
    out << "  " << format_seconds(r.at.time_since_epoch()) << "  #" << r.seq << "  " << printable(host) << "  "
        << printable(r.kind);
    if (!r.detail.empty()) out << "  " << printable(r.detail);
    out << "\n";
  }
  return out.str();
}

}  // namespace locksim::reports
