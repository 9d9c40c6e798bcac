// Tests of the report renderers. The SVG timeline is fed a History built by
// hand (no simulator): the canonical gc-pause story of docs/redis-model.md
// timeline (a) with a 10 s TTL, judged by the real checkers. The document
// must be well-formed XML (checked with xmllint, from libxml2-utils, which
// scripts/setup.sh installs), show every lane and mark, escape all text and
// render to the same bytes every time.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "reports/timeline_svg.hpp"
#include "scenarios/checkers.hpp"
#include "scenarios/runner.hpp"

namespace {

using namespace locksim;
using namespace std::chrono_literals;
using scenarios::Belief;
using scenarios::EntryEvent;
using scenarios::FaultKind;
using scenarios::History;
using scenarios::RunResult;
using locksim::TrueInstant;
using EntryKind = sim::redis::KeyEvent::Kind;

constexpr sim::HostId kRedis = 0;
constexpr std::size_t kA = 0, kB = 1, kC = 2;
const std::string kKey = "lock:job:daily-report";

TrueInstant at(locksim::Duration d) { return locksim::true_epoch + d; }

void entry(History& h, locksim::Duration t, std::optional<std::size_t> client, EntryKind kind, std::string command) {
  h.entries.push_back({at(t), h.entries.size(), kRedis, client, false, kind, kKey, std::move(command)});
}

void belief(History& h, std::size_t client, locksim::Duration start, locksim::Duration end, std::int64_t token) {
  Belief b{client, h.next_grant++, at(start), at(end), std::nullopt, token, "release"};
  h.beliefs.push_back(b);
}

void write(History& h, locksim::Duration t, std::size_t client, std::uint64_t grant, std::int64_t token, bool accepted,
           int index) {
  h.writes.push_back({at(t), client, grant, token, accepted, index});
}

// A acquires at 0 and GC-pauses 1-16 s; its entry expires at 10 s; B acquires
// at 10.5 s and writes; A wakes, writes (stale) and DELs B's entry; C
// acquires while B still believes. The storage rejects B's late write.
RunResult gc_pause_run(const std::string& first_client = "A") {
  History h;
  h.nodes = {"redis-1"};
  h.clients = {{first_client, 1, {}, at(16050ms)}, {"B", 2, {}, at(25s)}, {"C", 3, {}, at(30s)}};
  h.attempts = {{kA, at(0ms), at(2ms), true}, {kB, at(500ms), at(10500ms), true}, {kC, at(5s), at(16100ms), true}};
  entry(h, 1ms, kA, EntryKind::Created, "SET " + kKey + " a1 NX PX 10000");
  belief(h, kA, 2ms, 16050ms, 33);
  h.faults.push_back({at(1s), FaultKind::Pause, "pause " + first_client + " 15s", first_client, at(16s)});
  entry(h, 10001ms, std::nullopt, EntryKind::Expired, "(active expiry)");
  entry(h, 10499ms, kB, EntryKind::Created, "SET " + kKey + " b1 NX PX 10000");
  belief(h, kB, 10500ms, 25s, 34);
  write(h, 12s, kB, 1, 34, true, 1);
  write(h, 16020ms, kA, 0, 33, true, 1);
  entry(h, 16050ms, kA, EntryKind::Deleted, "DEL " + kKey);
  entry(h, 16099ms, kC, EntryKind::Created, "SET " + kKey + " c1 NX PX 10000");
  belief(h, kC, 16100ms, 30s, 35);
  write(h, 20s, kC, 2, 35, true, 1);
  write(h, 21s, kB, 1, 34, false, 2);
  entry(h, 30s, kC, EntryKind::Deleted, "DEL " + kKey);
  h.end = at(120s);

  RunResult run;
  run.scenario = "gc-pause";
  run.lock = "naive-del";
  run.seed = 1;
  run.sim_time_ms = 120000;
  run.violations = scenarios::check_all(h, 20s);
  run.expected = run.violation_kinds();
  run.matched = true;
  run.history = std::move(h);
  return run;
}

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto i = haystack.find(needle); i != std::string::npos; i = haystack.find(needle, i + needle.size())) ++n;
  return n;
}

