// The built-in scenario catalog: scenarios/catalog/*.toml, embedded into the
// binary at build time (scenarios/embed_catalog.cmake generates the data), so
// `locksim run gc-pause` works from any directory.
//
// An entry's name is its file name without ".toml"; a catalog test checks
// that it equals the file's `name` field. `resolve_scenario` is what the CLI
// calls with its SCENARIO|FILE.toml argument.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.hpp"
#include "vocab/result.hpp"

namespace locksim::scenarios {

struct CatalogEntry {
  std::string name;       // "gc-pause"
  std::string file;       // "gc-pause.toml"
  std::string_view text;  // the embedded TOML (static storage)
};

// Every built-in scenario, sorted by name.
const std::vector<CatalogEntry>& catalog();

// Loads a built-in scenario; its errors name "catalog/<file>". An unknown
// name gives a `catalog: scenario: ...` error that lists close names.
Result<Scenario, ScenarioError> load_catalog_scenario(std::string_view name);

// A catalog name, or a path to a .toml file: an argument that ends in
// ".toml" or contains a '/' is a path; anything else is looked up in the
// catalog first, then as a file of that name.
Result<Scenario, ScenarioError> resolve_scenario(std::string_view arg);

// The raw embedded files (generated code; use catalog() instead).
struct EmbeddedCatalogFile {
  const char* file;
  std::string_view text;
};
std::span<const EmbeddedCatalogFile> embedded_catalog_files();

}  // namespace locksim::scenarios
