// The server side of RESP (resp_codec.hpp): hiredis's reader for multibulk
// commands, hiredis's sdssplitargs for inline ones, and the RESP2 writer.
#include "locks/hiredis/resp_codec.hpp"

// hiredis 0.14's sds.h declares no C linkage (hiredis.h includes it
// outside its extern "C" too): first, with C linkage.
extern "C" {
#include <hiredis/sds.h>
}
#include <hiredis/hiredis.h>

#include <cstring>

namespace locksim::locks {
namespace {

// PROTO_INLINE_MAX_SIZE (src/server.h): the longest inline command line.
constexpr std::size_t kInlineMax = 64 * 1024;

// The type byte of a parsed element, for redis-server's "expected '$', got 'x'".
char type_byte(int type) {
  switch (type) {
    case REDIS_REPLY_INTEGER: return ':';
    case REDIS_REPLY_STATUS: return '+';
    case REDIS_REPLY_ERROR: return '-';
    case REDIS_REPLY_ARRAY: return '*';
    default: return '$';
  }
}

// hiredis's error text -> the one redis-server sends (processMultibulkBuffer).
std::string server_error(const std::string& hiredis_error) {
  if (hiredis_error.find("multi-bulk") != std::string::npos || hiredis_error.find("nested") != std::string::npos)
    return "invalid multibulk length";
  if (hiredis_error.find("bulk string length") != std::string::npos) return "invalid bulk length";
  // "Protocol error, got "x" as reply type byte": an element not a bulk string.
  const std::size_t quote = hiredis_error.find('"');
  if (quote != std::string::npos && quote + 2 < hiredis_error.size() && hiredis_error[quote + 2] == '"')
    return std::string("expected '$', got '") + hiredis_error[quote + 1] + "'";
  if (hiredis_error.find("integer") != std::string::npos) return "expected '$', got ':'";
  return hiredis_error;
}

}  // namespace

RespCommandReader::RespCommandReader() : reader_(redisReaderCreate()) {}
RespCommandReader::~RespCommandReader() { redisReaderFree(reader_); }

void RespCommandReader::feed(std::string_view bytes) {
  if (!error_) pending_.append(bytes);
}

void RespCommandReader::fail(std::string text) {
  error_ = "ERR Protocol error: " + std::move(text);
  pending_.clear();
}

std::optional<Argv> RespCommandReader::next() {
  while (!error_) {
    if (in_reader_ || (!pending_.empty() && pending_[0] == '*')) {
      if (std::optional<Argv> command = next_multibulk()) return command;
      if (in_reader_) return std::nullopt;  // incomplete
      continue;                             // `*0`, or an error
    }
    if (pending_.empty()) return std::nullopt;
    const bool whole_line = pending_.find('\n') != std::string::npos;
    if (std::optional<Argv> command = next_inline()) return command;
    if (!whole_line) return std::nullopt;
  }
  return std::nullopt;
}

// One multibulk command from hiredis's reader; the bytes after it go back to
// pending_ (the next command may be inline).
std::optional<Argv> RespCommandReader::next_multibulk() {
  if (!pending_.empty()) redisReaderFeed(reader_, pending_.data(), pending_.size());
  pending_.clear();
  in_reader_ = true;
  void* parsed = nullptr;
  if (redisReaderGetReply(reader_, &parsed) != REDIS_OK) {
    fail(server_error(reader_->errstr));
    return std::nullopt;
  }
  if (parsed == nullptr) return std::nullopt;  // incomplete: wait for more bytes
  in_reader_ = false;
  pending_.assign(reader_->buf + reader_->pos, reader_->len - reader_->pos);
  redisReaderFree(reader_);
  reader_ = redisReaderCreate();
  auto* reply = static_cast<redisReply*>(parsed);
  std::optional<Argv> argv = Argv{};
  for (std::size_t i = 0; reply->type == REDIS_REPLY_ARRAY && i < reply->elements; ++i) {
    const redisReply* e = reply->element[i];
    if (e->type == REDIS_REPLY_NIL) {
      fail("invalid bulk length");
    } else if (e->type != REDIS_REPLY_STRING) {
      fail(std::string("expected '$', got '") + type_byte(e->type) + "'");
    }
    if (error_) break;
    argv->emplace_back(e->str, e->len);
  }
  freeReplyObject(reply);
  if (error_ || argv->empty()) return std::nullopt;  // `*0` and `*-1` are no command
  return argv;
}

// processInlineBuffer: one line (CRLF or LF), split like the shell.
std::optional<Argv> RespCommandReader::next_inline() {
  std::size_t newline = pending_.find('\n');
  if (newline == std::string::npos) {
    if (pending_.size() > kInlineMax) fail("too big inline request");
    return std::nullopt;
  }
  const std::size_t consumed = newline + 1;
  if (newline > 0 && pending_[newline - 1] == '\r') --newline;
  const std::string line = pending_.substr(0, newline);
  pending_.erase(0, consumed);
  int argc = 0;
  sds* parts = sdssplitargs(line.c_str(), &argc);
  if (parts == nullptr) {
    fail("unbalanced quotes in request");
    return std::nullopt;
  }
  Argv argv;
  for (int i = 0; i < argc; ++i) argv.emplace_back(parts[i], sdslen(parts[i]));
  sdsfreesplitres(parts, argc);
  if (argv.empty()) return std::nullopt;
  return argv;
}

std::string encode_resp2(const Reply& reply) {
  switch (reply.type) {
    case Reply::Type::Nil: return "$-1\r\n";
    case Reply::Type::Status: return "+" + reply.str + "\r\n";
    case Reply::Type::Error: return "-" + reply.str + "\r\n";
    case Reply::Type::Integer: return ":" + std::to_string(reply.integer) + "\r\n";
    case Reply::Type::Bulk: return "$" + std::to_string(reply.str.size()) + "\r\n" + reply.str + "\r\n";
    case Reply::Type::Array: {
      std::string out = "*" + std::to_string(reply.elements.size()) + "\r\n";
      for (const Reply& e : reply.elements) out += encode_resp2(e);
      return out;
    }
  }
  return "$-1\r\n";
}

}  // namespace locksim::locks
