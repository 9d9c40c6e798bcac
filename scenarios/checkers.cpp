// The property checkers. Each is a pass over the recorded history; none
// knows which lock algorithm produced it. The lock checkers judge each lock
// key on its own (an inventory's segments); the sale checkers judge the
// orders table against the sale's terms and what buyers were told.
#include "scenarios/checkers.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <map>
#include <set>

namespace locksim::scenarios {

namespace {

using Kind = sim::redis::KeyEvent::Kind;

// A kind's name as a violation carries it (vocab/violation_kinds.hpp).
std::string name_of(ViolationKind kind) { return std::string(violation_kind_name(kind)); }

// Every moment in a violation's text reads as seconds ("35.012s").
std::string at_text(TrueInstant t) { return format_seconds(t.time_since_epoch()); }

// Each property reports at most this many violations per run: the first
// ones prove it; hundreds more of the same help nobody.
constexpr std::size_t kMaxPerKind = 16;

std::string describe(const History& h, const Belief& b) {
  std::string s = at_text(b.start) + " " + h.clients[b.client].name + " acquired (grant " + std::to_string(b.grant + 1);
  if (b.fencing_token) s += ", fencing token " + std::to_string(*b.fencing_token);
  s += ")";
  if (b.end) s += "; believed until " + at_text(*b.end) + " (" + b.end_reason + ")";
  else s += "; still believed at the end";
  if (b.deadline) s += "; validity deadline " + at_text(*b.deadline);
  return s;
}

std::string node_name(const History& h, HostId node) {
  return node < h.nodes.size() ? h.nodes[node] : "node-" + std::to_string(node);
}

}  // namespace

TrueInstant Belief::effective_end(TrueInstant run_end) const {
  TrueInstant e = end.value_or(run_end);
  if (deadline && *deadline < e) e = *deadline;
  return e;
}

std::optional<std::size_t> History::client_of(HostId host) const {
  for (std::size_t i = 0; i < clients.size(); ++i)
    if (clients[i].host == host) return i;
  return std::nullopt;
}

std::vector<Violation> check_mutual_exclusion(const History& h) {
  std::vector<const Belief*> sorted;
  for (const Belief& b : h.beliefs) sorted.push_back(&b);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Belief* a, const Belief* b) { return a->start < b->start; });
  std::vector<Violation> out;
  for (std::size_t i = 0; i < sorted.size() && out.size() < kMaxPerKind; ++i) {
    const Belief& first = *sorted[i];
    const TrueInstant first_end = first.effective_end(h.end);
    for (std::size_t j = i + 1; j < sorted.size() && out.size() < kMaxPerKind; ++j) {
      const Belief& second = *sorted[j];
      if (second.start >= first_end) break;  // sorted by start: no later one overlaps either
      if (second.client == first.client || second.key != first.key || second.start >= second.effective_end(h.end))
        continue;
      const auto& a = h.clients[first.client].name;
      const auto& b = h.clients[second.client].name;
      const std::string which = first.key.empty() ? "the lock" : first.key;
      out.push_back({name_of(ViolationKind::MutualExclusion), second.start, {a, b},
                     a + " and " + b + " both believed they held " + which + " from " + at_text(second.start),
                     {describe(h, first), describe(h, second)}});
    }
  }
  return out;
}

std::vector<Violation> check_wrong_owner_release(const History& h) {
  // Ownership is who created the entry (docs/architecture.md), not the token's value.
  std::map<std::pair<HostId, std::string>, std::pair<std::size_t, const EntryEvent*>> creator;
  std::vector<Violation> out;
  for (const EntryEvent& e : h.entries) {
    const auto where = std::make_pair(e.node, e.key);
    auto it = creator.find(where);
    switch (e.kind) {
      case Kind::Created:
        if (e.client) creator[where] = {*e.client, &e};
        else creator.erase(where);
        break;
      case Kind::Expired:
        creator.erase(where);
        break;
      case Kind::Modified:
      case Kind::Deleted: {
        const bool foreign = it != creator.end() && e.client && *e.client != it->second.first && !e.replicated;
        if (foreign && out.size() < kMaxPerKind) {
          const auto& culprit = h.clients[*e.client].name;
          const auto& owner = h.clients[it->second.first].name;
          const char* verb = e.kind == Kind::Deleted ? "removed" : "changed";
          out.push_back({name_of(ViolationKind::WrongOwnerRelease), e.at, {culprit, owner},
                         culprit + "'s " + e.command + " " + verb + " " + owner + "'s lock on " + node_name(h, e.node),
                         {at_text(it->second.second->at) + " " + owner + " created " + e.key + " on " +
                              node_name(h, e.node) + " (" + it->second.second->command + ")",
                          at_text(e.at) + " " + culprit + " " + verb + " it (" + e.command + ")"}});
        }
        if (e.kind == Kind::Deleted) creator.erase(where);
        break;
      }
    }
  }
  return out;
}

