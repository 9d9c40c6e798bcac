// Words joined into one line of text ("a, b, c"): every list a message or a
// report prints goes through here, so the separator is the only choice left.
#pragma once

#include <string>
#include <string_view>

namespace locksim {

// The elements of `words` (anything whose elements convert to
// std::string_view) in order, `separator` between each two.
template <class Words>
std::string joined(const Words& words, std::string_view separator = ", ") {
  std::string out;
  bool first = true;
  for (const auto& word : words) {
    if (!first) out += separator;
    out += std::string_view(word);
    first = false;
  }
  return out;
}

}  // namespace locksim
