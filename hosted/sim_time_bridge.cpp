// SimTimeBridge (sim_time_bridge.hpp): the loop that interleaves real
// processes with the simulated world.
#include "hosted/sim_time_bridge.hpp"

namespace locksim::hosted {

SimTimeBridge::SimTimeBridge(SimTimeBridgeOptions options) : options_(std::move(options)), world_(options_.seed) {
  world_.network().set_latency(options_.latency);
  for (std::size_t i = 0; i < options_.nodes; ++i) {
    sim::Host& host = world_.add_host("redis-" + std::to_string(i + 1));
    nodes_.push_back(std::make_unique<sim::redis::RedisNode>(host, options_.node));
    host.start();
  }
}

SimTimeBridge::~SimTimeBridge() {
  clients_.clear();  // their processes are killed before the hosts go
  world_.destroy_hosts();
}

std::size_t SimTimeBridge::add_client(const std::string& name) {
  sim::Host& host = world_.add_host(name);
  host.start();
  clients_.push_back(
      std::make_unique<HostedClient>(host, nodes_.size(), [this](std::size_t n) { return nodes_.at(n)->id(); }));
  return clients_.size() - 1;
}

int SimTimeBridge::port(std::size_t client, std::size_t node) const { return clients_.at(client)->port(node); }
sim::Host& SimTimeBridge::client_host(std::size_t client) { return clients_.at(client)->host(); }
const ClientEnd& SimTimeBridge::end(std::size_t client) const { return clients_.at(client)->end(); }

bool SimTimeBridge::refused() const {
  for (const auto& c : clients_)
    if (!c->end().refused.empty()) return true;
  return false;
}

void SimTimeBridge::start(std::size_t client, std::vector<std::string> argv,
                          std::vector<std::pair<std::string, std::string>> env, int stdout_fd) {
  HostedClient& c = *clients_.at(client);
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.env = std::move(env);
  spec.preload = options_.preload;
  spec.stdout_fd = stdout_fd;
  spec.bound = options_.bound;
  c.start(std::move(spec), "hosted-" + c.host().name());
}

void SimTimeBridge::run(TrueInstant until) {
  for (;;) {
    for (auto& c : clients_) c->run();  // client order
    if (refused()) return;
    for (auto& c : clients_) c->send_commands();
    const auto next = world_.scheduler().next_at();
    if (!next || *next > until) {
      if (world_.now() < until && next) world_.scheduler().run_until(until);
      return;
    }
    world_.scheduler().run_until(*next);
  }
}

}  // namespace locksim::hosted
