// World construction and host lookup.
#include "sim/world.hpp"

namespace locksim::sim {

World::World(std::uint64_t seed)
    : seed_(seed), root_(seed), scheduler_(trace_), network_(*this, root_.fork("network")) {}

World::~World() { destroy_hosts(); }

Host& World::add_host(std::string name) {
  const HostId id = scheduler_.add_host();
  Rng rng = root_.fork("host:" + name);
  hosts_.push_back(std::make_unique<Host>(*this, id, std::move(name), rng));
  return *hosts_.back();
}

Host* World::find_host(std::string_view name) {
  for (auto& h : hosts_)
    if (h->name() == name) return h.get();
  return nullptr;
}

const std::string& World::host_name(HostId id) const {
  static const std::string none = "-";
  return id == kNoHost ? none : hosts_[id]->name();
}

}  // namespace locksim::sim
