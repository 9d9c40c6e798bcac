// Tests of `locksim report`: the comparison model is checked against a
// hand-written JSONL whose numbers are worked out by hand (rates, matched
// counts, minimal failing seed, perf); merging rules (duplicates count
// once, a conflicting digest is refused, a truncated last line is skipped);
// verdicts come from the data; the renderers produce well-formed documents
// (xmllint, from libxml2-utils, which scripts/setup.sh installs: the tests
// fail when it is missing) with the right matrix, timelines and counts; and
// the CLI's exit codes and atomic --out.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "reports/comparison.hpp"
#include "reports/decision.hpp"
#include "reports/library_comparison.hpp"
#include "reports/report.hpp"
#include "reports/numbers.hpp"
#include "reports/run_output.hpp"
#include "reports/run_record.hpp"
#include "scenarios/catalog.hpp"
#include "live/live_fault_appliers.hpp"
#include "scenarios/fault_mechanism.hpp"
#include "scenarios/runner.hpp"

namespace {

using namespace locksim;
using reports::Comparison;
using nlohmann::json;
namespace fs = std::filesystem;

struct Line {
  std::string scenario = "gc-pause";
  std::string lock = "naive-del";
  std::uint64_t seed = 1;
  std::uint64_t events = 1000;
  std::vector<std::string> kinds;
  std::optional<std::vector<std::string>> expected = std::vector<std::string>{};
  bool matched = true;
  std::int64_t p50 = 1000, p99 = 2000;
  std::uint64_t round_trips = 10, acquisitions = 2;
  std::string digest;  // default: derived from scenario, lock, seed
  std::string sale_method;  // non-empty: the run sells a stock by this method ("stats"."sale")

  // Fluent setters (designated initializers that skip members trip GCC 12's
  // -Wmissing-field-initializers).
  Line& in(std::string s, std::string l) { return scenario = std::move(s), lock = std::move(l), *this; }
  Line& with_seed(std::uint64_t n) { return seed = n, *this; }
  Line& with_events(std::uint64_t n) { return events = n, *this; }
  Line& with_kinds(std::vector<std::string> k) { return kinds = std::move(k), *this; }
  Line& expecting(std::vector<std::string> e) { return expected = std::move(e), *this; }
  Line& not_matched() { return matched = false, *this; }
  Line& with_perf(std::int64_t p50_us, std::int64_t p99_us, std::uint64_t rts, std::uint64_t acqs) {
    return p50 = p50_us, p99 = p99_us, round_trips = rts, acquisitions = acqs, *this;
  }
  Line& with_digest(std::string d) { return digest = std::move(d), *this; }
  Line& selling_by(std::string m) { return sale_method = std::move(m), *this; }
};

std::string line(const Line& l) {
  json j;
  j["scenario"] = l.scenario;
  j["lock"] = l.lock;
  j["seed"] = l.seed;
  std::ostringstream d;
  d << std::hex << (l.seed * 7919 + l.lock.size() * 131 + l.scenario.size());
  j["digest"] = l.digest.empty() ? d.str() : l.digest;
  j["events"] = l.events;
  j["sim_time_ms"] = 60000;
  j["violations"] = json::array();
  for (const auto& k : l.kinds)
    j["violations"].push_back({{"kind", k}, {"at_ms", 100}, {"clients", {"A", "B"}}, {"detail", "d"}, {"evidence", json::array()}});
  j["expected"] = l.expected ? json(*l.expected) : json(nullptr);
  j["matched"] = l.matched;
  j["repro"] = "locksim run " + l.scenario + " --lock " + l.lock + " --seed " + std::to_string(l.seed);
  j["source"] = l.scenario;
  j["stats"] = {{"attempts", l.acquisitions}, {"acquisitions", l.acquisitions}, {"gave_up", 0},
                {"round_trips", l.round_trips}, {"acquire_p50_us", l.p50}, {"acquire_p99_us", l.p99}};
  if (!l.sale_method.empty())
    j["stats"]["sale"] = {{"method", l.sale_method}, {"orders", 5}, {"refused", 0}, {"sold_out_ms", nullptr},
                          {"orders_per_s", 2.5}};
  return j.dump();
}

// A `live --format json` line: the run object plus "live".
std::string live_line(const Line& l, double time_scale = 0.01) {
  json j = json::parse(line(l));
  j["repro"] = "locksim live " + l.scenario + " --lock " + l.lock + " --time-scale 0.01";
  j["live"] = {{"time_scale", time_scale}, {"deterministic", false}, {"notes", {"live run"}}};
  // How live mode would produce the catalog scenario's faults, as it writes them.
  auto scenario = scenarios::resolve_scenario(l.scenario);
  REQUIRE(scenario);
  j["live"]["fault_mechanisms"] = reports::fault_mechanisms_json(live::live_fault_mechanisms(*scenario));
  return j.dump();
}

// A `sweep --live` line for a cell live mode cannot do.
std::string live_skip_line(const std::string& scenario, const std::string& lock, const std::string& why) {
  return json{{"scenario", scenario}, {"lock", lock}, {"seed", 1}, {"source", scenario}, {"expected", nullptr},
              {"repro", "locksim live " + scenario + " --lock " + lock + " --time-scale 0.01"},
              {"live", {{"time_scale", 0.01}, {"deterministic", false}, {"skipped", why}}}}
      .dump();
}

// A real run of a catalog scenario as a sweep writes it (with its newline).
std::string simulated_line(const std::string& scenario, const std::string& lock, std::uint64_t seed) {
  auto s = scenarios::resolve_scenario(scenario);
  REQUIRE(s);
  scenarios::RunOptions options;
  options.lock_kind = lock;
  options.seed = seed;
  options.scenario_ref = scenario;
  auto run = scenarios::run_scenario(*s, options);
  REQUIRE(run);
  return reports::run_to_json(*run).dump() + "\n";
}

Result<bool, reports::ReportError> read(const std::string& text, Comparison& c, std::string* warnings = nullptr) {
  std::istringstream in(text);
  std::ostringstream warn;
  auto r = reports::read_jsonl(in, "sweep.jsonl", c, warn);
  if (warnings) *warnings = warn.str();
  return r;
}

// gc-pause × naive-del, four seeds, expecting {ME, SW}:
//   seed 1: ME+SW, 900 events, matched     seed 2: SW, 700 events, unmatched
//   seed 3: none, 500 events, unmatched    seed 4: ME+SW, 700 events, matched
// plus baseline × naive-del (one safe run) and gc-pause × token (stale writes only).
std::string hand_written_sweep() {
  const std::vector<std::string> me_sw{"mutual-exclusion", "stale-write"};
  std::string text;
  auto add = [&](Line l) { text += line(l) + "\n"; };
  add(Line().with_seed(1).with_events(900).with_kinds(me_sw).expecting(me_sw).with_perf(1000, 5000, 10, 2));
  add(Line().with_seed(2).with_events(700).with_kinds({"stale-write"}).expecting(me_sw).not_matched().with_perf(
      2000, 9000, 20, 2));
  add(Line().with_seed(3).with_events(500).expecting(me_sw).not_matched().with_perf(3000, 4000, 30, 3));
  add(Line().with_seed(4).with_events(700).with_kinds(me_sw).expecting(me_sw).with_perf(4000, 6000, 40, 3));
  add(Line().in("baseline", "naive-del"));
  add(Line().in("gc-pause", "token").with_kinds({"stale-write"}).expecting({"stale-write"}));
  return text;
}

// hand_written_sweep() plus live lines: gc-pause × token agrees (SW),
// gc-pause × naive-del differs (live ME only; simulated {ME,SW}, {SW}, {}),
// baseline × naive-del was refused live, delayed-packet × token ran live only.
std::string sweep_with_live() {
  return hand_written_sweep() +
         live_line(Line().in("gc-pause", "token").with_kinds({"stale-write"}).with_digest("feed")) + "\n" +
         live_line(Line().with_kinds({"mutual-exclusion"}).with_seed(1).with_digest("beef")) + "\n" +
         live_skip_line("baseline", "naive-del", "fault (line 40) delay: unsupported in live mode yet") + "\n" +
         live_line(Line().in("delayed-packet", "token"), 0.3) + "\n";
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("locksim-test-report-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void require_xmllint() {
  if (std::system("xmllint --version > /dev/null 2>&1") != 0)
    FAIL("xmllint is not installed: install libxml2-utils (scripts/setup.sh does) to check reports parse");
}

// xmllint's diagnostics for a file ("" = clean). html: the HTML parser,
// which knows HTML 4 only, so its "Tag svg invalid" for HTML5/SVG elements
// is dropped; every other complaint stays.
std::string xmllint_errors(const fs::path& file, bool html) {
  const fs::path log = file.string() + ".xmllint";
  const std::string cmd =
      std::string("xmllint ") + (html ? "--html " : "") + "--noout '" + file.string() + "' 2> '" + log.string() + "'";
  const int rc = std::system(cmd.c_str());
  std::istringstream lines(slurp(log));
  std::string out, l;
  while (std::getline(lines, l)) {
    if (html && l.find("HTML parser error : Tag ") != std::string::npos && l.find(" invalid") != std::string::npos) {
      std::getline(lines, l);  // the quoted source line
      std::getline(lines, l);  // the caret
      continue;
    }
    out += l + "\n";
  }
  if (rc != 0 && out.empty()) out = "xmllint exited with " + std::to_string(rc);
  return out;
}

int run_cli(const std::string& args, const fs::path& stdout_file = "/dev/null") {
  const std::string cmd = std::string(LOCKSIM_BINARY) + " " + args + " > '" + stdout_file.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// The shape CI systems read (after Jenkins' junit.xsd, trimmed to what
// locksim writes): <testsuites> of <testsuite> of <testcase>, each with an
// optional <failure> and <system-out>, counts as non-negative integers.
constexpr const char* kJunitXsd = R"(<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <xs:attributeGroup name="counts">
    <xs:attribute name="tests" type="xs:nonNegativeInteger" use="required"/>
    <xs:attribute name="failures" type="xs:nonNegativeInteger" use="required"/>
    <xs:attribute name="errors" type="xs:nonNegativeInteger"/>
    <xs:attribute name="skipped" type="xs:nonNegativeInteger"/>
    <xs:attribute name="time" type="xs:decimal"/>
  </xs:attributeGroup>
  <xs:element name="testsuites">
    <xs:complexType>
      <xs:sequence><xs:element ref="testsuite" maxOccurs="unbounded"/></xs:sequence>
      <xs:attribute name="name" type="xs:string"/>
      <xs:attributeGroup ref="counts"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="testsuite">
    <xs:complexType>
      <xs:sequence><xs:element ref="testcase" minOccurs="0" maxOccurs="unbounded"/></xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attributeGroup ref="counts"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="testcase">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="properties" minOccurs="0">
          <xs:complexType><xs:sequence>
            <xs:element name="property" maxOccurs="unbounded">
              <xs:complexType>
                <xs:attribute name="name" type="xs:string" use="required"/>
                <xs:attribute name="value" type="xs:string" use="required"/>
              </xs:complexType>
            </xs:element>
          </xs:sequence></xs:complexType>
        </xs:element>
        <xs:element name="failure" minOccurs="0" maxOccurs="unbounded">
          <xs:complexType><xs:simpleContent><xs:extension base="xs:string">
            <xs:attribute name="message" type="xs:string"/>
            <xs:attribute name="type" type="xs:string"/>
          </xs:extension></xs:simpleContent></xs:complexType>
        </xs:element>
        <xs:element name="system-out" type="xs:string" minOccurs="0"/>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="classname" type="xs:string" use="required"/>
      <xs:attribute name="time" type="xs:decimal"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
)";

}  // namespace

TEST_CASE("a cell's rates, matched counts, minimal failing seed and perf come from its runs", "[report]") {
  Comparison c;
  REQUIRE(read(hand_written_sweep(), c));
  CHECK(c.runs() == 6);
  CHECK(c.unmatched_runs() == 2);
  CHECK(c.scenarios() == std::vector<std::string>{"baseline", "gc-pause"});
  CHECK(c.locks() == std::vector<std::string>{"naive-del", "token"});
  const reports::Cell* cell = c.cell("gc-pause", "naive-del");
  REQUIRE(cell);
  CHECK(cell->runs == 4);
  CHECK(cell->rate("stale-write") == Approx(0.75));
  CHECK(cell->rate("mutual-exclusion") == Approx(0.5));
  CHECK(cell->rate("wrong-owner-release") == 0);
  CHECK(cell->matched == 2);
  CHECK(cell->unmatched == 2);
  CHECK(cell->expected == std::set<std::string>{"mutual-exclusion", "stale-write"});
  REQUIRE(cell->minimal_failing);
  CHECK(cell->minimal_failing->seed == 2);  // 700 events, tied with seed 4: the lower seed; seed 3 did not fail
  CHECK(cell->minimal_failing->repro == "locksim run gc-pause --lock naive-del --seed 2");
  REQUIRE(cell->unmatched_examples.size() == 2);
  CHECK(cell->unmatched_examples[0].seed == 2);
  CHECK(cell->unmatched_examples[1].seed == 3);
  CHECK(cell->perf.median_acquire_p50_us() == 2000);  // nearest rank of {1000, 2000, 3000, 4000}
  CHECK(cell->perf.acquire_p99_us_max == 9000);
  CHECK(cell->perf.round_trips_per_acquisition() == Approx(10.0));  // 100 / 10
  CHECK(cell->perf.acquisitions_per_sim_second() == Approx(10.0 / 240.0));
  CHECK_FALSE(c.cell("baseline", "token"));
  CHECK_FALSE(c.cell("baseline", "naive-del")->violated());
}

TEST_CASE("a cell shows the violations its runs may show beside the ones they must", "[report]") {
  json j = json::parse(line(Line().with_kinds({"stale-write"}).expecting({"stale-write"})));
  j["may"] = {"mutual-exclusion"};
  Comparison c;
  REQUIRE(read(j.dump() + "\n", c));
  const reports::Cell* cell = c.cell("gc-pause", "naive-del");
  REQUIRE(cell);
  CHECK(cell->may == std::set<std::string>{"mutual-exclusion"});
  CHECK(reports::expected_text(*cell) == "stale-write (may also: mutual-exclusion)");
  CHECK_FALSE(cell->expected_varies);
}

TEST_CASE("a run repeated across merged shard files counts once", "[report]") {
  const std::string sweep = hand_written_sweep();
  Comparison c;
  REQUIRE(read(sweep, c));
  REQUIRE(read(sweep, c));
  CHECK(c.runs() == 6);
  CHECK(c.duplicates() == 6);
  CHECK(c.cell("gc-pause", "naive-del")->runs == 4);
  CHECK(c.cell("gc-pause", "naive-del")->rate("stale-write") == Approx(0.75));
}

TEST_CASE("the seed index finds repeats whatever order and spread the seeds come in", "[report]") {
  reports::SeedIndex index;
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t s = 5000; s >= 1; --s) seeds.push_back(s);  // shards merged last-first
  seeds.push_back(1'000'000'000'000ULL);                         // far outliers
  seeds.push_back(~0ULL);
  for (auto s : seeds) REQUIRE_FALSE(index.insert(s, s * 3 + 1));
  for (auto s : seeds) {
    const auto previous = index.insert(s, 0);
    REQUIRE(previous);
    CHECK(*previous == s * 3 + 1);
  }
  CHECK_FALSE(index.insert(0, 7));
}

