// The inventory workload's fields in a scenario file and back
// (inventory_workload_parse.hpp has the contract).
#include "scenarios/inventory_workload_parse.hpp"

#include <string>

#include "scenarios/inventory_workload.hpp"
#include "scenarios/toml_section.hpp"

namespace locksim::scenarios {

namespace {

std::string quoted_list(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  for (const auto& n : names) quoted.push_back(in_quotes(n));
  return locksim::joined(quoted);
}

// The [[client]] tables as Sections (client[1], client[2], ...).
std::vector<Section> client_sections(Section& root) {
  std::vector<Section> out;
  if (!root.has("client")) return out;
  const auto tables = root.tables("client");
  for (std::size_t i = 0; i < tables.size(); ++i)
    out.emplace_back(root.errors(), *tables[i], "client[" + std::to_string(i + 1) + "]");
  return out;
}

// Outside an inventory these fields have no effect: an error each.
bool reject_inventory_fields(Section& root, const Scenario& s) {
  if (auto w = root.sub("workload"))
    for (const char* key : {"stock", "method", "segments", "per_buyer"})
      if (w->has(key)) return w->fail_value(key, "only for [workload] kind = \"inventory\"");
  for (Section& c : client_sections(root))
    if (c.has("buys")) return c.fail_value("buys", "only for [workload] kind = \"inventory\"");
  if (s.workload != WorkloadKind::Gate)
    if (auto st = root.sub("storage"); st && st->has("unique"))
      return st->fail_value("unique", "only for [workload] kind = \"inventory\" or \"gate\" (the orders table)");
  return true;
}

bool read_method(Section& w, InventorySpec& inv) {
  if (!w.has("method")) return w.missing("method", "one of " + quoted_list(inventory_method_names()));
  const auto name = w.string("method");
  if (!name) return false;
  const auto method = inventory_method_of(*name);
  if (!method) {
    const auto close = close_names(*name, inventory_method_names());
    return w.fail_value("method", "unknown method " + in_quotes(*name) +
                                      (close.empty() ? " (known: " + quoted_list(inventory_method_names()) + ")"
                                                     : " (did you mean " + in_quotes(close.front()) + "?)"));
  }
  inv.method = *method;
  return true;
}

bool read_sale(Section& w, InventorySpec& inv) {
  if (!w.has("stock")) return w.missing("stock", "the items on sale, at least 1");
  const auto stock = w.integer("stock", 1, kMaxStock);
  if (!stock) return false;
  inv.stock = *stock;
  if (!read_method(w, inv)) return false;
  if (w.has("segments") && inv.method != InventoryMethod::Segmented)
    return w.fail_value("segments", "only for method = \"segmented\"");
  if (w.has("segments")) {
    const auto segments = w.integer("segments", 1, kMaxStock);
    if (!segments) return false;
    if (*segments > inv.stock)
      return w.fail_value("segments", "is " + std::to_string(*segments) + " but the stock is " +
                                          std::to_string(inv.stock) + " items: a segment would start empty");
    inv.segments = static_cast<int>(*segments);
  }
  if (w.has("per_buyer")) {
    const auto per_buyer = w.integer("per_buyer", 1, kMaxPerBuyer);
    if (!per_buyer) return false;
    inv.per_buyer = static_cast<int>(*per_buyer);
  }
  return true;
}

// A buyer's fields: `buys`, `work` defaulting to 0, and none of the lock
// workload's own.
bool read_buyers(Section& root, Scenario& s) {
  std::int64_t total = 0;
  std::vector<Section> clients = client_sections(root);
  for (std::size_t i = 0; i < clients.size() && i < s.clients.size(); ++i) {
    Section& c = clients[i];
    for (const char* key : {"writes", "iterations"})
      if (c.has(key))
        return c.fail_value(key, "has no effect in an inventory (a buyer makes `buys` purchases, one order each)");
    std::int64_t buys = 1;
    if (c.has("buys")) {
      const auto v = c.integer("buys", 1, kMaxBuys);
      if (!v) return false;
      buys = *v;
    }
    s.clients[i].buys = static_cast<int>(buys);
    if (!c.has("work")) s.clients[i].work = Duration::zero();
    total += buys;
    if (total * 6 > kMaxHistoryEvents)
      return c.fail_value("buys", "the buys of the clients up to " + s.clients[i].name + " (" + std::to_string(total) +
                                      ") would record more than " + std::to_string(kMaxHistoryEvents) + " events");
  }
  return true;
}

}  // namespace

bool read_inventory_workload(Section& root, Scenario& s) {
  if (s.workload != WorkloadKind::Inventory) return reject_inventory_fields(root, s);
  auto w = root.sub("workload");
  if (!w) return false;  // kind = "inventory" was read from it
  if (!read_sale(*w, s.inventory) || !read_buyers(root, s)) return false;
  if (s.unique && s.inventory.per_buyer != 1)
    if (auto st = root.sub("storage"))
      return st->fail_value("unique", "is one order per buyer: it needs [workload] per_buyer = 1 (got " +
                                          std::to_string(s.inventory.per_buyer) + ")");
  return true;
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
