// JSON and text renderings of a single run.
#include "reports/run_output.hpp"

#include <algorithm>
#include <sstream>

#include "reports/run_record.hpp"
#include "sim/trace.hpp"

namespace locksim::reports {

namespace {

std::string seconds(std::int64_t ms) {
  std::ostringstream s;
  s << ms / 1000 << "." << std::to_string(1000 + ms % 1000).substr(1) << "s";
  return s.str();
}

std::string join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out.empty() ? "none" : out;
}

}  // namespace

std::int64_t percentile(std::vector<std::int64_t> values, int p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t rank = (values.size() * static_cast<std::size_t>(p) + 99) / 100;
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

nlohmann::ordered_json run_to_json(const scenarios::RunResult& run) { return to_json(record_of(run)); }

std::string run_to_text(const scenarios::RunResult& run, const std::string& description) {
  std::ostringstream out;
  out << "seed      " << run.seed << "\n";
  out << "scenario  " << run.scenario << (description.empty() ? "" : " — " + description) << "\n";
  out << "lock      " << run.lock << "\n\n";
  const auto found = run.violation_kinds();
  for (const std::string& kind : scenarios::violation_names()) {
    const auto n = std::count_if(run.violations.begin(), run.violations.end(),
                                 [&](const auto& v) { return v.kind == kind; });
    out << "  " << (n ? "VIOLATED " : "ok       ") << kind;
    if (n) out << " (" << n << ")";
    out << "\n";
  }
  if (!run.violations.empty()) out << "\nwhat went wrong:\n";
  int i = 0;
  for (const auto& v : run.violations) {
    out << "  " << ++i << ". " << seconds(sim::to_ms(v.at)) << "  " << v.kind << ": " << v.detail << "\n";
    for (const auto& e : v.evidence) out << "       - " << e << "\n";
  }
  out << "\n";
  if (run.expected) {
    out << "expected  " << join(*run.expected) << (run.may.empty() ? "" : " (may also: " + join(run.may) + ")") << "\n";
    out << "found     " << join(found) << "\n";
    out << "verdict   " << (run.matched ? "as expected" : "UNEXPECTED") << "\n";
  } else {
    out << "verdict   " << (run.matched ? "safe: no violation" : "UNSAFE: violations found (none expected)") << "\n";
  }
  out << "repro     " << run.repro << "\n";
  out << "digest    " << sim::Trace::hex(run.digest) << " (" << run.events << " events, " << run.sim_time_ms
      << " ms simulated)\n";
  return out.str();
}

std::string trace_to_text(const scenarios::RunResult& run) {
  std::ostringstream out;
  for (const auto& r : run.trace) {
    const std::string host = r.host < run.host_names.size() ? run.host_names[r.host] : "-";
    out << "  " << seconds(sim::to_ms(r.at)) << "  #" << r.seq << "  " << host << "  " << r.kind;
    if (!r.detail.empty()) out << "  " << r.detail;
    out << "\n";
  }
  return out.str();
}

}  // namespace locksim::reports