TEST_CASE("a run recorded twice with different digests is refused as broken determinism", "[report]") {
  Comparison c;
  REQUIRE(read(line(Line().with_seed(5).with_digest("aaaa")) + "\n", c));
  auto r = read(line(Line().with_seed(5).with_digest("bbbb")) + "\n", c);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == reports::ReportError::Kind::Nondeterminism);
  CHECK_THAT(r.error().message, Catch::Contains("determinism") && Catch::Contains("seed 5") &&
                                    Catch::Contains("sweep.jsonl:1"));
}

TEST_CASE("one run in two digest formats is refused as files of different formats, not broken determinism (issue 35)",
          "[report]") {
  Comparison c;
  json newer = json::parse(line(Line().with_seed(5).with_digest("bbbb")));
  newer["digest_format"] = 2;
  // A line without digest_format is format 1 (written before the field existed).
  REQUIRE(read(line(Line().with_seed(5).with_digest("aaaa")) + "\n" + line(Line().with_seed(6)) + "\n", c));
  auto r = read(newer.dump() + "\n", c);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == reports::ReportError::Kind::BadInput);
  CHECK_THAT(r.error().message, Catch::StartsWith("sweep.jsonl:1: gc-pause with naive-del seed 5 is recorded with "
                                                  "digest format 2 here and with format 1 in sweep.jsonl: the files "
                                                  "are of different formats"));
  // Other seeds in either format are fine together.
  Comparison mixed;
  newer["seed"] = 7;
  REQUIRE(read(line(Line().with_seed(5)) + "\n" + newer.dump() + "\n", mixed));
  CHECK(mixed.runs() == 2);
}

TEST_CASE("a JSONL line over the size cap or nested too deep is refused before it is built (issue 35)", "[report]") {
  const std::string good = line(Line().with_seed(1)) + "\n";
  // Over 1 MiB: refused without parsing (a 100 MB line needed GBs).
  const std::string huge = "{\"scenario\": \"" + std::string(reports::kMaxJsonlLineBytes, 'x') + "\"}\n";
  Comparison c;
  auto r = read(good + huge + good, c);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "sweep.jsonl:2: the line is over 1048576 bytes (the cap for one run record: a record is "
                             "a few kilobytes)");
  // Nested deeper than 64: refused as soon as the 65th level opens.
  const std::string deep = std::string(100, '[') + std::string(100, ']') + "\n";
  Comparison d;
  r = read(good + deep, d);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "sweep.jsonl:2: nested deeper than 64 levels (the cap for one run record, which nests a "
                             "few levels)");
  // Just under both caps, a line is read (and then judged as a record).
  Comparison e;
  r = read(good + std::string(64, '[') + std::string(64, ']') + "\n", e);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("expected a JSON object"));
  // The line reader itself: chunk boundaries, a last line without newline, an empty line.
  std::istringstream in(std::string(70000, 'a') + "\n\n" + std::string(65535, 'b') + "\nend");
  reports::JsonlLine next;
  REQUIRE(reports::next_jsonl_line(in, next));
  CHECK((next.text.size() == 70000 && next.terminated && !next.too_long));
  REQUIRE(reports::next_jsonl_line(in, next));
  CHECK((next.text.empty() && next.terminated));
  REQUIRE(reports::next_jsonl_line(in, next));
  CHECK((next.text == std::string(65535, 'b') && next.terminated));
  REQUIRE(reports::next_jsonl_line(in, next));
  CHECK((next.text == "end" && !next.terminated));
  CHECK_FALSE(reports::next_jsonl_line(in, next));
  // parse_run_record (replay's and resume's reader) has the same bounds.
  CHECK(reports::parse_run_record(deep).error() == "nested deeper than 64 levels (the cap for one run record, which "
                                                   "nests a few levels)");
}

