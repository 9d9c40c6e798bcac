// The inventory workload's fields in a scenario file and back
// (inventory_workload_parse.hpp has the contract).
#include "scenarios/inventory_workload_parse.hpp"

#include <string>

#include "scenarios/inventory_workload.hpp"
#include "scenarios/toml_section.hpp"

namespace locksim::scenarios {

namespace {

using Problem = std::optional<BoundProblem>;

// `path` is toml++'s (client[0].buys); `field` the reader's (client[1].buys).
BoundProblem at(const toml::table& file, const std::string& path, const std::string& field, std::string message) {
  return BoundProblem{line_at(file, path), field, std::move(message)};
}
BoundProblem at(const toml::table& file, const std::string& path, std::string message) {
  return at(file, path, path, std::move(message));
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "\"" : ", \"") + n + "\"";
  return s;
}

// An integer in [lo, hi] at `path`, or the problem; absent leaves `out`.
Problem read_int(const toml::table& file, const std::string& path, std::int64_t lo, std::int64_t hi,
                 std::int64_t& out) {
  const toml::node* n = file.at_path(path).node();
  if (!n) return std::nullopt;
  if (!n->is_integer()) return at(file, path, "expected an integer");
  const std::int64_t v = n->as_integer()->get();
  if (v < lo || v > hi)
    return at(file, path, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " (got " +
                              std::to_string(v) + ")");
  out = v;
  return std::nullopt;
}

std::string client_path(std::size_t i, const char* key) { return "client[" + std::to_string(i) + "]." + key; }
std::string client_field(std::size_t i, const char* key) { return "client[" + std::to_string(i + 1) + "]." + key; }

// Outside an inventory these fields have no effect: an error each.
Problem reject_inventory_fields(const toml::table& file, const Scenario& s) {
  for (const char* key : {"stock", "method", "segments", "per_buyer"}) {
    const std::string path = std::string("workload.") + key;
    if (file.at_path(path)) return at(file, path, "only for [workload] kind = \"inventory\"");
  }
  for (std::size_t i = 0; i < s.clients.size(); ++i)
    if (file.at_path(client_path(i, "buys")))
      return at(file, client_path(i, "buys"), client_field(i, "buys"), "only for [workload] kind = \"inventory\"");
  if (file.at_path("storage.unique") && s.workload != WorkloadKind::Gate)
    return at(file, "storage.unique", "only for [workload] kind = \"inventory\" or \"gate\" (the orders table)");
  return std::nullopt;
}

Problem read_method(const toml::table& file, InventorySpec& inv) {
  const toml::node* n = file.at_path("workload.method").node();
  if (!n) return at(file, "workload", "workload.method", "missing (one of " + joined(inventory_method_names()) + ")");
  if (!n->is_string()) return at(file, "workload.method", "expected a string");
  const std::string name = n->as_string()->get();
  const auto method = inventory_method_of(name);
  if (!method) {
    const auto close = close_names(name, inventory_method_names());
    return at(file, "workload.method",
              "unknown method \"" + name + "\"" +
                  (close.empty() ? " (known: " + joined(inventory_method_names()) + ")"
                                 : " (did you mean \"" + close.front() + "\"?)"));
  }
  inv.method = *method;
  return std::nullopt;
}

Problem read_sale(const toml::table& file, InventorySpec& inv) {
  if (!file.at_path("workload.stock"))
    return at(file, "workload", "workload.stock", "missing (the items on sale, at least 1)");
  if (auto p = read_int(file, "workload.stock", 1, kMaxStock, inv.stock)) return p;
  if (auto p = read_method(file, inv)) return p;
  std::int64_t segments = 1, per_buyer = 1;
  if (file.at_path("workload.segments") && inv.method != InventoryMethod::Segmented)
    return at(file, "workload.segments", "only for method = \"segmented\"");
  if (auto p = read_int(file, "workload.segments", 1, kMaxStock, segments)) return p;
  if (segments > inv.stock)
    return at(file, "workload.segments",
              "is " + std::to_string(segments) + " but the stock is " + std::to_string(inv.stock) +
                  " items: a segment would start empty");
  if (auto p = read_int(file, "workload.per_buyer", 1, kMaxPerBuyer, per_buyer)) return p;
  inv.segments = static_cast<int>(segments);
  inv.per_buyer = static_cast<int>(per_buyer);
  return std::nullopt;
}

// A buyer's fields: `buys`, `work` defaulting to 0, and none of the lock
// workload's own.
Problem read_buyers(const toml::table& file, Scenario& s) {
  std::int64_t total = 0;
  for (std::size_t i = 0; i < s.clients.size(); ++i) {
    for (const char* key : {"writes", "iterations"})
      if (file.at_path(client_path(i, key)))
        return at(file, client_path(i, key), client_field(i, key),
                  "has no effect in an inventory (a buyer makes `buys` purchases, one order each)");
    std::int64_t buys = 1;
    const std::string path = client_path(i, "buys");
    if (auto p = read_int(file, path, 1, kMaxBuys, buys)) return BoundProblem{p->line, client_field(i, "buys"), p->message};
    s.clients[i].buys = static_cast<int>(buys);
    if (!file.at_path(client_path(i, "work"))) s.clients[i].work = Duration::zero();
    total += buys;
    if (total * 6 > kMaxHistoryEvents)
      return at(file, path, client_field(i, "buys"),
                "the buys of the clients up to " + s.clients[i].name + " (" + std::to_string(total) +
                    ") would record more than " + std::to_string(kMaxHistoryEvents) + " events");
  }
  return std::nullopt;
}

}  // namespace

std::optional<BoundProblem> read_inventory_workload(const toml::table& file, Scenario& s) {
  if (s.workload != WorkloadKind::Inventory) return reject_inventory_fields(file, s);
  if (auto p = read_sale(file, s.inventory)) return p;
  if (auto p = read_buyers(file, s)) return p;
  if (s.unique && s.inventory.per_buyer != 1)
    return at(file, "storage.unique",
              "is one order per buyer: it needs [workload] per_buyer = 1 (got " +
                  std::to_string(s.inventory.per_buyer) + ")");
  return std::nullopt;
}

void insert_inventory_keys(toml::table& workload, const Scenario& s) {
  if (s.workload != WorkloadKind::Inventory) return;
  const InventorySpec& inv = s.inventory;
  workload.insert("stock", inv.stock);
  workload.insert("method", std::string(inventory_method_name(inv.method)));
  if (inv.segments != 1) workload.insert("segments", std::int64_t{inv.segments});
  if (inv.per_buyer != 1) workload.insert("per_buyer", std::int64_t{inv.per_buyer});
}

}  // namespace locksim::scenarios