// Runs xmllint on the document; returns its exit status and messages.
std::pair<int, std::string> xmllint(const std::string& svg, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto file = dir / ("locksim_" + name + ".svg");
  const auto log = dir / ("locksim_" + name + ".xmllint.txt");
  std::ofstream(file, std::ios::binary) << svg;
  const std::string cmd = "xmllint --noout '" + file.string() + "' > '" + log.string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  std::stringstream messages;
  messages << std::ifstream(log).rdbuf();
  std::filesystem::remove(log);
  std::filesystem::remove(file);
  return {status, messages.str()};
}

void require_well_formed(const std::string& svg, const std::string& name) {
  if (std::system("command -v xmllint > /dev/null 2>&1") != 0)
    FAIL("xmllint not found: install libxml2-utils (scripts/setup.sh does) to check the SVG is well-formed XML");
  const auto [status, messages] = xmllint(svg, name);
  INFO(messages);
  REQUIRE(status == 0);
}

}  // namespace

TEST_CASE("the gc-pause story judged by the checkers has all three violation kinds", "[reports]") {
  const RunResult run = gc_pause_run();
  const std::set<std::string> kinds{"mutual-exclusion", "stale-write", "wrong-owner-release"};
  CHECK(run.violation_kinds() == kinds);
}

TEST_CASE("the timeline of a run is one well-formed SVG document", "[reports]") {
  const std::string svg = reports::render_timeline_svg(gc_pause_run());
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("<style") == std::string::npos);
  CHECK(svg.find("href") == std::string::npos);
  require_well_formed(svg, "timeline");
}

TEST_CASE("the timeline has a lane per client, per used node and for the storage", "[reports]") {
  RunResult run = gc_pause_run();
  run.history.nodes = {"redis-1", "", "", ""};  // ids of client hosts have no node name
  const std::string svg = reports::render_timeline_svg(run);
  CHECK(count(svg, "data-lane=\"client\"") == 3);
  CHECK(count(svg, "data-lane=\"redis\"") == 1);
  CHECK(count(svg, "data-lane=\"storage\"") == 1);
  for (const char* name : {"data-name=\"A\"", "data-name=\"B\"", "data-name=\"C\"", "data-name=\"redis-1\""})
    CHECK(count(svg, name) == 1);
}

TEST_CASE("the timeline shows the title, the verdict and a time axis in true time", "[reports]") {
  const std::string svg = reports::render_timeline_svg(gc_pause_run());
  CHECK(svg.find("gc-pause") != std::string::npos);
  CHECK(svg.find("naive-del") != std::string::npos);
  CHECK(svg.find("seed 1") != std::string::npos);
  // Matching the expectation is said as such, with the count, and in red:
  // the violations are bad news even when the scenario documents them.
  CHECK(svg.find(">as expected \xE2\x80\x94 ") != std::string::npos);
  CHECK(svg.find("PASS") == std::string::npos);
  CHECK(svg.find("fill=\"#2ca02c\" font-weight=\"bold\">as expected") == std::string::npos);
  CHECK(svg.find(">10s</text>") != std::string::npos);
  CHECK(svg.find(">120s</text>") == std::string::npos);  // nothing happens late: the span stops early
}

TEST_CASE("forcing the full span draws the axis to the end of the run", "[reports]") {
  reports::TimelineOptions options;
  options.full_span = true;
  const std::string svg = reports::render_timeline_svg(gc_pause_run(), options);
  CHECK(svg.find(">2m</text>") != std::string::npos);
}

TEST_CASE("each violation gets one numbered badge and a legend entry", "[reports]") {
  const RunResult run = gc_pause_run();
  REQUIRE(run.violations.size() >= 3);
  const std::string svg = reports::render_timeline_svg(run);
  CHECK(count(svg, "data-violation=") == run.violations.size());
  for (std::size_t i = 0; i < run.violations.size(); ++i) {
    const auto& v = run.violations[i];
    const std::string entry = std::to_string(i + 1) + ". " + v.kind + " at " + std::to_string(locksim::to_ms(v.at)) + "ms";
    INFO(entry);
    CHECK(svg.find(entry) != std::string::npos);
  }
}

