// Where live mode finds the files it loads at run time (the preload library,
// the client adapters): first where an install puts them, relative to the
// running executable's own directory (cmake/install.cmake, the Debian
// package), so an installed tree works wherever it is unpacked; then in the
// build and source trees the binary was built from.
#pragma once

#include <filesystem>

namespace locksim::live {

// `relative` (a path relative to the executable's directory, e.g.
// "../lib/locksim") against the directory of /proc/self/exe, normalised;
// empty when /proc/self/exe cannot be read.
std::filesystem::path beside_executable(const std::filesystem::path& relative);

// False when LOCKSIM_NO_BUILD_TREE is set (and not "0"): the build tree's
// paths compiled into the binary are not tried, so a test of an installed
// package fails if the binary still leans on its build tree.
bool build_tree_allowed();

}  // namespace locksim::live
