#include "scenarios/keyspace_replay.hpp"

namespace locksim::scenarios {

using Kind = sim::redis::KeyEvent::Kind;

// A replicated command goes through Engine::apply (no expiry decided here:
// the stream carries the master's DELs), a client's through execute.
std::vector<KeyspaceReplay::Effect> KeyspaceReplay::run(const Command& c) {
  last_time_us_ = c.time_us;
  if (c.replicated) engine_.apply(c.argv, c.time_us / 1000);
  else engine_.execute(c.argv, c.time_us / 1000);
  std::vector<Effect> out;
  for (const auto& e : engine_.last_key_events()) {
    if (!is_lock_key_(e.key)) continue;
    keys_.insert(e.key);
    out.push_back({c.time_us, c.client, c.replicated, e.kind, e.key, c.argv});
  }
  return out;
}

std::optional<KeyspaceReplay::Effect> KeyspaceReplay::resync(const std::string& key,
                                                             const std::optional<std::string>& value,
                                                             std::int64_t pttl_ms) {
  const std::int64_t now_ms = last_time_us_ / 1000;
  if (!value) {
    if (!engine_.inspect(key)) return std::nullopt;
    engine_.apply({"DEL", key}, now_ms);
    return Effect{last_time_us_, std::nullopt, false, Kind::Expired, key, {"(lost in the restart)"}};
  }
  Argv set = {"SET", key, *value};
  if (pttl_ms > 0) set.insert(set.end(), {"PX", std::to_string(pttl_ms)});
  engine_.execute(set, now_ms);  // the same entry, as the AOF kept it: no effect of its own
  return std::nullopt;
}

}  // namespace locksim::scenarios
