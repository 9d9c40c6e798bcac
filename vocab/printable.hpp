// Text a user wrote, made safe to print on a terminal (issue 35): a
// scenario, client, lock or file name holding a newline, a carriage return
// or an escape sequence could otherwise print a line of its own (a forged
// "verdict   as expected"), move the cursor or recolour what follows. Every
// name a text output shows passes through printable(); JSON output needs
// none (nlohmann::json escapes control characters as \uXXXX) and the XML
// outputs have their own escaping (reports/xml_text.hpp).
#pragma once

#include <string>
#include <string_view>

namespace locksim {

// `text` with each control character escaped as C would write it: \n, \r,
// \t, and \xNN for the other C0 controls and DEL; the C1 controls
// (U+0080..U+009F, which some terminals obey as escape sequences) as
// \u0080..\u009F. Everything else, UTF-8 included, is kept as it is.
std::string printable(std::string_view text);

// Whether printable(text) would change it.
bool has_control_characters(std::string_view text);

}  // namespace locksim
