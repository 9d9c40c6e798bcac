// xml_escape: text made safe for XML 1.0 text and attribute values. The
// five special characters become entities; invalid UTF-8 and the control
// characters XML 1.0 forbids become '?'; tab and newline are kept or turned
// into spaces (attributes and single-line SVG labels want spaces).
#pragma once

#include <string>
#include <string_view>

namespace locksim::reports {

enum class Newlines : bool { Keep, Space };

std::string xml_escape(std::string_view s, Newlines newlines = Newlines::Keep);

}  // namespace locksim::reports
