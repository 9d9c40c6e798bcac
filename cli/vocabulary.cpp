#include "cli/vocabulary.hpp"

#include <iostream>
#include <map>

#include "vocab/joined.hpp"
#include "vocab/spelling.hpp"

namespace locksim::cli {

namespace {

// Every option any subcommand takes, and the value it means everywhere.
const std::map<std::string_view, std::string_view>& vocabulary() {
  static const std::map<std::string_view, std::string_view> table{
      {"--allow-remote", ""},        {"--all", ""},
      {"--budget", "INT"},           {"--client", "COMMAND"},
      {"--examples-dir", "DIR"},     {"--expect", "FILE.toml"},
      {"--faults", "INT"},           {"--format", "FORMAT"},
      {"--help", ""},                {"--jobs", "INT"},
      {"--kinds", "KIND"},       {"--line", "INT"},
      {"--live", ""},                {"--lock", "NAME"},
      {"--merge", "FILE"},           {"--method", "METHOD"},
      {"--no-examples", ""},         {"--out", "FILE"},
      {"--prefix", "PREFIX"},          {"--property", "VIOLATION"},
      {"--quiet", ""},               {"--redis", "HOST:PORT,..."},
      {"--redis-server", "FILE"},    {"--resume", ""},
      {"--scenario", "NAME|FILE"},   {"--seed", "INT"},
      {"--seed-start", "INT"},       {"--seeds", "INT"},
      {"--shard", "K/N"},            {"--store", "DIR"},
      {"--time", "DURATION"},        {"--time-scale", "FLOAT"},
      {"--timeline", "FILE.svg"},    {"--trace", ""},
      {"--version", ""},             {"--workload", "WORKLOAD"},
      {"--color", "WHEN"},
      // positionals
      {"scenario", "NAME|FILE"},     {"files", "FILE"},
      {"repro", "REPRO|FILE"},
  };
  return table;
}

std::string option_key(const CLI::Option& o) {
  return o.get_lnames().empty() ? o.get_name() : "--" + o.get_lnames().front();
}

std::string new_spelling_note(const CLI::App& cmd, const std::string& old_name, const std::string& new_name) {
  return "locksim " + cmd.get_name() + ": " + old_name + " is now " + new_name + " (the old spelling still works)\n";
}

}  // namespace

std::optional<std::string_view> option_value_name(std::string_view name) {
  const auto& table = vocabulary();
  if (auto it = table.find(name); it != table.end()) return it->second;
  return std::nullopt;
}

void name_option_values(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    for (CLI::Option* o : sub->get_options())
      if (auto value = option_value_name(option_key(*o)); value && o->get_type_size() != 0)
        o->type_name(std::string(*value));
    name_option_values(*sub);
  }
}

void add_alias(CLI::App& cmd, const std::string& old_name, const std::string& new_name, std::string& target) {
  const std::string note = new_spelling_note(cmd, old_name, new_name);
  cmd.add_option_function<std::string>(
         old_name, [&target, note](const std::string& v) { target = v, std::cerr << note; }, "= " + new_name)
      ->group("");
}

void add_alias(CLI::App& cmd, const std::string& old_name, const std::string& new_name,
               std::vector<std::string>& target) {
  const std::string note = new_spelling_note(cmd, old_name, new_name);
  cmd.add_option_function<std::vector<std::string>>(
         old_name,
         [&target, note](const std::vector<std::string>& v) {
           target.insert(target.end(), v.begin(), v.end());
           std::cerr << note;
         },
         "= " + new_name)
      ->group("");
}

std::optional<HelpAnswer> help_command(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2 || std::string_view(argv[1]) != "help") return std::nullopt;
  if (argc == 2) return HelpAnswer{app.help(), 0};
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == argv[2]) return HelpAnswer{sub->help(app.get_name()), 0};
    names.push_back(sub->get_name());
  }
  const auto best = closest_spelling(argv[2], names);
  return HelpAnswer{app.get_name() + ": help: unknown command '" + std::string(argv[2]) + "'" +
                        (best ? "; did you mean '" + *best + "'?" : "") + " (commands: " + joined(names) + ")\n",
                    2};
}

}  // namespace locksim::cli