TEST_CASE("a truncated last line is skipped with a warning", "[report]") {
  const std::string full = line(Line().with_seed(1)) + "\n" + line(Line().with_seed(2));
  const std::string cut = full.substr(0, full.size() - 20);  // a sweep killed mid-write
  Comparison c;
  std::string warnings;
  REQUIRE(read(cut, c, &warnings));
  CHECK(c.runs() == 1);
  CHECK(c.skipped_lines() == 1);
  CHECK_THAT(warnings, Catch::Contains("sweep.jsonl:2") && Catch::Contains("truncated"));
}

TEST_CASE("a garbage last line is an error, never taken for a truncated one", "[report]") {
  const std::string good = line(Line().with_seed(1)) + "\n";
  // Torn: the start of an object, no newline after it. Anything else is garbage.
  for (const std::string& bad : {std::string("garbage\n"), std::string("garbage"), std::string("{\"scenario\": \n"),
                                std::string("[1, 2")}) {
    INFO(bad);
    Comparison c;
    std::string warnings;
    auto r = read(good + bad, c, &warnings);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "sweep.jsonl:2: not valid JSON");
    CHECK(warnings.empty());
  }
}

TEST_CASE("a malformed line before the last is an error naming the file and line", "[report]") {
  Comparison c;
  auto r = read(line(Line().with_seed(1)) + "\n{\"scenario\": \n" + line(Line().with_seed(2)) + "\n", c);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == reports::ReportError::Kind::BadInput);
  CHECK_THAT(r.error().message, Catch::StartsWith("sweep.jsonl:2: "));
}

TEST_CASE("a run object without a required field is an error naming the field", "[report]") {
  json j = json::parse(line(Line()));
  j.erase("matched");
  Comparison c;
  auto r = read(line(Line().with_seed(2)) + "\n" + j.dump() + "\n", c);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "sweep.jsonl:2: matched: expected true or false");
  j = json::parse(line(Line()));
  j["seed"] = "one";
  r = read(j.dump() + "\n", c);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("seed:"));
}

TEST_CASE("a run record reads back to the same line, simulated, live or skipped", "[report]") {
  auto scenario = scenarios::resolve_scenario("gc-pause");
  REQUIRE(scenario);
  scenarios::RunOptions options;
  options.lock_kind = "naive-del";
  options.seed = 3;
  auto run = scenarios::run_scenario(*scenario, options);
  REQUIRE(run);
  reports::RunRecord record = reports::record_of(*run);
  const std::string text = reports::to_line(record);
  CHECK(text == reports::run_to_json(*run).dump());
  auto back = reports::parse_run_record(text);
  REQUIRE(back);
  CHECK(reports::to_line(*back) == text);
  CHECK(back->violation_kinds() == run->violation_kinds());
  CHECK(back->digest_value == run->digest);
  record.live = reports::LiveRecord{0.05, {"a note"}, "locksim:abc:", std::nullopt,
                                    live::live_fault_mechanisms(*scenario)};
  back = reports::parse_run_record(reports::to_line(record));
  REQUIRE(back);
  CHECK(back->is_live());
  CHECK(reports::to_line(*back) == reports::to_line(record));
  REQUIRE(back->live->fault_mechanisms);
  CHECK(*back->live->fault_mechanisms == *record.live->fault_mechanisms);
  CHECK(json::parse(reports::to_line(record))["live"]["fault_mechanisms"] ==
        json::parse(R"([{"fault":"pause","targets":["A"],"produced":"real",)"
                    R"("means":"the client thread stops at its next step until the pause ends"}])"));
  record.live->skipped = "delay faults have no live counterpart";
  const json skip = json::parse(reports::to_line(record));
  CHECK_FALSE(skip.contains("digest"));
  CHECK(skip["live"]["skipped"] == "delay faults have no live counterpart");
  back = reports::read_run_record(skip);
  REQUIRE(back);
  CHECK(back->is_skip());
  CHECK(reports::to_line(*back) == reports::to_line(record));
}

TEST_CASE("a run record with a number of the wrong kind is an error naming the field", "[report]") {
  const json good = json::parse(line(Line()));
  struct Case {
    const char* field;
    json value;
    const char* message;
  };
  const std::vector<Case> cases{
      {"seed", 1.9, "seed: expected a non-negative integer"},
      {"seed", -1, "seed: expected a non-negative integer"},
      {"seed", "1", "seed: expected a non-negative integer"},
      {"seed", json::parse("18446744073709551616"), "seed: expected a non-negative integer"},
      {"events", 2.5, "events: expected a non-negative integer"},
      {"sim_time_ms", json::parse("9223372036854775808"), "sim_time_ms: expected an integer"},
      {"scenario", 5, "scenario: expected a string"},
      {"lock", 3, "lock: expected a string"},
      {"digest", 3, "digest: expected a string"},
      {"digest", "xyz", "digest: expected hex digits"},
  };
  for (const auto& c : cases) {
    json j = good;
    j[c.field] = c.value;
    INFO(j.dump());
    auto r = reports::read_run_record(j);
    REQUIRE_FALSE(r);
    CHECK(r.error() == c.message);
  }
  json j = good;
  j["stats"]["round_trips"] = -4;
  auto r = reports::read_run_record(j);
  REQUIRE_FALSE(r);
  CHECK(r.error() == "stats.round_trips: expected a non-negative integer");
}

TEST_CASE("the number layer reads plain digits within bounds and nothing else", "[report]") {
  using reports::parse_unsigned;
  CHECK(*parse_unsigned("0", "--seed") == 0);
  CHECK(*parse_unsigned("18446744073709551615", "--seed") == 18446744073709551615ull);
  CHECK(*parse_unsigned("256", "--jobs", {1, 256}) == 256);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "18446744073709551616", "abc"}) {
    INFO(bad);
    auto r = parse_unsigned(bad, "--seed");
    REQUIRE_FALSE(r);
    CHECK(r.error() == "--seed: expected an integer from 0 to 18446744073709551615, got \"" + std::string(bad) + "\"");
  }
  CHECK(parse_unsigned("0", "--jobs", {1, 256}).error() == "--jobs: expected an integer from 1 to 256, got \"0\"");
  CHECK_FALSE(parse_unsigned("257", "--jobs", {1, 256}));
  CHECK(reports::checked_mul(9223372036854775808ull, 2) == std::nullopt);
  CHECK(reports::checked_add(18446744073709551610ull, 9) == std::nullopt);
  CHECK(reports::checked_add(18446744073709551610ull, 5) == 18446744073709551615ull);
}

TEST_CASE("verdicts are drawn from which violations appear in which scenarios", "[report]") {
  Comparison c;
  REQUIRE(read(hand_written_sweep() + line(Line().in("baseline", "careful")) + "\n" +
                   line(Line().in("gc-pause", "careful")) + "\n" +
                   line(Line().in("delayed-packet", "owner-bug").with_kinds({"wrong-owner-release", "stale-write"})) + "\n",
               c));
  const auto safe = c.verdict("careful");
  CHECK(safe.level == reports::LockVerdict::Level::Safe);
  CHECK(safe.text == "safe in every scenario run (2 scenarios, 2 runs)");
  const auto stale = c.verdict("token");
  CHECK(stale.level == reports::LockVerdict::Level::EfficiencyOnly);
  CHECK(stale.text == "safe for efficiency, not correctness: stale writes (gc-pause)");
  const auto owner = c.verdict("owner-bug");
  CHECK(owner.level == reports::LockVerdict::Level::Unsafe);
  CHECK_THAT(owner.text, Catch::StartsWith("unsafe") && Catch::Contains("another client's lock (delayed-packet)") &&
                             Catch::Contains("stale writes (delayed-packet)"));
  c.scenario_conditions["delayed-packet"] = {"delayed packets"};
  CHECK_THAT(c.verdict("owner-bug").text, Catch::StartsWith("unsafe under delayed packets: "));
}

