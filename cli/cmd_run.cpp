// `locksim run` and `locksim replay`: one scenario, one lock, one seed.
//
// run prints the seed first, then a verdict per property, the violations
// with their evidence, and the repro command (or one JSON object with
// --format json; with --trace it carries the event trace too). replay
// re-runs a repro command or a recorded JSON result (read by the run
// record's one reader, reports/run_record.hpp); given a recorded digest it
// checks the replay matches it exactly. A repro command is split into words
// by wordexp(3) with WRDE_NOCMD (shell quoting is honoured, command
// substitution refused), so the shell-quoted repro lines locksim prints
// (scenarios/repro.hpp) read back as the words they quote. A file holding
// several lines (a sweep) needs --line N: replaying the first silently
// would hide which run was meant.
#include <wordexp.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/output_files.hpp"
#include "cli/process_locks.hpp"
#include "cli/run_store.hpp"
#include "cli/terminal.hpp"
#include "cli/version.hpp"
#include "reports/run_output.hpp"
#include "reports/run_record.hpp"
#include "reports/timeline_svg.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/lock_expectations.hpp"
#include "scenarios/input_file.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/runner.hpp"
#include "vocab/printable.hpp"

namespace locksim::cli {

namespace {

struct RunArgs {
  std::string scenario;
  std::string scenario_text;  // the scenario's TOML when a record carries it (scenario then only names it)
  std::string lock;
  std::vector<std::string> expect_files;  // --expect
  std::string seed_text = "1";  // read by option_number: no sign, no blank, no wrap
  std::uint64_t seed = 1;
  std::string format = "text";
  bool trace = false;
  bool verify = false;  // --verify: run it twice, compare the digests
  std::string timeline;
  std::string store;  // --store DIR (cli/run_store.hpp)
  std::vector<std::string> inputs;  // files read (the scenario, a replayed file): never written over
};

void add_run_options(CLI::App& cmd, RunArgs& args) {
  cmd.add_option("scenario", args.scenario, "A catalog scenario name or a scenario .toml file")->required();
  cmd.add_option("--lock", args.lock, "Lock kind (default: the scenario's [lock] kind)");
  cmd.add_option("--expect", args.expect_files,
                 "A TOML file of what you expect of your own lock per scenario (repeatable; docs/sweeps.md)");
  cmd.add_option("--seed", args.seed_text, "Seed of the run (0 to 2^64-1)")->capture_default_str();
  cmd.add_option("--format", args.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd.add_flag("--trace", args.trace, "Print the event trace (with --format json: a \"trace\" array)");
  add_verify_flag(cmd, args.verify);
  cmd.add_option("--timeline", args.timeline, "Write an SVG timeline of the run to this file");
  cmd.add_option("--store", args.store,
                 "Keep the run's result, history (JSONL), timeline, trace and verdict under DIR/<scenario>/<lock>/"
                 "seed-<N>, with DIR/latest pointing at it");
}

// The options above that write a file: a repro string given to `replay`
// must not hold one (it would write wherever the string says).
const std::vector<std::string>& file_writing_options() {
  static const std::vector<std::string> names = {"--timeline", "--store"};
  return names;
}

// Refuses, before the run, an output that is one of the files it reads.
void refuse_outputs_over_inputs(const std::string& command, RunArgs& args) {
  args.inputs.push_back(args.scenario);
  refuse_output_over_input(command, "--timeline", args.timeline, args.inputs);
  refuse_output_over_input(command, "--store", args.store, args.inputs);
}

scenarios::RunResult execute(const RunArgs& args, std::string* description) {
  auto scenario = args.scenario_text.empty() ? scenarios::resolve_scenario(args.scenario)
                                             : scenarios::load_scenario_text(args.scenario_text, args.scenario);
  if (!scenario) throw InputError(scenario.error().to_string());
  if (auto e = scenarios::apply_expectation_files(args.expect_files, std::span(&*scenario, 1)))
    throw InputError(e->to_string());
  scenarios::RunOptions options;
  options.lock_kind = args.lock;
  options.seed = args.seed;
  // The timeline is drawn from the history: only --trace and --store keep
  // the trace (capped in memory: sim::Trace::kDefaultRecordLimit).
  options.record_trace = args.trace || !args.store.empty();
  options.scenario_ref = args.scenario;
  options.program = program_name();
  options.verify = args.verify;
  auto run = scenarios::run_scenario(*scenario, options);
  if (!run) throw InputError(run.error());
  // A library lock's processes (cli/process_locks.hpp): which ran which
  // client, and how (not in the digest: pids vary); JSON keeps stdout JSON.
  print_mechanism(run->mechanism, args.format == "json" ? std::cerr : std::cout);
  if (args.verify && args.format != "json")
    std::cout << "verify    ran twice, digest " << sim::Trace::hex(run->digest) << " both times\n";
  if (description) *description = scenario->description;
  return std::move(run.value());
}

void write_timeline(const scenarios::RunResult& run, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(path + ": cannot write the timeline");
  out << reports::render_timeline_svg(run);
  if (!out.flush()) throw InputError(path + ": cannot write the timeline");
}

// The run's JSON object; with --trace, plus "trace": one object per record.
nlohmann::ordered_json run_json(const RunArgs& args, const scenarios::RunResult& run) {
  auto j = reports::to_json(reports::record_of(run));
  if (!args.trace) return j;
  j["trace"] = nlohmann::ordered_json::array();
  for (const auto& r : run.trace) {
    const std::string host = r.host < run.host_names.size() ? run.host_names[r.host] : "-";
    j["trace"].push_back({{"at_ms", to_ms(r.at)}, {"seq", r.seq}, {"host", host}, {"kind", r.kind},
                          {"detail", r.detail}});
  }
  return j;
}

int show(const RunArgs& args, const scenarios::RunResult& run, const std::string& description) {
  if (args.format == "json") {
    std::cout << run_json(args, run).dump() << "\n";
  } else {
    std::cout << reports::run_to_text(run, description, stdout_style());
    if (args.trace) std::cout << "\ntrace:\n" << reports::trace_to_text(run);
  }
  if (!args.timeline.empty()) {
    write_timeline(run, args.timeline);
    if (args.format != "json") std::cout << "timeline  " << printable(args.timeline) << "\n";
  }
  if (!args.store.empty()) {
    const std::string folder = store_run(args.store, run, description, args.inputs);
    if (args.format != "json") std::cout << "stored    " << printable(folder) << "\n";
  }
  return run.matched ? kMatched : kUnmatched;
}

// A recorded result (a sweep line): {"scenario","lock","seed","digest",...}.
int replay_json(const std::string& text, const RunArgs& base) {
  auto record = reports::parse_run_record(text, reports::RecordNeed::Identity);
  if (!record)
    throw InputError("replay: not a run result: " + record.error() +
                     " (expected a JSON object with scenario, lock, seed)");
  if (record->is_live())
    throw InputError("replay: a live run (real redis-server processes) is not deterministic and cannot be replayed; "
                     "run it again with `" + (record->repro.empty() ? "locksim live ..." : record->repro) + "`");
  RunArgs args = base;
  args.scenario = record->source;  // the catalog name or file it came from (the name when the line has none)
  args.scenario_text = record->scenario_toml;  // a check schedule's scenario, which no file holds
  args.lock = record->lock;
  args.seed = record->seed;
  refuse_outputs_over_inputs("replay", args);
  std::string description;
  const auto run = execute(args, &description);
  const int code = show(args, run, description);
  const std::string& recorded = record->digest;
  if (!recorded.empty() && record->digest_format != sim::Trace::kDigestFormat) {
    std::cerr << "locksim: replay: the recording's digest is format " << record->digest_format << ", this build's is format "
              << sim::Trace::kDigestFormat << " (docs/cli.md, digest_format): the digests cannot be compared\n";
    return code;
  }
  if (!recorded.empty() && recorded != sim::Trace::hex(run.digest)) {
    std::cerr << "locksim: replay diverged: recorded digest " << printable(recorded) << ", replayed "
              << sim::Trace::hex(run.digest) << "\n";
    return kUnmatched;
  }
  if (!recorded.empty() && args.format != "json") std::cout << "replay    digest matches the recording\n";
  return code;
}

int replay_command(const std::string& text, const RunArgs& base) {
  std::vector<std::string> argv = shell_words(text, "replay: cannot read the repro command");
  if (!argv.empty()) {
    const auto tool = std::filesystem::path(argv.front()).filename();
    if (tool == "locksim" || tool == program_name()) argv.erase(argv.begin());
  }
  if (!argv.empty() && argv.front() == "live")
    throw InputError("replay: a live run (real redis-server processes) is not deterministic and cannot be "
                     "replayed; run the command itself");
  if (!argv.empty() && argv.front() == "run") argv.erase(argv.begin());
  CLI::App parser{"replay"};
  RunArgs args = base;
  add_run_options(parser, args);
  std::reverse(argv.begin(), argv.end());  // CLI11 parses a reversed vector
  try {
    parser.parse(argv);
  } catch (const CLI::ParseError& e) {
    throw InputError("replay: cannot read the repro command: " + std::string(e.what()));
  }
  for (const auto& name : file_writing_options())
    if (parser.get_option(name)->count() > 0)
      throw InputError("replay: the repro command holds " + name +
                       ", which writes a file; a repro string only names a run (give " +
                       (name == "--timeline" ? "--timeline to replay itself" : name + " to `locksim run`") + ")");
  args.seed = option_number("replay", "--seed", args.seed_text);
  refuse_outputs_over_inputs("replay", args);
  std::string description;
  const auto run = execute(args, &description);
  return show(args, run, description);
}

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

// The line of a file to replay: line `wanted` (1-based), or the only
// non-blank line. A file of several runs without --line is an input error.
std::string line_of_file(const std::string& path, std::optional<std::uint64_t> wanted) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("replay: " + path + ": cannot read the file");
  std::string chosen;
  std::uint64_t number = 0, runs = 0;
  reports::JsonlLine next;
  while (reports::next_jsonl_line(in, next)) {
    ++number;
    const std::string& line = next.text;
    if (next.too_long)
      throw InputError("replay: " + path + ":" + std::to_string(number) + ": the line " + reports::jsonl_line_too_long());
    if (wanted ? number == *wanted : !blank(line) && runs == 0) chosen = line;
    runs += blank(line) ? 0 : 1;
  }
  if (wanted && (*wanted > number || blank(chosen)))
    throw InputError("replay: " + path + ":" + std::to_string(*wanted) + ": no run on that line (the file has " +
                     std::to_string(number) + " lines)");
  if (!wanted && runs > 1)
    throw InputError("replay: " + path + " holds " + std::to_string(runs) +
                     " runs; choose one with --line N (N is the line number, as `report` and `sweep` print it)");
  if (runs == 0) throw InputError("replay: " + path + ": the file is empty");
  return chosen;
}

}  // namespace

static std::string wordexp_problem(int code) {
  switch (code) {
    case WRDE_BADCHAR: return "an unquoted | & ; < > ( ) { } or newline";
    case WRDE_CMDSUB: return "a command substitution ($(...) or `...`), which is never run";
    case WRDE_BADVAL: return "an undefined shell variable";
    case WRDE_SYNTAX: return "a shell syntax error (an unclosed quote?)";
    default: return "out of memory";
  }
}

// The words of a repro command as a POSIX shell would split them, without
// running anything (WRDE_NOCMD) or expanding unset variables (WRDE_UNDEF).
std::vector<std::string> shell_words(const std::string& text, const std::string& what) {
  wordexp_t w{};
  const int code = wordexp(text.c_str(), &w, WRDE_NOCMD | WRDE_UNDEF);
  if (code == WRDE_NOSPACE) wordfree(&w);
  if (code != 0) throw InputError(what + ": it holds " + wordexp_problem(code));
  std::vector<std::string> words(w.we_wordv, w.we_wordv + w.we_wordc);
  wordfree(&w);
  return words;
}

Handler add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run one scenario with one lock and seed; print the verdict");
  auto args = std::make_shared<RunArgs>();
  add_run_options(*cmd, *args);
  add_color_option(*cmd);
  return [args] {
    args->seed = option_number("run", "--seed", args->seed_text);
    refuse_outputs_over_inputs("run", *args);
    std::string description;
    const auto run = execute(*args, &description);
    return show(*args, run, description);
  };
}

