#include "locks/hiredis/monitor_feed.hpp"

// First: hiredis 0.14's sds.h (also included by hiredis.h) declares no C linkage of its own.
extern "C" {
#include <hiredis/sds.h>
}
#include <hiredis/hiredis.h>
#include <poll.h>

#include <charconv>

namespace locksim::locks {

namespace {

// "1796563529.148405" in microseconds.
std::optional<std::int64_t> parse_time_us(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos || text.size() - dot != 7) return std::nullopt;
  std::int64_t sec = 0, usec = 0;
  const auto whole = std::from_chars(text.data(), text.data() + dot, sec);
  const auto frac = std::from_chars(text.data() + dot + 1, text.data() + text.size(), usec);
  if (whole.ec != std::errc{} || whole.ptr != text.data() + dot || frac.ec != std::errc{} ||
      frac.ptr != text.data() + text.size())
    return std::nullopt;
  return sec * 1'000'000 + usec;
}

// The quoted arguments, unescaped by sdssplitargs (sds is hiredis's string).
std::optional<Argv> split_arguments(std::string_view text) {
  const sds line = sdsnewlen(text.data(), text.size());
  int argc = 0;
  sds* parts = sdssplitargs(line, &argc);
  sdsfree(line);
  if (!parts) return std::nullopt;
  Argv argv;
  for (int i = 0; i < argc; ++i) argv.emplace_back(parts[i], sdslen(parts[i]));
  sdsfreesplitres(parts, argc);
  return argv;
}

}  // namespace

int MonitoredCommand::source_port() const {
  const std::size_t colon = source.rfind(':');
  int port = 0;
  if (colon == std::string::npos) return 0;
  const auto [ptr, ec] = std::from_chars(source.data() + colon + 1, source.data() + source.size(), port);
  return ec == std::errc{} && ptr == source.data() + source.size() ? port : 0;
}

// "<time> [<db> <address>] <arguments>"
std::optional<MonitoredCommand> parse_monitor_line(std::string_view line) {
  const std::size_t open = line.find(" [");
  const std::size_t close = line.find("] ", open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return std::nullopt;
  const auto time_us = parse_time_us(line.substr(0, open));
  const std::string_view inside = line.substr(open + 2, close - open - 2);  // "<db> <address>"
  const std::size_t space = inside.find(' ');
  auto argv = split_arguments(line.substr(close + 2));
  if (!time_us || space == std::string_view::npos || !argv || argv->empty()) return std::nullopt;
  return MonitoredCommand{*time_us, std::string(inside.substr(space + 1)), std::move(*argv)};
}

Result<std::unique_ptr<MonitorFeed>, std::string> MonitorFeed::open(const std::string& host, int port,
                                                                    std::chrono::milliseconds connect_timeout) {
  const timeval tv{static_cast<time_t>(connect_timeout.count() / 1000),
                   static_cast<suseconds_t>(connect_timeout.count() % 1000 * 1000)};
  redisContext* c = redisConnectWithTimeout(host.c_str(), port, tv);
  const std::string where = "MONITOR on " + host + ":" + std::to_string(port) + ": ";
  if (!c || c->err) {
    const std::string why = c ? c->errstr : "cannot allocate a connection";
    if (c) redisFree(c);
    return failure(where + why);
  }
  redisSetTimeout(c, tv);  // for MONITOR's own answer (a paused server gives none); reads then poll
  auto* reply = static_cast<redisReply*>(redisCommand(c, "MONITOR"));
  const bool ok = reply && reply->type == REDIS_REPLY_STATUS;
  const std::string why = reply ? std::string(reply->str ? reply->str : "no answer") : std::string(c->errstr);
  if (reply) freeReplyObject(reply);
  if (!ok) {
    redisFree(c);
    return failure(where + why);
  }
  return std::unique_ptr<MonitorFeed>(new MonitorFeed(c));
}

MonitorFeed::~MonitorFeed() { redisFree(context_); }

int MonitorFeed::fd() const { return context_->fd; }

// hiredis's reader over the socket, polled: a blocking read with a timeout
// would leave the context unusable after the first quiet interval.
Result<std::optional<MonitoredCommand>, std::string> MonitorFeed::next(std::chrono::milliseconds timeout) {
  for (;;) {
    void* raw = nullptr;
    if (redisGetReplyFromReader(context_, &raw) != REDIS_OK) return failure(std::string(context_->errstr));
    if (auto* reply = static_cast<redisReply*>(raw)) {
      std::optional<MonitoredCommand> command;
      if (reply->type == REDIS_REPLY_STATUS) command = parse_monitor_line({reply->str, reply->len});
      freeReplyObject(reply);
      if (command) return command;
      continue;  // not a command line
    }
    pollfd p{context_->fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (ready == 0) return std::optional<MonitoredCommand>{};
    if (ready < 0 && errno != EINTR) return failure(std::string("poll failed"));
    if (ready > 0 && redisBufferRead(context_) != REDIS_OK)
      return failure(std::string(context_->errstr[0] ? context_->errstr : "connection closed"));
  }
}

}  // namespace locksim::locks
