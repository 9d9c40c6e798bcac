// locksim: the command-line entry point (CLI11). Each subcommand lives in its
// own file under cli/ and returns its exit code; this file maps usage errors
// to exit 2 (with "did you mean" for a misspelt subcommand or option, and
// for an empty value given to any option) and
// unexpected failures to exit 3, always as one clear line.
#include <CLI/CLI.hpp>

#include <iostream>
#include <map>

#include "cli/commands.hpp"
#include "cli/process_locks.hpp"
#include "cli/version.hpp"
#include "cli/vocabulary.hpp"
#include "live/external_lock.hpp"
#include "scenarios/runner.hpp"
#include "vocab/printable.hpp"
#include "vocab/spelling.hpp"

// locksim_add_cli() (cmake/LocksimCli.cmake) builds this file into a user's
// own tool under another name.
#ifndef LOCKSIM_PROGRAM_NAME
#define LOCKSIM_PROGRAM_NAME "locksim"
#endif

namespace {

// The words CLI11 could not place (its ExtrasError), from the subcommand
// that was chosen and from the top level.
std::vector<std::string> extras_of(CLI::App& app, CLI::App* sub) {
  std::vector<std::string> extras = sub ? sub->remaining() : std::vector<std::string>{};
  for (const auto& w : app.remaining()) extras.push_back(w);
  return extras;
}

std::vector<std::string> long_option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
  return names;
}

// "locksim: unknown option '--lok'; did you mean '--lock'?" for the first
// misspelt option or subcommand that has a close candidate, else "".
std::string did_you_mean_line(CLI::App& app) {
  CLI::App* sub = nullptr;
  for (CLI::App* s : app.get_subcommands()) sub = s;
  std::vector<std::string> commands;
  for (const CLI::App* s : app.get_subcommands({})) commands.push_back(s->get_name());
  for (const auto& word : extras_of(app, sub)) {
    const bool option = word.rfind("--", 0) == 0;
    if (!option && sub) continue;  // a stray value, not a name
    const std::string name = option ? word.substr(0, word.find('=')) : word;
    const auto best = locksim::closest_spelling(name, option ? long_option_names(sub ? *sub : app) : commands);
    if (best)
      return "locksim: unknown " + std::string(option ? "option" : "command") + " '" + name + "'; did you mean '" +
             *best + "'? (locksim " + (sub ? sub->get_name() + " " : "") + "--help)";
  }
  return "";
}

// CLI11's usage error (it quotes the words it could not place) with control
// characters escaped (vocab/printable.hpp), then its "Run with --help" line.
std::string escaped_failure(const CLI::App* app, const CLI::Error& e) {
  const std::string what = e.what();
  return locksim::printable(what) + CLI::FailureMessage::simple(app, e).substr(what.size());
}

// "locksim: --lock: an empty value ..." for the first option or argument
// given an empty string ("--lock ''", "--time-scale ''"),
// else "". No option's default is spelt as an empty value: leaving the
// option out gives the default, so an empty one is a mistake (a shell
// variable that was not set), never silently the default.
std::string empty_value_line(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands())
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_type_size() == 0) continue;  // a flag takes no value
      for (const std::string& value : o->results())
        if (value.empty())
          return "locksim: " + o->get_name() + ": an empty value; give a value" +
                 (o->get_required() ? std::string() : ", or leave " + o->get_name() + " out for its default") +
                 " (locksim " + sub->get_name() + " --help)";
    }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace locksim::cli;
  set_program_name(LOCKSIM_PROGRAM_NAME);
  locksim::live::register_library_locks();  // lib:redis-py, external, ...: known to every command
  install_process_locks();                   // ... and run in simulated time by every command
  CLI::App app{std::string(LOCKSIM_PROGRAM_NAME) + ": deterministic simulation and fault injection for Redis distributed locks"};
  app.name(LOCKSIM_PROGRAM_NAME);  // "Usage: locksim run ...", also in `locksim help run`
  app.set_version_flag("--version", version_text(LOCKSIM_PROGRAM_NAME));
  app.require_subcommand(0, 1);
  app.failure_message(escaped_failure);  // before the subcommands: they copy it
  std::map<CLI::App*, Handler> handlers;
  auto add = [&](Handler (*adder)(CLI::App&)) {
    Handler h = adder(app);
    handlers[app.get_subcommands({}).back()] = std::move(h);
  };
  add(&add_list_command);
  add(&add_run_command);
  add(&add_replay_command);
  add(&add_sweep_command);
  add(&add_hunt_command);
  add(&add_check_command);
  add(&add_report_command);
  add(&add_live_command);
  add(&add_examples_command);
  name_option_values(app);
  if (const auto help = help_command(app, argc, argv)) {
    (help->code == 0 ? std::cout : std::cerr) << help->text;  // our own text: names in it are printable already
    return help->code == 0 ? kMatched : kBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      if (const std::string line = did_you_mean_line(app); !line.empty()) {
        std::cerr << locksim::printable(line) << "\n";
        return kBadInput;
      }
    }
    const int code = app.exit(e);  // prints help/version (code 0) or the usage error
    return code == 0 ? kMatched : kBadInput;
  }
  if (const std::string line = empty_value_line(app); !line.empty()) {
    std::cerr << line << "\n";
    return kBadInput;
  }
  try {
    for (CLI::App* sub : app.get_subcommands())
      if (auto it = handlers.find(sub); it != handlers.end()) return it->second();
    std::cout << app.help();
    return kMatched;
  } catch (const locksim::scenarios::NondeterministicRun& e) {  // --verify: the two runs differed
    std::cerr << "locksim: " << locksim::printable(e.what()) << "\n";
    return kNondeterministic;
  } catch (const InputError& e) {  // one line each: a file or name in it is printable()
    std::cerr << "locksim: " << locksim::printable(e.what()) << "\n";
    return kBadInput;
  } catch (const EnvironmentError& e) {
    std::cerr << "locksim: " << locksim::printable(e.what()) << "\n";
    return kInternal;
  } catch (const std::exception& e) {
    std::cerr << "locksim: internal error: " << locksim::printable(e.what()) << "\n";
    return kInternal;
  }
}
