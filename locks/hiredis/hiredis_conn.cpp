// HiredisConn: blocking hiredis commands turned into Reply values, with lazy
// reconnects, timeouts and REDISCLI_AUTH (see hiredis_conn.hpp).
#include "locks/hiredis/hiredis_conn.hpp"

#include <hiredis/hiredis.h>
#include <poll.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

namespace locksim::locks {

namespace {

timeval to_timeval(std::chrono::milliseconds d) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(d.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((d.count() % 1000) * 1000);
  return tv;
}

// hiredis writes with write(2): a peer that closed the socket would raise
// SIGPIPE and kill the process. Like redis-cli, ignore it (only if nobody
// installed a handler) so the write fails with EPIPE and becomes an error reply.
void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
      std::signal(SIGPIPE, SIG_IGN);
    }
  });
}

std::string text_of(const redisReply* r) {
  return r->str ? std::string(r->str, static_cast<std::size_t>(r->len)) : std::string();
}

// Every hiredis reply type as the RESP2 Reply it corresponds to. RESP3-only
// types (newer hiredis, HELLO 3) map to what a RESP2 server would send.
Reply convert(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_NIL: return Reply::nil();
    case REDIS_REPLY_STATUS: return Reply::status(text_of(r));
    case REDIS_REPLY_ERROR: return Reply::error(text_of(r));
    case REDIS_REPLY_INTEGER: return Reply::integer_of(r->integer);
    case REDIS_REPLY_STRING: return Reply::bulk(text_of(r));
#ifdef REDIS_REPLY_DOUBLE
    case REDIS_REPLY_DOUBLE: return Reply::bulk(text_of(r));
#endif
#ifdef REDIS_REPLY_BIGNUM
    case REDIS_REPLY_BIGNUM: return Reply::bulk(text_of(r));
#endif
#ifdef REDIS_REPLY_VERB
    case REDIS_REPLY_VERB: return Reply::bulk(text_of(r));
#endif
#ifdef REDIS_REPLY_BOOL
    case REDIS_REPLY_BOOL: return Reply::integer_of(r->integer ? 1 : 0);
#endif
    default: break;  // arrays, and RESP3 maps/sets/pushes/attributes (flat)
  }
  std::vector<Reply> items;
  items.reserve(r->elements);
  for (std::size_t i = 0; i < r->elements; ++i) items.push_back(convert(r->element[i]));
  return Reply::array(std::move(items));
}

// A read or write that hit SO_RCVTIMEO/SO_SNDTIMEO (redisSetTimeout).
bool is_timeout(const redisContext* c, int saved_errno) {
  return c->err == REDIS_ERR_IO && (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK);
}

// An idle connection has nothing to read: readable, hung up or failed means
// the server closed it (a restart, an idle timeout) or left stray bytes.
// Checked before sending, so a restarted server does not cost one failed
// command that never reached it.
bool is_stale(const redisContext* c) {
  pollfd p{c->fd, POLLIN | POLLRDHUP, 0};
  return ::poll(&p, 1, 0) != 0;
}

}  // namespace

HiredisConn::HiredisConn(HiredisOptions options) : options_(std::move(options)) {
  ignore_sigpipe_once();
}

HiredisConn::~HiredisConn() { disconnect(); }

Task<Reply> HiredisConn::command(Argv argv) { co_return execute(argv); }

Task<Reply> HiredisConn::command(Argv argv, Duration timeout) {
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(timeout);
  co_return execute(argv, std::max(ms, std::chrono::milliseconds(1)));
}

void HiredisConn::drop_connection() {
  owed_ = 0;
  if (context_) redisFree(std::exchange(context_, nullptr));
  current_timeout_ = std::chrono::milliseconds{0};
}

void HiredisConn::disconnect() {
  std::lock_guard lock(mutex_);
  drop_connection();
}

Reply HiredisConn::io_error(const std::string& what) {
  drop_connection();
  return Reply::error(io_error_prefix + options_.host + ":" + std::to_string(options_.port) +
                      ": " + what);
}

std::string HiredisConn::ensure_connected(std::chrono::milliseconds connect_timeout,
                                          std::chrono::milliseconds timeout) {
  if (context_ && context_->err == 0 && owed_ == 0 && !is_stale(context_)) return "";
  drop_connection();
  context_ = redisConnectWithTimeout(options_.host.c_str(), options_.port, to_timeval(connect_timeout));
  if (!context_) return "cannot allocate a connection";
  if (context_->err) return std::string("connect: ") + context_->errstr;
  if (!set_timeout(timeout)) return "cannot set the command timeout";
  const char* password = std::getenv("REDISCLI_AUTH");
  if (!password) return "";
  const char* argv[] = {"AUTH", password};
  const std::size_t lens[] = {4, std::char_traits<char>::length(password)};
  auto* r = static_cast<redisReply*>(redisCommandArgv(context_, 2, argv, lens));
  if (!r) return std::string("AUTH: ") + context_->errstr;
  std::string why;
  // Like redis-cli, a password the server does not need is not fatal.
  if (r->type == REDIS_REPLY_ERROR &&
      text_of(r).find("without any password configured") == std::string::npos) {
    why = "AUTH failed: " + text_of(r);
  }
  freeReplyObject(r);
  return why;
}

