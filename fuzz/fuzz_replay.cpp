// libFuzzer target: `locksim replay INPUT` (a repro command, a JSON result
// line, or a file holding one), driven through the real subcommand. Bad
// input must end in InputError (exit 2), never a crash or another
// exception. Valid inputs re-run a simulation; their output is discarded.
// Seed corpus: fuzz/corpus/replay/ (repro lines and JSON lines of catalog runs).
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace locksim::cli;
  const std::string input(reinterpret_cast<const char*>(data), size);
  static std::ostringstream sink;
  static const auto quiet = [] {  // replay prints its verdict: keep the fuzzer's output readable
    std::cout.rdbuf(sink.rdbuf());
    return true;
  }();
  (void)quiet;
  sink.str({});
  CLI::App app{"fuzz"};
  Handler replay = add_replay_command(app);
  try {
    app.parse(std::vector<std::string>{input, "replay"});  // CLI11 takes the arguments reversed
    replay();
  } catch (const CLI::ParseError&) {
  } catch (const InputError&) {
  }
  return 0;
}
