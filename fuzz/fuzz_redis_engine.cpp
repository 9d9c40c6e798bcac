// libFuzzer target: the simulated Redis engine's command path (argv -> reply,
// Lua scripts included). Input: commands separated by '\n', arguments by
// '\t' (fuzz/corpus/redis_engine/ has lock commands and the catalog locks'
// scripts in this form); the first byte's low bit turns on Redis 8.4's
// IFEQ commands. Each command runs at a later simulated millisecond, with
// active expiry between, so TTL paths are reached too.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/redis/engine.hpp"

namespace {

locksim::Argv split(std::string_view line) {
  locksim::Argv argv;
  for (std::size_t start = 0;;) {
    const std::size_t tab = line.find('\t', start);
    argv.emplace_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return argv;
    start = tab + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  locksim::sim::redis::EngineOptions options;
  options.redis84_ifeq = (data[0] & 1) != 0;
  options.script_instruction_budget = 200'000;  // a runaway script ends fast, as the budget says
  locksim::sim::redis::Engine engine(options);
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::int64_t now_ms = 1'700'000'000'000;
  std::size_t commands = 0;
  for (std::size_t start = 0; start <= text.size() && commands < 64; ++commands) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const auto argv = split(text.substr(start, end - start));
    now_ms += 7;
    engine.active_expire(now_ms);
    (void)engine.execute(argv, now_ms);
    (void)engine.take_effects();
    start = end + 1;
  }
  return 0;
}
