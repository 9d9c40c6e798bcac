#include "scenarios/lock_expectations.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "locks/registry.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/input_file.hpp"
#include "vocab/violation_kinds.hpp"

namespace locksim::scenarios {

namespace {

// " (did you mean a, b?)", or " (known: ...)" when nothing is close.
std::string name_hint(std::string_view wanted, const std::vector<std::string>& names) {
  const auto close = close_names(wanted, names);
  return close.empty() ? " (known: " + joined(names) + ")" : " (did you mean " + joined(close) + "?)";
}

std::vector<std::string> lock_names() {
  std::vector<std::string> names;
  for (const auto& info : locks::all_locks()) names.push_back(info.name);
  return names;
}

// `violations` / `may` of a table (both optional; `violations` defaults to
// none). The caller has checked the table's keys.
std::optional<Expectation> read_expectation(Section& s) {
  Expectation e;
  for (auto [key, into] : {std::pair{"violations", &e.violations}, std::pair{"may", &e.may}}) {
    const toml::node* n = s.node(key);
    if (!n) continue;
    auto names = read_violation_names(s.errors(), *n, s.field(key));
    if (!names) return std::nullopt;
    *into = std::move(*names);
  }
  return e;
}

// One entry of [LOCK.scenarios]: an array of violations, or a table.
std::optional<Expectation> read_scenario_entry(Section& scenarios, const std::string& name, const toml::node& n) {
  if (n.is_array()) {
    auto names = read_violation_names(scenarios.errors(), n, scenarios.field(name));
    if (!names) return std::nullopt;
    return Expectation{std::move(*names), {}};
  }
  auto table = scenarios.sub(name);  // a wrong type is reported by sub()
  if (!table || !table->check_keys({"violations", "may"})) return std::nullopt;
  return read_expectation(*table);
}

bool read_scenarios(Section& lock, LockExpectation& out, const std::vector<std::string>& known) {
  auto scenarios = lock.sub("scenarios");
  if (!scenarios) return !lock.errors().failed();
  for (auto&& [k, v] : scenarios->table()) {
    const std::string name(k.str());
    if (std::find(known.begin(), known.end(), name) == known.end())
      return scenarios->fail_value(name, "unknown scenario " + in_quotes(name) + name_hint(name, known));
    auto e = read_scenario_entry(*scenarios, name, v);
    if (!e) return false;
    out.by_scenario[name] = std::move(*e);
  }
  return true;
}

std::optional<LockExpectation> read_lock(Section& lock) {
  if (!lock.check_keys({"like", "violations", "may", "scenarios"})) return std::nullopt;
  LockExpectation out;
  if (lock.has("like")) {
    auto like = lock.string("like");
    if (!like) return std::nullopt;
    if (!locks::find_lock(*like)) {
      lock.fail_value("like", "unknown lock " + in_quotes(*like) + name_hint(*like, lock_names()));
      return std::nullopt;
    }
    out.like = *like;
  }
  if (lock.has("violations") || lock.has("may")) {
    auto e = read_expectation(lock);
    if (!e) return std::nullopt;
    out.otherwise = std::move(*e);
  }
  return out;
}

Result<LockExpectations, TomlError> read_file(const toml::table& root, const std::vector<std::string>& known) {
  TomlErrors errors;
  Section top(errors, root, "");
  LockExpectations out;
  for (auto&& [k, v] : root) {
    const std::string name(k.str());
    if (!locks::find_lock(name)) {
      top.fail_value(name, "unknown lock " + in_quotes(name) + name_hint(name, lock_names()));
      break;
    }
    auto lock = top.sub(name);
    if (!lock) break;
    auto e = read_lock(*lock);
    if (!e || !read_scenarios(*lock, *e, known)) break;
    out[name] = std::move(*e);
  }
  if (errors.failed()) return failure(*errors.first());
  return out;
}

// What `e` says of scenario `s`, or nullopt (then the scenario's own [expect] stands).
std::optional<Expectation> expectation_on(const Scenario& s, const LockExpectation& e) {
  if (auto it = e.by_scenario.find(s.name); it != e.by_scenario.end()) return it->second;
  if (e.like)
    if (auto violations = s.expected_for(*e.like)) return Expectation{*violations, s.may_for(*e.like)};
  return e.otherwise;
}

}  // namespace

std::optional<std::set<std::string>> read_violation_names(TomlErrors& errors, const toml::node& n,
                                                          const std::string& field) {
  if (!n.is_array()) {
    errors.fail(line_of(n.source()), field, "expected an array of violation names, got " + type_name(n));
    return std::nullopt;
  }
  std::set<std::string> out;
  for (const toml::node& v : *n.as_array()) {
    const auto name = v.value<std::string>();
    if (!name || !violation_kind_from_name(*name)) {
      errors.fail(line_of(v.source()), field,
                  (name ? "unknown violation " + in_quotes(*name) : "expected a violation name, got " + type_name(v)) +
                      " (known: " + joined(violation_names()) + ")");
      return std::nullopt;
    }
    out.insert(*name);
  }
  return out;
}

Result<LockExpectations, ScenarioError> load_lock_expectations(const std::string& path,
                                                               const std::vector<std::string>& known_scenarios) {
  try {
    const auto text = read_input_file(path);
    if (!text) return failure(ScenarioError{path, 0, "file", text.error()});
    const auto root = parse_toml(*text, path);
    if (!root) return failure(ScenarioError{path, root.error().line, root.error().field, root.error().message});
    auto read = read_file(*root, known_scenarios);
    if (!read) return failure(ScenarioError{path, read.error().line, read.error().field, read.error().message});
    return std::move(*read);
  } catch (const std::exception& e) {
    return failure(ScenarioError{path, 0, "file", std::string("cannot read the file: ") + e.what()});
  }
}

Result<LockExpectations, ScenarioError> load_lock_expectations(const std::vector<std::string>& paths,
                                                               const std::vector<std::string>& known_scenarios) {
  LockExpectations all;
  for (const std::string& path : paths) {
    auto one = load_lock_expectations(path, known_scenarios);
    if (!one) return failure(one.error());
    for (auto& [lock, e] : *one) all[lock] = std::move(e);
  }
  return all;
}

std::optional<ScenarioError> apply_expectation_files(const std::vector<std::string>& paths,
                                                     std::span<Scenario> scenarios) {
  if (paths.empty()) return std::nullopt;
  std::vector<std::string> known;
  for (const auto& e : catalog()) known.push_back(e.name);
  for (const auto& s : scenarios)
    if (std::find(known.begin(), known.end(), s.name) == known.end()) known.push_back(s.name);
  const auto expectations = load_lock_expectations(paths, known);
  if (!expectations) return expectations.error();
  for (auto& s : scenarios) apply_lock_expectations(s, *expectations);
  return std::nullopt;
}

void apply_lock_expectations(Scenario& scenario, const LockExpectations& expectations) {
  for (const auto& [lock, e] : expectations) {
    auto on = expectation_on(scenario, e);
    if (!on) continue;
    scenario.expect_by_lock[lock] = std::move(on->violations);
    scenario.expect_may_by_lock[lock] = std::move(on->may);
  }
}

}  // namespace locksim::scenarios
