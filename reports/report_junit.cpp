// The JUnit XML report: one <testcase classname="locksim.<scenario>"
// name="<lock>"> per cell run, a <failure> with the repro commands when a run
// of the cell did not match its expectation. The shape is the common one CI
// systems read (Jenkins, GitLab, GitHub test reporters): <testsuites> holding
// one <testsuite> with tests/failures/errors/skipped counts. With live input
// each test case carries <properties> (as pytest's record_property writes
// them): confirmed_on_real_redis ("yes", "differs", "not run live: why")
// and the live violation sets; a difference is not a failure (live runs
// are not deterministic; the live_agreement test judges them).
#include <sstream>

#include "reports/report.hpp"
#include "reports/xml_text.hpp"

namespace locksim::reports {

namespace {

void property(std::ostringstream& out, const std::string& name, const std::string& value) {
  out << "        <property name=\"" << xml_escape(name) << "\" value=\"" << xml_escape(value) << "\"/>\n";
}

void live_properties(std::ostringstream& out, const Comparison& c, const Cell& cell) {
  if (!c.has_live()) return;
  const Comparison::Key key{cell.scenario, cell.lock};
  out << "      <properties>\n";
  property(out, "confirmed_on_real_redis", agreement_text(c.agreement(cell.scenario, cell.lock)));
  property(out, "live_violations", live_outcomes_text(c, key));
  out << "      </properties>\n";
}

void testcase(std::ostringstream& out, const Comparison& c, const Cell& cell) {
  out << "    <testcase classname=\"locksim." << xml_escape(cell.scenario) << "\" name=\"" << xml_escape(cell.lock)
      << "\" time=\"0\">\n";
  live_properties(out, c, cell);
  if (!cell.all_matched()) {
    std::ostringstream body;
    body << "expected: " << expected_text(cell) << "\nfound: " << found_text(cell) << "\nrepro:\n";
    for (const auto& r : cell.unmatched_examples) body << "  " << r.repro << "\n";
    if (cell.unmatched > cell.unmatched_examples.size())
      body << "  (" << cell.unmatched - cell.unmatched_examples.size() << " more)\n";
    out << "      <failure type=\"unmatched\" message=\""
        << xml_escape(std::to_string(cell.unmatched) + " of " + std::to_string(cell.runs) +
                      " runs did not match the expectation")
        << "\">" << xml_escape(body.str()) << "</failure>\n";
  }
  out << "      <system-out>" << xml_escape(std::to_string(cell.runs) + " runs: " + cell_summary(cell))
      << "</system-out>\n";
  out << "    </testcase>\n";
}

}  // namespace

std::string render_junit(const Comparison& c) {
  std::size_t failures = 0;
  for (const auto& [key, cell] : c.cells()) failures += cell.all_matched() ? 0 : 1;
  const std::string counts = "tests=\"" + std::to_string(c.cells().size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"0\" skipped=\"0\" time=\"0\"";
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"locksim\" " << counts << ">\n";
  out << "  <testsuite name=\"locksim\" " << counts << ">\n";
  for (const auto& [key, cell] : c.cells()) testcase(out, c, cell);
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

}  // namespace locksim::reports
