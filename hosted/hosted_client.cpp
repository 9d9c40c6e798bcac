// HostedClient (hosted_client.hpp): a real process's waits, commands and
// replies on its simulated host.
#include "hosted/hosted_client.hpp"

#include <algorithm>
#include <variant>

#include "sim/world.hpp"
#include "vocab/task.hpp"

namespace locksim::hosted {

namespace {

Task<void> send_task(HostedClient* client, sim::Connection* conn, Argv argv, std::size_t node,
                     std::uint64_t connection, std::uint64_t seq) {
  Reply reply = co_await conn->call(std::move(argv), kNoCommandTimeout);
  client->deliver(node, connection, seq, std::move(reply));
}

Task<void> deadline_task(HostedClient* client, sim::Host* host, Duration wait_for, std::uint64_t wait) {
  co_await host->sleep(wait_for);
  client->deadline_passed(wait);
}

std::int64_t ns_of(LocalInstant t) { return t.time_since_epoch().count(); }

std::string command_text(const Argv& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

HostedClient::HostedClient(sim::Host& host, std::size_t nodes, Directory directory)
    : host_(&host), directory_(std::move(directory)) {
  for (std::size_t n = 0; n < nodes; ++n) servers_.push_back(std::make_unique<SimSocketServer>());
}

HostedClient::~HostedClient() {
  if (process_) process_->kill();
}

// The port node n's address names: 6379 + n, below the ephemeral ports
// (from 32768), so a told address never shadows a real socket of locksim's.
static std::uint16_t told_port(std::size_t node) { return static_cast<std::uint16_t>(6379 + node); }

std::string HostedClient::address(std::size_t node) const {
  (void)servers_.at(node);  // a node it has
  return "127.0.0.1:" + std::to_string(told_port(node));
}

void HostedClient::start(ProcessSpec spec, const std::string& seed_stream, ControlledProcess* zygote) {
  spec.ports.clear();
  for (std::size_t n = 0; n < servers_.size(); ++n)
    spec.ports.emplace_back(told_port(n), static_cast<std::uint16_t>(port(n)));
  spec.seed = host_->world().stream(seed_stream).next();
  spec.monotonic_ns = ns_of(host_->monotonic_now());
  spec.wall_ns = ns_of(host_->wall_now());
  if (process_) process_->kill();
  blocked_.reset();
  resumed_.reset();
  deadline_id_.reset();
  end_ = {};
  process_ = zygote ? std::make_unique<ControlledProcess>(spec, *zygote) : std::make_unique<ControlledProcess>(spec);
  runnable_ = true;  // to its first wait
  ended_ = false;
  host_->world().note(host_->id(), "process", "started " + spec.argv.front());
}

bool HostedClient::run() {
  const bool ran = runnable() && !host_->paused();
  while (runnable() && !host_->paused()) run_once();
  return ran;
}

void HostedClient::run_once() {
  runnable_ = false;
  ran_ = true;
  if (resumed_) {  // the wait's end, decided during the instant (resume)
    if (resumed_->timed_out)
      process_->resume_timed_out();
    else
      process_->resume_ready(resumed_->fds);
    resumed_.reset();
  }
  const Stop stop = process_->run_until_blocked();
  if (const auto* b = std::get_if<Blocked>(&stop)) return on_blocked(*b);
  ended_ = true;
  if (const auto* e = std::get_if<Exited>(&stop)) {
    end_.exit_status = e->status;
    host_->world().note(host_->id(), "process", "exited " + std::to_string(e->status));
  } else {
    end_.refused = std::get<Refused>(stop).reason;
    host_->world().note(host_->id(), "process", "refused: " + end_.refused);
  }
}

// The wait's deadline is a sleep on the client's host (its clock's drift
// applies; a pause defers it); a deadline already passed ends it at once.
void HostedClient::on_blocked(const Blocked& b) {
  blocked_ = b;
  const std::uint64_t wait = ++wait_;
  if (!b.deadline_ns) return;
  const std::int64_t left = *b.deadline_ns - ns_of(host_->monotonic_now());
  if (left <= 0) return resume(true);
  deadline_id_ = host_->spawn(deadline_task(this, host_, Duration{left}, wait));
}

// The wait ends now, in simulated time, but the process is told so only
// when it next runs (run_once), after every event of this instant: told at
// once, it would run beside them in real time, and whether it saw the
// instant's other replies, or a request written after this one, would
// depend on which got there first.
void HostedClient::resume(bool timed_out) {
  if (deadline_id_ && !timed_out) host_->cancel(*deadline_id_);
  deadline_id_.reset();
  process_->set_clocks(ns_of(host_->monotonic_now()), ns_of(host_->wall_now()));
  resumed_ = Resumed{timed_out, {}};
  if (!timed_out)
    for (const auto& f : blocked_->fds) resumed_->fds.push_back(f.fd);
  blocked_.reset();
  runnable_ = true;
}

void HostedClient::input_ready(int fd) {
  if (ended_ || !blocked_) return;
  if (std::any_of(blocked_->fds.begin(), blocked_->fds.end(), [fd](const WaitFd& w) { return w.fd == fd; }))
    resume(false);
}

void HostedClient::kill() {
  if (process_) process_->kill();
  resumed_.reset();
  for (auto& s : servers_) s->reset_all();
  blocked_.reset();
  deadline_id_.reset();  // the crash dropped the host's tasks
  runnable_ = false;
  ended_ = true;
}

void HostedClient::send_commands() {
  if (!ran_) return;
  ran_ = false;
  sim::World& world = host_->world();
  for (std::size_t n = 0; n < servers_.size(); ++n) {
    Drained drained = servers_[n]->drain();
    sim::Connection& conn = world.network().connect(host_->id(), directory_(n));
    for (WireCommand& command : drained.commands) {
      world.note(host_->id(), "send", command_text(command.argv));
      host_->spawn(send_task(this, &conn, std::move(command.argv), n, command.connection, command.seq));
    }
  }
}

void HostedClient::deliver(std::size_t node, std::uint64_t connection, std::uint64_t seq, Reply reply) {
  servers_[node]->answer(connection, seq, reply);
  // A process waiting on fds looks again (the shim polls before it trusts
  // the answer); one that only sleeps is left asleep.
  if (blocked_ && !blocked_->fds.empty() && !ended_) resume(false);
}

void HostedClient::deadline_passed(std::uint64_t wait) {
  deadline_id_.reset();
  if (wait_ == wait && blocked_ && !ended_) resume(true);
}

}  // namespace locksim::hosted
