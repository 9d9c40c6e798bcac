// The inventory's buyers (inventory_workload.hpp), one copy for the
// simulator and live mode. Each purchase is one of the five methods; every
// Redis command goes through the client's runtime connection to the first
// master (the lock's own commands through the lock), every storage request
// through WorkloadWorld::send_write.
//
// Trigger points, as the lock workload's: "acquiring" before the lock or the
// Redis command, "acquired" once the lock is held or Redis said "bought",
// "write" before the order is sent, "released" after a lock's release — so
// `after = "A:acquired"` and a crash is "the buyer crashes between its
// confirmation and its order".
#include "scenarios/inventory_workload.hpp"

#include <memory>
#include <utility>

#include "scenarios/storage.hpp"
#include "scenarios/workload_records.hpp"

namespace locksim::scenarios {

namespace {


// One attempt's end: Refused = the shop's per-buyer rule said no (lua);
// Failed = a timeout, a lock given up or lost, an order the storage refused.
enum class Outcome : std::uint8_t { Bought, SoldOut, Refused, Failed };

// The script of the flash-sale articles, the buyers kept in a hash so the
// rule can be "at most per_buyer" (a set, SADD/SISMEMBER, is the case
// per_buyer = 1). Replies: 1 bought, 0 sold out, -1 the buyer's limit.
// redis.call returns false for a missing field or key (Redis's nil, as
// scripting.c's redisProtocolToLuaType maps it).
constexpr const char* kPurchaseScript =
    "local held = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')\n"
    "if held >= tonumber(ARGV[2]) then return -1 end\n"
    "local left = tonumber(redis.call('GET', KEYS[1]) or '0')\n"
    "if left <= 0 then return 0 end\n"
    "redis.call('DECR', KEYS[1])\n"
    "redis.call('HINCRBY', KEYS[2], ARGV[1], 1)\n"
    "return 1\n";

struct Buyer {
  WorkloadWorld& world;
  std::size_t c;
  locks::Runtime& runtime;
  std::uint64_t redis_trips = 0;
  const Scenario& scenario() const { return world.scenario(); }
};

// A lock held for the purchase: its lease, grant and key.
struct Holding {
  locks::Lock& lock;
  locks::Lease& lease;
  std::uint64_t grant;
  std::string key;
};

void confirm(Buyer& b) { record_purchase(b.world, b.c); }

Task<void> spend_work(Buyer& b) {
  co_await b.world.sleep_until(b.c, b.world.monotonic_now(b.c) + b.scenario().clients[b.c].work);
}

Task<void> point(Buyer& b, TriggerEvent event, int index) {
  note_point(b.world, b.c, event, index);
  co_await b.world.reach(b.c, event, index);
}

Task<Reply> redis(Buyer& b, Argv argv) {
  ++b.redis_trips;
  co_return co_await b.runtime.conn(0).command(std::move(argv));
}

// The order, with the stock row written back when the buyer read it.
Task<Reply> send_order(WorkloadWorld& world, std::size_t c, int segment, std::optional<std::int64_t> new_stock,
                       const Holding* h) {
  note_point(world, c, TriggerEvent::Write, 1);
  co_await world.reach(c, TriggerEvent::Write, 1);
  WriteRequest w;
  w.client = c;
  w.op = StorageOp::Order;
  w.index = 1;
  w.segment = segment;
  w.new_stock = new_stock;
  w.locked = h != nullptr;
  if (h) {
    w.grant = h->grant;
    w.fencing_token = h->lease.fencing_token;
    w.lock_key = h->key;
  }
  const Reply reply = co_await world.send_write(c, std::move(w));
  world.note(c, "order-reply", reply.to_string());
  co_return reply;
}

// Read row `segment`, check it, spend the work, write it back with the
// order (under `h` when a lock is held).
Task<Outcome> read_check_write(Buyer& b, int segment, const Holding* h) {
  WriteRequest read;
  read.client = b.c;
  read.op = StorageOp::ReadStock;
  read.segment = segment;
  const Reply stock = co_await b.world.send_write(b.c, std::move(read));
  if (stock.type != Reply::Type::Integer) co_return Outcome::Failed;
  b.world.note(b.c, "stock-read", std::to_string(stock.integer));
  if (stock.integer <= 0) co_return Outcome::SoldOut;
  co_await spend_work(b);
  if (h && !h->lock.still_valid(h->lease)) co_return Outcome::Failed;  // the lock says it lost the lease
  const Reply order = co_await send_order(b.world, b.c, segment, stock.integer - 1, h);
  if (!order.is_integer(1)) co_return Outcome::Failed;
  confirm(b);
  co_return Outcome::Bought;
}

// The read-modify-write of row `segment` inside that segment's lock.
Task<Outcome> locked_purchase(Buyer& b, locks::Lock& lock, int segment) {
  const std::string key = segment_lock_key(b.scenario(), segment);
  begin_attempt(b.world, b.c);
  co_await point(b, TriggerEvent::Acquiring, 0);
  std::optional<locks::Lease> lease = co_await lock.try_acquire();
  end_attempt(b.world, b.c, lease.has_value());
  if (!lease) {
    b.world.note(b.c, "gave-up", key);
    co_return Outcome::Failed;
  }
  if (b.world.ended()) co_return Outcome::Failed;  // live: granted after the end, believed by nobody
  const Holding h{lock, *lease, begin_belief(b.world, b.c, &*lease, key), key};
  co_await point(b, TriggerEvent::Acquired, 0);
  const Outcome out = co_await read_check_write(b, segment, &h);
  end_belief(b.world, b.c, lock.still_valid(*lease) ? "release" : "abandon");
  (void)co_await lock.release(*lease);
  co_await point(b, TriggerEvent::Released, 0);
  co_return out;
}

// Redis said "bought" (DECR or the script): the buyer is told so, spends
// its work, then writes the order.
Task<Outcome> confirmed_by_redis(Buyer& b) {
  confirm(b);
  co_await point(b, TriggerEvent::Acquired, 0);
  co_await spend_work(b);
  (void)co_await send_order(b.world, b.c, 0, std::nullopt, nullptr);
  co_return Outcome::Bought;
}

// DECR: the reply is the stock after the decrement (t_string.c
// incrDecrCommand); below zero the buyer gives its unit back with INCR.
Task<Outcome> decr_purchase(Buyer& b) {
  const std::string key = stock_key(b.scenario());
  co_await point(b, TriggerEvent::Acquiring, 0);
  // Argv built outside co_await: GCC rejects a braced list of literals there.
  Argv decr{"DECR", key}, refund{"INCR", key};
  const Reply left = co_await redis(b, std::move(decr));
  if (left.type != Reply::Type::Integer) co_return Outcome::Failed;
  if (left.integer < 0) {
    (void)co_await redis(b, std::move(refund));
    b.world.note(b.c, "sold-out", key);
    co_return Outcome::SoldOut;
  }
  co_return co_await confirmed_by_redis(b);
}

Task<Outcome> lua_purchase(Buyer& b) {
  const Scenario& s = b.scenario();
  co_await point(b, TriggerEvent::Acquiring, 0);
  Argv eval{"EVAL", kPurchaseScript, "2", stock_key(s), buyers_key(s), b.world.client_name(b.c),
                        std::to_string(s.inventory.per_buyer)};
  const Reply r = co_await redis(b, std::move(eval));
  if (r.is_integer(0)) co_return Outcome::SoldOut;
  if (r.is_integer(-1)) {
    b.world.note(b.c, "limit-reached", buyers_key(s));
    co_return Outcome::Refused;
  }
  if (!r.is_integer(1)) co_return Outcome::Failed;
  co_return co_await confirmed_by_redis(b);
}

// Segmented: from `segment` on, the first segment with stock left; an
// empty one moves the buyer on (and it stays on the one that sold).
Task<Outcome> segmented_purchase(Buyer& b, std::vector<std::unique_ptr<locks::Lock>>& locks, int& segment) {
  const int n = static_cast<int>(locks.size());
  for (int tried = 0; tried < n; ++tried) {
    const Outcome out = co_await locked_purchase(b, *locks[static_cast<std::size_t>(segment)], segment);
    if (out != Outcome::SoldOut) co_return out;
    segment = (segment + 1) % n;
  }
  co_return Outcome::SoldOut;
}

Task<Outcome> purchase(Buyer& b, std::vector<std::unique_ptr<locks::Lock>>& locks, int& segment) {
  switch (b.scenario().inventory.method) {
    case InventoryMethod::ReadCheckWrite: return read_check_write(b, 0, nullptr);
    case InventoryMethod::Decr: return decr_purchase(b);
    case InventoryMethod::Lua: return lua_purchase(b);
    case InventoryMethod::Lock:
    case InventoryMethod::Segmented: break;
  }
  return segmented_purchase(b, locks, segment);
}

const std::vector<std::pair<InventoryMethod, std::string>>& method_table() {
  static const std::vector<std::pair<InventoryMethod, std::string>> table = {
      {InventoryMethod::ReadCheckWrite, "read-check-write"},
      {InventoryMethod::Lock, "lock"},
      {InventoryMethod::Decr, "decr"},
      {InventoryMethod::Lua, "lua"},
      {InventoryMethod::Segmented, "segmented"}};
  return table;
}

}  // namespace

Task<void> inventory_buyer(WorkloadWorld& world, std::size_t c, locks::Runtime& runtime) {
  const Scenario& s = world.scenario();
  ClientProgress& progress = world.progress(c);
  Buyer b{world, c, runtime};
  std::vector<std::unique_ptr<locks::Lock>> locks;
  if (method_takes_lock(s.inventory.method)) {
    for (int i = 0; i < s.inventory.segments; ++i) {
      locks::LockConfig config = s.lock;
      config.key = segment_lock_key(s, i);
      locks.push_back(world.lock().factory(runtime, config));
    }
  }
  // The first segment this buyer tries, from its own stream.
  int segment = s.inventory.segments > 1
                    ? static_cast<int>(runtime.random_below(static_cast<std::uint64_t>(s.inventory.segments)))
                    : 0;
  while (progress.iterations_done < s.clients[c].buys && !world.ended()) {
    const Outcome out = co_await purchase(b, locks, segment);
    ++progress.iterations_done;
    if (out == Outcome::SoldOut || out == Outcome::Refused) break;
  }
  std::uint64_t trips = b.redis_trips;
  for (const auto& lock : locks) trips += lock->round_trips();
  world.record(c, [trips](const Ledger& l) { l.stats.round_trips += trips; });
}

void record_purchase(WorkloadWorld& world, std::size_t c) {
  world.record(c, [c](const Ledger& l) {
    if (!l.ended) l.history.purchases.push_back({c, l.now});
  });
  world.note(c, "bought", "");
}

Task<void> gate_winner_order(WorkloadWorld& world, std::size_t c) {
  (void)co_await send_order(world, c, 0, std::nullopt, nullptr);
}

bool method_takes_lock(InventoryMethod m) { return m == InventoryMethod::Lock || m == InventoryMethod::Segmented; }
bool method_checks_per_buyer(InventoryMethod m) { return m == InventoryMethod::Lua; }

std::string_view inventory_method_name(InventoryMethod m) {
  for (const auto& [method, name] : method_table())
    if (method == m) return name;
  return "read-check-write";
}

std::optional<InventoryMethod> inventory_method_of(std::string_view name) {
  for (const auto& [method, text] : method_table())
    if (text == name) return method;
  return std::nullopt;
}

const std::vector<std::string>& inventory_method_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& entry : method_table()) v.push_back(entry.second);
    return v;
  }();
  return names;
}

