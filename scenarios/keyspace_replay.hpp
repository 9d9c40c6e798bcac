// KeyspaceReplay: what the commands a real Redis server ran did to the lock
// entries, found by running them again, scripts included, on a copy of
// locksim's own engine kept beside that server (sim/redis/engine.hpp, held
// to redis-server 7.0's replies by tests/test_redis_differential.cpp) at
// the server's own time. Live mode feeds it each node's MONITOR stream
// (live/monitor_replay.hpp) to see which client created, changed or deleted
// an entry when the commands came from a client library locksim does not
// drive itself.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/redis/engine.hpp"

namespace locksim::scenarios {

class KeyspaceReplay {
 public:
  struct Command {
    std::int64_t time_us = 0;  // the server's wall clock when it ran it
    std::optional<std::size_t> client;
    bool replicated = false;  // from the master's stream: applied as a replica does
    Argv argv;
  };
  struct Effect {
    std::int64_t time_us = 0;
    std::optional<std::size_t> client;
    bool replicated = false;
    sim::redis::KeyEvent::Kind kind{};
    std::string key;
    Argv argv;  // the command, or what stood in for it ("(lost in the restart)")
  };

  explicit KeyspaceReplay(std::function<bool(const std::string&)> is_lock_key) : is_lock_key_(std::move(is_lock_key)) {}

  // Runs the command; its effects on lock entries.
  std::vector<Effect> run(const Command& c);
  // The server came back from a restart holding `value` (nullopt: no entry)
  // with `pttl_ms` left (<= 0: none) for a lock key the replay has seen:
  // the replay takes that state; an entry the restart lost is an effect
  // of kind Expired.
  std::optional<Effect> resync(const std::string& key, const std::optional<std::string>& value, std::int64_t pttl_ms);
  const std::set<std::string>& lock_keys() const { return keys_; }

 private:
  sim::redis::Engine engine_;
  std::function<bool(const std::string&)> is_lock_key_;
  std::set<std::string> keys_;
  std::int64_t last_time_us_ = 0;
};

}  // namespace locksim::scenarios
