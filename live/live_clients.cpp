// The live session's clients (live_clients.hpp).
#include "live/live_clients.hpp"

#include <signal.h>

#include <algorithm>

#include "live/external_lock.hpp"
#include "live/process_group.hpp"
#include "scenarios/workload.hpp"

namespace locksim::live {

using namespace std::chrono_literals;

LiveClients::LiveClients(LiveCore& core, LiveEvents& events, LiveRecorder& recorder, LiveService& service,
                         const scenarios::Scenario& s, const locks::LockInfo& lock)
    : core_(core),
      events_(events),
      recorder_(recorder),
      service_(service),
      servers_(service.servers()),
      s_(s),
      lock_(lock),
      clients_(s.clients.size()) {
  for (const auto& c : s.clients) clocks_.push_back(std::make_unique<ClientClock>(c.clock_drift_ppm));
}

LiveClients::~LiveClients() { join(); }

std::size_t LiveClients::index(const std::string& name) const {
  std::size_t c = 0;
  while (c + 1 < s_.clients.size() && s_.clients[c].name != name) ++c;
  return c;
}

// A library lock's client processes start before the run's origin, all
// side by side: an interpreter's start-up (a second or more on a loaded
// machine) is not part of the story. A restarted client starts its own.
Result<bool, LiveError> LiveClients::prestart_adapters(LiveWorld& world) {
  if (lock_.library.empty()) return true;
  try {
    for (std::size_t c = 0; c < s_.clients.size(); ++c) {
      prestarted_.push_back(std::make_unique<ExternalClient>(world, c, s_.clients[c].name, service_.client_endpoints(c),
                                                             s_.lock, adapter_command(lock_.name, s_.lock)));
    }
    for (auto& client : prestarted_) client->finish_hello();
  } catch (const AdapterFailure& e) {
    prestarted_.clear();
    return failure(LiveError{kBadInput, e.what()});
  }
  return true;
}

void LiveClients::start(scenarios::WorkloadWorld& workload, LiveWorld& world, LateReplies& late) {
  for (std::size_t c = 0; c < clients_.size(); ++c)
    threads_.emplace_back([this, c, &workload, &world, &late] { thread_main(c, workload, world, late); });
}

void LiveClients::join() {
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
  prestarted_.clear();  // those no lock took (a client that crashed first)
}

// One incarnation after another: a crashed one unwinds (its lock object,
// watchdog and connections go with its frames) and, once restarted, a new
// one runs scenarios::client_main again with a fresh runtime — a new
// process, as the simulated client restarts.
void LiveClients::thread_main(std::size_t c, scenarios::WorkloadWorld& workload, LiveWorld& world, LateReplies& late) {
  {
    std::lock_guard lk(core_.mutex);
    clients_[c].thread = std::this_thread::get_id();
  }
  for (;;) {
    {
      std::unique_lock lk(core_.mutex);
      while (!core_.stop.load() && clients_[c].down) core_.cv.wait_for(lk, 50ms);
      if (core_.stop.load()) return;
      clients_[c].running = clients_[c].incarnation;
    }
    try {
      service_.run_client(ClientRun{workload, world, late, c, *clocks_[c]});
      done_.fetch_add(1);  // its runtime (and any CP session) is closed by now
      return;
    } catch (const ClientCrashed&) {
      // its frames are gone; wait for a restart
      if (service_.links_follow_clients()) mend_links(c);
    } catch (const AdapterFailure& e) {  // the adapter broke the protocol: the run cannot be judged
      core_.fail(LiveError{kBadInput, e.what()});
      return;
    }
  }
}

void LiveClients::pause_point(std::size_t c) {
  std::unique_lock lk(core_.mutex);
  ClientState& client = clients_[c];
  while (!core_.stop.load() && client.paused_until > Clock::now() && !client.crashed())
    core_.cv.wait_until(lk, client.paused_until, [&] { return core_.stop.load() || client.crashed(); });
  if (std::this_thread::get_id() == client.thread) check_alive(c);
}

bool LiveClients::crashed(std::size_t c) {
  std::lock_guard lk(core_.mutex);
  return clients_[c].crashed();
}

bool LiveClients::paused(std::size_t c) {
  std::lock_guard lk(core_.mutex);
  return clients_[c].paused_until > Clock::now();
}

void LiveClients::check_alive(std::size_t c) const {
  if (clients_[c].crashed()) throw ClientCrashed{};
}

void LiveClients::work_until(std::size_t c, Clock::time_point deadline) {
  {
    std::unique_lock lk(core_.mutex);
    core_.cv.wait_until(lk, deadline, [&] { return core_.stop.load() || clients_[c].crashed(); });
  }
  pause_point(c);
}

// The process a client's lock runs in: faults signal it from now on, and
// the run's output says which process ran which client.
void LiveClients::adapter_process(std::size_t c, pid_t pid, const std::string& label) {
  std::lock_guard lk(core_.mutex);
  clients_[c].adapter = pid;
  if (pid > 0)
    recorder_.notes().push_back("external client: " + label + " ran as process " + std::to_string(pid) +
                                " (incarnation " + std::to_string(clients_[c].running) + ")");
}

std::unique_ptr<ExternalClient> LiveClients::take_adapter(std::size_t c) {
  std::lock_guard lk(core_.mutex);
  if (clients_[c].running != 0 || c >= prestarted_.size()) return nullptr;
  return std::move(prestarted_[c]);
}

// Where the links follow the client, the paused client's are held too
// (set_links), until the last pause covering it ends.
void LiveClients::pause(std::size_t c, Duration d) {
  const bool links = service_.links_follow_clients();
  {
    std::lock_guard lk(core_.mutex);
    clients_[c].paused_until = std::max(clients_[c].paused_until,
                                        Clock::now() + std::chrono::duration_cast<Clock::duration>(d));
    pause_process_group(clients_[c].adapter);  // its library's timers stop too
    if (!links && clients_[c].adapter <= 0) return;
    if (links) set_links(c);
  }
  std::lock_guard lk(core_.mutex);
  events_.schedule(Clock::now() + std::chrono::duration_cast<Clock::duration>(d), [this, c, links] {
    std::lock_guard inner(core_.mutex);
    if (links) set_links(c);
    // The last pause covering it has ended (a restarted process was never stopped).
    if (clients_[c].paused_until <= Clock::now()) resume_process_group(clients_[c].adapter);
  });
}

bool LiveClients::down(std::size_t c) {
  std::lock_guard lk(core_.mutex);
  return clients_[c].down;
}

// A client process dies: it believes nothing more, its attempt ends, and
// its thread unwinds at its next step (a command it already sent may
// still run on the server, as simulated).
void LiveClients::crash(std::size_t c) {
  ClientState& client = clients_[c];
  client.down = true;
  ++client.incarnation;
  if (client.adapter > 0) ::kill(-client.adapter, SIGKILL);  // its library dies with it; the owner thread reaps
  if (service_.links_follow_clients()) sever_links(c);
  scenarios::record_crash(recorder_.ledger(client.progress), c);
}

void LiveClients::revive(std::size_t c) { clients_[c].down = false; }

void LiveClients::relink() {
  if (!service_.links_follow_clients()) return;
  for (std::size_t c = 0; c < clients_.size(); ++c) set_links(c);  // a paused client's links stay held
}

void LiveClients::set_links(std::size_t c) {
  const std::string& client = s_.clients[c].name;
  const bool paused = clients_[c].paused_until > Clock::now();
  for (std::size_t n = 0; n < servers_.server_count(); ++n) {
    std::optional<PartitionMode> mode;
    if (clients_[c].severed) mode = PartitionMode::Drop;
    else if (paused) mode = PartitionMode::Hold;
    else if (core_.cut(servers_.server_name(n), client)) mode = core_.partition_mode;
    servers_.proxy(n).cut(client, mode);
  }
}

// A process that dies sends nothing more: the kernel closes its sockets,
// so a member sees the connection end, and nothing the dying client's
// library says on the way out gets through — the ZooKeeper C client's
// zookeeper_close sends closeSession, which would end the session at once
// where a crashed process's session expires after its timeout
// (ZooKeeperServer: a closed connection leaves the session to the
// SessionTracker). The links drop from the crash on and their connections
// are reset; an etcd lease has no goodbye (calls of a crashed client are
// refused: live_cp_conns.cpp) and simply stops being kept alive.
void LiveClients::sever_links(std::size_t c) {
  clients_[c].severed = true;
  set_links(c);
  for (std::size_t n = 0; n < servers_.server_count(); ++n) servers_.proxy(n).reset(s_.clients[c].name);
}

// The crashed incarnation's frames are gone (its handle closed): what it
// left in the links is dropped with their connections, and a restarted
// incarnation connects afresh.
void LiveClients::mend_links(std::size_t c) {
  std::lock_guard lk(core_.mutex);
  for (std::size_t n = 0; n < servers_.server_count(); ++n) servers_.proxy(n).reset(s_.clients[c].name);
  clients_[c].severed = false;
  set_links(c);
}

}  // namespace locksim::live