std::string stock_key(const Scenario& s) { return s.lock.key + ":stock"; }
std::string buyers_key(const Scenario& s) { return s.lock.key + ":buyers"; }

std::string segment_lock_key(const Scenario& s, int segment) {
  if (s.inventory.method != InventoryMethod::Segmented) return s.lock.key;
  return s.lock.key + ":" + std::to_string(segment + 1);
}

std::vector<std::string> lock_keys(const Scenario& s) {
  if (s.workload != WorkloadKind::Inventory || s.inventory.method != InventoryMethod::Segmented) return {s.lock.key};
  std::vector<std::string> keys;
  for (int i = 0; i < s.inventory.segments; ++i) keys.push_back(segment_lock_key(s, i));
  return keys;
}

bool is_lock_key(const Scenario& s, std::string_view key) {
  if (s.workload != WorkloadKind::Inventory || s.inventory.method != InventoryMethod::Segmented)
    return key == s.lock.key;
  const std::string prefix = s.lock.key + ":";
  if (key.size() <= prefix.size() || key.substr(0, prefix.size()) != prefix) return false;
  const std::string_view rest = key.substr(prefix.size());
  for (int i = 0; i < s.inventory.segments; ++i)
    if (rest == std::to_string(i + 1)) return true;
  return false;
}

