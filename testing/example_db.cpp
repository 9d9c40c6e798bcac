// The failing-example database (example_db.hpp).
#include "testing/example_db.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "scenarios/repro.hpp"
#include "scenarios/scenario_writer.hpp"
#include "sim/rng.hpp"
#include "vocab/joined.hpp"

namespace locksim::testing {

using namespace scenarios;

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSeedTag = "-seed";

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The scenario with the property as its expectation: no violation expected,
// every kind but the failing ones allowed.
Scenario judged_by_property(const FailingExample& f) {
  Scenario s = f.scenario;
  s.lock_kind = f.lock;  // the replay's lock: a folder name is only a key (example_key)
  s.expect_by_lock.clear();
  s.expect_may_by_lock.clear();
  s.expect_default = std::set<std::string>{};
  s.expect_may_default.clear();
  if (!f.failing.empty())
    for (const std::string& kind : violation_names())
      if (!f.failing.count(kind)) s.expect_may_default.insert(kind);
  return s;
}

std::string failing_text(const std::set<std::string>& kinds) {
  return kinds.empty() ? "any violation" : joined(kinds);
}

// The comment lines above the scenario: what failed, who found it, the repro.
std::string header(const FailingExample& f, const std::string& path) {
  std::string text = "# locksim failing example: " + f.lock + " fails " + f.property + " (" + failing_text(f.failing) + ")\n";
  if (!f.found_by.empty()) text += "# found by: " + f.found_by + "\n";
  text += "# repro: " + run_repro(path, f.lock, f.seed, f.program) + "\n";
  text += "# `" + f.program + " examples replay` runs every saved example again; `" + f.program +
          " examples prune` deletes the ones that pass now.\n";
  return text;
}

// Writes `text` to `path` only when no file is there: a temporary file
// beside it, then link(2), which fails rather than replace. False when
// `path` was there already.
bool write_new_file(const fs::path& path, const std::string& text) {
  static std::atomic<unsigned> counter{0};
  fs::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  std::FILE* out = std::fopen(tmp.c_str(), "wbx");
  if (!out) throw std::runtime_error(path.string() + ": cannot write the example: " + std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  if (std::fclose(out) != 0 || !written) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(path.string() + ": cannot write the example (disk full?)");
  }
  const int linked = ::link(tmp.c_str(), path.c_str());
  const int link_error = errno;
  ::unlink(tmp.c_str());
  if (linked == 0) return true;
  if (link_error == EEXIST) return false;
  throw std::runtime_error(path.string() + ": cannot write the example: " + std::strerror(link_error));
}

std::time_t modified(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_mtime : 0;
}

// The seed of a file named <16 hex digits>-seed<N>.toml, else nullopt.
std::optional<std::uint64_t> seed_of(const fs::path& file) {
  if (file.extension() != ".toml") return std::nullopt;
  const std::string stem = file.stem().string();
  if (stem.size() <= 16 + kSeedTag.size() || stem.compare(16, kSeedTag.size(), kSeedTag) != 0) return std::nullopt;
  if (stem.find_first_not_of("0123456789abcdef") < 16) return std::nullopt;
  const std::string digits = stem.substr(16 + kSeedTag.size());
  std::uint64_t seed = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), seed);
  const bool digits_only = digits.find_first_not_of("0123456789") == std::string::npos;
  if (error != std::errc() || end != digits.data() + digits.size() || !digits_only) return std::nullopt;
  return seed;
}

std::vector<fs::path> subfolders(const fs::path& dir, const std::string& only) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!only.empty()) {
    if (fs::is_directory(dir / only, ec)) out.push_back(dir / only);
    return out;
  }
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) out.push_back(it->path());
  return out;
}

}  // namespace

std::string examples_folder(const std::string& option) {
  if (!option.empty()) return option;
  const std::string from_env = env("LOCKSIM_EXAMPLES_DIR");
  return from_env.empty() ? kDefaultExamplesDir : from_env;
}

std::optional<std::string> examples_dir(const std::string& option, bool disabled) {
  if (option.empty() && (disabled || !env("LOCKSIM_NO_EXAMPLES").empty())) return std::nullopt;
  return examples_folder(option);
}

std::string example_key(const std::string& name) {
  std::string key = name.empty() ? "-" : name;
  for (char& c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("._@+:-").find(c) == std::string_view::npos)
      c = '-';
  if (key.front() == '.') key.front() = '-';
  return key;
}

Saved save_example(const std::string& dir, const FailingExample& f) {
  const std::string toml = scenario_to_toml(judged_by_property(f));
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(sim::fnv1a64(toml)));
  const fs::path folder = fs::path(dir) / example_key(f.lock) / example_key(f.property);
  const fs::path path = folder / (std::string(hash) + std::string(kSeedTag) + std::to_string(f.seed) + ".toml");
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw std::runtime_error(folder.string() + ": cannot make the examples folder: " + ec.message());
  Saved saved;
  saved.added = write_new_file(path, header(f, path.string()) + toml);
  saved.example = {path.string(), example_key(f.lock), example_key(f.property), f.seed, modified(path.string())};
  return saved;
}

std::vector<SavedExample> list_examples(const std::string& dir, const std::string& lock, const std::string& property) {
  std::vector<SavedExample> out;
  std::error_code ec;
  for (const fs::path& lock_dir : subfolders(dir, lock.empty() ? "" : example_key(lock)))
    for (const fs::path& property_dir : subfolders(lock_dir, property.empty() ? "" : example_key(property)))
      for (fs::directory_iterator it(property_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const auto seed = seed_of(it->path().filename());
        if (!seed || !it->is_regular_file(ec)) continue;
        out.push_back({it->path().string(), lock_dir.filename().string(), property_dir.filename().string(), *seed,
                       modified(it->path().string())});
      }
  std::sort(out.begin(), out.end(), [](const SavedExample& a, const SavedExample& b) { return a.path < b.path; });
  return out;
}

Result<RunResult, std::string> replay_example(const SavedExample& e, const std::string& program,
                                              std::string* description) {
  auto scenario = load_scenario_file(e.path);
  if (!scenario) return failure(scenario.error().to_string());
  RunOptions options;
  options.lock_kind = scenario->lock_kind;
  options.seed = e.seed;
  options.scenario_ref = e.path;
  options.program = program;
  if (description) *description = scenario->description;
  return run_scenario(*scenario, options);
}

std::string example_time(std::time_t when) {
  std::tm tm{};
  gmtime_r(&when, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

}  // namespace locksim::testing
