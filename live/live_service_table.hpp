// Live mode's half of the service table (scenarios/services.hpp): for each
// CP service, keyed by the same locks::Topology, the real cluster a live
// run starts and the real client a live client talks to it through, and
// what live mode says about them. Redis's live side is RedisCluster
// (live/redis_cluster.hpp), started or attached by its own code.
//
// A new CP service adds its cluster (a CpCluster: live/cp_cluster.hpp), its
// real client (a locks::ServiceConn of its interface) and one row here;
// live_service_row switches over the enum, so a service without its live
// row does not compile.
//
// The client factory is the seam for locks whose operations run elsewhere:
// connect_live_client makes the client of an in-process lock; a lock run
// by a client library in its own process (LockInfo::library:
// live/external_lock.hpp) gets none, its process connecting through the
// same endpoints.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "live/cp_cluster.hpp"
#include "locks/cp_client.hpp"
#include "locks/registry.hpp"
#include "scenarios/scenario.hpp"
#include "vocab/result.hpp"

namespace locksim::live {

class LiveWorld;

struct LiveServiceRow {
  locks::Topology topology;
  // The real members of the (scaled) scenario; `options` has their number,
  // the clients (a proxy listener for each on every member) and the
  // interrupt flag.
  Result<std::unique_ptr<CpCluster>, LiveError> (*start_cluster)(const scenarios::Scenario& scaled,
                                                                 CpClusterOptions options);
  // Why the members cannot run this (scaled) scenario, or nullopt.
  std::optional<std::string> (*scale_refusal)(const scenarios::Scenario& scaled);
  // The run's note when the members run other timings than the scaled
  // scenario's, or nullopt.
  std::optional<std::string> (*timing_note)(const scenarios::Scenario& scaled);
  // Client `c`'s real client of the members at `endpoints` (its links on
  // their proxies, member c mod N first), each call a step of the client
  // (live/live_cp_conns.hpp).
  std::unique_ptr<locks::ServiceConn> (*connect)(LiveWorld& world, std::size_t c,
                                                 const std::vector<std::string>& endpoints,
                                                 std::chrono::milliseconds timeout);
  std::string_view cluster;        // "a real etcd cluster"
  std::string_view processes;      // "etcd processes": what each member is
  std::string_view client;         // the client library in-process
  std::string_view no_clock_step;  // why a member's clocks cannot be stepped
};

// The live row of a CP topology; nullptr for Redis.
const LiveServiceRow* live_service_row(locks::Topology topology);

// Client c's connection for one incarnation: the service's own client, or
// nullptr for a lock whose client library runs in its own process.
std::unique_ptr<locks::ServiceConn> connect_live_client(const scenarios::Scenario& s, const locks::LockInfo& lock,
                                                        LiveWorld& world, std::size_t c,
                                                        const std::vector<std::string>& endpoints,
                                                        std::chrono::milliseconds timeout);

}  // namespace locksim::live
