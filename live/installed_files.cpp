#include "live/installed_files.hpp"

#include <cstdlib>
#include <string_view>

namespace locksim::live {

std::filesystem::path beside_executable(const std::filesystem::path& relative) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return (self.parent_path() / relative).lexically_normal();
}

bool build_tree_allowed() {
  const char* off = std::getenv("LOCKSIM_NO_BUILD_TREE");
  return off == nullptr || *off == '\0' || std::string_view(off) == "0";
}

}  // namespace locksim::live
