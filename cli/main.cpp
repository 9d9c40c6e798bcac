// locksim: the command-line entry point (CLI11). Each subcommand lives in its
// own file under cli/ and returns its exit code; this file maps usage errors
// to exit 2 and unexpected failures to exit 3, always as one clear line.
#include <CLI/CLI.hpp>

#include <iostream>
#include <map>

#include "cli/commands.hpp"
#include "cli/version.hpp"

// locksim_add_cli() (cmake/LocksimCli.cmake) builds this file into a user's
// own tool under another name.
#ifndef LOCKSIM_PROGRAM_NAME
#define LOCKSIM_PROGRAM_NAME "locksim"
#endif

int main(int argc, char** argv) {
  using namespace locksim::cli;
  set_program_name(LOCKSIM_PROGRAM_NAME);
  CLI::App app{std::string(LOCKSIM_PROGRAM_NAME) + ": deterministic simulation and fault injection for Redis distributed locks"};
  app.set_version_flag("--version", version_text(LOCKSIM_PROGRAM_NAME));
  app.require_subcommand(0, 1);
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
  add(&add_report_command);
  add(&add_live_command);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help/version (code 0) or the usage error
    return code == 0 ? kMatched : kBadInput;
  }
  try {
    for (CLI::App* sub : app.get_subcommands())
      if (auto it = handlers.find(sub); it != handlers.end()) return it->second();
    std::cout << app.help();
    return kMatched;
  } catch (const InputError& e) {
    std::cerr << "locksim: " << e.what() << "\n";
    return kBadInput;
  } catch (const EnvironmentError& e) {
    std::cerr << "locksim: " << e.what() << "\n";
    return kInternal;
  } catch (const std::exception& e) {
    std::cerr << "locksim: internal error: " << e.what() << "\n";
    return kInternal;
  }
}
