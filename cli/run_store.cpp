#include "cli/run_store.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "cli/commands.hpp"
#include "cli/output_files.hpp"
#include "reports/history_jsonl.hpp"
#include "reports/run_output.hpp"
#include "reports/timeline_svg.hpp"

namespace locksim::cli {

namespace {

namespace fs = std::filesystem;

// A path component from a name a user wrote (a scenario name may hold '/').
std::string component(const std::string& name) {
  std::string out = name.empty() ? "_" : name;
  for (char& c : out)
    if (c == '/' || c == '\\' || c == '\0') c = '_';
  if (out == "." || out == "..") out = "_" + out;
  return out;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text) || !out.flush()) throw InputError(path.string() + ": cannot write (--store)");
}

// DIR/latest -> the run's folder, replaced atomically (a new link, renamed over).
void point_latest(const fs::path& dir, const fs::path& relative) {
  const fs::path tmp = dir / ".latest.tmp";
  std::error_code ec;
  fs::remove(tmp, ec);
  fs::create_directory_symlink(relative, tmp, ec);
  if (!ec) fs::rename(tmp, dir / "latest", ec);
  if (ec) throw InputError((dir / "latest").string() + ": cannot link the latest run (--store): " + ec.message());
}

}  // namespace

std::string store_run(const std::string& dir, const scenarios::RunResult& run, const std::string& description,
                      const std::vector<std::string>& inputs) {
  const fs::path relative = fs::path(component(run.scenario)) / component(run.lock) / ("seed-" + std::to_string(run.seed));
  const fs::path folder = fs::path(dir) / relative;
  for (const char* name : {"result.json", "history.jsonl", "timeline.svg", "trace.txt", "verdict.txt"})
    refuse_output_over_input("run", "--store", (folder / name).string(), inputs);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw InputError(folder.string() + ": cannot create (--store): " + ec.message());
  write_file(folder / "result.json", reports::run_to_json(run).dump() + "\n");
  write_file(folder / "history.jsonl", reports::history_to_jsonl(run.history));
  write_file(folder / "timeline.svg", reports::render_timeline_svg(run));
  write_file(folder / "trace.txt", reports::trace_to_text(run));
  write_file(folder / "verdict.txt", reports::run_to_text(run, description));
  point_latest(dir, relative);
  return folder.string();
}

}  // namespace locksim::cli