TEST_CASE("the markdown report has a matrix row per scenario, the verdicts and perf", "[report]") {
  Comparison c;
  REQUIRE(read(hand_written_sweep(), c));
  c.scenario_faults["gc-pause"] = {{reports::FaultClass::ProcessPause}, false, ""};
  c.scenario_faults["baseline"] = {{reports::FaultClass::None}, false, ""};
  const std::string md = reports::render_markdown(c);
  CHECK_THAT(md, Catch::Contains("| scenario | naive-del | token |"));
  CHECK_THAT(md, Catch::Contains("| baseline | ✓ safe | · |"));
  // A ✓ only where nothing was violated: an expected violation says so in words.
  CHECK_THAT(md, Catch::Contains("| gc-pause | ✗ SW 75%, ME 50% | SW 100% (as expected) |"));
  // The decision comes first: a row per lock, a column per fault class.
  CHECK(md.find("## Which lock survives which fault") < md.find("## Matrix"));
  CHECK_THAT(md, Catch::Contains("| lock | process pause | no fault |"));
  CHECK_THAT(md, Catch::Contains("| **naive-del** | 🟥 corrupts 75% (1 sc., 4 runs) ✗ 2 not as expected | 🟩 survives (1 sc., 1 run) |"));
  CHECK_THAT(md, Catch::Contains("| **token** | 🟥 corrupts 100% (1 sc., 1 run) | · |"));
  CHECK_THAT(md, Catch::Contains("- token: corrupts data under process pause; it gives no fencing token for the storage to check."));
  CHECK_THAT(md, Catch::Contains("| naive-del | 5 | 2.0 ms |"));
  CHECK_THAT(md, Catch::Contains("`locksim run gc-pause --lock naive-del --seed 3`"));
}

// The question the report answers: "Redis lock or etcd/ZooKeeper, and do I
// need fencing?": locks are grouped by family in the decision and the matrix.
TEST_CASE("locks are grouped by family: single Redis, Redis multi-node, etcd, ZooKeeper", "[report]") {
  const auto family = [](const char* lock) { return reports::lock_family_name(reports::lock_family(lock)); };
  CHECK(family("token") == "single Redis");
  CHECK(family("redlock") == "Redis multi-node");
  CHECK(family("etcd-fenced") == "etcd");
  CHECK(family("zk-lock") == "ZooKeeper");
  CHECK(reports::lock_family("token") < reports::lock_family("redlock"));
  CHECK(reports::lock_family("redlock") < reports::lock_family("etcd-fenced"));
  CHECK(reports::lock_family("etcd-fenced") < reports::lock_family("zk-lock"));
  std::string text;
  for (const char* lock : {"zk-lock", "redlock", "etcd-fenced", "token", "etcd-mutex"})
    text += line(Line().in(std::string(lock).starts_with("zk") ? "zk-gc-pause" : std::string(lock).starts_with("etcd")
                                                                                  ? "etcd-gc-pause"
                                                                                  : "gc-pause",
                           lock)
                     .with_kinds({"mutual-exclusion"})
                     .expecting({"mutual-exclusion"})) +
            "\n";
  Comparison c;
  REQUIRE(read(text, c));
  CHECK(c.locks() == std::vector<std::string>{"token", "redlock", "etcd-fenced", "etcd-mutex", "zk-lock"});
  const std::string md = reports::render_markdown(c);
  for (const char* family : {"| *single Redis* |", "| *Redis multi-node* |", "| *etcd* |", "| *ZooKeeper* |"})
    CHECK(count(md, family + std::string(" |\n")) == 1);  // one group row each in the decision table (one class)
  CHECK(md.find("| *etcd* |") < md.find("| **etcd-fenced** |"));
  CHECK(md.find("| **etcd-mutex** |") < md.find("| *ZooKeeper* |"));
  CHECK_THAT(md, Catch::Contains("| *family* | *single Redis* | *Redis multi-node* | *etcd* | *etcd* | *ZooKeeper* |"));
  reports::HtmlOptions options;
  options.timelines = false;
  const std::string html = reports::render_html(c, options);
  CHECK(count(html, "<tr class=\"family\"><th colspan=") == 4);  // the decision table's group rows
  CHECK_THAT(html, Catch::Contains("<th colspan=\"2\">etcd</th>"));  // the matrix header over etcd's two locks
}

TEST_CASE("the HTML report marks unmatched cells and lists their repro commands", "[report]") {
  Comparison c;
  REQUIRE(read(hand_written_sweep(), c));
  reports::HtmlOptions options;
  options.timelines = false;
  const std::string html = reports::render_html(c, options);
  // Matrix cells are coloured by their worst violation (here: corruption).
  CHECK(count(html, "class=\"sev-corruption unexpected\"") == 1);
  CHECK(count(html, "class=\"sev-corruption\"") == 1);
  CHECK(count(html, "class=\"sev-safe\"") == 1);
  CHECK(count(html, "class=\"notrun\"") == 1);
  CHECK(html.find("Every run matched") == std::string::npos);  // no "all good" banner over violations
  CHECK_THAT(html, Catch::Contains(">Not as expected</h2>") &&
                       Catch::Contains("<code>locksim run gc-pause --lock naive-del --seed 3</code>"));
  CHECK(count(html, "<div class=\"timeline\">") == 0);  // the plots are the only SVG
}

TEST_CASE("the JSON report carries cells, rates, verdicts and perf", "[report]") {
  Comparison c;
  REQUIRE(read(hand_written_sweep(), c));
  const json j = json::parse(reports::render_json(c));
  CHECK(j["runs"] == 6);
  CHECK(j["unmatched_runs"] == 2);
  REQUIRE(j["cells"].size() == 3);
  const json& cell = j["cells"][1];  // (gc-pause, naive-del)
  CHECK(cell["scenario"] == "gc-pause");
  CHECK(cell["violations"]["stale-write"]["runs"] == 3);
  CHECK(cell["violations"]["stale-write"]["rate"].get<double>() == Approx(0.75));
  CHECK(cell["minimal_failing"]["seed"] == 2);
  CHECK(cell["perf"]["acquire_p50_us_median"] == 2000);
  CHECK(j["locks"][1]["lock"] == "token");
  CHECK(j["locks"][1]["level"] == "efficiency-only");
  // The decision, added beside the fields above: not annotated here, so "unclassified".
  const json& d = j["decision"];
  CHECK(d["fault_classes"][0]["id"] == "unclassified");
  REQUIRE(d["cells"].size() == 2);
  CHECK(d["cells"][0]["lock"] == "naive-del");
  CHECK(d["cells"][0]["severity"] == "corruption");
  CHECK(d["cells"][0]["runs"] == 5);
  CHECK(d["cells"][0]["runs_by_severity"]["corruption"] == 3);
  CHECK(d["cells"][0]["runs_by_severity"]["safe"] == 2);
  CHECK(d["cells"][0]["unmatched"] == 2);
  CHECK(d["sentences"]["token"] ==
        "token: corrupts data under unclassified; it gives no fencing token for the storage to check.");
}

TEST_CASE("the JUnit report parses as XML with a test case per cell and a failure per unmatched cell", "[report]") {
  require_xmllint();
  Comparison c;
  REQUIRE(read(hand_written_sweep(), c));
  const std::string xml = reports::render_junit(c);
  const fs::path file = temp_dir("junit") / "report.junit.xml";
  std::ofstream(file) << xml;
  CHECK(xmllint_errors(file, false).empty());
  const fs::path xsd = file.parent_path() / "junit.xsd";
  std::ofstream(xsd) << kJunitXsd;
  const std::string validate = "xmllint --noout --schema '" + xsd.string() + "' '" + file.string() + "' 2>/dev/null";
  CHECK(std::system(validate.c_str()) == 0);
  CHECK(count(xml, "<testsuite ") == 1);
  CHECK_THAT(xml, Catch::Contains("tests=\"3\" failures=\"1\""));
  CHECK(count(xml, "<testcase ") == 3);
  CHECK(count(xml, "<failure ") == 1);
  CHECK_THAT(xml, Catch::Contains("<testcase classname=\"locksim.gc-pause\" name=\"naive-del\""));
  CHECK_THAT(xml, Catch::Contains("locksim run gc-pause --lock naive-del --seed 2"));
}

TEST_CASE("the HTML report parses and draws one timeline per violated cell from real runs", "[report]") {
  require_xmllint();
  std::string sweep;
  for (std::string scenario : {"gc-pause", "baseline"})
    for (std::string lock : {"naive-del", "token"})
      for (std::uint64_t seed : {1, 2}) sweep += simulated_line(scenario, lock, seed);
  Comparison c;
  REQUIRE(read(sweep, c));
  reports::annotate_faults(c);
  std::size_t violated = 0;
  for (const auto& [key, cell] : c.cells()) violated += cell.violated() ? 1 : 0;
  CHECK(violated == 2);  // gc-pause with either lock; baseline is safe
  const std::string html = reports::render_html(c);
  const fs::path file = temp_dir("html") / "report.html";
  std::ofstream(file) << html;
  CHECK(xmllint_errors(file, true).empty());
  CHECK(xmllint_errors(file, false).empty());  // XHTML: also well-formed XML
  // One timeline per (lock, failure mode): here the two locks fail differently.
  CHECK(count(html, "<div class=\"timeline\">") == violated);
  CHECK(count(html, "<details class=\"mode\"") == violated);
  CHECK(count(html, "<table class=\"matrix\">") == 1);
  CHECK_THAT(html, Catch::Contains("<th class=\"scenario\">gc-pause</th>") &&
                       Catch::Contains("<th class=\"scenario\">baseline</th>"));
  CHECK_THAT(html, Catch::Contains("locksim run gc-pause --lock naive-del --seed 1"));
  // The decision first: the table, then a sentence per lock from the data.
  CHECK(html.find("id=\"decision\"") < html.find("<table class=\"matrix\">"));
  CHECK_THAT(html, Catch::Contains("<th class=\"fault\">process pause</th>") &&
                       Catch::Contains("<th class=\"fault\">no fault</th>"));
  CHECK_THAT(html, Catch::Contains("naive-del: corrupts data under process pause"));
  CHECK(html.find(">Not as expected</h2>") == std::string::npos);  // the catalog expects what it finds
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("http://") == html.find("http://www.w3.org/"));  // namespaces only, no links out
}

