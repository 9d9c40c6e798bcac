// Source rules: the determinism rules of DESIGN.md, checked by scanning the
// source. The simulation (sim/, locks/ outside locks/hiredis/, scenarios/)
// must not read real clocks, spawn threads, read the environment or use
// <random>'s engines and distributions, std::hash or rand().
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> simulation_sources() {
  std::vector<fs::path> files;
  const fs::path root = LOCKSIM_SOURCE_DIR;
  for (const char* dir : {"sim", "locks", "scenarios"}) {
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
    std::ifstream in(file);
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string code = code_only(buf.str());
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
  for (const char* dir : {"sim", "locks", "scenarios", "reports", "cli"}) {
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
