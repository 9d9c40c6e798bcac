// Client libraries beside their ports (reports/library_comparison.hpp).
#include "reports/library_comparison.hpp"

#include "locks/registry.hpp"
#include "reports/report.hpp"
#include "scenarios/catalog.hpp"

namespace locksim::reports {

namespace {

// Whether a live violation set of the library is one the port's simulated
// runs of the scenario never found (no simulated runs: nothing to compare).
bool differs_from_port(const LiveCell& library, const Cell* port) {
  if (!port) return false;
  for (const auto& [kinds, runs] : library.outcomes)
    if (port->outcomes.count(kinds) == 0) return true;
  return false;
}

// The library whose bug catalog story `scenario` reproduces, if it is not the
// one `port` ports: the story's own lock reproduces a shipped bug
// (redlock-rb-extend-expired: redlock-rb-36) and the port is neither that
// lock, its fix, nor a reproduction of the same library. A scenario file
// (not in the catalog) or a story of a plain lock: empty.
std::string other_library_story(const std::string& scenario, const std::string& port) {
  const auto story = scenarios::load_catalog_scenario(scenario);
  if (!story) return "";
  const auto lock = locks::find_lock(story->lock_kind);
  if (!lock || !lock->reproduces || lock->name == port || lock->reproduces->fixed_by == port) return "";
  const auto port_info = locks::find_lock(port);
  if (port_info && port_info->reproduces && port_info->reproduces->library == lock->reproduces->library) return "";
  return lock->reproduces->library;
}

}  // namespace

std::vector<LibraryRow> library_rows(const Comparison& c) {
  std::vector<LibraryRow> rows;
  for (const auto& [key, cell] : c.live_cells()) {
    const auto info = locks::find_lock(key.second);
    if (!info || info->library.empty() || cell.runs == 0) continue;
    LibraryRow row{key.first, key.second, info->port, live_outcomes_text(c, key), "—", "—", false, ""};
    if (!info->port.empty()) {
      const Comparison::Key port_key{key.first, info->port};
      row.port_simulated = simulated_outcomes_text(c, port_key);
      row.port_live = live_outcomes_text(c, port_key);
      row.story_of = other_library_story(key.first, info->port);
      row.differs = row.story_of.empty() && differs_from_port(cell, c.cell(key.first, info->port));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string library_row_mark(const LibraryRow& row, bool markdown) {
  if (!row.story_of.empty()) return "not this library's story (" + row.story_of + ")";
  if (!row.differs) return "";
  return markdown ? "**differs**" : "differs";
}

std::string library_legend() {
  return "Each client library locksim ran live (its own code, in its own process: lib:*) beside the C++ lock that "
         "ports its algorithm. differs: the library showed a violation set the port's simulated runs of that scenario "
         "never showed — the library's own behaviour (how it retries, renews, discovers a failover, reports an "
         "error) "
         "or a live-only effect; docs/external-clients.md explains the measured ones. not this library's story: the "
         "story reproduces another client library's bug (its [lock] kind), so a difference says nothing of this "
         "library's port. Run the port in the same "
         "report (sweep --lock lib:redis-py,token and its simulated sweep) to fill its columns.";
}

}  // namespace locksim::reports
