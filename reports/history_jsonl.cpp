#include "reports/history_jsonl.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace locksim::reports {

namespace {

using nlohmann::ordered_json;
using scenarios::History;

std::int64_t ns(TrueInstant t) { return t.time_since_epoch().count(); }

ordered_json optional_ns(const std::optional<TrueInstant>& t) { return t ? ordered_json(ns(*t)) : nullptr; }

ordered_json optional_token(const std::optional<std::int64_t>& token) { return token ? ordered_json(*token) : nullptr; }

std::string client_name(const History& h, std::size_t client) {
  return client < h.clients.size() ? h.clients[client].name : "?";
}

std::string node_name(const History& h, sim::HostId node) {
  return node < h.nodes.size() ? h.nodes[node] : std::to_string(node);
}

const char* change_name(sim::redis::KeyEvent::Kind kind) {
  using Kind = sim::redis::KeyEvent::Kind;
  switch (kind) {
    case Kind::Created: return "created";
    case Kind::Modified: return "modified";
    case Kind::Deleted: return "deleted";
    case Kind::Expired: return "expired";
  }
  return "?";
}

// Lines keyed by (time, order of emission) so equal instants keep a fixed order.
using Line = std::pair<std::int64_t, ordered_json>;

void add(std::vector<Line>& lines, std::int64_t at, ordered_json record) { lines.emplace_back(at, std::move(record)); }

void beliefs(const History& h, std::vector<Line>& lines) {
  for (const auto& b : h.beliefs)
    add(lines, ns(b.start),
        {{"type", "belief"}, {"at_ns", ns(b.start)}, {"client", client_name(h, b.client)}, {"grant", b.grant + 1},
         {"end_ns", optional_ns(b.end)}, {"end_reason", b.end_reason}, {"deadline_ns", optional_ns(b.deadline)},
         {"fencing_token", optional_token(b.fencing_token)}});
}

void attempts(const History& h, std::vector<Line>& lines) {
  for (const auto& a : h.attempts)
    add(lines, ns(a.start),
        {{"type", "attempt"}, {"at_ns", ns(a.start)}, {"client", client_name(h, a.client)},
         {"end_ns", optional_ns(a.end)}, {"acquired", a.acquired}});
}

void entries(const History& h, std::vector<Line>& lines) {
  for (const auto& e : h.entries)
    add(lines, ns(e.at),
        {{"type", "entry"}, {"at_ns", ns(e.at)}, {"node", node_name(h, e.node)},
         {"client", e.client ? ordered_json(client_name(h, *e.client)) : nullptr}, {"replicated", e.replicated},
         {"change", change_name(e.kind)}, {"key", e.key}, {"command", e.command}});
}

void writes(const History& h, std::vector<Line>& lines) {
  for (const auto& w : h.writes)
    add(lines, ns(w.at),
        {{"type", "write"}, {"at_ns", ns(w.at)}, {"client", client_name(h, w.client)}, {"grant", w.grant + 1},
         {"index", w.index}, {"fencing_token", optional_token(w.fencing_token)}, {"accepted", w.accepted}});
}

// A sale's orders (stored or refused) and what buyers were told.
void sale(const History& h, std::vector<Line>& lines) {
  for (const auto& o : h.orders)
    add(lines, ns(o.at),
        {{"type", "order"}, {"at_ns", ns(o.at)}, {"client", client_name(h, o.client)}, {"segment", o.segment + 1},
         {"accepted", o.accepted}, {"refused", o.refused},
         {"stock_after", o.stock_after ? ordered_json(*o.stock_after) : nullptr}});
  for (const auto& p : h.purchases)
    add(lines, ns(p.at), {{"type", "purchase"}, {"at_ns", ns(p.at)}, {"client", client_name(h, p.client)}});
}

void faults(const History& h, std::vector<Line>& lines) {
  for (const auto& f : h.faults)
    add(lines, ns(f.at),
        {{"type", "fault"}, {"at_ns", ns(f.at)}, {"target", f.target}, {"description", f.description},
         {"until_ns", optional_ns(f.until)}});
}

void client_events(const History& h, std::vector<Line>& lines) {
  for (const auto& c : h.clients) {
    for (const auto& t : c.crashes) add(lines, ns(t), {{"type", "crash"}, {"at_ns", ns(t)}, {"client", c.name}});
    if (c.finished)
      add(lines, ns(*c.finished), {{"type", "finished"}, {"at_ns", ns(*c.finished)}, {"client", c.name}});
  }
}

}  // namespace

std::string history_to_jsonl(const History& history) {
  std::vector<Line> lines;
  beliefs(history, lines);
  attempts(history, lines);
  entries(history, lines);
  writes(history, lines);
  sale(history, lines);
  faults(history, lines);
  client_events(history, lines);
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [at, record] : lines) out += record.dump() + "\n";
  out += ordered_json{{"type", "end"}, {"at_ns", ns(history.end)}}.dump() + "\n";
  return out;
}

}  // namespace locksim::reports
