// Reply: a RESP2 reply as hiredis presents it (nil, status, integer, bulk,
// error, array). The simulated node produces these, HiredisConn converts
// hiredis replies into them, and lock code reads them: one type for both
// runtimes, so a differential test can compare replies with ==.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace locksim {

using Argv = std::vector<std::string>;

struct Reply {
  enum class Type : std::uint8_t { Nil, Status, Integer, Bulk, Error, Array };

  Type type = Type::Nil;
  std::int64_t integer = 0;
  std::string str;  // status text, bulk payload or error message (with its code, e.g. "ERR ...")
  std::vector<Reply> elements;

  static Reply nil() { return {}; }
  static Reply status(std::string s) { return {Type::Status, 0, std::move(s), {}}; }
  static Reply ok() { return status("OK"); }
  static Reply error(std::string s) { return {Type::Error, 0, std::move(s), {}}; }
  static Reply integer_of(std::int64_t v) { return {Type::Integer, v, {}, {}}; }
  static Reply bulk(std::string s) { return {Type::Bulk, 0, std::move(s), {}}; }
  static Reply array(std::vector<Reply> items) { return {Type::Array, 0, {}, std::move(items)}; }

  bool is_nil() const { return type == Type::Nil; }
  bool is_error() const { return type == Type::Error; }
  bool is_ok() const { return type == Type::Status && str == "OK"; }
  bool is_integer(std::int64_t v) const { return type == Type::Integer && integer == v; }

  bool operator==(const Reply&) const = default;

  // redis-cli-like one-line rendering for traces and test failure messages:
  // (nil), "bulk", (integer) 1, OK, (error) ERR ..., [a, b].
  std::string to_string() const;
};

// Error replies a client sees for network failures: the simulated network
// answers with them, and live mode's own clients (the etcd gateway's watch,
// the in-process storage link) answer a lost or held message the same way.
inline constexpr const char* kTimeoutError = "IOERR timeout";
inline constexpr const char* kResetError = "IOERR connection reset by peer";
inline constexpr const char* kRefusedError = "IOERR connection refused";

}  // namespace locksim
