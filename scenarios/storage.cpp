// The storage's fencing rule, the inventory's stock rows and orders table,
// and the wire format (storage.hpp).
#include "scenarios/storage.hpp"

#include <charconv>
#include <string>

#include "scenarios/inventory_workload.hpp"
#include "scenarios/scenario.hpp"

namespace locksim::scenarios {

namespace {
std::optional<std::int64_t> to_int(const std::string& s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string optional_text(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "-"; }

std::optional<WriteRequest> parse_read(const Argv& argv) {
  const auto client = to_int(argv[1]);
  const auto segment = to_int(argv[2]);
  if (!client || !segment || *client < 0 || *segment < 0) return std::nullopt;
  WriteRequest w;
  w.op = StorageOp::ReadStock;
  w.client = static_cast<std::size_t>(*client);
  w.segment = static_cast<int>(*segment);
  return w;
}

std::optional<WriteRequest> parse_order(const Argv& argv) {
  const auto client = to_int(argv[1]);
  const auto grant = to_int(argv[2]);   // "-" = not under a lock
  const auto token = to_int(argv[3]);   // "-" = no token
  const auto index = to_int(argv[4]);
  const auto segment = to_int(argv[5]);
  if (!client || !index || !segment || *client < 0 || *segment < 0) return std::nullopt;
  WriteRequest w;
  w.op = StorageOp::Order;
  w.client = static_cast<std::size_t>(*client);
  w.locked = grant.has_value();
  w.grant = grant ? static_cast<std::uint64_t>(*grant) : 0;
  w.fencing_token = token;
  w.index = static_cast<int>(*index);
  w.segment = static_cast<int>(*segment);
  w.new_stock = to_int(argv[6]);  // "-" = the order alone
  if (argv[7] != "-") w.lock_key = argv[7];
  return w;
}
}  // namespace

Argv write_argv(const WriteRequest& w) {
  switch (w.op) {
    case StorageOp::ReadStock: return {"READ", std::to_string(w.client), std::to_string(w.segment)};
    case StorageOp::Order:
      return {"ORDER",
              std::to_string(w.client),
              w.locked ? std::to_string(w.grant) : "-",
              optional_text(w.fencing_token),
              std::to_string(w.index),
              std::to_string(w.segment),
              optional_text(w.new_stock),
              w.lock_key.empty() ? "-" : w.lock_key};
    case StorageOp::Write: break;
  }
  return {"WRITE", std::to_string(w.client), std::to_string(w.grant), optional_text(w.fencing_token),
          std::to_string(w.index)};
}

std::optional<WriteRequest> parse_write(const Argv& argv) {
  if (argv.size() == 3 && argv[0] == "READ") return parse_read(argv);
  if (argv.size() == 8 && argv[0] == "ORDER") return parse_order(argv);
  if (argv.size() != 5 || argv[0] != "WRITE") return std::nullopt;
  const auto client = to_int(argv[1]);
  const auto grant = to_int(argv[2]);
  const auto token = to_int(argv[3]);  // "-" = no token
  const auto index = to_int(argv[4]);
  if (!client || !grant || !index) return std::nullopt;
  return WriteRequest{static_cast<std::size_t>(*client), static_cast<std::uint64_t>(*grant), token,
                      static_cast<int>(*index)};
}

Storage::Storage(const Scenario& s)
    : fencing_(s.fencing),
      unique_(s.unique),
      unique_slot_(s.unique && s.workload == WorkloadKind::Gate),
      stock_(storage_stock_rows(s)) {}

bool Storage::fence_allows(const WriteRequest& w) const {
  if (!fencing_ || !w.fencing_token) return true;
  auto it = max_seen_.find(w.lock_key);
  return it == max_seen_.end() || *w.fencing_token >= it->second;
}

void Storage::fence_commit(const WriteRequest& w) {
  if (fencing_ && w.fencing_token) max_seen_[w.lock_key] = *w.fencing_token;
}

bool Storage::apply(History& history, TrueInstant now, const WriteRequest& w) {
  const bool accepted = fence_allows(w);
  if (accepted) fence_commit(w);
  history.writes.push_back({now, w.client, w.grant, w.fencing_token, accepted, w.index, w.lock_key});
  return accepted;
}

// An order is one transaction: fencing (a stale holder's is refused), then
// the unique constraint; only a stored order moves the fence and writes its
// stock row back. An order under a lock is also the holder's storage write.
bool Storage::store_order(History& history, TrueInstant now, const WriteRequest& w) {
  OrderRecord order{now, w.client, w.segment, false, "", std::nullopt};
  if (!fence_allows(w)) order.refused = "fencing";
  else if (unique_slot_ && !buyers_with_order_.empty()) order.refused = "unique";
  else if (unique_ && buyers_with_order_.count(w.client)) order.refused = "unique";
  order.accepted = order.refused.empty();
  if (order.accepted) {
    fence_commit(w);
    if (unique_) buyers_with_order_.insert(w.client);
    if (w.new_stock && w.segment >= 0 && static_cast<std::size_t>(w.segment) < stock_.size()) {
      stock_[static_cast<std::size_t>(w.segment)] = *w.new_stock;
      order.stock_after = *w.new_stock;
    }
  }
  if (w.locked)
    history.writes.push_back({now, w.client, w.grant, w.fencing_token, order.accepted, w.index, w.lock_key});
  history.orders.push_back(std::move(order));
  return history.orders.back().accepted;
}

std::int64_t Storage::serve(History& history, TrueInstant now, const WriteRequest& w) {
  switch (w.op) {
    case StorageOp::ReadStock: {
      const auto row = static_cast<std::size_t>(w.segment);
      return row < stock_.size() ? stock_[row] : 0;
    }
    case StorageOp::Order: return store_order(history, now, w) ? 1 : 0;
    case StorageOp::Write: break;
  }
  return apply(history, now, w) ? 1 : 0;
}

}  // namespace locksim::scenarios
