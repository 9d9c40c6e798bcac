// locksim: the command-line entry point (CLI11). Each subcommand lives in its
// own file under cli/ and registers itself here.
#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"locksim: deterministic simulation and fault injection for Redis distributed locks"};
  app.set_version_flag("--version", std::string("locksim ") + LOCKSIM_VERSION);
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 uses exit code 0 for --help/--version; usage errors map to 2.
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (app.get_subcommands().empty()) std::cout << app.help();
  return 0;
}
