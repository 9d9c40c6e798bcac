// Control characters escaped for a terminal (printable.hpp).
#include "vocab/printable.hpp"

#include <cstdio>

namespace locksim {

namespace {

bool is_c0_or_del(unsigned char c) { return c < 0x20 || c == 0x7F; }

// A C1 control in UTF-8: 0xC2 followed by 0x80..0x9F.
bool is_c1_at(std::string_view text, std::size_t i) {
  return static_cast<unsigned char>(text[i]) == 0xC2 && i + 1 < text.size() &&
         static_cast<unsigned char>(text[i + 1]) >= 0x80 && static_cast<unsigned char>(text[i + 1]) <= 0x9F;
}

}  // namespace

bool has_control_characters(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (is_c0_or_del(static_cast<unsigned char>(text[i])) || is_c1_at(text, i)) return true;
  return false;
}

std::string printable(std::string_view text) {
  if (!has_control_characters(text)) return std::string(text);
  std::string out;
  char buf[8];
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (is_c0_or_del(c)) std::snprintf(buf, sizeof buf, "\\x%02x", c), out += buf;
    else if (is_c1_at(text, i)) std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(text[++i])), out += buf;
    else out += static_cast<char>(c);
  }
  return out;
}

}  // namespace locksim
