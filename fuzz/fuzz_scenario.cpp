// libFuzzer target: the scenario parser (TOML text -> Scenario or one error
// line). Any crash, sanitizer report or hang is a bug: a bad file must give
// `file:line: field: message`. Seed corpus: scenarios/catalog/*.toml and
// fuzz/corpus/scenario/ (fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenarios/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = locksim::scenarios::load_scenario_text(text, "fuzz.toml");
  if (!parsed) {
    const auto& e = parsed.error();
    // Not the one-line contract; from text every error has a line (line 0
    // is for a file that cannot be read, never for its contents).
    if (e.field.empty() || e.message.empty() || e.line < 1) __builtin_trap();
  }
  return 0;
}
