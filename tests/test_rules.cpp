// Source rules: the determinism rules of docs/architecture.md, checked by scanning the
// source. The simulation (sim/, locks/ outside locks/hiredis/, scenarios/)
// must not read real clocks, spawn threads, read the environment or use
// <random>'s engines and distributions, std::hash or rand(). Nor may one
// full-expression make two random draws: the order of unsequenced operands is
// unspecified, so GCC and Clang would draw in different orders and give
// different digests for the same seed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "live/external_lock.hpp"
#include "locks/registry.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> simulation_sources() {
  std::vector<fs::path> files;
  const fs::path root = LOCKSIM_SOURCE_DIR;
  for (const char* dir : {"vocab", "sim", "locks", "scenarios"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const auto& p = entry.path();
      if (p.string().find("/locks/hiredis/") != std::string::npos) continue;
      const auto ext = p.extension().string();
      if (ext == ".cpp" || ext == ".hpp" || ext == ".h") files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Strips // and /* */ comments and string literals, so prose that names a
// forbidden thing (like this file's header) does not trip the scan.
std::string code_only(const std::string& text) {
  static const std::regex comments(R"(//[^\n]*|/\*[\s\S]*?\*/|"(\\.|[^"\\])*")");
  return std::regex_replace(text, comments, " ");
}

// A random draw: sim::Rng's methods, the lock runtime's random_* calls and
// LockBase's fresh_token (an unqualified member call).
const std::regex& draw_call() {
  static const std::regex re(
      R"(((\.|->)\s*(below|between|chance|next|hex_token|random_below|random_token|append_random_token)|\bfresh_token)\s*\()");
  return re;
}

std::size_t count_matches(const std::string& text, const std::regex& re) {
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// Names of the file's lambdas (`auto name = [...](...) { ... };`) whose body
// draws: calling one is a draw too (faults.cpp's `span`, `pick`).
std::set<std::string> drawing_lambdas(const std::string& code) {
  static const std::regex head(R"(auto\s+(\w+)\s*=\s*\[[^\]]*\]\s*\([^)]*\)[^{;]*\{)");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), head); it != std::sregex_iterator(); ++it) {
    std::size_t pos = static_cast<std::size_t>(it->position() + it->length());
    for (int depth = 1; pos < code.size() && depth > 0; ++pos) depth += code[pos] == '{' ? 1 : code[pos] == '}' ? -1 : 0;
    const std::string body = code.substr(static_cast<std::size_t>(it->position()), pos - static_cast<std::size_t>(it->position()));
    if (std::regex_search(body, draw_call())) names.insert((*it)[1]);
  }
  return names;
}

// Statements (split at ; { }) of comment-free code that draw more than once.
std::vector<std::string> statements_with_two_draws(const std::string& code) {
  std::vector<std::regex> lambda_calls;
  for (const auto& name : drawing_lambdas(code)) lambda_calls.emplace_back("\\b" + name + "\\s*\\(");
  std::vector<std::string> found;
  std::string statement;
  for (char c : code + ";") {
    if (c != ';' && c != '{' && c != '}') {
      statement += c;
      continue;
    }
    std::size_t draws = count_matches(statement, draw_call());
    for (const auto& call : lambda_calls) draws += count_matches(statement, call);
    if (draws > 1) found.push_back(statement);
    statement.clear();
  }
  return found;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace

TEST_CASE("the simulation never uses real clocks, threads, the environment or <random>", "[rules]") {
  const std::vector<std::pair<std::string, std::regex>> forbidden = {
      {"std::random_device", std::regex(R"(random_device)")},
      {"rand()", std::regex(R"(\b(s?rand|random)\s*\()")},
      {"system_clock", std::regex(R"(system_clock)")},
      {"steady_clock", std::regex(R"(steady_clock|high_resolution_clock)")},
      {"std::thread", std::regex(R"(std::(thread|jthread|async)\b)")},
      {"getenv", std::regex(R"(getenv)")},
      {"<random>", std::regex(R"(#\s*include\s*<random>|_distribution\b|mt19937|default_random_engine)")},
      {"std::hash", std::regex(R"(std::hash\b)")},
      {"time()", std::regex(R"((^|[^.>\w])(time|gettimeofday|clock_gettime)\s*\()")},
  };
  const auto files = simulation_sources();
  REQUIRE(files.size() > 10);  // the scan really looked at the tree
  for (const auto& file : files) {
    const std::string code = code_only(read_text(file));
    for (const auto& [name, pattern] : forbidden) {
      INFO(file.string() << " uses " << name);
      CHECK_FALSE(std::regex_search(code, pattern));
    }
  }
}

TEST_CASE("the scan would catch a forbidden call in code but not in a comment", "[rules]") {
  const std::regex steady(R"(steady_clock)");
  CHECK(std::regex_search(code_only("auto t = std::chrono::steady_clock::now();"), steady));
  CHECK_FALSE(std::regex_search(code_only("// never steady_clock here\nint x;"), steady));
  CHECK_FALSE(std::regex_search(code_only("const char* s = \"steady_clock\";"), steady));
}

TEST_CASE("only locks/hiredis includes hiredis", "[rules]") {
  const fs::path root = LOCKSIM_SOURCE_DIR;
  for (const char* dir : {"sim", "locks", "scenarios", "reports", "cli", "hosted"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const auto& p = entry.path();
      if (p.string().find("/locks/hiredis/") != std::string::npos || !entry.is_regular_file()) continue;
      std::ifstream in(p);
      std::stringstream buf;
      buf << in.rdbuf();
      INFO(p.string());
      CHECK(buf.str().find("hiredis/hiredis.h") == std::string::npos);
    }
  }
}

// Every C++ source of the project (not tests/, not build trees).
std::vector<fs::path> project_sources() {
  std::vector<fs::path> files;
  const fs::path root = LOCKSIM_SOURCE_DIR;
  for (const char* dir : {"vocab", "sim", "locks", "scenarios", "live", "hosted", "reports", "cli", "bench", "fuzz"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const auto ext = entry.path().extension().string();
      if (ext == ".cpp" || ext == ".hpp" || ext == ".h") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A `case` label of a fault kind: a switch over kinds.
const std::regex& fault_kind_case() {
  static const std::regex re(R"(\bcase\s+(\w+::)*FaultKind::)");
  return re;
}

// Whether a line of code (its // comment cut off) has a fault kind's case label.
bool has_fault_kind_case(const std::string& line) {
  return std::regex_search(line.substr(0, line.find("//")), fault_kind_case());
}

// Fails on every line of the project's sources that `bad` matches, naming
// file, line and `why`; files whose path (from the source root) is in
// `allowed` are skipped. Line by line: a whole-file std::regex overflows the
// stack under ASan.
void check_no_line_of_project(bool (*bad)(const std::string&), const char* why,
                              const std::set<std::string>& allowed = {}) {
  const auto files = project_sources();
  REQUIRE(files.size() > 50);
  for (const auto& file : files) {
    if (allowed.count(fs::relative(file, LOCKSIM_SOURCE_DIR).generic_string())) continue;
    std::ifstream in(file);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      INFO(file.string() << ":" << number << ": " << why);
      CHECK_FALSE(bad(line));
    }
  }
}

// The project headers `file` includes ("sim/network.hpp").
std::vector<std::string> project_includes(const fs::path& file) {
  // Line by line: a whole-file std::regex overflows the stack under ASan.
  static const std::regex include(R"re(^\s*#include\s+"([^"]+)")re");
  std::istringstream text(read_text(file));
  std::vector<std::string> out;
  std::smatch m;
  for (std::string line; std::getline(text, line);)
    if (std::regex_search(line, m, include)) out.push_back(m[1]);
  return out;
}

std::string source_path(const fs::path& file) { return fs::relative(file, LOCKSIM_SOURCE_DIR).generic_string(); }
bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

TEST_CASE("the layers: vocab below the kernel, and locks and live mode need no simulator type", "[rules]") {
  std::size_t checked = 0;
  for (const auto& file : project_sources()) {
    const std::string path = source_path(file);
    for (const std::string& inc : project_includes(file)) {
      INFO(path << " includes " << inc);
      if (starts_with(path, "vocab/")) CHECK(starts_with(inc, "vocab/"));
      // The kernel does not know the services simulated on it.
      const bool kernel = starts_with(path, "sim/") && path.find('/', 4) == std::string::npos;
      if (kernel) CHECK_FALSE((starts_with(inc, "sim/redis/") || starts_with(inc, "sim/consensus/")));
      // Locks see Runtime and the CP client interfaces; only the simulator's
      // runtime (locks/sim_*) is built on the kernel.
      if (starts_with(path, "locks/") && !starts_with(path, "locks/sim_")) CHECK_FALSE(starts_with(inc, "sim/"));
      if (starts_with(path, "live/")) CHECK_FALSE(starts_with(inc, "sim/"));
      // hosted/ (real client processes against simulated nodes) sits above
      // the simulation's layers: none of them may need it.
      for (const char* below : {"vocab/", "sim/", "locks/", "scenarios/", "reports/", "testing/", "live/"})
        if (starts_with(path, below)) CHECK_FALSE(starts_with(inc, "hosted/"));
      ++checked;
    }
  }
  CHECK(checked > 300);
}

TEST_CASE("no code switches on a fault kind: each kind's behaviour is a table entry", "[rules]") {
  // The fault table (scenarios/fault_kinds.cpp) and the two applier tables
  // (scenarios/faults.cpp, live/live_fault_appliers.cpp) are arrays indexed
  // by kind; nothing else may choose by kind in a switch. Line by line: a
  // whole-file std::regex recurses deep enough on the largest sources to
  // overflow the stack under ASan.
  CHECK(has_fault_kind_case("  switch (f.kind) { case FaultKind::Pause: break; }"));
  CHECK(has_fault_kind_case("    case scenarios::FaultKind::Heal:"));
  CHECK_FALSE(has_fault_kind_case("  // case FaultKind::Pause:"));
  CHECK_FALSE(has_fault_kind_case("  if (f.kind == FaultKind::Pause) return;"));
  check_no_line_of_project(has_fault_kind_case, "a switch over fault kinds (add a field to the fault table or an applier instead)");
}

// A conditional operator with a co_await in an arm (`c ? a : co_await b`).
bool has_co_await_in_conditional(const std::string& line) {
  static const std::regex re(R"(\s\?\s.*\bco_await\b)");
  return std::regex_search(line.substr(0, line.find("//")), re);
}

TEST_CASE("no co_await inside a conditional operator (GCC 12 evaluates the arm it should skip)", "[rules]") {
  // Found by the Clang/GCC determinism sweep: GCC 12 ran the co_await of
  // `check_ == None ? Granted : co_await check(...)` although the condition
  // held (an extra etcd Get, another digest). Write an if instead.
  CHECK(has_co_await_in_conditional("    co_return ok ? Outcome::Granted : co_await check(etcd, key);"));
  CHECK(has_co_await_in_conditional("  const bool e = f ? co_await a() : co_await b();"));
  CHECK_FALSE(has_co_await_in_conditional("  if (f) e = co_await a();"));
  CHECK_FALSE(has_co_await_in_conditional("  // x ? y : co_await z"));
  check_no_line_of_project(has_co_await_in_conditional, "co_await inside ?: (write an if)");
}

TEST_CASE("no statement in the simulation makes two random draws", "[rules]") {
  const auto files = simulation_sources();
  REQUIRE(files.size() > 10);
  for (const auto& file : files) {
    for (const auto& statement : statements_with_two_draws(code_only(read_text(file)))) {
      INFO(file.string() << ": two random draws in one statement (draw into a local first):" << statement);
      CHECK(false);
    }
  }
}

TEST_CASE("the two-draws rule catches direct and lambda draws, and allows one per statement", "[rules]") {
  const std::string lambda = "auto span = [&](Duration max) { return Duration(rng.between(1, max.count())); };\n";
  // The line that made GCC and Clang builds disagree (issue 15).
  CHECK(statements_with_two_draws(code_only(lambda + "f.by = span(m) * (rng.chance(1, 2) ? 1 : -1);")).size() == 1);
  CHECK(statements_with_two_draws("g(rt_.random_below(3), tokens_.next());").size() == 1);
  CHECK(statements_with_two_draws("cmd(0, \"SET\", fresh_token(), rt_.random_below(9));").size() == 1);
  CHECK(statements_with_two_draws("rt_.append_random_token(a); rt_->append_random_token(b);").empty());
  CHECK(statements_with_two_draws(lambda + "const bool forward = rng.chance(1, 2);\nf.by = span(m) * (forward ? 1 : -1);").empty());
  CHECK(statements_with_two_draws("if (a && rng.chance(1, 2)) { d *= 1 << rng.below(4); }").empty());
  CHECK(statements_with_two_draws(code_only("x = rng.next(); // then rng.next() again")).empty());
}

TEST_CASE("every test case carries a tag that a ctest suite runs", "[rules]") {
  // A suite reaches ctest (and CI) as locksim_test(NAME "[tag]" ...) in tests/CMakeLists.txt. A test
  // case with none of those tags is compiled and never run: five [hunt] cases were, and one of them
  // broke unseen when the shrinker changed.
  std::ifstream in(fs::path(LOCKSIM_SOURCE_DIR) / "tests" / "CMakeLists.txt");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string cmake = text.str();
  std::set<std::string> run;
  const std::regex suite(R"re(locksim_test\(\s*\w+\s+"\[([^\]"]+)\]")re");
  for (auto it = std::sregex_iterator(cmake.begin(), cmake.end(), suite); it != std::sregex_iterator(); ++it)
    run.insert((*it)[1].str());
  REQUIRE(run.count("rules") == 1);  // this very test's suite: the pattern reads the file
  std::vector<std::string> never_run;
  for (const Catch::TestCase& test : Catch::getRegistryHub().getTestCaseRegistry().getAllTests()) {
    const bool runs = std::any_of(test.lcaseTags.begin(), test.lcaseTags.end(),
                                  [&run](const std::string& tag) { return run.count(tag) == 1; });
    if (!runs) never_run.push_back(test.name + " " + test.tagsAsString());
  }
  std::string listed;
  for (const auto& name : never_run) listed += "\n  " + name;
  INFO("never run by ctest:" << listed);
  CHECK(never_run.empty());
}

// A violation kind's name in quotes ("mutual-exclusion"), in code: the names
// live in one table (vocab/violation_kinds.cpp) and everything else asks it.
bool spells_a_violation_kind(const std::string& line) {
  static const std::regex re(
      R"re("(mutual-exclusion|wrong-owner-release|stale-write|lock-unavailable|oversell|double-purchase|lost-order)")re");
  return std::regex_search(line.substr(0, line.find("//")), re);
}

TEST_CASE("violation kinds are spelled only in their table", "[rules]") {
  CHECK(spells_a_violation_kind(R"(  if (kind == "mutual-exclusion") return "ME";)"));
  CHECK(spells_a_violation_kind(R"(  out.push_back({"lost-order", at, {buyer}});)"));
  CHECK_FALSE(spells_a_violation_kind("  // a \"stale-write\" at the write"));
  CHECK_FALSE(spells_a_violation_kind(R"(  return "stale-writes";)"));
  std::size_t lines = 0;
  for (const auto& file : project_sources()) {
    const std::string path = source_path(file);
    if (path == "vocab/violation_kinds.cpp") continue;
    std::istringstream text(read_text(file));
    int number = 0;
    for (std::string line; std::getline(text, line); ++lines) {
      ++number;
      INFO(path << ":" << number << ": a violation kind's name outside vocab/violation_kinds.cpp (use its ViolationKind)");
      CHECK_FALSE(spells_a_violation_kind(line));
    }
  }
  CHECK(lines > 10000);
}

// Invariants are executable (issue 37): the kernel and the models carry at
// least one assert per 100 lines, so a broken invariant stops the run with
// its reason instead of changing a digest silently. Assertions stay on in
// every build type (CMakeLists.txt drops NDEBUG).
TEST_CASE("the simulation asserts its invariants: at least one assert per 100 lines of sim/", "[rules]") {
  static const std::regex assertion(R"(\bassert\s*\()");  // not static_assert
  std::size_t lines = 0;
  std::size_t asserts = 0;
  for (const auto& file : simulation_sources()) {
    if (!starts_with(source_path(file), "sim/")) continue;
    const std::string text = read_text(file);
    lines += static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    asserts += count_matches(code_only(text), assertion);
  }
  INFO(asserts << " asserts in " << lines << " lines of sim/");
  CHECK(lines > 5000);
  CHECK(asserts * 100 >= lines);
}

// ---- tidy: function length, line length, fault kinds compared by value ----------

// Blanks comments, string and character literals, newlines kept (line numbers stay).
std::string blank_literals(const std::string& s) {
  std::string out = s;
  auto blank = [&out](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  auto word_char = [&s](std::size_t i) { return i > 0 && (std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_'); };
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t end = i + 1;
    if (s.compare(i, 2, "//") == 0) {
      end = std::min(s.find('\n', i), s.size());
    } else if (s.compare(i, 2, "/*") == 0) {
      end = std::min(s.find("*/", i + 2), s.size() - 2) + 2;
    } else if (s.compare(i, 2, "R\"") == 0 && !word_char(i)) {
      const std::size_t open = s.find('(', i + 2);
      const std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
      end = std::min(s.find(close, open), s.size()) + close.size();
    } else if (s[i] == '"' || (s[i] == '\'' && !word_char(i))) {
      end = i + 1;
      while (end < s.size() && s[end] != s[i]) end += s[end] == '\\' ? 2 : 1;
      ++end;
    } else {
      ++i;
      continue;
    }
    blank(i, end);
    i = end;
  }
  return out;
}

struct FunctionSpan {
  std::string name;  // the identifier before its parameter list
  int first_line;    // the line of its opening brace
  int lines;         // the lines between its braces
};

// Bodies of functions defined at namespace or class level: a `{` whose text
// since the last `;`, `{` or `}` ends like a signature (`)`, then
// const/noexcept/override/final or a trailing return type). Lambdas and
// blocks inside a body count as that body's lines.
std::vector<FunctionSpan> function_spans(const std::string& text) {
  static const std::regex signature_end(R"(\)\s*(\b(const|noexcept|override|final|mutable)\b\s*)*(->[^;{}()]*)?$)");
  const std::string code = blank_literals(text);
  std::vector<FunctionSpan> spans;
  int depth_in_function = 0;          // open braces inside the current function (0: none)
  static const std::regex name_before_parameters(R"((~?\w+)\s*\()");
  int line = 1;
  int start = 0;
  std::string name;
  std::string since;
  for (char c : code) {
    if (c == '\n') ++line;
    if (depth_in_function > 0) {
      if (c == '{') ++depth_in_function;
      if (c == '}' && --depth_in_function == 0) spans.push_back({name, start, line - start - 1});
      continue;
    }
    std::smatch m;
    if (c == '{' && std::regex_search(since, signature_end)) {
      depth_in_function = 1;
      start = line;
      name = std::regex_search(since, m, name_before_parameters) ? m[1].str() : "";
    }
    if (c == ';' || c == '{' || c == '}') since.clear();
    else since += c;
  }
  return spans;
}

TEST_CASE("the function scan finds bodies by their braces, not braces in literals or comments", "[rules]") {
  const auto spans = function_spans(
      "namespace a {\nstruct S { int x_{0}; };\nint f(int x) const {\n  if (x) {\n    return '{';\n  }\n"
      "  // }\n  return x;\n}\nauto g() -> int { return R\"(}})\"[0]; }\n}  // namespace a\n");
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].name == "f");
  CHECK(spans[0].first_line == 3);
  CHECK(spans[0].lines == 5);
  CHECK(spans[1].name == "g");
  CHECK(spans[1].lines == -1);  // one line: its braces share it
}

// Functions stay short (issue 37; TigerBeetle's tidy.zig ratchet): at most
// 70 lines between the braces. The ones over it today are named with the
// length they may not pass, so a new one fails and these only shrink.
TEST_CASE("no function of the project is longer than 70 lines, but the named exceptions", "[rules]") {
  struct Exception {
    const char* file;
    const char* function;
    int at_most;
    const char* reason;
  };
  const std::vector<Exception> exceptions = {
      {"cli/sweep.cpp", "run_sweep", 89, "the worker pool is moving out of it (issue 37 point 2)"},
  };
  std::size_t functions = 0;
  for (const auto& file : project_sources()) {
    const std::string path = source_path(file);
    for (const FunctionSpan& f : function_spans(read_text(file))) {
      ++functions;
      int limit = 70;
      for (const Exception& e : exceptions)
        if (path == e.file && f.name == e.function) limit = e.at_most;
      INFO(path << ":" << f.first_line << ": " << f.name << " has " << f.lines << " lines (split it)");
      CHECK(f.lines <= limit);
    }
  }
  CHECK(functions > 2000);
}

// Lines stay within 120 columns. The tree has longer ones from before the
// limit (the .clang-format reformat will fold them): their count may only
// go down — lower kLongLinesToday when you shorten one.
TEST_CASE("no line of the project is longer than 120 columns, but fewer of the older ones each time", "[rules]") {
  constexpr std::size_t kColumns = 120;
  constexpr std::size_t kLongLinesToday = 175;
  std::size_t long_lines = 0;
  std::string listed;
  for (const auto& file : project_sources()) {
    std::istringstream text(read_text(file));
    int number = 0;
    for (std::string line; std::getline(text, line);) {
      ++number;
      if (line.size() <= kColumns) continue;
      ++long_lines;
      listed += "\n  " + source_path(file) + ":" + std::to_string(number);
    }
  }
  INFO(long_lines << " lines over " << kColumns << " columns:" << listed);
  CHECK(long_lines <= kLongLinesToday);
}

// A fault kind compared by value (`f.kind == FaultKind::Pause`): what a kind
// means belongs in its row of the fault table (scenarios/fault_kinds.cpp:
// clock, host, named_by_kind_alone, ...), asked through fault_kind_info.
bool compares_a_fault_kind(const std::string& line) {
  static const std::regex re(R"([!=]=\s*(\w+::)*FaultKind::|\bFaultKind::\w+\s*[!=]=)");
  return std::regex_search(line.substr(0, line.find("//")), re);
}

TEST_CASE("fault kinds are compared by value only in the fault table and its appliers", "[rules]") {
  CHECK(compares_a_fault_kind("  if (f.kind == FaultKind::Pause) return;"));
  CHECK(compares_a_fault_kind("  const bool step = k != scenarios::FaultKind::ClockJump;"));
  CHECK(compares_a_fault_kind("  if (FaultKind::Delay == f.kind) return;"));
  CHECK_FALSE(compares_a_fault_kind("  f.kind = FaultKind::Pause;"));
  CHECK_FALSE(compares_a_fault_kind("  // if (f.kind == FaultKind::Pause)"));
  const std::set<std::string> allowed = {
      "scenarios/fault_kinds.cpp", "scenarios/fault_kinds.hpp",     // the table
      "scenarios/faults.cpp",      "live/live_fault_appliers.cpp",  // the appliers
      "live/live_faults.cpp",                                       // what live mode refuses
  };
  check_no_line_of_project(compares_a_fault_kind, "a fault kind compared by value (add a field to the fault table)",
                           allowed);
}

// Live mode is built from parts (live/live_session.hpp: the recorder, the
// storage link, the clients, the fault actions, the service): no file of
// live/ grows back into a session that is all of them at once.
TEST_CASE("no file of live/ is longer than 600 lines", "[rules]") {
  std::size_t files = 0;
  for (const auto& file : project_sources()) {
    const std::string path = source_path(file);
    if (!starts_with(path, "live/")) continue;
    ++files;
    const std::string text = read_text(file);
    const auto lines = std::count(text.begin(), text.end(), '\n');
    INFO(path << " has " << lines << " lines (split it into parts)");
    CHECK(lines <= 600);
  }
  CHECK(files > 40);
}

// What live mode refuses is a property of the lock (locks::LockInfo), asked
// in one place (live/live_refusals.cpp): no condition in live/ names a lock
// kind (`lock.name == "external"`).
bool names_a_lock_kind_in_a_condition(const std::string& line, const std::vector<std::string>& kinds) {
  const std::string code = line.substr(0, line.find("//"));
  for (const std::string& kind : kinds) {
    const std::string quoted = "\"" + kind + "\"";
    for (const char* op : {"==", "!="})
      for (const char* gap : {"", " "})
        if (code.find(op + std::string(gap) + quoted) != std::string::npos ||
            code.find(quoted + gap + op) != std::string::npos)
          return true;
  }
  return false;
}

TEST_CASE("live mode names no lock kind in a condition", "[rules]") {
  locksim::live::register_library_locks();
  std::vector<std::string> kinds;
  for (const auto& info : locksim::locks::all_locks()) kinds.push_back(info.name);
  for (const auto& info : locksim::locks::library_locks()) kinds.push_back(info.name);
  CHECK(names_a_lock_kind_in_a_condition("  if (lock.name == \"external\" && s.lock.command.empty())", kinds));
  CHECK(names_a_lock_kind_in_a_condition("  if (\"setnx-expire\"!= kind) return;", kinds));
  CHECK_FALSE(names_a_lock_kind_in_a_condition("  // if (lock_kind == \"setnx-expire\")", kinds));
  CHECK_FALSE(names_a_lock_kind_in_a_condition("  if (word == \"hello\") return;", kinds));
  std::size_t files = 0;
  for (const auto& file : project_sources()) {
    const std::string path = source_path(file);
    if (!starts_with(path, "live/")) continue;
    ++files;
    std::istringstream text(read_text(file));
    int number = 0;
    for (std::string line; std::getline(text, line);) {
      ++number;
      INFO(path << ":" << number << ": a lock kind named in a condition (add a field to locks::LockInfo)");
      CHECK_FALSE(names_a_lock_kind_in_a_condition(line, kinds));
    }
  }
  CHECK(files > 40);
}

// A choice between named CP services: a topology compared with etcd or
// ZooKeeper (the two-way `t == Etcd ? ... : <ZooKeeper's>` that would take
// ZooKeeper's branch for a third service), or the per-service accessors
// the service table replaced (Runtime::etcd() / zk(), attach_cp).
bool chooses_a_cp_service(const std::string& line) {
  static const std::regex re(
      R"([!=]=\s*(\w+::)*Topology::(Etcd|ZooKeeper)\b|\bTopology::(Etcd|ZooKeeper)\s*[!=]=|(\.|->)(etcd|zk)\(\)|\battach_cp\()");
  return std::regex_search(line.substr(0, line.find("//")), re);
}

TEST_CASE("no code chooses between CP services by name: each service is a row of the service table", "[rules]") {
  CHECK(chooses_a_cp_service("  const char* t = topology == Topology::Etcd ? \"etcd\" : \"zookeeper\";"));
  CHECK(chooses_a_cp_service("  if (s.topology != locks::Topology::ZooKeeper) return {};"));
  CHECK(chooses_a_cp_service("  EtcdConn* etcd = rt_.etcd();"));
  CHECK(chooses_a_cp_service("  client.runtime->attach_cp(a, b);"));
  CHECK_FALSE(chooses_a_cp_service("  info.topology = Topology::ZooKeeper;"));
  CHECK_FALSE(chooses_a_cp_service("  if (s.topology == locks::Topology::Redis) return;"));
  CHECK_FALSE(chooses_a_cp_service("  // topology == Topology::Etcd ? a : b"));
  check_no_line_of_project(chooses_a_cp_service, "a choice between CP services (add a field to the service row: "
                                                 "scenarios/services.hpp, live/live_service_table.hpp)");
}