TEST_CASE("locksim report exits 0, 1, 2 or 3 and writes several formats atomically into a directory",
          "[report]") {
  const fs::path dir = temp_dir("cli");
  const std::string matched = line(Line().in("baseline", "naive-del")) + "\n";
  std::ofstream(dir / "ok.jsonl") << matched;
  std::ofstream(dir / "all.jsonl") << hand_written_sweep();
  std::ofstream(dir / "bad.jsonl") << "{\n" << matched;
  std::ofstream(dir / "conflict.jsonl") << line(Line().with_digest("1")) << "\n" << line(Line().with_digest("2")) << "\n";
  CHECK(run_cli("report '" + (dir / "ok.jsonl").string() + "'", dir / "ok.md") == 0);
  CHECK_THAT(slurp(dir / "ok.md"), Catch::Contains("| baseline | ✓ safe |"));
  CHECK(run_cli("report '" + (dir / "all.jsonl").string() + "' --format json") == 1);
  CHECK(run_cli("report '" + (dir / "bad.jsonl").string() + "'", dir / "bad.txt") == 2);
  CHECK_THAT(slurp(dir / "bad.txt"), Catch::Contains("bad.jsonl:1: "));
  CHECK(run_cli("report '" + (dir / "conflict.jsonl").string() + "'", dir / "conflict.txt") == 3);
  CHECK_THAT(slurp(dir / "conflict.txt"), Catch::Contains("determinism broke"));
  CHECK(run_cli("report '" + (dir / "ok.jsonl").string() + "' --format html,md,json,junit --out '" +
                (dir / "out").string() + "'") == 0);
  std::set<std::string> written;
  for (const auto& e : fs::directory_iterator(dir / "out")) written.insert(e.path().filename().string());
  CHECK(written == std::set<std::string>{"report.html", "report.json", "report.md", "report.xml"});
  CHECK(run_cli("report '" + (dir / "ok.jsonl").string() + "' --format junit --out '" +
                (dir / "one.xml").string() + "'") == 0);
  CHECK_THAT(slurp(dir / "one.xml"), Catch::StartsWith("<?xml"));
  CHECK(run_cli("report '" + (dir / "ok.jsonl").string() + "' --format pdf") == 2);
}

TEST_CASE("live lines say per cell whether real Redis confirmed it and never count in the simulated figures",
          "[report]") {
  Comparison plain, c;
  REQUIRE(read(hand_written_sweep(), plain));
  REQUIRE(read(sweep_with_live(), c));
  CHECK(c.runs() == plain.runs());
  CHECK(c.unmatched_runs() == plain.unmatched_runs());
  CHECK(c.duplicates() == 0);  // a live line repeating a simulated seed with another digest is no conflict
  CHECK(c.scenarios() == plain.scenarios());
  CHECK(c.cell("gc-pause", "naive-del")->runs == 4);
  CHECK(c.cell("gc-pause", "naive-del")->rate("mutual-exclusion") == Approx(0.5));
  CHECK(c.verdict("naive-del").text == plain.verdict("naive-del").text);
  CHECK_FALSE(plain.has_live());
  CHECK(c.has_live());
  CHECK(c.live_runs() == 3);
  using Status = reports::Agreement::Status;
  CHECK(c.agreement("gc-pause", "token").status == Status::Yes);
  CHECK(c.agreement("gc-pause", "naive-del").status == Status::Differs);
  const auto refused = c.agreement("baseline", "naive-del");
  CHECK(refused.status == Status::NotRunLive);
  CHECK(refused.reason == "fault (line 40) delay: unsupported in live mode yet");
  CHECK(c.agreement("delayed-packet", "token").status == Status::NotSimulated);
  CHECK(c.agreement_keys().size() == 4);
}

TEST_CASE("a live run agrees when its violation set is one the simulation found for the cell", "[report]") {
  Comparison c;
  REQUIRE(read(hand_written_sweep() + live_line(Line().with_kinds({"stale-write"})) + "\n" +
                   live_line(Line().with_seed(2)) + "\n",
               c));
  CHECK(c.agreement("gc-pause", "naive-del").status == reports::Agreement::Status::Yes);  // {SW} and {} were simulated
  REQUIRE(read(live_line(Line().with_kinds({"wrong-owner-release"}).with_seed(3)) + "\n", c));
  CHECK(c.agreement("gc-pause", "naive-del").status == reports::Agreement::Status::Differs);  // one run of three differs
}

TEST_CASE("a client library's live runs sit beside its port's; a set the port never showed differs", "[report]") {
  Comparison c;
  // token (redis-py's port) simulated {SW} on gc-pause; lib:redis-py live {ME, SW}: differs;
  // on baseline both found nothing: the same.
  REQUIRE(read(hand_written_sweep() + line(Line().in("baseline", "token")) + "\n" +
                   live_line(Line().in("gc-pause", "lib:redis-py").with_kinds({"mutual-exclusion", "stale-write"})) +
                   "\n" + live_line(Line().in("baseline", "lib:redis-py")) + "\n",
               c));
  const auto rows = reports::library_rows(c);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].scenario == "baseline");
  CHECK(rows[0].port == "token");
  CHECK_FALSE(rows[0].differs);
  CHECK(rows[1].scenario == "gc-pause");
  CHECK(rows[1].port_simulated == "stale-write");
  CHECK(rows[1].differs);
  const std::string md = reports::render_report(c, reports::ReportFormat::Markdown);
  CHECK(md.find("## Client libraries beside their ports") != std::string::npos);
  const std::string differs_row = "| gc-pause | lib:redis-py | mutual-exclusion, stale-write | token | stale-write | — |";
  CHECK(md.find(differs_row + " **differs** |") != std::string::npos);
  CHECK(reports::render_report(c, reports::ReportFormat::Html).find("id=\"libraries\"") != std::string::npos);
  Comparison without;  // no library ran: no section
  REQUIRE(read(sweep_with_live(), without));
  CHECK(reports::library_rows(without).empty());
}

TEST_CASE("a story reproducing another library's bug is not this library's story, never a difference", "[report]") {
  // redlock-rb-extend-expired's [lock] kind is redlock-rb-36 (redlock-rb#36): node-redlock's port found
  // nothing there and the library two holders, yet the row does not differ. node-redlock-late-grant's
  // kind is node-redlock-169, the port itself: that story is the library's own, and differs.
  Comparison c;
  REQUIRE(read(line(Line().in("redlock-rb-extend-expired", "node-redlock-169")) + "\n" +
                   line(Line().in("node-redlock-late-grant", "node-redlock-169")) + "\n" +
                   live_line(Line().in("redlock-rb-extend-expired", "lib:node-redlock").with_kinds({"mutual-exclusion"})) +
                   "\n" +
                   live_line(Line().in("node-redlock-late-grant", "lib:node-redlock").with_kinds({"mutual-exclusion"})) +
                   "\n",
               c));
  const auto rows = reports::library_rows(c);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].scenario == "node-redlock-late-grant");
  CHECK(rows[0].story_of.empty());
  CHECK(rows[0].differs);
  CHECK(rows[1].scenario == "redlock-rb-extend-expired");
  CHECK(rows[1].story_of == "redlock-rb");
  CHECK_FALSE(rows[1].differs);
  const std::string md = reports::render_report(c, reports::ReportFormat::Markdown);
  CHECK(md.find("| redlock-rb-extend-expired | lib:node-redlock | mutual-exclusion | node-redlock-169 | none | — | "
                "not this library's story (redlock-rb) |") != std::string::npos);
  CHECK(reports::render_report(c, reports::ReportFormat::Html).find("not this library&apos;s story (redlock-rb)") !=
        std::string::npos);
}

TEST_CASE("a malformed live line is an error naming the field", "[report]") {
  json j = json::parse(live_skip_line("baseline", "token", "why"));
  j["live"]["skipped"] = 3;
  Comparison c;
  auto r = read(j.dump() + "\n" + line(Line()) + "\n", c);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "sweep.jsonl:1: live.skipped: expected a string (why it was not run live)");
  j = json::parse(live_line(Line()));
  j["live"].erase("time_scale");
  r = read(j.dump() + "\n" + line(Line()) + "\n", c);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "sweep.jsonl:1: live.time_scale: expected a number");
  j = json::parse(live_line(Line()));
  j.erase("violations");
  r = read(j.dump() + "\n" + line(Line()) + "\n", c);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "sweep.jsonl:1: violations: missing");
  j = json::parse(live_line(Line()));
  j["live"]["fault_mechanisms"][0]["produced"] = "faked";
  r = read(j.dump() + "\n", c);
  REQUIRE_FALSE(r);
  CHECK(r.error().message ==
        "sweep.jsonl:1: live.fault_mechanisms[1].produced: expected \"real\", \"observed\" or \"emulated\"");
  j["live"]["fault_mechanisms"] = "real";
  r = read(j.dump() + "\n", c);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "sweep.jsonl:1: live.fault_mechanisms: expected an array");
}

