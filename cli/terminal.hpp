// Whether text output may use colour: only on a terminal, and never when the
// user set NO_COLOR (https://no-color.org: present and not empty).
#pragma once

#include <unistd.h>

#include <cstdlib>

#include "reports/run_output.hpp"

namespace locksim::cli {

inline reports::TextStyle stdout_style() {
  const char* no_colour = std::getenv("NO_COLOR");
  return {::isatty(STDOUT_FILENO) == 1 && (no_colour == nullptr || *no_colour == '\0')};
}

}  // namespace locksim::cli