std::vector<Violation> check_stale_write(const History& h) {
  std::vector<Violation> out;
  std::map<std::string, const StorageWrite*> latest_by_key;  // accepted write of each key's latest holder so far
  for (const StorageWrite& w : h.writes) {
    if (!w.accepted) continue;
    const StorageWrite*& latest = latest_by_key[w.key];
    if (latest && w.grant < latest->grant && out.size() < kMaxPerKind) {
      const auto& stale = h.clients[w.client].name;
      const auto& later = h.clients[latest->client].name;
      auto token = [](const StorageWrite& x) {
        return x.fencing_token ? " with fencing token " + std::to_string(*x.fencing_token) : std::string();
      };
      out.push_back({name_of(ViolationKind::StaleWrite), w.at, {stale, later},
                     "storage accepted " + stale + "'s write after " + later + "'s, though " + later +
                         " acquired the lock later",
                     {at_text(latest->at) + " storage accepted " + later + "'s write " + std::to_string(latest->index) +
                          " (grant " + std::to_string(latest->grant + 1) + ")" + token(*latest),
                      at_text(w.at) + " storage accepted " + stale + "'s write " + std::to_string(w.index) +
                          " (grant " + std::to_string(w.grant + 1) + ")" + token(w)}});
    }
    if (!latest || w.grant > latest->grant) latest = &w;
  }
  return out;
}

std::vector<Violation> check_lock_unavailable(const History& h, Duration liveness) {
  struct Entry {
    HostId node;
    std::string key;
    std::size_t creator;
    TrueInstant created;
    TrueInstant removed;
  };
  // Rebuild each entry's lifetime on each node (client-created entries only).
  std::vector<Entry> lifetimes;
  std::map<std::pair<HostId, std::string>, std::size_t> open;
  for (const EntryEvent& e : h.entries) {
    const auto where = std::make_pair(e.node, e.key);
    if (e.kind == Kind::Created) {
      if (auto it = open.find(where); it != open.end()) lifetimes[it->second].removed = e.at;
      open.erase(where);
      if (e.client && !e.replicated) {
        open[where] = lifetimes.size();
        lifetimes.push_back({e.node, e.key, *e.client, e.at, h.end});
      }
    } else if (e.kind == Kind::Deleted || e.kind == Kind::Expired) {
      if (auto it = open.find(where); it != open.end()) lifetimes[it->second].removed = e.at;
      open.erase(where);
    }
  }
  std::vector<Violation> out;
  for (const Entry& entry : lifetimes) {
    const ClientInfo& owner = h.clients[entry.creator];
    std::optional<TrueInstant> gone;
    for (TrueInstant c : owner.crashes)
      if (c >= entry.created && (!gone || c < *gone)) gone = c;
    if (owner.finished && *owner.finished >= entry.created && (!gone || *owner.finished < *gone)) gone = owner.finished;
    if (!gone) continue;
    const TrueInstant stuck_from = std::max(entry.created, *gone) + liveness;
    if (stuck_from >= entry.removed) continue;
    // Was anyone else trying to get the lock while it was stuck?
    for (const Attempt& a : h.attempts) {
      if (a.client == entry.creator) continue;
      const TrueInstant a_end = a.end.value_or(h.end);
      if (a_end <= stuck_from || a.start >= entry.removed) continue;
      const auto& waiter = h.clients[a.client].name;
      out.push_back({name_of(ViolationKind::LockUnavailable), std::max(stuck_from, a.start), {owner.name, waiter},
                     entry.key + " on " + node_name(h, entry.node) + " outlived " + owner.name + " by more than " +
                         format_duration(liveness) + " while " + waiter + " was trying to acquire it",
                     {at_text(entry.created) + " " + owner.name + " created " + entry.key + " on " + node_name(h, entry.node),
                      at_text(*gone) + " " + owner.name + (owner.finished && *gone == *owner.finished ? " finished" : " crashed"),
                      at_text(a.start) + " " + waiter + " started trying to acquire"}});
      break;
    }
    if (out.size() >= kMaxPerKind) break;
  }
  return out;
}

