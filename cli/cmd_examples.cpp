// `locksim examples`: the failing examples hunt, check and the property suite
// kept (testing/example_db.hpp). `list` prints lock, property, when and
// file; `replay` runs each as `locksim run FILE --lock L --seed N` does and
// exits as run does (0 none fails, 1 one still fails, 2 one no longer loads);
// `prune` deletes the ones that pass now (every one with --all). --lock and
// --property narrow each to those folders. Also the pieces hunt and check
// share (cli/saved_examples.hpp).
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/process_locks.hpp"
#include "cli/saved_examples.hpp"
#include "cli/version.hpp"
#include "vocab/joined.hpp"
#include "vocab/printable.hpp"

namespace locksim::cli {

namespace {

namespace fs = std::filesystem;

struct ExamplesArgs {
  std::string dir;
  std::string lock;
  std::string property;
  bool all = false;
};

std::string kinds_text(const scenarios::RunResult& run) { return joined(run.violation_kinds()); }

int list_command(const ExamplesArgs& a) {
  const std::string folder = testing::examples_folder(a.dir);
  const auto examples = testing::list_examples(folder, a.lock, a.property);
  if (examples.empty()) {
    std::cout << "no saved examples in " << printable(folder) << "\n";
    return kMatched;
  }
  std::size_t lock_width = 4, property_width = 8;
  for (const auto& e : examples) {
    lock_width = std::max(lock_width, e.lock.size());
    property_width = std::max(property_width, e.property.size());
  }
  std::cout << std::left << std::setw(static_cast<int>(lock_width + 2)) << "lock"
            << std::setw(static_cast<int>(property_width + 2)) << "property" << std::setw(25) << "when" << "file\n";
  for (const auto& e : examples)
    std::cout << std::setw(static_cast<int>(lock_width + 2)) << printable(e.lock)
              << std::setw(static_cast<int>(property_width + 2)) << printable(e.property) << std::setw(25)
              << testing::example_time(e.when) << printable(e.path) << "\n";
  return kMatched;
}

int replay_command(const ExamplesArgs& a) {
  const std::string folder = testing::examples_folder(a.dir);
  const auto replayed = replay_saved(folder, a.lock, a.property);
  if (replayed.empty()) {
    std::cout << "no saved examples in " << printable(folder) << "\n";
    return kMatched;
  }
  const std::size_t failing = print_replayed(folder, replayed);
  bool error = false;
  for (const auto& r : replayed) error = error || !r.run;
  std::cout << "result    " << failing << " of " << replayed.size() << " saved example(s) still fail"
            << (error ? "; some no longer load or run (fix or delete them)" : "") << "\n";
  return error ? kBadInput : failing ? kUnmatched : kMatched;
}

// Removes `path` and the folders above it that it leaves empty, up to `root`.
void remove_example(const fs::path& path, const fs::path& root) {
  std::error_code ec;
  fs::remove(path, ec);
  if (ec) throw InputError(path.string() + ": cannot delete: " + ec.message());
  for (fs::path dir = path.parent_path(); dir != root && dir.has_relative_path(); dir = dir.parent_path())
    if (!fs::remove(dir, ec)) break;  // not empty (or not ours): stop
}

int prune_command(const ExamplesArgs& a) {
  const std::string folder = testing::examples_folder(a.dir);
  std::vector<ReplayedExample> candidates;
  if (a.all)
    for (auto& e : testing::list_examples(folder, a.lock, a.property))
      candidates.push_back({e, std::nullopt, "", ""});
  else
    candidates = replay_saved(folder, a.lock, a.property);
  std::size_t pruned = 0;
  for (const auto& c : candidates) {
    if (!a.all && (!c.run || c.fails())) continue;  // still fails, or does not load: kept
    remove_example(c.example.path, folder);
    std::cout << "pruned    " << printable(c.example.path) << (a.all ? "" : " (passes now)") << "\n";
    ++pruned;
  }
  std::cout << "result    pruned " << pruned << " of " << candidates.size() << " saved example(s) in "
            << printable(folder) << "\n";
  return kMatched;
}

}  // namespace

void add_example_options(CLI::App& cmd, ExampleOptions& options) {
  auto* dir = cmd.add_option("--examples-dir", options.dir,
                             "Keep failing examples here and replay them first (default: $LOCKSIM_EXAMPLES_DIR, "
                             "else .locksim/examples)");
  cmd.add_flag("--no-examples", options.off, "Neither replay nor keep failing examples")->excludes(dir);
}

std::vector<ReplayedExample> replay_saved(const std::string& folder, const std::string& lock,
                                          const std::string& property) {
  std::vector<ReplayedExample> out;
  for (const auto& e : testing::list_examples(folder, lock, property)) {
    ReplayedExample r{e, std::nullopt, "", ""};
    auto run = testing::replay_example(e, program_name(), &r.description);
    if (run) r.run = std::move(*run);
    else r.error = run.error();
    out.push_back(std::move(r));
  }
  return out;
}

std::size_t print_replayed(const std::string& folder, const std::vector<ReplayedExample>& replayed) {
  std::size_t failing = 0;
  for (const auto& r : replayed) failing += r.fails() ? 1 : 0;
  if (replayed.empty()) return 0;
  std::cout << "saved     " << replayed.size() << " example(s) in " << printable(folder) << " replayed first: "
            << failing << " still fail\n";
  for (const auto& r : replayed) {
    const std::string path = printable(r.example.path);
    if (!r.run) std::cout << "  error   " << path << ": " << printable(r.error) << "\n";
    else if (r.fails()) std::cout << "  fails   " << path << ": " << kinds_text(*r.run) << "\n";
    else std::cout << "  passes  " << path << "\n";
    if (r.run) print_mechanism(r.run->mechanism, std::cout);  // a library lock's processes (cli/process_locks.hpp)
  }
  return failing;
}

std::optional<std::string> save_failure(const std::string& command, const std::string& folder,
                                        const testing::FailingExample& failure) {
  try {
    return testing::save_example(folder, failure).example.path;
  } catch (const std::exception& e) {
    std::cerr << "locksim: " << command << ": not kept: " << printable(e.what()) << "\n";
    return std::nullopt;
  }
}

Handler add_examples_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("examples", "The failing examples hunt, check and the property suite kept: list, "
                                             "replay or prune them");
  cmd->require_subcommand(1);
  auto args = std::make_shared<ExamplesArgs>();
  auto* list = cmd->add_subcommand("list", "Lock, property, when and file of every saved example");
  auto* replay = cmd->add_subcommand("replay", "Run every saved example; exit 1 when one still fails");
  auto* prune = cmd->add_subcommand("prune", "Delete the saved examples that pass now (--all: every one)");
  // The three's options, given before or after the subcommand's name.
  cmd->add_option("--examples-dir", args->dir, "The examples folder (default: $LOCKSIM_EXAMPLES_DIR, else "
                                               ".locksim/examples)");
  cmd->add_option("--lock", args->lock, "Only this lock's examples");
  cmd->add_option("--property", args->property, "Only this property's (a violation kind or a property's name)");
  for (CLI::App* sub : {list, replay, prune}) sub->fallthrough();
  prune->add_flag("--all", args->all, "Delete every saved example (of --lock / --property), failing or not");
  return [args, list, replay] {
    if (list->parsed()) return list_command(*args);
    if (replay->parsed()) return replay_command(*args);
    return prune_command(*args);
  };
}

}  // namespace locksim::cli
