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
    if (e.field.empty() || e.message.empty() || e.line < 0) __builtin_trap();  // not the one-line contract
  }
  return 0;
}