TEST_CASE("the agreement table says per cell how live mode produced each fault", "[report]") {
  Comparison c;
  json old_line = json::parse(live_line(Line().in("gc-pause", "token").with_kinds({"stale-write"})));
  old_line["live"].erase("fault_mechanisms");  // a line written before the field
  REQUIRE(read(sweep_with_live() + old_line.dump() + "\n", c));
  CHECK(reports::live_mechanisms_text(c, {"gc-pause", "token"}) ==
        "pause A: real (the client thread stops at its next step until the pause ends) (1 run: not recorded)");
  CHECK(reports::live_mechanisms_text(c, {"delayed-packet", "token"}) ==
        "delay A -> storage: emulated (the in-process storage's link holds the message (the storage is locksim's))");
  CHECK(reports::live_mechanisms_text(c, {"baseline", "naive-del"}) == "—");  // not run live
  Comparison old_only;
  REQUIRE(read(hand_written_sweep() + old_line.dump() + "\n", old_only));
  CHECK(reports::live_mechanisms_text(old_only, {"gc-pause", "token"}) == "not recorded");
  Comparison none;
  REQUIRE(read(line(Line().in("baseline", "token")) + "\n" + live_line(Line().in("baseline", "token")) + "\n", none));
  CHECK(reports::live_mechanisms_text(none, {"baseline", "token"}) == "no faults");
}

