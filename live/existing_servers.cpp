// Existing servers: key prefix, claim and clean-up (existing_servers.hpp).
#include "live/existing_servers.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "locks/hiredis/hiredis_conn.hpp"
#include "locks/hiredis/real_runtime.hpp"
#include "scenarios/inventory_workload.hpp"

namespace locksim::live {

namespace {

constexpr std::chrono::milliseconds kAdminTimeout{2000};

locks::HiredisConn admin_conn(const RedisNodeProcess& node) {
  locks::HiredisOptions o;
  o.host = node.host;
  o.port = node.port;
  o.connect_timeout = kAdminTimeout;
  o.command_timeout = kAdminTimeout;
  return locks::HiredisConn(o);
}

std::string where(const RedisNodeProcess& node) {
  return node.name + " (" + node.host + ":" + std::to_string(node.port) + ")";
}

}  // namespace

std::string random_key_prefix() {
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  unsigned char bytes[8] = {};
  urandom.read(reinterpret_cast<char*>(bytes), sizeof bytes);
  std::string hex = "locksim:";
  char buf[3];
  for (unsigned char b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    hex += buf;
  }
  return hex + ":";
}

RunKeys run_keys(scenarios::Scenario& scaled, bool existing, const std::string& given_prefix) {
  RunKeys keys;
  keys.prefix = existing && given_prefix.empty() ? random_key_prefix() : given_prefix;
  prefix_keys(scaled, keys.prefix);
  keys.order_key = keys.prefix + "locksim:live:order";
  keys.touched = touched_keys(scaled, keys.order_key);
  return keys;
}

void prefix_keys(scenarios::Scenario& s, const std::string& prefix) {
  s.lock.key = prefix + s.lock.key;
  if (!s.lock.counter_key.empty()) s.lock.counter_key = prefix + s.lock.counter_key;
}

std::vector<std::string> touched_keys(const scenarios::Scenario& prefixed, const std::string& order_key) {
  // Every lock key the workload takes (one per segment of a segmented sale:
  // scenarios::lock_keys) and each one's fence counter, as the workload
  // builds each segment's lock (inventory_buyer: the scenario's lock with
  // the segment's key); a shared counter_key is listed once.
  std::vector<std::string> keys;
  const auto add = [&keys](const std::string& key) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  };
  for (const std::string& key : scenarios::lock_keys(prefixed)) {
    locks::LockConfig segment = prefixed.lock;
    segment.key = key;
    add(key);
    add(segment.fence_key());
  }
  if (prefixed.workload == scenarios::WorkloadKind::Inventory)
    for (const std::string& key :
         {scenarios::stock_key(prefixed), scenarios::buyers_key(prefixed)})
      keys.push_back(key);
  keys.push_back(order_key);  // last: drop_stale_order_key
  return keys;
}

Result<bool, LiveError> drop_stale_order_key(const RedisCluster& cluster, const std::vector<std::string>& keys) {
  const std::vector<std::string> others(keys.begin(), keys.end() - 1);
  for (std::size_t n = 0; n < cluster.node_count(); ++n) {
    std::vector<std::string> exists = {"EXISTS"};
    exists.insert(exists.end(), others.begin(), others.end());
    const auto r = admin_conn(cluster.node(n)).execute(exists);
    if (r.is_error()) return failure(LiveError{kInternal, "cannot use " + where(cluster.node(n)) + ": " + r.str});
    if (r.integer != 0) return false;  // a run's keys are there: check_keys_absent refuses, naming them
  }
  for (std::size_t n = 0; n < cluster.node_count(); ++n) {
    const auto r = admin_conn(cluster.node(n)).execute({"DEL", keys.back()});
    if (r.is_error()) return failure(LiveError{kInternal, "cannot use " + where(cluster.node(n)) + ": " + r.str});
  }
  return true;
}

Result<bool, LiveError> check_keys_absent(const RedisCluster& cluster, const std::vector<std::string>& keys) {
  for (std::size_t n = 0; n < cluster.node_count(); ++n) {
    auto conn = admin_conn(cluster.node(n));
    for (const auto& key : keys) {
      const auto r = conn.execute({"EXISTS", key});
      if (r.is_error()) return failure(LiveError{kInternal, "cannot use " + where(cluster.node(n)) + ": " + r.str});
      if (r.integer != 0)
        return failure(LiveError{kBadInput, "key " + key + " already exists on " + where(cluster.node(n)) +
                                                ": live mode touches only keys it creates (choose another --prefix)"});
    }
  }
  return true;
}

Result<bool, LiveError> preload_data(const RedisCluster& cluster, const std::vector<std::vector<std::string>>& commands,
                                     int replicas) {
  if (commands.empty()) return true;
  for (std::size_t n = 0; n < cluster.node_count(); ++n) {
    if (cluster.node(n).replica != 0) continue;
    auto conn = admin_conn(cluster.node(n));
    for (const auto& argv : commands)
      if (const auto r = conn.execute(argv); r.is_error())
        return failure(LiveError{kInternal, "cannot preload " + where(cluster.node(n)) + ": " + r.str});
    if (replicas > 0)
      if (const auto r = conn.execute({"WAIT", std::to_string(replicas), "2000"}); r.is_error() || r.integer < replicas)
        return failure(
            LiveError{kInternal, "the replicas of " + where(cluster.node(n)) + " did not take the preloaded data"});
  }
  return true;
}

std::optional<std::string> delete_keys(const RedisCluster& cluster, const std::vector<std::string>& keys) {
  std::optional<std::string> why;
  for (std::size_t n = 0; n < cluster.node_count(); ++n) {
    std::vector<std::string> del = {"DEL"};
    del.insert(del.end(), keys.begin(), keys.end());
    const auto r = admin_conn(cluster.node(n)).execute(del);
    if (r.is_error() && !why) why = "could not delete this run's keys on " + where(cluster.node(n)) + ": " + r.str;
  }
  return why;
}

}  // namespace locksim::live
