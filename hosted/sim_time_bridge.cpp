// SimTimeBridge (sim_time_bridge.hpp): the loop that interleaves real
// processes with the simulated world.
#include "hosted/sim_time_bridge.hpp"

#include <stdexcept>
#include <variant>

#include "vocab/task.hpp"

namespace locksim::hosted {

namespace {

// A real TCP connection has no command timeout: the client library's own
// socket timeout decides. The simulated call waits (almost) forever.
constexpr Duration kNoTimeout = std::chrono::hours(24 * 365);

Task<void> send_task(SimTimeBridge* bridge, sim::Connection* conn, Argv argv, std::size_t client, std::size_t node,
                     std::uint64_t connection, std::uint64_t seq) {
  Reply reply = co_await conn->call(std::move(argv), kNoTimeout);
  bridge->deliver(client, node, connection, seq, std::move(reply));
}

Task<void> deadline_task(SimTimeBridge* bridge, sim::Host* host, Duration wait_for, std::size_t client,
                         std::uint64_t wait) {
  co_await host->sleep(wait_for);
  bridge->deadline_passed(client, wait);
}

std::int64_t ns_of(LocalInstant t) { return t.time_since_epoch().count(); }

std::string command_text(const Argv& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

struct SimTimeBridge::Client {
  std::size_t index = 0;
  sim::Host* host = nullptr;
  std::vector<std::unique_ptr<SimSocketServer>> servers;  // one per node
  std::unique_ptr<ControlledProcess> process;
  std::optional<Blocked> blocked;  // the wait it is in, if any
  bool runnable = false;
  std::uint64_t wait = 0;                    // the current wait's number: a stale deadline is ignored
  std::optional<std::uint64_t> deadline_id;  // the host task that ends the current wait
  ClientEnd end;
  bool ended = false;
};

SimTimeBridge::SimTimeBridge(SimTimeBridgeOptions options) : options_(std::move(options)), world_(options_.seed) {
  world_.network().set_latency(options_.latency);
  for (std::size_t i = 0; i < options_.nodes; ++i) {
    sim::Host& host = world_.add_host("redis-" + std::to_string(i + 1));
    nodes_.push_back(std::make_unique<sim::redis::RedisNode>(host, options_.node));
    host.start();
  }
}

SimTimeBridge::~SimTimeBridge() {
  for (auto& c : clients_)
    if (c->process) c->process->kill();
  world_.destroy_hosts();
}

std::size_t SimTimeBridge::add_client(const std::string& name) {
  auto c = std::make_unique<Client>();
  c->index = clients_.size();
  c->host = &world_.add_host(name);
  c->host->start();
  for (std::size_t n = 0; n < nodes_.size(); ++n) c->servers.push_back(std::make_unique<SimSocketServer>());
  clients_.push_back(std::move(c));
  return clients_.size() - 1;
}

int SimTimeBridge::port(std::size_t client, std::size_t node) const {
  return clients_.at(client)->servers.at(node)->port();
}
sim::Host& SimTimeBridge::client_host(std::size_t client) { return *clients_.at(client)->host; }
const ClientEnd& SimTimeBridge::end(std::size_t client) const { return clients_.at(client)->end; }

bool SimTimeBridge::refused() const {
  for (const auto& c : clients_)
    if (!c->end.refused.empty()) return true;
  return false;
}

void SimTimeBridge::start(std::size_t client, std::vector<std::string> argv,
                          std::vector<std::pair<std::string, std::string>> env, int stdout_fd) {
  Client& c = *clients_.at(client);
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.env = std::move(env);
  spec.preload = options_.preload;
  spec.seed = world_.stream("hosted-" + c.host->name()).next();
  spec.monotonic_ns = ns_of(c.host->monotonic_now());
  spec.wall_ns = ns_of(c.host->wall_now());
  spec.stdout_fd = stdout_fd;
  spec.bound = options_.bound;
  c.process = std::make_unique<ControlledProcess>(spec);
  c.runnable = true;  // to its first wait
  c.ended = false;
  world_.note(c.host->id(), "process", "started " + spec.argv.front());
}

void SimTimeBridge::run(TrueInstant until) {
  for (;;) {
    run_runnable();
    if (refused()) return;
    send_commands();
    const auto next = world_.scheduler().next_at();
    if (!next || *next > until) {
      if (world_.now() < until && next) world_.scheduler().run_until(until);
      return;
    }
    world_.scheduler().run_until(*next);
  }
}

void SimTimeBridge::run_runnable() {
  for (auto& c : clients_)
    while (c->runnable) run_client(*c);
}

void SimTimeBridge::run_client(Client& c) {
  c.runnable = false;
  const Stop stop = c.process->run_until_blocked();
  if (const auto* b = std::get_if<Blocked>(&stop)) return on_blocked(c, *b);
  c.ended = true;
  if (const auto* e = std::get_if<Exited>(&stop)) {
    c.end.exit_status = e->status;
    world_.note(c.host->id(), "process", "exited " + std::to_string(e->status));
  } else {
    c.end.refused = std::get<Refused>(stop).reason;
    world_.note(c.host->id(), "process", "refused: " + c.end.refused);
  }
}

// The wait's deadline is a sleep on the client's host (its clock's drift
// applies; a pause defers it); a deadline already passed ends it at once.
void SimTimeBridge::on_blocked(Client& c, const Blocked& b) {
  c.blocked = b;
  const std::uint64_t wait = ++c.wait;
  if (!b.deadline_ns) return;
  const std::int64_t left = *b.deadline_ns - ns_of(c.host->monotonic_now());
  if (left <= 0) return resume(c, true);
  c.deadline_id = c.host->spawn(deadline_task(this, c.host, Duration{left}, c.index, wait));
}

void SimTimeBridge::resume(Client& c, bool timed_out) {
  if (c.deadline_id && !timed_out) c.host->cancel(*c.deadline_id);
  c.deadline_id.reset();
  c.process->set_clocks(ns_of(c.host->monotonic_now()), ns_of(c.host->wall_now()));
  if (timed_out) {
    c.process->resume_timed_out();
  } else {
    std::vector<int> fds;
    for (const auto& f : c.blocked->fds) fds.push_back(f.fd);
    c.process->resume_ready(fds);
  }
  c.blocked.reset();
  c.runnable = true;
}

// What every client wrote to its sockets while it ran leaves its host now,
// in client, node, connection and byte order.
void SimTimeBridge::send_commands() {
  for (auto& c : clients_) {
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      Drained drained = c->servers[n]->drain();
      sim::Connection& conn = world_.network().connect(c->host->id(), nodes_[n]->id());
      for (WireCommand& command : drained.commands) {
        world_.note(c->host->id(), "send", command_text(command.argv));
        c->host->spawn(send_task(this, &conn, std::move(command.argv), c->index, n, command.connection, command.seq));
      }
    }
  }
}

void SimTimeBridge::deliver(std::size_t client, std::size_t node, std::uint64_t connection, std::uint64_t seq,
                            Reply reply) {
  Client& c = *clients_.at(client);
  SimSocketServer& server = *c.servers[node];
  if (reply.is_error() && (reply.str == kResetError || reply.str == kTimeoutError || reply.str == kRefusedError))
    server.reset(connection);
  else
    server.reply(connection, seq, reply);
  // A process waiting on fds looks again (the shim polls before it trusts
  // the answer); one that only sleeps is left asleep.
  if (c.blocked && !c.blocked->fds.empty() && !c.ended) resume(c, false);
}

void SimTimeBridge::deadline_passed(std::size_t client, std::uint64_t wait) {
  Client& c = *clients_.at(client);
  c.deadline_id.reset();
  if (c.wait == wait && c.blocked && !c.ended) resume(c, true);
}

}  // namespace locksim::hosted
