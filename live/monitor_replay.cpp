#include "live/monitor_replay.hpp"

#include <poll.h>

#include "locks/hiredis/hiredis_conn.hpp"

namespace locksim::live {

struct MonitorReplay::Watched {
  Watched(std::size_t i, Node n, const std::function<bool(const std::string&)>& is_lock_key)
      : index(i), node(std::move(n)), replay(is_lock_key) {}
  std::size_t index;
  Node node;
  std::unique_ptr<locks::MonitorFeed> feed;  // null while the server is down
  scenarios::KeyspaceReplay replay;
};

MonitorReplay::MonitorReplay(std::vector<Node> nodes, const std::function<bool(const std::string&)>& is_lock_key) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    watched_.push_back(std::make_unique<Watched>(i, std::move(nodes[i]), is_lock_key));
  }
}

MonitorReplay::~MonitorReplay() { stop(); }

std::optional<std::string> MonitorReplay::start() {
  for (auto& w : watched_) {
    auto feed = locks::MonitorFeed::open(w->node.host, w->node.port, std::chrono::milliseconds(1000));
    if (!feed) return feed.error();
    w->feed = std::move(*feed);
  }
  thread_ = std::thread([this] { run(); });
  return std::nullopt;
}

std::vector<MonitorReplay::Seen> MonitorReplay::stop() {
  if (!thread_.joinable()) return {};
  stopping_.store(true);
  thread_.join();
  for (auto& w : watched_) drain(*w);  // what arrived before the stop
  return std::move(seen_);
}

// Polls every open feed; a closed one (its server down) is retried every
// 50 ms until the server is back.
void MonitorReplay::run() {
  constexpr std::chrono::milliseconds kRetry{50};
  while (!stopping_.load()) {
    std::vector<pollfd> fds;
    std::vector<Watched*> polled;
    for (auto& w : watched_) {
      if (!w->feed) reopen(*w);
      if (!w->feed) continue;
      fds.push_back({w->feed->fd(), POLLIN, 0});
      polled.push_back(w.get());
    }
    ::poll(fds.data(), fds.size(), static_cast<int>(kRetry.count()));
    for (std::size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents) drain(*polled[i]);
  }
}

void MonitorReplay::drain(Watched& w) {
  while (w.feed) {
    auto next = w.feed->next(std::chrono::milliseconds(0));
    if (!next) {
      w.feed.reset();  // the server went away; reopen() resynchronises when it is back
      return;
    }
    if (!*next) return;
    replay(w, **next);
  }
}

// A command a script ran is replayed by its EVAL/EVALSHA, not again.
void MonitorReplay::replay(Watched& w, const locks::MonitoredCommand& c) {
  if (c.source == "lua") return;
  const int port = c.source_port();
  std::optional<std::size_t> client;
  if (port != 0 && w.node.client_of_port) client = w.node.client_of_port(port);
  const bool replicated = !client && port != 0 && w.node.is_master_link && w.node.is_master_link(port);
  const std::int64_t real_time_us = c.time_us - offset_us(w);
  for (auto& effect : w.replay.run({c.time_us, client, replicated, c.argv}))
    seen_.push_back({w.index, std::move(effect), real_time_us});
}

// The node's clock offset as the line is read: a line is read within
// milliseconds of its command, and a clock fault moves the offset once.
std::int64_t MonitorReplay::offset_us(const Watched& w) {
  if (!w.node.wall_offset) return 0;
  return std::chrono::duration_cast<std::chrono::microseconds>(w.node.wall_offset()).count();
}

// The server is back (or never left): MONITOR again, and each lock key's
// replay set to what the server holds now.
void MonitorReplay::reopen(Watched& w) {
  auto feed = locks::MonitorFeed::open(w.node.host, w.node.port, std::chrono::milliseconds(200));
  if (!feed) return;
  locks::HiredisConn conn({w.node.host, w.node.port, std::chrono::milliseconds(200), std::chrono::milliseconds(500)});
  for (const std::string& key : w.replay.lock_keys()) {
    const Reply value = conn.execute({"GET", key});
    const Reply ttl = conn.execute({"PTTL", key});
    if (value.type == Reply::Type::Error || ttl.type == Reply::Type::Error) continue;
    const auto held = value.type == Reply::Type::Bulk ? std::optional(value.str) : std::nullopt;
    if (auto lost = w.replay.resync(key, held, ttl.integer)) {
      const std::int64_t real_time_us = lost->time_us - offset_us(w);
      seen_.push_back({w.index, std::move(*lost), real_time_us});
    }
  }
  w.feed = std::move(*feed);
}

}  // namespace locksim::live
