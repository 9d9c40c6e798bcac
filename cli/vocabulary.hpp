// One vocabulary for every subcommand's options (issue 40): an option name
// means one thing wherever it appears, and --help shows the value it takes
// (INT, FILE, K/N, ...) instead of CLI11's TEXT. Old spellings stay as
// hidden aliases that say the new one. tests/test_rules.cpp walks every
// subcommand: an option missing from the table fails it.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locksim::cli {

// What option `name` ("--seed") takes, as --help shows it ("INT"); "" for
// a flag; nullopt when the vocabulary does not know the option.
std::optional<std::string_view> option_value_name(std::string_view name);

// Sets the shown value of every option of every subcommand of `app` from the
// vocabulary (a positional keeps the name of its option twin, e.g. scenario).
void name_option_values(CLI::App& app);

// `old_name` ("--violation") as a hidden alias of `new_name` ("--property")
// on `cmd`: its value lands in `target` as the new option's would, and a
// note on stderr gives the new spelling.
void add_alias(CLI::App& cmd, const std::string& old_name, const std::string& new_name, std::string& target);
void add_alias(CLI::App& cmd, const std::string& old_name, const std::string& new_name,
               std::vector<std::string>& target);

// `locksim help [SUBCOMMAND]`: the help text, or nullopt when argv does not
// ask for it. An unknown subcommand gets "did you mean".
struct HelpAnswer {
  std::string text;
  int code = 0;  // 0, or 2 for an unknown subcommand (text is then the error line)
};
std::optional<HelpAnswer> help_command(const CLI::App& app, int argc, const char* const* argv);

}  // namespace locksim::cli
