// The generic half of reading a TOML file into a typed value: a Section is
// one table under a dotted path ("lock", "client[2]") with typed readers that
// record the first problem as a located error (line, dotted field, message)
// and answer nullopt, so a walk needs no exceptions; parse_toml puts a guard
// against stack-deep keys in front of toml++ and turns its syntax errors into
// the same located form. The scenario parser (scenario.cpp) is written on it.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/duration.hpp"
#include "vocab/joined.hpp"
#include "vocab/result.hpp"

namespace locksim::scenarios {

struct TomlError {
  int line = 0;  // 0 = the file as a whole
  std::string field;
  std::string message;
};

// Keeps the first error only (later ones are usually its consequences).
class TomlErrors {
 public:
  bool fail(int line, std::string field, std::string message);  // always false
  bool failed() const { return first_.has_value(); }
  const std::optional<TomlError>& first() const { return first_; }

 private:
  std::optional<TomlError> first_;
};

enum class Sign : std::uint8_t {
  Positive,     // > 0
  NonNegative,  // >= 0
  Signed,       // an explicit + or -, not zero (clock-jump `by`)
};

std::string type_name(const toml::node& n);  // "string", "integer", ...
int line_of(const toml::source_region& r);

// User text inside a one-line message: control bytes escaped, long text cut.
std::string printable(std::string_view s, std::size_t max_shown = 80);
std::string in_quotes(std::string_view s);
// Names within a small edit distance of `wanted` (or containing it), closest
// first, at most five: for "did you mean" messages.
std::vector<std::string> close_names(std::string_view wanted, const std::vector<std::string>& names);

// One TOML table under a dotted path ("lock", "client[2]"); typed readers
// record the first error in a TomlErrors and answer nullopt.
class Section {
 public:
  Section(TomlErrors& errors, const toml::table& t, std::string path)
      : p_(errors), t_(t), path_(std::move(path)) {}

  const toml::table& table() const { return t_; }
  TomlErrors& errors() const { return p_; }  // for the Sections below this one
  const std::string& path() const { return path_; }
  std::string field(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  int line() const { return path_.empty() ? 1 : line_of(t_.source()); }  // the root: the top of the file
  bool has(std::string_view key) const { return t_.contains(key); }
  const toml::node* node(std::string_view key) const { return t_.get(key); }

  bool check_keys(std::initializer_list<std::string_view> allowed);
  std::optional<std::string> string(std::string_view key, bool allow_empty = false);
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t lo, std::int64_t hi);
  std::optional<double> number(std::string_view key, double lo, double hi);  // integer or float
  std::optional<bool> boolean(std::string_view key);
  std::optional<Duration> duration(std::string_view key, Sign sign);
  std::optional<DurationRange> range(std::string_view key);
  std::optional<std::string> choice(std::string_view key, std::initializer_list<std::string_view> options);
  std::optional<Section> sub(std::string_view key);
  const toml::array* array(std::string_view key);
  // The tables of an array of tables (`[[client]]`); empty after an error.
  std::vector<const toml::table*> tables(std::string_view key);
  bool missing(std::string_view key, std::string_view why);
  // An error about the value at `key` (at its line; the table's if absent).
  bool fail_value(std::string_view key, std::string msg);

 private:
  bool fail(const toml::node& n, std::string_view key, std::string msg);
  bool wrong_type(const toml::node& n, std::string_view key, std::string_view expected);

  TomlErrors& p_;
  const toml::table& t_;
  std::string path_;
};

// toml++'s parse behind the deep-key guard; a syntax error is field "syntax".
Result<toml::table, TomlError> parse_toml(std::string_view text, const std::string& file);

}  // namespace locksim::scenarios