namespace {

std::string order_text(const History& h, const OrderRecord& o) {
  std::string s = at_text(o.at) + " storage " + (o.accepted ? "stored " : "refused ") + h.clients[o.client].name +
                  "'s order";
  if (!o.refused.empty()) s += " (" + o.refused + ")";
  if (o.stock_after) s += ", stock row " + std::to_string(o.segment + 1) + " now " + std::to_string(*o.stock_after);
  return s;
}

std::string items(std::int64_t n) { return std::to_string(n) + (n == 1 ? " item" : " items"); }

}  // namespace

bool is_sale_violation(const std::string& kind) {
  const auto known = violation_kind_from_name(kind);
  return known && violation_kind_info(*known).sale_only;
}

std::vector<Violation> check_oversell(const History& h) {
  if (!h.sale) return {};
  std::vector<const OrderRecord*> stored;
  for (const OrderRecord& o : h.orders) {
    if (!o.accepted) continue;
    stored.push_back(&o);
    if (static_cast<std::int64_t>(stored.size()) <= h.sale->stock) continue;
    // The first order past the stock proves it; the total says how far.
    std::int64_t total = 0;
    for (const OrderRecord& x : h.orders) total += x.accepted ? 1 : 0;
    const OrderRecord& last_in = *stored[stored.size() - 2];
    const std::string& buyer = h.clients[o.client].name;
    return {{name_of(ViolationKind::Oversell), o.at, {buyer},
             "storage accepted " + std::to_string(total) + " orders for a stock of " + items(h.sale->stock) + "; " +
                 buyer + "'s was order " + std::to_string(stored.size()),
             {"the sale opened with " + items(h.sale->stock), order_text(h, last_in) + " (order " +
                  std::to_string(stored.size() - 1) + ", the last item)",
              order_text(h, o) + " (order " + std::to_string(stored.size()) + ")"}}};
  }
  return {};
}

std::vector<Violation> check_double_purchase(const History& h) {
  if (!h.sale) return {};
  std::vector<Violation> out;
  std::map<std::size_t, std::vector<const OrderRecord*>> by_buyer;
  for (const OrderRecord& o : h.orders) {
    if (!o.accepted) continue;
    auto& mine = by_buyer[o.client];
    mine.push_back(&o);
    if (static_cast<int>(mine.size()) != h.sale->per_buyer + 1 || out.size() >= kMaxPerKind) continue;
    const std::string& buyer = h.clients[o.client].name;
    std::vector<std::string> evidence;
    for (const OrderRecord* x : mine) evidence.push_back(order_text(h, *x));
    out.push_back({name_of(ViolationKind::DoublePurchase), o.at, {buyer},
                   buyer + " holds " + std::to_string(mine.size()) + " orders; the shop allows " +
                       std::to_string(h.sale->per_buyer) + " per buyer",
                   std::move(evidence)});
  }
  return out;
}

std::vector<Violation> check_lost_order(const History& h) {
  if (!h.sale) return {};
  std::vector<Violation> out;
  for (std::size_t c = 0; c < h.clients.size() && out.size() < kMaxPerKind; ++c) {
    std::vector<TrueInstant> told;
    for (const Purchase& p : h.purchases)
      if (p.client == c) told.push_back(p.at);
    std::vector<const OrderRecord*> mine;
    std::size_t stored = 0;
    for (const OrderRecord& o : h.orders) {
      if (o.client != c) continue;
      mine.push_back(&o);
      stored += o.accepted ? 1 : 0;
    }
    if (told.size() <= stored) continue;
    const std::string& buyer = h.clients[c].name;
    const TrueInstant first_lost = told[stored];
    std::vector<std::string> evidence{at_text(first_lost) + " " + buyer + " was told it bought"};
    for (const OrderRecord* o : mine) evidence.push_back(order_text(h, *o));
    for (TrueInstant crash : h.clients[c].crashes)
      if (crash >= first_lost) evidence.push_back(at_text(crash) + " " + buyer + " crashed");
    evidence.push_back("at the end " + std::to_string(stored) + " of its orders exist");
    out.push_back({name_of(ViolationKind::LostOrder), first_lost, {buyer},
                   buyer + " was told it bought " + std::to_string(told.size()) + " time(s); the storage holds " +
                       std::to_string(stored) + " of its orders",
                   std::move(evidence)});
  }
  return out;
}

