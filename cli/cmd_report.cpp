// `locksim report FILE.jsonl... [--format md|html|json|junit] [--out PATH]`:
// the comparison report of one or more sweep files (shards merge: a run
// repeated across files counts once).
//
// --format takes one format or several, comma-separated ("html,md"). One
// format goes to --out PATH as a file (stdout without --out); several need
// --out DIR and write DIR/report.html, DIR/report.md, ... Every file is
// written to a temporary name beside it and renamed, so an interrupted
// report never leaves half a file; a device or FIFO is written in place
// (never replaced), and an --out that is one of the input files is refused.
// Exit codes: 0 every run matched, 1 some did not, 2 bad input (file:line:
// field: message), 3 a run recorded twice with different digests
// (determinism broke) or an internal error.
//
// The header of every format says where the report comes from
// (reports::Provenance): when (UTC, to the minute; SOURCE_DATE_EPOCH, the
// reproducible-builds convention, fixes it), which locksim, the command
// line, and each input with the runs it contributed.
//
// Live lines (`live --format json`, `sweep --live`) may be in the same files
// or extra ones: they add "confirmed on real Redis" per cell and never count
// in the rates, verdicts or exit code (reports/comparison.hpp).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/output_files.hpp"
#include "cli/process_locks.hpp"
#include "reports/comparison.hpp"
#include "reports/report.hpp"
#include "cli/version.hpp"
#include "scenarios/repro.hpp"
#include "vocab/printable.hpp"

namespace locksim::cli {

namespace {

namespace fs = std::filesystem;

struct ReportArgs {
  std::vector<std::string> files;
  std::string format = "md";
  std::string out;
};

std::vector<reports::ReportFormat> parse_formats(const std::string& text) {
  std::vector<reports::ReportFormat> formats;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find(',', start);
    const std::string name = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    auto format = reports::report_format_from_name(name);
    if (!format) throw InputError("--format: unknown format \"" + name + "\" (md, html, json, junit)");
    if (std::find(formats.begin(), formats.end(), *format) == formats.end()) formats.push_back(*format);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return formats;
}

// A device or FIFO (`--out /dev/null`, `--out >(gzip > r.gz)`) is written
// in place: renaming a file over it would replace the device node itself.
void write_in_place(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text) || !out.flush()) throw InputError(path.string() + ": cannot write the report");
}

// Writes beside the target, then renames over it (atomic on one filesystem).
// A symlink is followed: its target gets the report, the link stays.
void write_atomically(const fs::path& given, const std::string& text) {
  if (is_special_file(given.string())) return write_in_place(given, text);
  std::error_code canonical_error;
  const fs::path path = fs::is_symlink(given) ? fs::canonical(given, canonical_error) : given;
  if (canonical_error) return write_in_place(given, text);  // a dangling link: its target is created
  fs::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path.string() + ": cannot write the report");
    out << text;
    if (!out.flush()) {
      out.close();
      fs::remove(tmp);
      throw InputError(path.string() + ": cannot write the report");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp);
    throw InputError(path.string() + ": cannot write the report: " + ec.message());
  }
}