TEST_CASE("the pause of a client is shaded with its duration", "[reports]") {
  const std::string svg = reports::render_timeline_svg(gc_pause_run());
  CHECK(count(svg, "data-fault=\"pause\"") == 1);
  CHECK(svg.find("GC pause 15s") != std::string::npos);
}

TEST_CASE("the timeline goes by a fault's typed kind, not by its words", "[reports]") {
  RunResult run = gc_pause_run();
  for (auto& f : run.history.faults) f.description = "stop-the-world " + f.target;  // words of another tool
  const std::string svg = reports::render_timeline_svg(run);
  CHECK(count(svg, "data-fault=\"pause\"") == 1);
  CHECK(svg.find("GC pause 15s") != std::string::npos);
  CHECK(svg.find("stop-the-world") != std::string::npos);  // the tooltip shows the words as recorded
}

TEST_CASE("storage writes are marked accepted or rejected with their token", "[reports]") {
  const std::string svg = reports::render_timeline_svg(gc_pause_run());
  // Each write is drawn twice: on its client's lane and on the storage lane.
  CHECK(count(svg, "data-write=\"accepted\"") == 2 * 3);
  CHECK(count(svg, "data-write=\"rejected\"") == 2 * 1);
  CHECK(svg.find("token 33") != std::string::npos);
  CHECK(svg.find("B token 34") != std::string::npos);
}

TEST_CASE("the node lane shows each lock entry by its creator and the foreign delete", "[reports]") {
  const std::string svg = reports::render_timeline_svg(gc_pause_run());
  CHECK(count(svg, "data-entry=\"A\"") == 1);
  CHECK(count(svg, "data-entry=\"B\"") == 1);
  CHECK(count(svg, "data-entry=\"C\"") == 1);
  CHECK(count(svg, "data-foreign-delete=\"A\"") == 1);
  CHECK(svg.find(">DEL by A</text>") != std::string::npos);
}

TEST_CASE("a client named like markup does not break the XML", "[reports]") {
  const std::string svg = reports::render_timeline_svg(gc_pause_run("<A&B>"));
  CHECK(svg.find("<A&B>") == std::string::npos);
  CHECK(svg.find("&lt;A&amp;B&gt;") != std::string::npos);
  require_well_formed(svg, "escaping");
}

TEST_CASE("invalid UTF-8 and control characters in text are replaced", "[reports]") {
  RunResult run = gc_pause_run();
  run.scenario = std::string("bad\xff\x01name");
  const std::string svg = reports::render_timeline_svg(run);
  CHECK(svg.find("bad??name") != std::string::npos);
  require_well_formed(svg, "utf8");
}

TEST_CASE("the same run renders to the same bytes", "[reports]") {
  const RunResult run = gc_pause_run();
  const std::string first = reports::render_timeline_svg(run);
  CHECK(reports::render_timeline_svg(run) == first);
  CHECK(reports::render_timeline_svg(gc_pause_run()) == first);
}

TEST_CASE("a crash, a validity deadline and node faults are drawn", "[reports]") {
  RunResult run = gc_pause_run();
  History& h = run.history;
  h.beliefs[2].deadline = at(26s);  // C's lease ran out before it stopped believing
  h.beliefs[2].end = at(28s);
  h.beliefs[2].end_reason = "crash";
  h.clients[kC].crashes.push_back(at(28s));
  h.faults.push_back({at(22s), FaultKind::ClockJump, "clock-jump redis-1 +10s", "redis-1", std::nullopt});
  h.faults.push_back({at(24s), FaultKind::PowerLoss, "power-loss redis-1", "redis-1", std::nullopt});
  h.faults.push_back({at(25s), FaultKind::Restart, "restart redis-1", "redis-1", std::nullopt});
  h.faults.push_back({at(26s), FaultKind::Partition, "partition [A redis-1] [B C storage]", "", at(27s)});
  h.faults.push_back({at(27s), FaultKind::Pause, "pause redis-1 500ms", "redis-1", at(27500ms)});
  const std::string svg = reports::render_timeline_svg(run);
  CHECK(count(svg, "data-fault=\"pause\"") == 2);  // A's and the node's
  CHECK(svg.find(">paused 500ms</text>") != std::string::npos);
  CHECK(svg.find("-hatch-2)") != std::string::npos);
  CHECK(count(svg, "data-fault=\"crash\"") == 1);
  CHECK(count(svg, "data-fault=\"clock-jump\"") == 1);
  CHECK(count(svg, "data-fault=\"power-loss\"") == 1);
  CHECK(count(svg, "data-fault=\"restart\"") == 1);
  CHECK(svg.find(">clock +10s</text>") != std::string::npos);
  CHECK(count(svg, "data-lane=\"other\"") == 1);  // the partition names no single host
  require_well_formed(svg, "faults");
}

