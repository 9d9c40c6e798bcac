#include "cli/version.hpp"

#ifndef LOCKSIM_GIT_REVISION
#define LOCKSIM_GIT_REVISION "unknown"
#endif

namespace locksim::cli {

namespace {
std::string& program_name_storage() {
  static std::string name = "locksim";
  return name;
}
}  // namespace

const std::string& program_name() { return program_name_storage(); }
void set_program_name(std::string name) { program_name_storage() = std::move(name); }

std::string version_text(const std::string& program) {
  return program + " " + LOCKSIM_VERSION + " (git " + LOCKSIM_GIT_REVISION + ")";
}

}  // namespace locksim::cli
