// RESP on the server side of a socket: client bytes in, commands out
// (hiredis's reader parses the multibulk form), and Reply -> RESP2 bytes.
// What redis-server 7.0's src/networking.c does for one client:
// processMultibulkBuffer for commands that start with '*', processInlineBuffer
// (split like sdssplitargs, hiredis's copy of it) for the rest; `*0` and
// blank lines are no command. Malformed input gives the error text
// redis-server sends before it closes the connection ("ERR Protocol
// error: ..."); after it, the reader returns nothing more.
//
// Known differences: redis-server checks each multibulk element as it
// arrives, this reader once the command is complete (the same error, maybe
// later); a nested or non-bulk element reports the type byte hiredis saw
// ('$' for a null bulk, "invalid bulk length" on the server).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "vocab/reply.hpp"

struct redisReader;  // hiredis's parser, kept out of this header

namespace locksim::locks {

class RespCommandReader {
 public:
  RespCommandReader();
  ~RespCommandReader();
  RespCommandReader(const RespCommandReader&) = delete;
  RespCommandReader& operator=(const RespCommandReader&) = delete;

  void feed(std::string_view bytes);
  // The next complete command, in byte order; nullopt when more bytes are
  // needed or after a protocol error (then error() says what to answer).
  std::optional<Argv> next();
  // "ERR Protocol error: ..." once the input is malformed.
  const std::optional<std::string>& error() const { return error_; }

 private:
  std::optional<Argv> next_multibulk();
  std::optional<Argv> next_inline();
  void fail(std::string text);

  redisReader* reader_;
  bool in_reader_ = false;  // the reader holds a partial multibulk command
  std::string pending_;     // bytes not yet given to the reader
  std::optional<std::string> error_;
};

// A reply in RESP2 (redis-server's addReply* encodings).
std::string encode_resp2(const Reply& reply);

}  // namespace locksim::locks