TEST_CASE("the time axis picks readable ticks from 100 ms to hours", "[reports]") {
  auto render_span = [](locksim::Duration end) {
    RunResult run;
    run.scenario = "span";
    run.history.clients = {{"A", 1, {}, std::nullopt}};
    run.history.beliefs.push_back({0, 0, at(end / 10), at(end - end / 10), std::nullopt, std::nullopt, "release"});
    run.history.end = at(end);
    return reports::render_timeline_svg(run);
  };
  CHECK(render_span(100ms).find(">50ms</text>") != std::string::npos);
  CHECK(render_span(10s).find(">5s</text>") != std::string::npos);
  CHECK(render_span(3h).find(">1h</text>") != std::string::npos);
  CHECK(render_span(std::chrono::hours(48)).find(">24h</text>") != std::string::npos);
}

TEST_CASE("an empty run still renders a well-formed document", "[reports]") {
  RunResult run;
  const std::string svg = reports::render_timeline_svg(run);
  require_well_formed(svg, "empty");
  CHECK(svg.find("no violations") != std::string::npos);
}

TEST_CASE("two runs inlined in one page get different ids unless told otherwise", "[reports]") {
  RunResult other = gc_pause_run();
  other.seed = 2;
  const std::string first = reports::render_timeline_svg(gc_pause_run());
  const std::string second = reports::render_timeline_svg(other);
  const auto clip_id = [](const std::string& svg) {
    const auto at = svg.find("<clipPath id=\"");
    REQUIRE(at != std::string::npos);
    return svg.substr(at + 14, svg.find('"', at + 14) - at - 14);
  };
  CHECK(clip_id(first) != clip_id(second));
  reports::TimelineOptions options;
  options.id_prefix = "run7";
  const std::string named = reports::render_timeline_svg(gc_pause_run(), options);
  CHECK(clip_id(named) == "run7-clip");
  CHECK(named.find("url(#run7-clip)") != std::string::npos);
}

TEST_CASE("an entry that expires lazily on another client's SET is not drawn as its delete", "[reports]") {
  RunResult run = gc_pause_run();
  History& h = run.history;
  // What redis-server does: B's SET NX finds A's key past its deadline,
  // expires it on access, then creates its own (the event names B's command).
  h.entries[1].client = kB;
  h.entries[1].command = "SET " + kKey + " b1 NX PX 10000";
  const std::string svg = reports::render_timeline_svg(run);
  CHECK(count(svg, "data-foreign-delete=") == 1);  // only A's DEL of B's entry
  CHECK(svg.find(">SET by B</text>") == std::string::npos);
}

TEST_CASE("a write that arrives after its holder stopped believing is tied back to the belief", "[reports]") {
  RunResult run = gc_pause_run();
  CHECK(count(reports::render_timeline_svg(run), "data-late-write=") == 0);
  // The delayed-packet story: A's write 1 reaches the storage 90 s late.
  run.history.writes[1].at = at(106s);
  CHECK(count(reports::render_timeline_svg(run), "data-late-write=") == 1);
}

TEST_CASE("a stale write the storage accepted is marked stale on both lanes", "[reports]") {
  const std::string svg = reports::render_timeline_svg(gc_pause_run());
  // A's write at 16.02 s (B had written at 12 s): on A's lane and the storage's.
  CHECK(count(svg, "data-stale=\"1\"") == 2);
  CHECK(svg.find(">A token 33 stale</text>") != std::string::npos);
}