Handler add_replay_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "replay", "Re-run exactly: a repro command (\"locksim run gc-pause --lock token --seed 3\"), a JSON "
                "result line, or a file holding them (--line N picks one of several)");
  auto repro = std::make_shared<std::string>();
  auto line = std::make_shared<std::string>();
  auto base = std::make_shared<RunArgs>();
  cmd->add_option("repro", *repro, "The repro command, JSON result, or a file with either")->required();
  cmd->add_option("--line", *line, "For a file of several runs (a sweep): the line to replay (1-based)");
  cmd->add_option("--format", base->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--trace", base->trace, "Print the event trace");
  add_verify_flag(*cmd, base->verify);
  cmd->add_option("--timeline", base->timeline, "Write an SVG timeline of the run to this file");
  add_color_option(*cmd);
  return [repro, line, base] {
    std::optional<std::uint64_t> wanted;
    if (!line->empty()) wanted = option_number("replay", "--line", *line, {1, reports::Bounds{}.max});
    std::string text = *repro;
    std::error_code ec;
    if (!text.empty() && text.front() != '{' && std::filesystem::is_regular_file(text, ec)) {
      base->inputs.push_back(text);
      text = line_of_file(text, wanted);
    } else if (wanted) {
      throw InputError("replay: --line is for a file of runs; \"" + *repro + "\" is not a file");
    }
    if (blank(text)) throw InputError("replay: nothing to replay (give a repro command, a JSON result or a file)");
    if (text.find_first_not_of(" \t") != std::string::npos && text[text.find_first_not_of(" \t")] == '{')
      return replay_json(text, *base);
    return replay_command(text, *base);
  };
}

}  // namespace locksim::cli
