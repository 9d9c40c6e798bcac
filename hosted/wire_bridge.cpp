// WireBridge (wire_bridge.hpp): socket commands through the simulated network.
#include "hosted/wire_bridge.hpp"

#include <cstring>
#include <string>

#include "vocab/task.hpp"

namespace locksim::hosted {
namespace {

bool is_quit(const Argv& argv) {
  return !argv.empty() && argv[0].size() == 4 && strncasecmp(argv[0].c_str(), "quit", 4) == 0;
}

Task<void> forward_task(WireBridge* bridge, sim::Connection* conn, Argv argv, WireBridge::Destination to) {
  Argv sent = argv;
  Reply reply = co_await conn->call(std::move(sent), kNoCommandTimeout);
  bridge->deliver(to, argv, std::move(reply));
}

}  // namespace

WireBridge::WireBridge(WireBridgeOptions options) : world_(options.seed), started_(std::chrono::steady_clock::now()) {
  world_.network().set_latency(options.latency);
  for (std::size_t i = 0; i < options.nodes; ++i) {
    sim::Host& host = world_.add_host("redis-" + std::to_string(i + 1));
    nodes_.push_back(std::make_unique<sim::redis::RedisNode>(host, options.node));
    servers_.push_back(std::make_unique<SimSocketServer>());
    host.start();
  }
}

WireBridge::~WireBridge() { world_.destroy_hosts(); }

sim::Host& WireBridge::client_host(std::size_t node, std::uint64_t connection) {
  auto [it, added] = clients_.try_emplace({node, connection}, sim::kNoHost);
  if (added) {
    const std::string name = "wire-" + std::to_string(node + 1) + "-" + std::to_string(connection);
    it->second = world_.add_host(name).id();
  }
  return world_.host(it->second);
}

// The command leaves its client host now, on the host's connection to the node.
void WireBridge::forward(std::size_t node, WireCommand command) {
  sim::Host& client = client_host(node, command.connection);
  sim::Connection& conn = world_.network().connect(client.id(), nodes_[node]->id());
  ++forwarded_;
  client.spawn(forward_task(this, &conn, std::move(command.argv), {node, command.connection, command.seq}));
}

void WireBridge::deliver(const Destination& to, const Argv& argv, Reply reply) {
  SimSocketServer& server = *servers_[to.node];
  if (server.answer(to.connection, to.seq, reply) && is_quit(argv)) server.close_after_replies(to.connection);
}

void WireBridge::step(int max_wait_ms) {
  std::vector<const SimSocketServer*> all;
  for (const auto& server : servers_) all.push_back(server.get());
  SimSocketServer::wait_any(all, max_wait_ms);
  for (std::size_t i = 0; i < servers_.size(); ++i) {
    Drained drained = servers_[i]->drain();
    for (WireCommand& command : drained.commands) forward(i, std::move(command));
  }
  const auto elapsed = std::chrono::steady_clock::now() - started_;
  const TrueInstant target = true_epoch + std::chrono::duration_cast<Duration>(elapsed);
  world_.scheduler().run_until(std::max(target, world_.now()));
}

std::optional<sim::HostId> WireBridge::client_of(std::size_t node, std::uint64_t connection) const {
  auto it = clients_.find({node, connection});
  if (it == clients_.end()) return std::nullopt;
  return it->second;
}

void WireBridge::crash_node(std::size_t i) {
  servers_[i]->reset_all();
  nodes_[i]->host().crash();
  nodes_[i]->host().restart();
}

}  // namespace locksim::hosted
