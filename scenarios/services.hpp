// Services as rows: one row per service a scenario's locks run against
// (locks::Topology: Redis, etcd, ZooKeeper), keyed by that enum. A row says
// what the rest of locksim asks of a service — the scenario file's table,
// its members' host names, the lock a file without a [lock] kind runs, the
// lock TTL rule, the simulated members and clients, the reports' family —
// so no code outside a service's own files names one service against
// another. Live mode's part (the real cluster, the real clients) is a
// second table keyed by the same enum, live/live_service_table.hpp: live/ sits
// above this layer.
//
// Adding a CP service (Consul, a SQL advisory lock) = its own files plus
// one row:
//   1. the enumerator in locks::Topology (locks/registry.hpp) and its name
//      in topology_name — service_row below switches over the enum, so a
//      value without a row does not compile (-Werror=switch);
//   2. its client interface deriving from locks::ServiceConn with a
//      kService name (locks/cp_client.hpp); its locks reach it with
//      Runtime::service<ThatConn>();
//   3. its simulated members (sim/consensus/) and client (locks/);
//   4. scenarios/<service>_service.cpp defining its row (the reader and
//      writer of its table, TTL rule, factories) and the `case` that
//      returns it in services.cpp;
//   5. its live row in live/live_service_table.cpp (the real cluster and client).
//
// A lock whose operations run in another process is not a special case of
// this table: the row's client factory makes whatever implements the
// service's interface for a client — the simulated client, a real client
// library in-process, or a link to a client process — and the lock finds
// it by type through Runtime::service<Conn>().
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "locks/cp_client.hpp"
#include "locks/registry.hpp"
#include "sim/trace.hpp"  // HostId
#include "vocab/result.hpp"
#include "vocab/time.hpp"

namespace locksim::sim {
class Host;
namespace consensus {
class ConsensusMember;
}
}  // namespace locksim::sim

namespace locksim::scenarios {

class Section;
struct CpSpec;
struct Scenario;

// What a CP service (a cluster of members behind a client library) adds to
// its row; Redis, with masters, replicas and Sentinel, has its own builder
// (scenarios/runner.cpp build_redis) and reader (scenario.cpp).
struct CpServiceOps {
  // Reads the service's [table] into s.cp (problems to the table's sink)
  // and writes s.cp back, defaults left out except `members`.
  void (*read)(Section& table, CpSpec& cp);
  void (*write)(const CpSpec& cp, toml::table& out);
  // Why the lock's ttl does not fit the service (its unit), or nullopt.
  std::optional<std::string> (*ttl_problem)(Duration ttl);
  // What the service makes of the ttl where it differs from the file's
  // (cp_ttl_adjustments), or nullopt.
  std::optional<std::string> (*ttl_adjustment)(const Scenario& s);
  // A duration the service derives from its fields that would pass the
  // derived-duration cap (scenario_bounds.cpp): {field, "what it is,"}.
  std::optional<std::pair<std::string, std::string>> (*derived_overflow)(const CpSpec& cp);
  // The ttl a generated scenario (schedule_gen.cpp) gives a lock on this
  // service: within what the server takes without changing it where that
  // range is fixed by the table alone (ZooKeeper's 2..20 ticks).
  Duration (*generated_ttl)(Duration ttl, const CpSpec& cp);
  // The simulated member on `host`, one of `members` (their hosts' ids).
  std::unique_ptr<sim::consensus::ConsensusMember> (*member)(sim::Host& host, const Scenario& s,
                                                             const std::vector<sim::HostId>& members);
  // Client `index`'s connection from `client` to the members, one per
  // incarnation of its process, talking to member (index mod N) first.
  std::unique_ptr<locks::ServiceConn> (*client)(sim::Host& client, std::vector<sim::HostId> members, const Scenario& s,
                                                std::size_t index);
};

struct ServiceRow {
  locks::Topology topology;
  std::string_view table;          // the scenario file's table: "etcd" for [etcd]
  std::string_view what;           // in messages: "etcd", "ZooKeeper"
  std::string_view member_prefix;  // its hosts: "etcd-" + 1..N
  std::string_view default_lock;   // the [lock] kind of a file that names none
  std::string_view report_family;  // the reports' group of its locks
  const CpServiceOps* cp;          // nullptr for Redis
};

// The row of `topology` (every enumerator has one: a switch).
const ServiceRow& service_row(locks::Topology topology);
// Every row, in enum order.
std::span<const ServiceRow* const> services();
// The row whose scenario-file table is `table`, or a one-line error naming
// the known tables.
Result<const ServiceRow*, std::string> service_by_table(std::string_view table);

}  // namespace locksim::scenarios
