// Section readers, the first-error sink and the guarded toml++ parse
// (toml_section.hpp).
#include "scenarios/toml_section.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "vocab/spelling.hpp"

namespace locksim::scenarios {

bool TomlErrors::fail(int line, std::string field, std::string message) {
  if (!first_) first_ = TomlError{std::max(line, 0), printable(field), std::move(message)};
  return false;
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::date: return "date";
    case toml::node_type::time: return "time";
    case toml::node_type::date_time: return "date-time";
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    default: return "nothing";
  }
}

int line_of(const toml::source_region& r) {
  return r.begin.line > static_cast<toml::source_index>(std::numeric_limits<int>::max())
             ? 0
             : static_cast<int>(r.begin.line);
}

// User text inside a one-line message: control bytes escaped, long text cut.
std::string printable(std::string_view s, std::size_t max_shown) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max_shown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > max_shown) out += "...";
  return out;
}

std::string in_quotes(std::string_view s) { return "\"" + printable(s) + "\""; }

std::vector<std::string> close_names(std::string_view wanted, const std::vector<std::string>& names) {
  const std::size_t limit = std::max<std::size_t>(2, wanted.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& n : names) {
    const bool contains = wanted.size() >= 3 && n.size() >= 3 &&
                          (n.find(wanted) != std::string::npos || wanted.find(n) != std::string::npos);
    const std::size_t d = edit_distance(wanted, n);
    if (d <= limit || contains) scored.emplace_back(contains ? std::min<std::size_t>(d, 1) : d, n);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (const auto& [d, n] : scored)
    if (out.size() < 5) out.push_back(n);
  return out;
}

// --- Section readers -------------------------------------------------------

bool Section::fail(const toml::node& n, std::string_view key, std::string msg) {
  return p_.fail(line_of(n.source()), field(key), std::move(msg));
}

bool Section::wrong_type(const toml::node& n, std::string_view key, std::string_view expected) {
  return fail(n, key, "expected " + std::string(expected) + ", got " + type_name(n));
}

bool Section::fail_value(std::string_view key, std::string msg) {
  const toml::node* n = node(key);
  return p_.fail(n ? line_of(n->source()) : line(), field(key), std::move(msg));
}

bool Section::missing(std::string_view key, std::string_view why) {
  return p_.fail(line(), field(key), "missing" + (why.empty() ? std::string() : " (" + std::string(why) + ")"));
}

bool Section::check_keys(std::initializer_list<std::string_view> allowed) {
  const std::vector<std::string> names(allowed.begin(), allowed.end());
  for (auto&& [k, v] : t_) {
    const std::string key(k.str());
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    const auto close = close_names(key, names);
    std::string msg = close.empty() ? "unknown key (known keys: " + joined(names) + ")"
                                    : "unknown key (did you mean " + in_quotes(close.front()) + "?)";
    return p_.fail(line_of(k.source()), field(key), std::move(msg));
  }
  return true;
}

std::optional<std::string> Section::string(std::string_view key, bool allow_empty) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_string()) return wrong_type(*n, key, "a string"), std::nullopt;
  std::string s = n->as_string()->get();
  if (!allow_empty && s.empty()) return fail(*n, key, "must not be empty"), std::nullopt;
  return s;
}

std::optional<std::int64_t> Section::integer(std::string_view key, std::int64_t lo, std::int64_t hi) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_integer()) return wrong_type(*n, key, "an integer"), std::nullopt;
  const std::int64_t v = n->as_integer()->get();
  const std::string got = " (got " + std::to_string(v) + ")";
  if (v < lo && lo == 0) return fail(*n, key, "must not be negative" + got), std::nullopt;
  if (v < lo || v > hi)
    return fail(*n, key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + got), std::nullopt;
  return v;
}

std::optional<double> Section::number(std::string_view key, double lo, double hi) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_number()) return wrong_type(*n, key, "a number"), std::nullopt;
  const double v = n->value<double>().value_or(0.0);
  if (!(v >= lo && v <= hi)) {
    std::ostringstream range;
    range << "must be between " << lo << " and " << hi;
    return fail(*n, key, range.str()), std::nullopt;
  }
  return v;
}

std::optional<bool> Section::boolean(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_boolean()) return wrong_type(*n, key, "a boolean (true or false)"), std::nullopt;
  return n->as_boolean()->get();
}

