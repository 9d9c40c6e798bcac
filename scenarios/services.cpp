// The service table (services.hpp): the Redis row, the lookup by enum and
// by the scenario file's table name. The CP services' rows live in their
// own files (etcd_service.cpp, zk_service.cpp).
#include "scenarios/services.hpp"

#include <cstdlib>

namespace locksim::scenarios {

extern const ServiceRow kEtcdService;  // etcd_service.cpp
extern const ServiceRow kZkService;    // zk_service.cpp

namespace {

// Redis: masters, replicas and Sentinel, read and built by their own code
// (scenario.cpp read_topology, runner.cpp build_redis). Its family in the
// reports is split further by the lock's node count (reports/comparison.cpp).
constexpr ServiceRow kRedisService{
    .topology = locks::Topology::Redis,
    .table = "redis",
    .what = "Redis",
    .member_prefix = "redis-",
    .default_lock = "token",
    .report_family = "single Redis",
    .cp = nullptr,
};

}  // namespace

const ServiceRow& service_row(locks::Topology topology) {
  switch (topology) {  // no default: an enumerator without a row does not compile
    case locks::Topology::Redis: return kRedisService;
    case locks::Topology::Etcd: return kEtcdService;
    case locks::Topology::ZooKeeper: return kZkService;
  }
  std::abort();  // not an enumerator
}

// The enumerators are 0, 1, ... (locks/registry.hpp); topology_name, a
// switch too, tells where they end.
std::span<const ServiceRow* const> services() {
  static const std::vector<const ServiceRow*> rows = [] {
    std::vector<const ServiceRow*> out;
    for (unsigned v = 0; std::string_view(locks::topology_name(static_cast<locks::Topology>(v))) != "?"; ++v)
      out.push_back(&service_row(static_cast<locks::Topology>(v)));
    return out;
  }();
  return rows;
}

Result<const ServiceRow*, std::string> service_by_table(std::string_view table) {
  std::string known;
  for (const ServiceRow* row : services()) {
    if (row->table == table) return row;
    known += std::string(known.empty() ? "" : ", ") + "[" + std::string(row->table) + "]";
  }
  return failure("no service has a [" + std::string(table) + "] table (known: " + known + ")");
}

}  // namespace locksim::scenarios
