#include "cli/vocabulary.hpp"

#include <functional>
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
      {"--quiet", ""},               {"--redis", "HOST:PORT"},
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

// Text as roff shows it literally: backslashes doubled, hyphens as \-.
std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  return out;
}

// The options a man page lists: not --help, not the hidden aliases.
std::vector<const CLI::Option*> shown_options(const CLI::App& sub) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : sub.get_options())
    if (o->get_name() != "--help" && !o->get_group().empty()) out.push_back(o);
  return out;
}

bool is_flag(const CLI::Option& o) { return o.get_type_name().empty(); }  // flags show no value in --help

std::string value_of(const CLI::Option& o) {
  std::string value = o.get_type_name();
  if (o.get_expected_max() > 1) value += " ...";
  return value;
}

// One option in the synopsis: `.B --lock` `.I NAME`, in brackets when
// optional; a positional (which may also be spelt --scenario) as its value.
std::string synopsis_item(const CLI::Option& o) {
  const std::string value = roff(value_of(o));
  if (o.get_positional()) return o.get_required() ? ".I " + value + "\n" : ".RI [ " + value + " ]\n";
  const std::string name = roff("--" + o.get_lnames().front());
  if (is_flag(o)) return ".RB [ " + name + " ]\n";
  if (o.get_required()) return ".B " + name + "\n.I " + value + "\n";
  return ".RB [ " + name + " \" " + value + "]\"\n";
}

// One option's entry in OPTIONS: `.TP`, its name and value, its help line.
std::string option_entry(const CLI::Option& o) {
  const std::string value = is_flag(o) ? "" : roff(value_of(o));
  std::string out = ".TP\n";
  if (o.get_positional()) {
    out += ".I " + value + "\n";
    if (!o.get_lnames().empty()) out += "(or " + roff("--" + o.get_lnames().front()) + ") ";
  } else {
    out += ".B " + roff("--" + o.get_lnames().front()) + (value.empty() ? "" : "\n.I " + value) + "\n";
  }
  return out + roff(o.get_description()) + (o.get_required() ? " (required)" : "") + "\n";
}

}  // namespace

namespace {

// Each command that runs something ("locksim run", "locksim examples list"),
// depth first, with its full name and its options (a nested command's
// parent options first: `examples --lock` applies to `examples list`).
using CommandVisit = std::function<void(const std::string&, const std::vector<const CLI::Option*>&)>;
void each_command(const CLI::App& app, const std::string& prefix, const std::vector<const CLI::Option*>& inherited,
                  const CommandVisit& visit) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string name = prefix + " " + sub->get_name();
    std::vector<const CLI::Option*> options = inherited;
    for (const CLI::Option* o : shown_options(*sub)) options.push_back(o);
    if (sub->get_subcommands({}).empty()) visit(name, options);
    else each_command(*sub, name, options, visit);
  }
}

}  // namespace

std::string man_synopsis(const CLI::App& app) {
  std::string out;
  each_command(app, app.get_name(), {}, [&](const std::string& name, const std::vector<const CLI::Option*>& options) {
    out += ".B " + roff(name) + "\n";
    for (const CLI::Option* o : options) out += synopsis_item(*o);
    out += ".br\n";
  });
  return out;
}

std::string man_options(const CLI::App& app) {
  std::string out;
  each_command(app, app.get_name(), {}, [&](const std::string& name, const std::vector<const CLI::Option*>& options) {
    out += ".SS " + roff(name) + "\n";
    for (const CLI::Option* o : options) out += option_entry(*o);
  });
  return out;
}

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
  if (std::string_view(argv[2]) == "--man-synopsis") return HelpAnswer{man_synopsis(app), 0};
  if (std::string_view(argv[2]) == "--man-options") return HelpAnswer{man_options(app), 0};
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
