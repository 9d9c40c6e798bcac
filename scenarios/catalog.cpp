// The catalog index over the embedded files, and scenario resolution for the
// CLI (a catalog name or a .toml path).
#include "scenarios/catalog.hpp"

#include "scenarios/toml_section.hpp"

#include <algorithm>
#include <filesystem>

namespace locksim::scenarios {

const std::vector<CatalogEntry>& catalog() {
  static const std::vector<CatalogEntry> entries = [] {
    std::vector<CatalogEntry> v;
    for (const auto& f : embedded_catalog_files()) {
      std::string file = f.file;
      std::string name = file.size() > 5 && file.ends_with(".toml") ? file.substr(0, file.size() - 5) : file;
      v.push_back({std::move(name), std::move(file), f.text});
    }
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return v;
  }();
  return entries;
}

namespace {

const CatalogEntry* find_entry(std::string_view name) {
  for (const auto& e : catalog())
    if (e.name == name) return &e;
  return nullptr;
}

ScenarioError unknown_scenario(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& e : catalog()) names.push_back(e.name);
  const auto close = close_names(name, names);
  std::string msg = "unknown scenario \"" + std::string(name) + "\"";
  if (!close.empty()) {
    msg += " (did you mean ";
    for (std::size_t i = 0; i < close.size(); ++i) msg += (i ? ", " : "") + close[i];
    msg += "?)";
  }
  msg += "; `locksim list` shows the catalog, or pass a path to a .toml file";
  return ScenarioError{"catalog", 0, "scenario", std::move(msg)};
}

}  // namespace

Result<Scenario, ScenarioError> load_catalog_scenario(std::string_view name) {
  const CatalogEntry* e = find_entry(name);
  if (!e) return failure(unknown_scenario(name));
  return load_scenario_text(e->text, "catalog/" + e->file);
}

Result<Scenario, ScenarioError> resolve_scenario(std::string_view arg) {
  const std::string path(arg);
  if (path.ends_with(".toml") || path.find('/') != std::string::npos) return load_scenario_file(path);
  if (find_entry(arg)) return load_catalog_scenario(arg);
  std::error_code ec;
  if (!path.empty() && std::filesystem::is_regular_file(path, ec)) return load_scenario_file(path);
  return failure(unknown_scenario(arg));
}

}  // namespace locksim::scenarios
