#include "testing/failure_evidence.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "reports/run_output.hpp"
#include "reports/timeline_svg.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario_writer.hpp"

namespace locksim::testing {

namespace {

namespace fs = std::filesystem;

std::string file_stem(const scenarios::Scenario& s, const std::string& lock, std::uint64_t seed) {
  std::string stem = s.name + "-" + lock + "-seed" + std::to_string(seed);
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '-';
  return stem;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text) || !out.flush()) throw std::runtime_error(path.string() + ": cannot write");
}

}  // namespace

FailureEvidence write_failure_evidence(const scenarios::Scenario& scenario, const std::string& lock_kind,
                                       std::uint64_t seed, const std::string& dir, const std::string& program) {
  fs::create_directories(dir);
  const std::string stem = file_stem(scenario, lock_kind, seed);
  FailureEvidence evidence;
  evidence.scenario_path = fs::absolute(fs::path(dir) / (stem + ".toml")).string();
  evidence.timeline_path = fs::absolute(fs::path(dir) / (stem + ".svg")).string();
  write_text(evidence.scenario_path, scenarios::scenario_to_toml(scenario));

  scenarios::RunOptions options;
  options.lock_kind = lock_kind;
  options.seed = seed;
  options.record_trace = true;
  options.scenario_ref = evidence.scenario_path;
  options.program = program;
  auto run = scenarios::run_scenario(scenario, options);
  if (!run) throw std::runtime_error("cannot run " + lock_kind + ": " + run.error());
  write_text(evidence.timeline_path, reports::render_timeline_svg(*run));

  evidence.text = reports::run_to_text(*run, scenario.description) + "scenario  " + evidence.scenario_path +
                  "\ntimeline  " + evidence.timeline_path + "\n";
  return evidence;
}

std::string replay_kept_examples(const std::string& folder, const std::string& lock, const std::string& property,
                                 const std::string& program) {
  std::string text;
  for (const auto& example : list_examples(folder, lock, property)) {
    std::string description;
    const auto run = replay_example(example, program, &description);
    if (!run) text += "kept example " + example.path + " no longer loads or runs: " + run.error() + "\n";
    else if (!run->matched)
      text += "kept example " + example.path + " still fails:\n" + reports::run_to_text(*run, description) + "\n";
  }
  return text;
}

std::string keep_failing_example(const std::string& folder, const FailingExample& failure) {
  const auto saved = save_example(folder, failure);
  std::string description;
  const auto run = replay_example(saved.example, failure.program, &description);
  if (!run) throw std::runtime_error("the kept example does not run: " + run.error());
  return reports::run_to_text(*run, description) + "kept      " + saved.example.path + "\n";
}

}  // namespace locksim::testing