bool HiredisConn::set_timeout(std::chrono::milliseconds timeout) {
  if (timeout == current_timeout_) return true;
  if (redisSetTimeout(context_, to_timeval(timeout)) != REDIS_OK) return false;
  current_timeout_ = timeout;
  return true;
}

Reply HiredisConn::execute(const Argv& argv) {
  std::lock_guard lock(mutex_);
  return send(argv, options_.connect_timeout, options_.command_timeout);
}

// A per-call timeout bounds each step: connecting, AUTH and the command.
Reply HiredisConn::execute(const Argv& argv, std::chrono::milliseconds timeout) {
  std::lock_guard lock(mutex_);
  return send(argv, std::min(options_.connect_timeout, timeout), timeout);
}

Reply HiredisConn::send(const Argv& argv, std::chrono::milliseconds connect_timeout,
                        std::chrono::milliseconds timeout) {
  if (argv.empty()) return Reply::error("ERR locksim: empty command");
  if (std::string why = ensure_connected(connect_timeout, timeout); !why.empty()) return io_error(why);
  if (!set_timeout(timeout)) return io_error("cannot set the command timeout");
  std::vector<const char*> ptrs;
  std::vector<std::size_t> lens;
  ptrs.reserve(argv.size());
  lens.reserve(argv.size());
  for (const auto& a : argv) {
    ptrs.push_back(a.data());
    lens.push_back(a.size());
  }
  errno = 0;
  auto* r = static_cast<redisReply*>(
      redisCommandArgv(context_, static_cast<int>(argv.size()), ptrs.data(), lens.data()));
  const int saved_errno = errno;
  if (!r) {
    // The stream may now hold a late reply: the connection is dropped.
    if (is_timeout(context_, saved_errno)) {
      return io_error("command timed out after " + std::to_string(timeout.count()) + " ms");
    }
    return io_error(context_->errstr[0] ? context_->errstr : "connection lost");
  }
  Reply reply = convert(r);
  freeReplyObject(r);
  return reply;
}

PipelineReplies HiredisConn::execute_pipeline(const std::vector<Argv>& commands, std::chrono::milliseconds timeout) {
  std::lock_guard lock(mutex_);
  PipelineReplies out;
  if (std::string why = ensure_connected(std::min(options_.connect_timeout, timeout), timeout); !why.empty()) {
    out.error = io_error(why);
    return out;
  }
  if (!set_timeout(timeout)) {
    out.error = io_error("cannot set the command timeout");
    return out;
  }
  for (const auto& argv : commands) {
    std::vector<const char*> ptrs;
    std::vector<std::size_t> lens;
    for (const auto& a : argv) ptrs.push_back(a.data()), lens.push_back(a.size());
    redisAppendCommandArgv(context_, static_cast<int>(argv.size()), ptrs.data(), lens.data());
  }
  read_replies(out, commands.size());
  return out;
}

PipelineReplies HiredisConn::read_owed(std::chrono::milliseconds timeout) {
  std::lock_guard lock(mutex_);
  PipelineReplies out;
  if (!context_ || owed_ == 0 || !set_timeout(timeout)) return out;
  read_replies(out, owed_);
  return out;
}

// Reads up to `count` replies. A timeout keeps the connection with the rest
// owed: hiredis flags the context, but its reader still holds any partial
// reply, so clearing the flag lets a later read go on where this one stopped.
void HiredisConn::read_replies(PipelineReplies& out, std::size_t count) {
  owed_ = 0;
  for (std::size_t i = 0; i < count; ++i) {
    void* raw = nullptr;
    errno = 0;
    const int rc = redisGetReply(context_, &raw);
    const int saved_errno = errno;
    if (rc != REDIS_OK || !raw) {
      if (!is_timeout(context_, saved_errno)) {
        out.error = io_error(context_->errstr[0] ? context_->errstr : "connection lost");
        return;
      }
      context_->err = 0;
      context_->errstr[0] = '\0';
      owed_ = out.owed = count - i;
      out.error = Reply::error(io_error_prefix + options_.host + ":" + std::to_string(options_.port) +
                               ": command timed out");
      return;
    }
    out.replies.push_back(convert(static_cast<redisReply*>(raw)));
    freeReplyObject(raw);
  }
}

}  // namespace locksim::locks
