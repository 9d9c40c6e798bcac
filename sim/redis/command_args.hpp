// Argument helpers of the simulated node's commands, after Redis's own
// (src/util.c string2ll, strcasecmp option parsing, src/networking.c
// addReplyErrorFormat and the shared error replies of src/server.c).
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vocab/reply.hpp"

namespace locksim::sim::redis {

// Redis's string2ll: no spaces, no '+', no leading zeros, no "-0".
inline std::optional<std::int64_t> parse_ll(std::string_view s) {
  if (s.empty() || s.size() >= 21) return std::nullopt;
  if (s == "0") return 0;
  std::size_t i = 0;
  bool negative = s[0] == '-';
  if (negative && ++i == s.size()) return std::nullopt;
  if (s[i] < '1' || s[i] > '9') return std::nullopt;
  unsigned long long v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    unsigned d = static_cast<unsigned>(s[i] - '0');
    if (v > (ULLONG_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  if (negative) {
    if (v > static_cast<unsigned long long>(LLONG_MAX) + 1) return std::nullopt;
    return static_cast<std::int64_t>(0 - v);
  }
  if (v > static_cast<unsigned long long>(LLONG_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

inline std::string_view c_string(const std::string& s) { return std::string_view(s.c_str()); }

inline char lower(char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); }

// strcasecmp(arg, name) == 0 with name in lower case: what Redis's option
// parsers do (so an argument is read up to its first NUL byte).
inline bool option_is(const std::string& arg, std::string_view name) {
  std::string_view a = c_string(arg);
  if (a.size() != name.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != name[i]) return false;
  }
  return true;
}

// addReplyErrorFormat: CR/LF trimmed at the ends, mapped to spaces inside.
inline Reply format_error(std::string text) {
  std::size_t b = text.find_first_not_of("\r\n");
  std::size_t e = text.find_last_not_of("\r\n");
  text = b == std::string::npos ? std::string() : text.substr(b, e - b + 1);
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return Reply::error(std::move(text));
}

inline Reply wrong_args(std::string_view fullname) {
  return Reply::error("ERR wrong number of arguments for '" + std::string(fullname) + "' command");
}
inline Reply syntax_error() { return Reply::error("ERR syntax error"); }
inline Reply not_integer() { return Reply::error("ERR value is not an integer or out of range"); }
inline Reply wrong_type() { return Reply::error("WRONGTYPE Operation against a key holding the wrong kind of value"); }

// addReplySubcommandSyntaxError: an unknown subcommand of a container command.
inline Reply unknown_subcommand(const Argv& a) {
  std::string upper(c_string(a[0]));
  for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return format_error("ERR unknown subcommand '" + std::string(c_string(a[1]).substr(0, 128)) + "'. Try " + upper +
                      " HELP.");
}

}  // namespace locksim::sim::redis