std::vector<std::int64_t> storage_stock_rows(const Scenario& s) {
  if (s.workload != WorkloadKind::Inventory) return {};
  const InventorySpec& inv = s.inventory;
  if (inv.method == InventoryMethod::Decr || inv.method == InventoryMethod::Lua) return {};
  const int n = inv.method == InventoryMethod::Segmented ? inv.segments : 1;
  std::vector<std::int64_t> rows;
  for (int i = 0; i < n; ++i) rows.push_back(inv.stock / n + (i < inv.stock % n ? 1 : 0));
  return rows;
}

std::vector<Argv> redis_stock_preload(const Scenario& s) {
  if (s.workload != WorkloadKind::Inventory) return {};
  if (s.inventory.method != InventoryMethod::Decr && s.inventory.method != InventoryMethod::Lua) return {};
  return {{"SET", stock_key(s), std::to_string(s.inventory.stock)}};
}

std::optional<SaleSummary> sale_summary(const Scenario& s, const History& h) {
  if (!h.sale) return std::nullopt;
  SaleSummary out;
  out.method = s.workload == WorkloadKind::Gate ? "gate" : std::string(inventory_method_name(s.inventory.method));
  std::optional<TrueInstant> last;
  for (const OrderRecord& o : h.orders) {
    if (!o.accepted) {
      ++out.refused;
      continue;
    }
    last = o.at;
    if (++out.orders == static_cast<std::uint64_t>(h.sale->stock)) out.sold_out_ms = to_ms(o.at);
  }
  const std::int64_t span_us =
      out.sold_out_ms ? *out.sold_out_ms * 1000 : last ? std::chrono::duration_cast<std::chrono::microseconds>(last->time_since_epoch()).count() : 0;
  if (span_us > 0) out.orders_per_s_milli = static_cast<std::int64_t>(out.orders) * 1'000'000'000 / span_us;
  return out;
}

std::optional<SaleTerms> sale_terms(const Scenario& s) {
  if (s.workload == WorkloadKind::Gate) return SaleTerms{1, 1};
  if (s.workload != WorkloadKind::Inventory) return std::nullopt;
  return SaleTerms{s.inventory.stock, s.inventory.per_buyer};
}

}  // namespace locksim::scenarios
