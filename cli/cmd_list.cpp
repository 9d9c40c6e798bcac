// `locksim list`: the catalog's scenarios, the lock kinds and the fault kinds.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "locks/registry.hpp"
#include "scenarios/catalog.hpp"

namespace locksim::cli {

namespace {

int print_json() {
  nlohmann::ordered_json j;
  j["scenarios"] = nlohmann::ordered_json::array();
  for (const auto& entry : scenarios::catalog()) {
    auto s = scenarios::load_catalog_scenario(entry.name);
    j["scenarios"].push_back({{"name", entry.name},
                              {"description", s ? s->description : ""},
                              {"file", entry.file}});
  }
  j["locks"] = nlohmann::ordered_json::array();
  for (const auto& lock : locks::all_locks()) {
    j["locks"].push_back({{"name", lock.name},
                          {"description", lock.description},
                          {"source", lock.source},
                          {"min_nodes", lock.min_nodes},
                          {"fencing", lock.fencing},
                          {"tracks_validity", lock.tracks_validity},
                          {"topology", locks::topology_name(lock.topology)}});
    if (const auto& r = lock.reproduces)  // added field: only reproductions of shipped bugs carry it
      j["locks"].back()["reproduces"] = {{"library", r->library},   {"version", r->version},
                                         {"report", r->report},     {"fixed_by", r->fixed_by},
                                         {"violation", r->violation}};
  }
  j["libraries"] = nlohmann::ordered_json::array();  // run in their own process (docs/external-clients.md)
  for (const auto& lock : locks::library_locks()) {
    j["libraries"].push_back({{"name", lock.name}, {"description", lock.description}, {"library", lock.library},
                              {"source", lock.source}, {"family", "library"}});
    if (!lock.port.empty()) j["libraries"].back()["port"] = lock.port;  // the C++ lock that ports its algorithm
  }
  j["faults"] = nlohmann::ordered_json::array();
  for (auto kind : scenarios::all_fault_kinds()) j["faults"].push_back(std::string(scenarios::fault_kind_name(kind)));
  j["violations"] = scenarios::violation_names();
  std::cout << j.dump(2) << "\n";
  return kMatched;
}

void print_lock_line(const locks::LockInfo& lock) {
  std::cout << "  " << lock.name << std::string(lock.name.size() < 16 ? 16 - lock.name.size() : 1, ' ')
            << lock.description
            << (lock.topology == locks::Topology::Redis
                    ? std::string()
                    : std::string("  [needs a CP topology: ") + locks::topology_name(lock.topology) + "]")
            << "\n";
  if (lock.reproduces) std::cout << "  " << std::string(16, ' ') << "reproduces " << reproduction_label(*lock.reproduces) << "\n";
}

int print_text() {
  std::cout << "Scenarios (locksim run NAME):\n";
  for (const auto& entry : scenarios::catalog()) {
    auto s = scenarios::load_catalog_scenario(entry.name);
    std::cout << "  " << entry.name << "\n      " << (s ? s->description : s.error().to_string()) << "\n";
  }
  std::cout << "\nLock kinds (--lock NAME):\n";
  for (const auto& lock : locks::all_locks())
    if (!lock.reproduces) print_lock_line(lock);
  std::cout << "\nReproductions of shipped client bugs (--lock NAME; docs/reproductions.md):\n";
  for (const auto& lock : locks::all_locks())
    if (lock.reproduces) print_lock_line(lock);
  std::cout << "\nClient libraries, run in their own process (locksim live --lock NAME; docs/external-clients.md):\n";
  for (const auto& lock : locks::library_locks()) {
    print_lock_line(lock);
    std::cout << "  " << std::string(16, ' ') << "runs " << lock.library << "\n";
  }
  std::cout << "\nFault kinds ([[fault]] kind = ...):\n ";
  for (auto kind : scenarios::all_fault_kinds()) std::cout << " " << scenarios::fault_kind_name(kind);
  std::cout << "\n\nViolations checked:\n ";
  for (const auto& v : scenarios::violation_names()) std::cout << " " << v;
  std::cout << "\n";
  return kMatched;
}

}  // namespace

Handler add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List the scenario catalog, lock kinds and fault kinds");
  auto format = std::make_shared<std::string>("text");
  cmd->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return [format] { return *format == "json" ? print_json() : print_text(); };
}

}  // namespace locksim::cli