namespace {

// What is wrong with duration `d` read from `text` for a field of `sign`, or
// nullopt. The sign hint quotes the text as parse_duration read it.
std::optional<std::string> sign_problem(Duration d, std::string_view text, Sign sign) {
  switch (sign) {
    case Sign::Positive:
      if (d <= Duration::zero()) return "must be positive";
      if (auto why = unwanted_sign(text)) return why;
      break;
    case Sign::NonNegative:
      if (d < Duration::zero()) return "must not be negative";
      if (auto why = unwanted_sign(text)) return why;
      break;
    case Sign::Signed: {
      const std::string t(trim_blanks(text));
      if (t.front() != '+' && t.front() != '-')
        return "needs a sign: \"+" + t + "\" (forward) or \"-" + t + "\" (backward)";
      if (d == Duration::zero()) return "must not be zero";
      break;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Duration> Section::duration(std::string_view key, Sign sign) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  const char* expected = sign == Sign::Signed ? "a signed duration string like \"+20s\" or \"-5s\""
                                              : "a duration string like \"30s\"";
  if (!n->is_string()) return wrong_type(*n, key, expected), std::nullopt;
  const std::string& text = n->as_string()->get();
  const auto d = parse_duration(text);
  if (!d)
    return fail(*n, key, "bad duration " + in_quotes(text) + ": expected a number with a unit (" +
                             duration_unit_names() + "), e.g. \"30s\", \"1.5s\", \"150ms\""),
           std::nullopt;
  if (auto over = duration_over_cap(*d)) return fail(*n, key, *over), std::nullopt;
  if (auto problem = sign_problem(*d, text, sign)) return fail(*n, key, *problem), std::nullopt;
  return d;
}

std::optional<DurationRange> Section::range(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_string()) return wrong_type(*n, key, "a duration or range string like \"1ms..3ms\""), std::nullopt;
  const std::string& text = n->as_string()->get();
  const auto r = parse_duration_range(text);
  if (!r)
    return fail(*n, key, "bad duration range " + in_quotes(text) +
                             ": expected \"MIN..MAX\" with MIN <= MAX, or one duration, e.g. \"1ms..3ms\""),
           std::nullopt;
  if (r->min < Duration::zero()) return fail(*n, key, "must not be negative"), std::nullopt;
  const std::size_t dots = text.find("..");
  const std::string_view lo = std::string_view(text).substr(0, dots);
  const std::string_view hi = dots == std::string::npos ? lo : std::string_view(text).substr(dots + 2);
  for (std::string_view part : {lo, hi})
    if (auto why = unwanted_sign(part)) return fail(*n, key, *why), std::nullopt;
  if (auto over = duration_over_cap(r->max)) return fail(*n, key, *over), std::nullopt;
  return r;
}

std::optional<std::string> Section::choice(std::string_view key, std::initializer_list<std::string_view> options) {
  const auto s = string(key, true);
  if (!s) return std::nullopt;
  for (auto o : options)
    if (o == *s) return s;
  std::vector<std::string> names;
  for (auto o : options) names.push_back(in_quotes(o));
  fail(*node(key), key, "unknown value " + in_quotes(*s) + " (expected " + joined(names, " or ") + ")");
  return std::nullopt;
}

std::optional<Section> Section::sub(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (!n->is_table()) return wrong_type(*n, key, "a table ([" + field(key) + "])"), std::nullopt;
  return Section(p_, *n->as_table(), field(key));
}

const toml::array* Section::array(std::string_view key) {
  const toml::node* n = node(key);
  if (!n) return nullptr;
  if (!n->is_array()) return wrong_type(*n, key, "an array"), nullptr;
  return n->as_array();
}

std::vector<const toml::table*> Section::tables(std::string_view key) {
  std::vector<const toml::table*> out;
  const toml::node* n = node(key);
  if (!n) return out;
  if (!n->is_array()) {
    fail_value(key, "expected an array of tables ([[" + std::string(key) + "]]), got " + type_name(*n) +
                          (n->is_table() ? " ([" + std::string(key) + "])" : ""));
    return out;
  }
  const toml::array& a = *n->as_array();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_table()) {
      p_.fail(line_of(a[i].source()), field(key) + "[" + std::to_string(i + 1) + "]",
           "expected a table, got " + type_name(a[i]));
      return {};
    }
    out.push_back(a[i].as_table());
  }
  return out;
}

namespace {

// A guard in front of toml++: it limits nested values (256) but not dotted
// keys, and builds (and destroys) `a.a.a...` tables recursively, so a key
// with tens of thousands of dots overflows the stack. This lexical scan (not
// a parser: it only skips strings and comments) finds the first key chain
// with more than kMaxKeyDots dots; 32 levels per key x 256 nested values
// stays far below the depth that crashes.

constexpr int kMaxKeyDots = 32;

std::optional<int> line_of_deep_key(std::string_view text) {
  int line = 1, dots = 0;
  std::size_t i = 0;
  auto starts = [&](std::string_view s) { return text.substr(i, s.size()) == s; };
  auto skip_to = [&](std::string_view end, bool escapes) {
    while (i < text.size() && !starts(end)) {
      if (text[i] == '\n') ++line;
      i += escapes && text[i] == '\\' ? 2 : 1;
    }
    i += end.size();
  };
  while (i < text.size()) {
    const char c = text[i];
    if (starts("\"\"\"") || starts("'''")) {
      const std::string_view q = text.substr(i, 3);
      i += 3;
      skip_to(q, q[0] == '"');
    } else if (c == '"' || c == '\'') {
      ++i;
      skip_to(c == '"' ? "\"" : "'", c == '"');
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else {
      if (c == '.' && ++dots > kMaxKeyDots) return line;
      if (c == '\n') ++line;
      if (c == '\n' || c == '=' || c == ',' || c == '{' || c == '}' || c == '[' || c == ']') dots = 0;
      ++i;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<toml::table, TomlError> parse_toml(std::string_view text, const std::string& file) {
  if (const auto line = line_of_deep_key(text))
    return failure(TomlError{*line, "syntax", "a key nested more than " + std::to_string(kMaxKeyDots) + " levels deep"});
  try {
    return toml::parse(text, std::string_view(file));
  } catch (const toml::parse_error& e) {
    return failure(TomlError{line_of(e.source()), "syntax", printable(e.description(), 1000)});
  }
}

}  // namespace locksim::scenarios
