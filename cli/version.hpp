// What `--version` prints: the release and the git revision the CLI library
// was built from ("locksim 0.1.0 (a1b2c3d4e5f6)"). The revision is read at
// configure time (CMakeLists.txt) and compiled into this one file only.
#pragma once

#include <string>

namespace locksim::cli {

std::string version_text(const std::string& program);

// The name repro commands use: "locksim", or the name of a tool built with
// locksim_add_cli(). Set once by main() before any command runs.
const std::string& program_name();
void set_program_name(std::string name);

}  // namespace locksim::cli
