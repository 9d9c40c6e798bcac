// Reading a file the user named (a scenario, a replay file, a report's
// source): regular files only, and at most a size cap, checked before the
// file is opened. Without this, `run /dev/zero` reads until memory runs out
// and a FIFO blocks forever in open().
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vocab/result.hpp"

namespace locksim::scenarios {

inline constexpr std::uintmax_t kMaxInputFileBytes = 1 << 20;  // 1 MiB: scenarios and repro files are small

// Why `path` may not be read (missing, a directory, not a regular file, over
// `cap` bytes), or nullopt. The message names the cap.
std::optional<std::string> input_file_problem(const std::string& path, std::uintmax_t cap = kMaxInputFileBytes);

// The whole file, or input_file_problem's reason (or "cannot read the file").
Result<std::string, std::string> read_input_file(const std::string& path, std::uintmax_t cap = kMaxInputFileBytes);

}  // namespace locksim::scenarios
