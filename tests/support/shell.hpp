// Runs a shell command (popen) for tests that drive the locksim binary:
// returns its stdout and exit code (-1 if it did not exit normally). Add
// " 2>&1" to the command to capture stderr too.
#pragma once

#include <string>
#include <utility>

namespace locksim::tests {

std::pair<std::string, int> run_shell(const std::string& command);

}  // namespace locksim::tests
