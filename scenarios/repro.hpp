// The repro command of a run: the one place that builds the `locksim run`
// and `locksim live` lines printed after a run, written into every JSON run
// record and read back by `locksim replay`. Every word is shell-quoted
// (POSIX single quotes) when it holds anything but plain characters, so a
// scenario file named `inj$(touch x).toml` or `my scenario.toml` gives a line
// that is safe to paste and that `replay` (wordexp(3), WRDE_NOCMD) splits
// back into the same words. Plain names stay unquoted: catalog names and
// ordinary paths print exactly as before.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locksim::scenarios {

// `word` as one shell word: unchanged when it is made only of
// [A-Za-z0-9_@%+=:,./-] (and not empty), else in single quotes with each
// ' written as '\''.
std::string shell_quote(std::string_view word);

// "locksim run <ref> --lock <lock> --seed <seed>"; `program` is the tool that
// runs it (a CLI built with locksim_add_cli() names itself).
std::string run_repro(const std::string& scenario_ref, const std::string& lock, std::uint64_t seed,
                      const std::string& program = "locksim");

// "locksim live <ref> --lock <lock> --time-scale <scale>[ --redis a,b][ --seed N]".
std::string live_repro(const std::string& scenario_ref, const std::string& lock, const std::string& time_scale,
                       const std::vector<std::string>& redis_endpoints, std::optional<std::uint64_t> seed);

}  // namespace locksim::scenarios
