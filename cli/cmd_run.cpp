// `locksim run` and `locksim replay`: one scenario, one lock, one seed.
//
// run prints the seed first, then a verdict per property, the violations
// with their evidence, and the repro command (or one JSON object with
// --format json). replay re-runs a repro command or a recorded JSON result;
// given a recorded digest it checks the replay matches it exactly.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "reports/run_output.hpp"
#include "reports/timeline_svg.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/input_file.hpp"
#include "scenarios/runner.hpp"

namespace locksim::cli {

namespace {

struct RunArgs {
  std::string scenario;
  std::string lock;
  std::uint64_t seed = 1;
  std::string format = "text";
  bool trace = false;
  std::string timeline;
};

void add_run_options(CLI::App& cmd, RunArgs& args) {
  cmd.add_option("scenario", args.scenario, "A catalog scenario name or a scenario .toml file")->required();
  cmd.add_option("--lock", args.lock, "Lock kind (default: the scenario's [lock] kind)");
  cmd.add_option("--seed", args.seed, "Seed of the run")->capture_default_str();
  cmd.add_option("--format", args.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd.add_flag("--trace", args.trace, "Print the event trace");
  cmd.add_option("--timeline", args.timeline, "Write an SVG timeline of the run to this file");
}

scenarios::RunResult execute(const RunArgs& args, std::string* description) {
  auto scenario = scenarios::resolve_scenario(args.scenario);
  if (!scenario) throw InputError(scenario.error().to_string());
  scenarios::RunOptions options;
  options.lock_kind = args.lock;
  options.seed = args.seed;
  options.record_trace = args.trace || !args.timeline.empty();
  options.scenario_ref = args.scenario;
  auto run = scenarios::run_scenario(*scenario, options);
  if (!run) throw InputError(run.error());
  if (description) *description = scenario->description;
  return std::move(run.value());
}

void write_timeline(const scenarios::RunResult& run, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(path + ": cannot write the timeline");
  out << reports::render_timeline_svg(run);
  if (!out.flush()) throw InputError(path + ": cannot write the timeline");
}

int show(const RunArgs& args, const scenarios::RunResult& run, const std::string& description) {
  if (args.format == "json") {
    std::cout << reports::run_to_json(run).dump() << "\n";
  } else {
    std::cout << reports::run_to_text(run, description);
    if (args.trace) std::cout << "\ntrace:\n" << reports::trace_to_text(run);
  }
  if (!args.timeline.empty()) {
    write_timeline(run, args.timeline);
    if (args.format != "json") std::cout << "timeline  " << args.timeline << "\n";
  }
  return run.matched ? kMatched : kUnmatched;
}

// A recorded result (a sweep line): {"scenario","lock","seed","digest",...}.
int replay_json(const std::string& text, const RunArgs& base) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("scenario") || !j.contains("seed"))
    throw InputError("replay: not a run result (expected a JSON object with scenario, lock, seed)");
  if (j.contains("live"))
    throw InputError("replay: a live run (real redis-server processes) is not deterministic and cannot be replayed; "
                     "run it again with `" + j.value("repro", std::string("locksim live ...")) + "`");
  RunArgs args = base;
  args.scenario = j["scenario"].get<std::string>();
  args.lock = j.value("lock", std::string());
  args.seed = j["seed"].get<std::uint64_t>();
  std::string description;
  const auto run = execute(args, &description);
  const int code = show(args, run, description);
  const std::string recorded = j.value("digest", std::string());
  if (!recorded.empty() && recorded != sim::Trace::hex(run.digest)) {
    std::cerr << "locksim: replay diverged: recorded digest " << recorded << ", replayed "
              << sim::Trace::hex(run.digest) << "\n";
    return kUnmatched;
  }
  if (!recorded.empty() && args.format != "json") std::cout << "replay    digest matches the recording\n";
  return code;
}

}  // namespace

Handler add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run one scenario with one lock and seed; print the verdict");
  auto args = std::make_shared<RunArgs>();
  add_run_options(*cmd, *args);
  return [args] {
    std::string description;
    const auto run = execute(*args, &description);
    return show(*args, run, description);
  };
}

Handler add_replay_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "replay", "Re-run exactly: a repro command (\"locksim run gc-pause --lock token --seed 3\"), a JSON "
                "result line, or a file holding one");
  auto repro = std::make_shared<std::string>();
  auto base = std::make_shared<RunArgs>();
  cmd->add_option("repro", *repro, "The repro command, JSON result, or a file with either")->required();
  cmd->add_option("--format", base->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--trace", base->trace, "Print the event trace");
  cmd->add_option("--timeline", base->timeline, "Write an SVG timeline of the run to this file");
  return [repro, base] {
    std::string text = *repro;
    if (!text.empty() && text.find(' ') == std::string::npos && text.front() != '{' && std::filesystem::exists(text)) {
      auto file = scenarios::read_input_file(text);  // a regular file under the cap: never a FIFO or /dev/zero
      if (!file) throw InputError(text + ":0: file: " + file.error());
      text = file->substr(0, file->find('\n'));
    }
    if (!text.empty() && text.front() == '{') return replay_json(text, *base);
    // A repro command: parse it with the same options as `run`.
    std::istringstream words(text);
    std::vector<std::string> argv;
    for (std::string w; words >> w;) argv.push_back(w);
    if (!argv.empty() && argv.front() == "locksim") argv.erase(argv.begin());
    if (!argv.empty() && argv.front() == "run") argv.erase(argv.begin());
    CLI::App parser{"replay"};
    RunArgs args = *base;
    add_run_options(parser, args);
    std::reverse(argv.begin(), argv.end());  // CLI11 parses a reversed vector
    try {
      parser.parse(argv);
    } catch (const CLI::ParseError& e) {
      throw InputError("replay: cannot read the repro command: " + std::string(e.what()));
    }
    std::string description;
    const auto run = execute(args, &description);
    return show(args, run, description);
  };
}

}  // namespace locksim::cli