TEST_CASE("live fault mechanisms say real, observed or emulated as live mode produces each fault", "[report]") {
  auto mechanisms = [](const std::string& name) {
    auto s = scenarios::resolve_scenario(name);
    REQUIRE(s);
    std::vector<std::string> out;
    for (const auto& m : live::live_fault_mechanisms(*s)) out.push_back(scenarios::fault_mechanism_text(m));
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(mechanisms("baseline").empty());
  CHECK(mechanisms("aof-everysec-power-loss") ==
        V{"power-loss redis-1: observed (SIGKILL, every AOF file cut back to what the server's fsyncs made durable "
          "(the preload's record), restarted from its own AOF)",
          "background_writes_per_second redis-1: real (a thread SETs an unrelated key at that rate)"});
  CHECK(mechanisms("replica-failover") ==
        V{"crash redis-1: real (SIGKILL)",
          "replication_lag redis-1 -> redis-1-replica-1: emulated (a constant 100ms delay on the TCP proxy's master -> "
          "replica link (loopback replicates in microseconds))",
          "failover_after redis-1: real (the real Sentinel quorum's own detection (down-after-milliseconds, ODOWN by 2 "
          "of 3, a leader elected), promotion and reconfiguration)"});
  CHECK(mechanisms("redlock-slow-client-clock") ==
        V{"clock_drift_ppm A: real (the client runtime's clocks and sleeps drift (ClientClock))"});
  CHECK(mechanisms("redlock-clock-jump-four-held") ==
        V{"partition [A] [redis-5]: real (the TCP proxies discard every byte between the groups)",
          "clock-jump redis-3: real (the preload steps the server's wall clock (CLOCK_REALTIME, gettimeofday, time; "
          "monotonic untouched))"});
}

TEST_CASE("the markdown report marks matrix cells and tables what real Redis confirmed", "[report]") {
  Comparison c;
  REQUIRE(read(sweep_with_live(), c));
  const std::string md = reports::render_markdown(c);
  CHECK_THAT(md, Catch::Contains("| baseline | ✓ safe — real: not run | · |"));
  CHECK_THAT(md, Catch::Contains("| gc-pause | ✗ SW 75%, ME 50% — real: differs | SW 100% (as expected) — real: yes |"));
  CHECK_THAT(md, Catch::Contains("## Confirmed on real Redis"));
  CHECK_THAT(md, Catch::Contains("3 live runs: 1 cells confirmed, 1 differ, 1 not run live, 1 not simulated."));
  const std::string paused = "pause A: real (the client thread stops at its next step until the pause ends)";
  CHECK_THAT(md, Catch::Contains("| scenario | lock | simulated | live | time scale | how produced live | confirmed on "
                                 "real Redis |\n"
                                 "|---|---|---|---|---|---|---|\n"
                                 "| baseline | naive-del | none | — | — | — | not run live: fault (line 40) delay: "
                                 "unsupported in live mode yet |\n"
                                 "| delayed-packet | token | — | none | 0.3 | delay A -\\> storage: emulated (the "
                                 "in-process storage's link holds the message (the storage is locksim's)) | not "
                                 "simulated |\n"
                                 "| gc-pause | naive-del | none (1 run); mutual-exclusion, stale-write (2 runs); "
                                 "stale-write (1 run) | mutual-exclusion | 0.01 | " + paused + " | **differs** |\n"
                                 "| gc-pause | token | stale-write | stale-write | 0.01 | " + paused + " | yes |\n"));
  Comparison plain;
  REQUIRE(read(hand_written_sweep(), plain));
  const std::string without = reports::render_markdown(plain);
  CHECK(without.find("real") == std::string::npos);
}

TEST_CASE("the HTML, JSON and JUnit reports carry confirmed on real Redis", "[report]") {
  require_xmllint();
  Comparison c;
  REQUIRE(read(sweep_with_live(), c));
  reports::HtmlOptions options;
  options.timelines = false;
  const std::string html = reports::render_html(c, options);
  const fs::path dir = temp_dir("live");
  std::ofstream(dir / "report.html") << html;
  CHECK(xmllint_errors(dir / "report.html", false).empty());
  CHECK(count(html, "<span class=\"real\"") == 2);               // baseline × naive-del, gc-pause × token
  CHECK(count(html, "<span class=\"real real-differs\"") == 1);  // gc-pause × naive-del
  CHECK_THAT(html, Catch::Contains("<summary>Confirmed on real Redis: ") &&
                       Catch::Contains("<td class=\"agree-differs\">differs</td>") &&
                       Catch::Contains("<td class=\"agree-not-run-live\">not run live: fault (line 40) delay") &&
                       Catch::Contains("<th>how produced live</th>") &&
                       Catch::Contains("<td>0.01</td><td>pause A: real (the client thread stops at its next step "
                                       "until the pause ends)</td><td class=\"agree-differs\">"));

  const json j = json::parse(reports::render_json(c));
  CHECK(j["runs"] == 6);
  CHECK(j["live_runs"] == 3);
  const json& naive = j["cells"][1]["confirmed_on_real_redis"];  // (gc-pause, naive-del)
  CHECK(naive["status"] == "differs");
  CHECK(naive["live"] == json::parse(R"([{"violations":["mutual-exclusion"],"runs":1}])"));
  CHECK(naive["simulated"].size() == 3);
  CHECK(naive["fault_mechanisms"] ==
        json::parse(R"([{"fault":"pause","targets":["A"],"produced":"real",)"
                    R"("means":"the client thread stops at its next step until the pause ends"}])"));
  CHECK(j["cells"][0]["confirmed_on_real_redis"]["reason"] == "fault (line 40) delay: unsupported in live mode yet");
  CHECK(j["cells"][2]["confirmed_on_real_redis"]["status"] == "yes");
  REQUIRE(j["live_only_cells"].size() == 1);
  CHECK(j["live_only_cells"][0]["scenario"] == "delayed-packet");
  CHECK(j["live_only_cells"][0]["status"] == "not simulated");
  Comparison plain;
  REQUIRE(read(hand_written_sweep(), plain));
  CHECK(json::parse(reports::render_json(plain))["cells"][0]["confirmed_on_real_redis"].is_null());

  const std::string xml = reports::render_junit(c);
  std::ofstream(dir / "report.xml") << xml;
  std::ofstream(dir / "junit.xsd") << kJunitXsd;
  const std::string validate =
      "xmllint --noout --schema '" + (dir / "junit.xsd").string() + "' '" + (dir / "report.xml").string() + "' 2>/dev/null";
  CHECK(std::system(validate.c_str()) == 0);
  CHECK(count(xml, "<property name=\"confirmed_on_real_redis\"") == 3);
  CHECK_THAT(xml, Catch::Contains("<property name=\"confirmed_on_real_redis\" value=\"differs\"/>"));
  CHECK_THAT(xml, Catch::Contains("tests=\"3\" failures=\"1\""));  // a difference is no failure
}

TEST_CASE("locksim report reads live lines from extra files and refuses live lines alone", "[report]") {
  const fs::path dir = temp_dir("cli-live");
  std::ofstream(dir / "sim.jsonl") << line(Line().in("baseline", "naive-del")) << "\n";
  std::ofstream(dir / "live.jsonl") << live_line(Line().in("baseline", "naive-del")) << "\n";
  CHECK(run_cli("report '" + (dir / "sim.jsonl").string() + "' '" + (dir / "live.jsonl").string() + "'", dir / "r.md") == 0);
  CHECK_THAT(slurp(dir / "r.md"), Catch::Contains("| baseline | naive-del | none | none | 0.01 | no faults | yes |"));
  CHECK(run_cli("report '" + (dir / "live.jsonl").string() + "'", dir / "alone.txt") == 2);
  CHECK_THAT(slurp(dir / "alone.txt"), Catch::Contains("live.jsonl: only live runs"));
}

// ---- the decision table (issue 35): no-lock rows, what a cell rests on,
// sentences that never contradict themselves, the recommendation, links ----

namespace {

using reports::FaultClass;

void classify(Comparison& c, const std::string& scenario, std::set<FaultClass> classes, bool fencing,
              std::string no_lock_method = "") {
  c.scenario_faults[scenario] = {std::move(classes), fencing, std::move(no_lock_method)};
}

}  // namespace

TEST_CASE("a story that takes no lock counts in its method's row, never against a lock", "[report]") {
  Comparison c;
  REQUIRE(read(line(Line().in("inventory-race", "token").with_kinds({"oversell"}).expecting({"oversell"}).selling_by(
                   "read-check-write")) + "\n" +
                   line(Line().in("inventory-race", "fenced").with_kinds({"oversell"}).expecting({"oversell"}).selling_by(
                       "read-check-write")) + "\n" +
                   line(Line().in("gc-pause", "token").with_kinds({"stale-write"}).expecting({"stale-write"})) + "\n" +
                   line(Line().in("baseline", "fenced")) + "\n",
               c));
  // Not annotated: the runs' sale method says it.
  CHECK(c.no_lock_method("inventory-race") == "read-check-write");
  CHECK(c.no_lock_method("gc-pause").empty());
  classify(c, "inventory-race", {FaultClass::None}, false, "read-check-write");
  classify(c, "gc-pause", {FaultClass::ProcessPause}, false);
  classify(c, "baseline", {FaultClass::None}, false);
  const reports::Decision d = reports::decide(c);
  CHECK(d.cell("token", FaultClass::None) == nullptr);  // the oversell is not the token lock's
  REQUIRE(d.cell("fenced", FaultClass::None) != nullptr);
  CHECK(d.cell("fenced", FaultClass::None)->severity() == reports::Severity::Safe);
  REQUIRE(d.no_lock_rows == std::vector<std::string>{"no lock (read-check-write)"});
  const reports::DecisionCell* row = d.no_lock_cell("no lock (read-check-write)", FaultClass::None);
  REQUIRE(row != nullptr);
  CHECK(row->severity() == reports::Severity::Corruption);
  CHECK(row->runs == 2);
  CHECK(row->scenarios == std::vector<std::string>{"inventory-race"});
  CHECK(d.judgements.at("fenced").safety == reports::DataSafety::Held);
  CHECK_THAT(d.sentences.at("token"), !Catch::Contains("no fault"));
  CHECK(c.verdict("fenced").level == reports::LockVerdict::Level::Safe);  // the JSON verdicts too
  CHECK(c.lock_perf("fenced").acquire_p50_us.count() == 1);              // and the perf tables
  const json j = json::parse(reports::render_json(c));
  for (const auto& cell : j["decision"]["cells"]) CHECK((cell["fault_class"] != "none" || cell["lock"] == "fenced"));
  REQUIRE(j["decision"]["no_lock_rows"].size() == 1);
  CHECK(j["decision"]["no_lock_rows"][0]["method"] == "read-check-write");
  CHECK(j["decision"]["no_lock_rows"][0]["cells"][0]["severity"] == "corruption");
  const std::string md = reports::render_markdown(c);
  CHECK_THAT(md, Catch::Contains("| **no lock (read-check-write)** | · | 🟥 corrupts 100% (1 sc., 2 runs) |"));
  reports::HtmlOptions options;
  options.timelines = false;
  CHECK_THAT(reports::render_html(c, options),
             Catch::Contains("<tr data-family=\"no lock\"><th class=\"lock\"") &&
                 Catch::Contains(">no lock (read-check-write)</th>"));
}

TEST_CASE("the catalog's stories without a lock are named by their method", "[report]") {
  const std::vector<std::pair<std::string, std::string>> stories{{"inventory-race", "read-check-write"},
                                                                  {"flash-sale-gate", "gate"},
                                                                  {"inventory-decr-failover", "decr"},
                                                                  {"inventory-lua-double-click", "lua"},
                                                                  {"inventory-one-lock", ""},
                                                                  {"inventory-segmented", ""},
                                                                  {"gc-pause", ""}};
  for (const auto& [name, method] : stories) {
    auto s = scenarios::resolve_scenario(name);
    REQUIRE(s);
    INFO(name);
    CHECK(reports::scenario_faults_of(*s).no_lock_method == method);
  }
  CHECK(reports::no_lock_row_name("read-check-write") == "no lock (read-check-write)");
  CHECK(reports::no_lock_row_name("gate") == "SET NX gate");
  CHECK(reports::no_lock_row_name("decr") == "DECR");
  CHECK(reports::no_lock_row_name("lua") == "Lua");
}

TEST_CASE("each decision cell says how many scenarios and runs it rests on, and what a dot means", "[report]") {
  Comparison c;
  REQUIRE(read(line(Line().in("gc-pause", "token").with_kinds({"stale-write"})) + "\n" +
                   line(Line().in("gc-pause", "token").with_seed(2)) + "\n" +
                   line(Line().in("fencing-gc-pause", "token").with_kinds({"stale-write"})) + "\n" +
                   line(Line().in("baseline", "token")) + "\n" + line(Line().in("delayed-packet", "naive-del")) + "\n",
               c));
  classify(c, "gc-pause", {FaultClass::ProcessPause}, false);
  classify(c, "fencing-gc-pause", {FaultClass::ProcessPause}, true);
  classify(c, "baseline", {FaultClass::None}, false);
  classify(c, "delayed-packet", {FaultClass::DelayedPacket}, false);
  const reports::Decision d = reports::decide(c);
  const reports::DecisionCell* cell = d.cell("token", FaultClass::ProcessPause);
  REQUIRE(cell != nullptr);
  CHECK(cell->scenarios == std::vector<std::string>{"fencing-gc-pause", "gc-pause"});
  CHECK(cell->runs == 3);
  reports::HtmlOptions options;
  options.timelines = false;
  const std::string html = reports::render_html(c, options);
  CHECK_THAT(html, Catch::Contains("<span class=\"basis\">2 scenarios, 3 runs</span>"));
  CHECK_THAT(html, Catch::Contains("<span class=\"basis\">1 scenario, 1 run</span>"));
  // "·" is explained in the cell's own title and in the legend under the table.
  CHECK_THAT(html, Catch::Contains("title=\"not tried: no scenario with process pause ran naive-del\">·</td>"));
  CHECK_THAT(html, Catch::Contains("·</span>not tried: no scenario with that kind of fault ran it"));
  const std::string md = reports::render_markdown(c);
  CHECK_THAT(md, Catch::Contains("🟥 corrupts 67% (2 sc., 3 runs)"));
  CHECK_THAT(md, Catch::Contains("\"·\" not tried"));
}

// The rule behind "etcd-mutex: safe for your data when the storage checks
// the token … even with the check, data is corrupted": one checking storage
// that held was taken for all of them. Every mix of outcomes is tried here.
TEST_CASE("a lock's sentence and the recommendation never contradict the runs or each other", "[report]") {
  struct Story {
    const char* scenario;
    FaultClass fault;
    bool checked;
  };
  const Story stories[] = {{"gc-pause", FaultClass::ProcessPause, false},
                           {"fencing-gc-pause", FaultClass::ProcessPause, true},
                           {"replica-failover", FaultClass::Failover, true}};
  const std::vector<std::vector<std::string>> outcomes{{}, {"mutual-exclusion"}, {"mutual-exclusion", "stale-write"}};
  for (const char* lock : {"fenced", "etcd-mutex"})
    for (std::size_t mix = 0; mix < 27; ++mix) {
      Comparison c;
      std::string text;
      bool corrupted_checked = false, corrupted = false, overlapped = false;
      for (std::size_t i = 0, m = mix; i < 3; ++i, m /= 3) {
        const auto& kinds = outcomes[m % 3];
        text += line(Line().in(stories[i].scenario, lock).with_kinds(kinds).expecting(kinds)) + "\n";
        corrupted = corrupted || kinds.size() == 2;
        corrupted_checked = corrupted_checked || (kinds.size() == 2 && stories[i].checked);
        overlapped = overlapped || !kinds.empty();
      }
      REQUIRE(read(text, c));
      for (const auto& s : stories) classify(c, s.scenario, {s.fault}, s.checked);
      const reports::Decision d = reports::decide(c);
      const std::string& sentence = d.sentences.at(lock);
      const reports::DataSafety safety = d.judgements.at(lock).safety;
      INFO(sentence);
      const bool says_safe = sentence.find("safe for your data") != std::string::npos;
      const bool says_corrupt = sentence.find("corrupts data") != std::string::npos ||
                                sentence.find("even when") != std::string::npos;
      CHECK_FALSE((says_safe && says_corrupt));
      CHECK(says_corrupt == (safety == reports::DataSafety::Corrupts));
      CHECK(says_safe == (safety == reports::DataSafety::WithFencing));
      if (corrupted_checked) CHECK(safety == reports::DataSafety::Corrupts);  // a checking storage was corrupted
      if (!corrupted && !overlapped) CHECK(safety == reports::DataSafety::Held);
      // etcd-mutex hands out no token: never credited with a storage's check.
      if (std::string(lock) == "etcd-mutex") CHECK(safety != reports::DataSafety::WithFencing);
      // The recommendation names the lock on exactly the line of its judgement.
      std::string named;
      for (const auto& l : d.recommendation)
        if (l.find(lock) != std::string::npos && l.find("unavailable") == std::string::npos) named += l;
      CHECK((named.find("Safe for your data on their own") != std::string::npos) == (safety == reports::DataSafety::Held));
      CHECK((named.find("if the storage checks") != std::string::npos) == (safety == reports::DataSafety::WithFencing));
      CHECK((named.find("For efficiency only") != std::string::npos) == (safety == reports::DataSafety::Corrupts));
    }
}

TEST_CASE("a fenced lock is safe for data only where a checking storage was tried and held", "[report]") {
  Comparison c;
  const std::vector<std::string> me_sw{"mutual-exclusion", "stale-write"}, me{"mutual-exclusion"};
  REQUIRE(read(line(Line().in("gc-pause", "fenced").with_kinds(me_sw).expecting(me_sw)) + "\n" +
                   line(Line().in("fencing-gc-pause", "fenced").with_kinds(me).expecting(me)) + "\n" +
                   line(Line().in("gc-pause", "naive-del").with_kinds(me_sw).expecting(me_sw)) + "\n" +
                   line(Line().in("baseline", "careful")) + "\n" + line(Line().in("gc-pause", "careful")) + "\n" +
                   line(Line().in("inventory-decr-failover", "careful").with_kinds({"oversell"}).selling_by("decr")) +
                   "\n",
               c));
  classify(c, "gc-pause", {FaultClass::ProcessPause}, false);
  classify(c, "fencing-gc-pause", {FaultClass::ProcessPause}, true);
  classify(c, "baseline", {FaultClass::None}, false);
  classify(c, "inventory-decr-failover", {FaultClass::Failover}, false, "decr");
  reports::Decision d = reports::decide(c);
  CHECK(d.judgements.at("fenced").safety == reports::DataSafety::WithFencing);
  CHECK(d.sentences.at("fenced") ==
        "fenced: safe for your data only when the storage checks its fencing token: without the check, data is "
        "corrupted under process pause; with it, two holders under process pause but no stale write accepted.");
  CHECK(d.sentences.at("naive-del") ==
        "naive-del: corrupts data under process pause; it gives no fencing token for the storage to check.");
  CHECK(d.recommendation == std::vector<std::string>{
                                "Safe for your data on their own: careful (2 sc.): no two holders, no data corrupted "
                                "in any run.",
                                "Safe for your data if the storage checks the fencing token: fenced (2 sc.): two "
                                "holders can happen, the check refuses the stale writes.",
                                "For efficiency only (running twice must be harmless): naive-del: each corrupts data "
                                "under some fault.",
                                "Without a lock, the sale goes wrong: DECR."});
  // The same lock corrupted where a checking storage was not tried: not credited.
  REQUIRE(read(line(Line().in("replica-failover", "fenced").with_kinds(me_sw).expecting(me_sw)) + "\n", c));
  classify(c, "replica-failover", {FaultClass::Failover}, false);
  d = reports::decide(c);
  CHECK(d.judgements.at("fenced").safety == reports::DataSafety::Corrupts);
  CHECK_THAT(d.sentences.at("fenced"), Catch::StartsWith("fenced: corrupts data under process pause and failover; a "
                                                         "storage that checks tokens was not tried under failover"));
  const json j = json::parse(reports::render_json(c));
  CHECK(j["decision"]["judgements"]["fenced"]["data"] == "corrupts");
  CHECK(j["decision"]["recommendation"].size() == 3);
}

TEST_CASE("every cell link lands on a timeline of that very cell", "[report]") {
  std::string sweep;
  for (std::string scenario : {"gc-pause", "fencing-gc-pause", "baseline"}) sweep += simulated_line(scenario, "naive-del", 1);
  Comparison c;
  REQUIRE(read(sweep, c));
  reports::annotate_faults(c);
  const std::string html = reports::render_html(c);
  // Both violated cells fail the same way (one failure mode), and each has its own timeline.
  CHECK(count(html, "<details class=\"mode\"") == 1);
  CHECK(count(html, "<div class=\"timeline\">") == 2);
  std::size_t links = 0;
  for (auto pos = html.find("<a href=\"#tl-"); pos != std::string::npos; pos = html.find("<a href=\"#tl-", pos + 1)) {
    const auto id_end = html.find('"', pos + 10);
    const std::string id = html.substr(pos + 10, id_end - pos - 10);
    const auto cell_at = html.find("data-cell=\"", pos) + 11;
    const std::string cell = html.substr(cell_at, html.find('"', cell_at) - cell_at);
    INFO(id << " from " << cell);
    const auto target = html.find("<div class=\"cell-timeline\" id=\"" + id + "\" data-cell=\"" + cell + "\">");
    REQUIRE(target != std::string::npos);
    CHECK(html.find("<div class=\"timeline\">", target) < html.find("<div class=\"cell-timeline\"", target + 1));
    ++links;
  }
  CHECK(links == 3);  // two matrix cells and the decision cell of process pause
  CHECK_THAT(html, Catch::Contains("<a href=\"#tl-fencing-gc-pause--naive-del\" data-cell=\"fencing-gc-pause × naive-del\">"));
  CHECK_THAT(html, Catch::Contains("<a href=\"#tl-gc-pause--naive-del\" data-cell=\"gc-pause × naive-del\">"));
}

TEST_CASE("the header says when, which locksim, which command and which inputs", "[report]") {
  Comparison c;
  REQUIRE(read(hand_written_sweep(), c));
  c.provenance = {"2026-12-04 17:00 UTC", "locksim 0.1.0 (git abc)", "locksim report sweep.jsonl --format html"};
  reports::HtmlOptions options;
  options.timelines = false;
  CHECK_THAT(reports::render_html(c, options),
             Catch::Contains("Made 2026-12-04 17:00 UTC by locksim 0.1.0 (git abc): <code>locksim report sweep.jsonl "
                             "--format html</code></span><span class=\"pline\">Inputs: <code>sweep.jsonl</code> (6 runs): 6 simulated "
                             "runs"));
  CHECK_THAT(reports::render_markdown(c), Catch::Contains("Made 2026-12-04 17:00 UTC by locksim 0.1.0 (git abc): "
                                                          "`locksim report sweep.jsonl --format html`  \nInputs: "
                                                          "`sweep.jsonl` (6 runs)."));
  const json j = json::parse(reports::render_json(c));
  CHECK(j["provenance"]["generated_at"] == "2026-12-04 17:00 UTC");
  CHECK(j["provenance"]["command"] == "locksim report sweep.jsonl --format html");
  CHECK(j["input_files"][0] == json{{"file", "sweep.jsonl"}, {"runs", 6}, {"duplicates", 0}, {"live_lines", 0}});
  // From the command line: SOURCE_DATE_EPOCH fixes the date; a bad one is refused.
  const fs::path dir = temp_dir("provenance");
  std::ofstream(dir / "in.jsonl") << line(Line().in("baseline", "naive-del")) << "\n";
  CHECK(run_cli("report '" + (dir / "in.jsonl").string() + "'", dir / "r.md") == 0);
  CHECK_THAT(slurp(dir / "r.md"), Catch::Matches("(.|\n)*Made 20[0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9] "
                                                 "UTC by locksim [^ ]+ \\(git [^)]+\\): `locksim report [^`]*in.jsonl "
                                                 "--format md`(.|\n)*"));
  const std::string fixed = "SOURCE_DATE_EPOCH=86400 " + std::string(LOCKSIM_BINARY) + " report '" +
                            (dir / "in.jsonl").string() + "' --format json > '" + (dir / "r.json").string() + "'";
  REQUIRE(std::system(fixed.c_str()) == 0);
  CHECK(json::parse(slurp(dir / "r.json"))["provenance"]["generated_at"] == "1970-01-02 00:00 UTC");
  const std::string bad = "SOURCE_DATE_EPOCH=yesterday " + std::string(LOCKSIM_BINARY) + " report '" +
                          (dir / "in.jsonl").string() + "' > /dev/null 2> '" + (dir / "bad.txt").string() + "'";
  const int rc = std::system(bad.c_str());
  CHECK((WIFEXITED(rc) ? WEXITSTATUS(rc) : -1) == 2);
  CHECK_THAT(slurp(dir / "bad.txt"), Catch::Contains("SOURCE_DATE_EPOCH: expected seconds since 1970"));
}
