// The property checkers. Each is a pass over the recorded history; none
// knows which lock algorithm produced it.
#include "scenarios/checkers.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace locksim::scenarios {

namespace {

using Kind = sim::redis::KeyEvent::Kind;

// Every moment in a violation's text reads as seconds ("35.012s").
std::string at_text(TrueInstant t) { return sim::format_seconds(t.time_since_epoch()); }

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
      if (second.client == first.client || second.start >= second.effective_end(h.end)) continue;
      const auto& a = h.clients[first.client].name;
      const auto& b = h.clients[second.client].name;
      out.push_back({"mutual-exclusion", second.start, {a, b},
                     a + " and " + b + " both believed they held the lock from " + at_text(second.start),
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
          out.push_back({"wrong-owner-release", e.at, {culprit, owner},
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
  const StorageWrite* latest = nullptr;  // accepted write of the latest holder so far
  for (const StorageWrite& w : h.writes) {
    if (!w.accepted) continue;
    if (latest && w.grant < latest->grant && out.size() < kMaxPerKind) {
      const auto& stale = h.clients[w.client].name;
      const auto& later = h.clients[latest->client].name;
      auto token = [](const StorageWrite& x) {
        return x.fencing_token ? " with fencing token " + std::to_string(*x.fencing_token) : std::string();
      };
      out.push_back({"stale-write", w.at, {stale, later},
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

std::vector<Violation> check_lock_unavailable(const History& h, sim::Duration liveness) {
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
      out.push_back({"lock-unavailable", std::max(stuck_from, a.start), {owner.name, waiter},
                     entry.key + " on " + node_name(h, entry.node) + " outlived " + owner.name + " by more than " +
                         sim::format_duration(liveness) + " while " + waiter + " was trying to acquire it",
                     {at_text(entry.created) + " " + owner.name + " created " + entry.key + " on " + node_name(h, entry.node),
                      at_text(*gone) + " " + owner.name + (owner.finished && *gone == *owner.finished ? " finished" : " crashed"),
                      at_text(a.start) + " " + waiter + " started trying to acquire"}});
      break;
    }
    if (out.size() >= kMaxPerKind) break;
  }
  return out;
}

std::vector<Violation> check_all(const History& h, sim::Duration liveness) {
  std::vector<Violation> all;
  for (auto part : {check_mutual_exclusion(h), check_wrong_owner_release(h), check_stale_write(h),
                    check_lock_unavailable(h, liveness)})
    all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  std::stable_sort(all.begin(), all.end(), [](const Violation& a, const Violation& b) {
    return a.at != b.at ? a.at < b.at : a.kind < b.kind;
  });
  return all;
}

}  // namespace locksim::scenarios
