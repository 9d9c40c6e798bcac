// Fault routing onto proxy links, partitions, storage links (live_network.hpp).
#include "live/live_network.hpp"

#include <algorithm>

namespace locksim::live {

std::optional<LinkRoute> route(const LiveServers& servers, const std::string& from, const std::string& to) {
  const auto from_node = servers.find(from), to_node = servers.find(to);
  if (from_node && to_node) return servers.server_link(*from_node, *to_node);
  if (to_node && servers.proxy(*to_node).has_source(from)) return LinkRoute{*to_node, from, Flow::ToServer};
  if (from_node && servers.proxy(*from_node).has_source(to)) return LinkRoute{*from_node, to, Flow::ToSource};
  return std::nullopt;
}

int PartitionMap::group_of(const std::string& host) const {
  for (std::size_t g = 0; g < groups_.size(); ++g)
    if (std::find(groups_[g].begin(), groups_[g].end(), host) != groups_[g].end()) return static_cast<int>(g);
  return -1;
}

bool PartitionMap::cut(const std::string& a, const std::string& b) const {
  const int ga = group_of(a), gb = group_of(b);
  return ga >= 0 && gb >= 0 && ga != gb;
}

void apply_partition(LiveServers& servers, const PartitionMap& map, std::optional<PartitionMode> mode) {
  for (std::size_t n = 0; n < servers.server_count(); ++n) {
    TcpProxy& proxy = servers.proxy(n);
    for (const auto& source : proxy.sources())
      proxy.cut(source, mode && map.cut(servers.server_name(n), source) ? mode : std::nullopt);
  }
}

void StorageLinks::delay_next(std::size_t client, bool to_storage, Clock::duration d) {
  (to_storage ? to_storage_ : from_storage_)[client].pending += d;
}

StorageLinks::Clock::time_point StorageLinks::due(std::size_t client, bool to_storage, Clock::time_point now) {
  Direction& d = (to_storage ? to_storage_ : from_storage_)[client];
  d.last_due = std::max(now + std::exchange(d.pending, Clock::duration{0}), d.last_due);
  return d.last_due;
}

}  // namespace locksim::live