namespace {

// Each kind's checker, in ViolationKind order: a kind without one does not compile.
struct KindChecker {
  ViolationKind kind;
  std::vector<Violation> (*check)(const History&, Duration liveness);
};
constexpr std::array<KindChecker, kViolationKindCount> kCheckers = {{
    {ViolationKind::MutualExclusion, [](const History& h, Duration) { return check_mutual_exclusion(h); }},
    {ViolationKind::WrongOwnerRelease, [](const History& h, Duration) { return check_wrong_owner_release(h); }},
    {ViolationKind::StaleWrite, [](const History& h, Duration) { return check_stale_write(h); }},
    {ViolationKind::LockUnavailable, check_lock_unavailable},
    {ViolationKind::Oversell, [](const History& h, Duration) { return check_oversell(h); }},
    {ViolationKind::DoublePurchase, [](const History& h, Duration) { return check_double_purchase(h); }},
    {ViolationKind::LostOrder, [](const History& h, Duration) { return check_lost_order(h); }},
}};
constexpr bool checkers_in_kind_order() {
  for (std::size_t i = 0; i < kCheckers.size(); ++i)
    if (static_cast<std::size_t>(kCheckers[i].kind) != i || kCheckers[i].check == nullptr) return false;
  return true;
}
static_assert(checkers_in_kind_order(), "one checker per ViolationKind, in enum order");

// A History both worlds record (the simulator's runner and live mode, which
// stamps every record under one mutex: LiveCore::now_true) holds these;
// a checker reading one that does not would judge nonsense silently. Entry
// events are left out: live mode orders them per node, not across nodes.
void assert_beliefs_well_formed(const History& h) {
  TrueInstant last{};
  for (std::size_t i = 0; i < h.beliefs.size(); ++i) {
    const Belief& b = h.beliefs[i];
    assert(b.client < h.clients.size() && "a belief names a known client");
    assert(b.grant == i && h.next_grant >= h.beliefs.size() && "grants are numbered in the order beliefs open");
    assert(b.start >= last && "beliefs open in true time order");
    assert((!b.end || *b.end >= b.start) && "a belief ends after it starts");
    assert((b.end_reason.empty() || b.end) && "a release, abandon or crash ends the belief");
    last = b.start;
  }
}

void assert_records_well_formed(const History& h) {
  for (const Attempt& a : h.attempts) {
    assert(a.client < h.clients.size() && (!a.end || *a.end >= a.start) && "an attempt ends after it starts");
    assert((!a.acquired || a.end) && "an acquired attempt has ended");
  }
  TrueInstant last{};
  for (const StorageWrite& w : h.writes) {
    assert(w.client < h.clients.size() && w.at >= last && "storage writes in true time order");
    last = w.at;
  }
  // A client's "released" point follows an "acquired" point of the same
  // client: a release (or an extend) is never recorded before an acquire.
  std::vector<bool> acquired(h.clients.size(), false);
  last = TrueInstant{};
  for (const PointReached& p : h.points) {
    assert(p.client < h.clients.size() && p.at >= last && "trigger points in the order they were reached");
    if (p.event == TriggerEvent::Acquired) acquired[p.client] = true;
    assert((p.event != TriggerEvent::Released || acquired[p.client]) && "a release after an acquire of that client");
    last = p.at;
  }
}

void assert_well_formed(const History& h) {
  assert_beliefs_well_formed(h);
  assert_records_well_formed(h);
}

}  // namespace

std::vector<Violation> check_all(const History& h, Duration liveness) {
  assert_well_formed(h);
  std::vector<Violation> all;
  for (const KindChecker& checker : kCheckers) {
    auto part = checker.check(h, liveness);
    all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  std::stable_sort(all.begin(), all.end(), [](const Violation& a, const Violation& b) {
    return a.at != b.at ? a.at < b.at : a.kind < b.kind;
  });
  return all;
}

}  // namespace locksim::scenarios