TEST_CASE("lease deadlines are drawn: the holder's and the key's on the node", "[reports]") {
  RunResult run = gc_pause_run();
  run.history.beliefs[0].deadline = at(9990ms);
  run.history.entries[0].deadline = at(10001ms);
  const std::string svg = reports::render_timeline_svg(run);
  CHECK(count(svg, "data-deadline=\"holder\"") == 1);
  CHECK(count(svg, "data-deadline=\"key\"") == 1);
  CHECK(svg.find("validity deadline for grant 1 \xC2\xB7 token 33: 9990ms") != std::string::npos);
}

// The x of the write marker whose tooltip starts with `tip` (as escaped in the SVG).
int write_x(const std::string& svg, const std::string& tip) {
  const auto at_tip = svg.find(tip);
  REQUIRE(at_tip != std::string::npos);
  const auto cx = svg.rfind("cx=\"", at_tip);
  return std::stoi(svg.substr(cx + 4));
}

TEST_CASE("two writes 4 ms apart in a minute-long run are drawn apart", "[reports]") {
  RunResult run = gc_pause_run();
  run.history.writes.push_back({at(16024ms), kA, 0, 33, true, 2});  // 4 ms after A's first write
  const std::string svg = reports::render_timeline_svg(run);
  const int first = write_x(svg, "storage accepted A&apos;s write 1 (grant 1, fencing token 33) at 16020ms");
  const int second = write_x(svg, "storage accepted A&apos;s write 2 (grant 1, fencing token 33) at 16024ms");
  CHECK(second - first >= 12);  // markers are 12 px wide: both visible
  CHECK(svg.find("data-stretched=\"4000us\"") != std::string::npos);  // and the axis says it is stretched there
}

TEST_CASE("clock drift and clock steps are drawn on the host's lane", "[reports]") {
  RunResult run = gc_pause_run();
  run.history.clients[kB].clock_drift_ppm = -50000;
  run.history.faults.push_back({at(22s), FaultKind::ClockDrift, "clock-drift C +200ppm", "C", std::nullopt});
  run.history.faults.push_back({at(23s), FaultKind::ClockJump, "clock-jump redis-1 +10s", "redis-1", std::nullopt});
  const std::string svg = reports::render_timeline_svg(run);
  CHECK(count(svg, "data-clock=\"B\"") == 1);
  CHECK(svg.find(">clock drift -50000 ppm</text>") != std::string::npos);
  CHECK(count(svg, "data-clock=\"C\"") == 1);
  CHECK(count(svg, "data-clock=\"redis-1\"") == 1);
  require_well_formed(svg, "clocks");
}

// --- failure evidence for a user's lock test (testing/failure_evidence) ---------

#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "testing/failure_evidence.hpp"

TEST_CASE("failure evidence writes the scenario and the timeline and names the user's own tool", "[reports]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "locksim-failure-evidence-test";
  fs::remove_all(dir);
  const auto gc = scenarios::load_catalog_scenario("gc-pause");
  REQUIRE(gc);
  const auto evidence = locksim::testing::write_failure_evidence(*gc, "naive-del", 1, dir.string(), "my-locksim");

  // The text: every violation with its evidence, the repro with the user's
  // tool on the written file, and where the files are.
  CHECK(evidence.text.find("VIOLATED wrong-owner-release") != std::string::npos);
  CHECK(evidence.text.find("removed B's lock") != std::string::npos);
  CHECK(evidence.text.find("repro     my-locksim run " + evidence.scenario_path + " --lock naive-del --seed 1") !=
        std::string::npos);
  CHECK(evidence.text.find("timeline  " + evidence.timeline_path) != std::string::npos);

  // The written scenario reruns to the same violations; the timeline is SVG.
  const auto reread = scenarios::load_scenario_file(evidence.scenario_path);
  REQUIRE(reread);
  scenarios::RunOptions options;
  options.lock_kind = "naive-del";
  auto rerun = scenarios::run_scenario(*reread, options);
  REQUIRE(rerun);
  CHECK(rerun->violation_kinds().count("wrong-owner-release") == 1);
  std::ifstream svg(evidence.timeline_path);
  std::string head(4, '\0');
  svg.read(head.data(), 4);
  CHECK(head == "<svg");
  fs::remove_all(dir);
}