// Seconds since the epoch: SOURCE_DATE_EPOCH when set (a bad value is an
// error, not a silent "now"), else the wall clock.
std::int64_t report_time() {
  if (const char* fixed = std::getenv("SOURCE_DATE_EPOCH")) {
    std::int64_t t = 0;
    const std::string_view text(fixed);
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), t);
    if (ec != std::errc() || end != text.data() + text.size() || t < 0)
      throw InputError("SOURCE_DATE_EPOCH: expected seconds since 1970 (digits only), got \"" + printable(text) + "\"");
    return t;
  }
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string utc_minute(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

// The command as given, shell-quoted, so it can be run again.
std::string command_line(const ReportArgs& args) {
  std::string out = program_name() + " report";
  for (const auto& f : args.files) out += " " + scenarios::shell_quote(f);
  out += " --format " + scenarios::shell_quote(args.format);
  if (!args.out.empty()) out += " --out " + scenarios::shell_quote(args.out);
  return out;
}

// nullopt when read; otherwise the exit code (the message is printed).
std::optional<int> read_inputs(const std::vector<std::string>& files, reports::Comparison& comparison) {
  for (const auto& file : files) {
    auto read = reports::read_jsonl_file(file, comparison, std::cerr);
    if (read) continue;
    if (read.error().kind == reports::ReportError::Kind::BadInput) throw InputError(read.error().message);
    std::cerr << "locksim: " << printable(read.error().message) << "\n";
    return kInternal;
  }
  if (comparison.runs() == 0)
    throw InputError(files.front() + ": " +
                     (comparison.has_live() ? "only live runs: add the simulated sweep they are compared with"
                                            : "no runs to report"));
  return std::nullopt;
}

// No report file may be one of `inputs`: the JSONL files (checked before
// they are read), then also the scenario files their runs name as `source`
// (the HTML report re-runs them for its timelines).
void refuse_outputs_over_inputs(const ReportArgs& args, const std::vector<std::string>& inputs) {
  if (args.out.empty()) return;
  const auto formats = parse_formats(args.format);
  if (formats.size() == 1 && !fs::is_directory(args.out))
    return refuse_output_over_input("report", "--out", args.out, inputs);
  for (auto format : formats)
    refuse_output_over_input("report", "--out", (fs::path(args.out) / reports::report_file_name(format)).string(),
                             inputs);
}

std::vector<std::string> files_and_sources(const ReportArgs& args, const reports::Comparison& comparison) {
  std::vector<std::string> inputs = args.files;
  for (const auto& [key, cell] : comparison.cells()) inputs.push_back(cell.source);
  return inputs;
}

// The HTML report re-runs failing runs for its timelines: a library lock's
// run starts its processes (cli/process_locks.hpp), said once per lock.
void print_process_locks(const std::vector<reports::ReportFormat>& formats, const reports::Comparison& comparison) {
  if (std::find(formats.begin(), formats.end(), reports::ReportFormat::Html) == formats.end()) return;
  std::vector<std::string> locks;
  for (const auto& [key, cell] : comparison.cells()) locks.push_back(cell.lock);
  for (const std::string& line : process_locks_lines(locks)) std::cerr << "report: " << line << "\n";
}

void write_reports(const ReportArgs& args, const reports::Comparison& comparison) {
  const auto formats = parse_formats(args.format);
  print_process_locks(formats, comparison);
  if (args.out.empty()) {
    if (formats.size() > 1) throw InputError("--format: several formats need --out DIR");
    std::cout << reports::render_report(comparison, formats.front());
    return;
  }
  if (formats.size() == 1 && !fs::is_directory(args.out)) {
    write_atomically(args.out, reports::render_report(comparison, formats.front()));
    return;
  }
  std::error_code ec;
  fs::create_directories(args.out, ec);
  if (ec || !fs::is_directory(args.out)) throw InputError(args.out + ": cannot create the report directory");
  for (auto format : formats) {
    const fs::path path = fs::path(args.out) / reports::report_file_name(format);
    write_atomically(path, reports::render_report(comparison, format));
    std::cerr << "wrote " << printable(path.string()) << "\n";
  }
}

}  // namespace

Handler add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("report", "Compare locks across scenarios from sweep results (JSONL)");
  auto args = std::make_shared<ReportArgs>();
  cmd->add_option("files", args->files, "Sweep result files (JSONL, simulated and live); shard files merge")
      ->required();
  cmd->add_option("--format", args->format, "md, html, json or junit; several comma-separated (html,md)")
      ->capture_default_str();
  cmd->add_option("--out", args->out, "Output file (one format) or directory (several); default stdout");
  return [args]() -> int {
    parse_formats(args->format);  // a bad --format fails before reading input
    refuse_outputs_over_inputs(*args, args->files);
    reports::Comparison comparison;
    comparison.provenance = {utc_minute(report_time()), version_text(program_name()), command_line(*args)};
    if (auto code = read_inputs(args->files, comparison)) return *code;
    refuse_outputs_over_inputs(*args, files_and_sources(*args, comparison));
    reports::annotate_faults(comparison);
    write_reports(*args, comparison);
    return comparison.unmatched_runs() == 0 ? kMatched : kUnmatched;
  };
}

}  // namespace locksim::cli
