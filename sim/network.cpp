// Links, deliveries, partitions and request/reply connections.
#include "sim/network.hpp"

#include <algorithm>
#include <cassert>

#include "sim/world.hpp"
#include "vocab/argv_pool.hpp"

namespace locksim::sim {

Duration LatencyModel::sample(Rng& rng) const {
  Duration d = min;
  if (max > min) d += Duration(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>((max - min).count()) + 1)));
  if (tail_per_mille > 0 && tail_max_shift > 0 && rng.chance(tail_per_mille, 1000)) {
    d *= std::int64_t{1} << (1 + rng.below(tail_max_shift));
  }
  return d;
}

// ---- Connection ----------------------------------------------------------

Connection::CallAwaiter Connection::call(Argv argv, Duration timeout) {
  return CallAwaiter(*this, std::move(argv), timeout);
}

void Connection::complete(std::uint64_t request_id, Reply reply) {
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [&](const Pending& p) { return p.request_id == request_id; });
  if (it == pending_.end()) return;  // timed out already, or the caller is gone: a late reply
  const Pending p = *it;
  pending_.erase(it);
  Scheduler& sched = net_.world_.scheduler();
  if (!sched.slot_live(p.slot)) return;
  *p.out = std::move(reply);
  sched.resume_slot(p.slot, 0);
}

void Connection::fail_all(const char* error) {
  std::vector<Pending> failed = std::move(pending_);
  pending_.clear();
  Scheduler& sched = net_.world_.scheduler();
  for (const Pending& p : failed) {
    // An earlier resume may have destroyed this waiter: check before writing.
    if (!sched.slot_live(p.slot)) continue;
    *p.out = Reply::error(error);
    sched.resume_slot(p.slot, 0);
  }
}

Connection::CallAwaiter::~CallAwaiter() {
  if (!armed_) return;
  std::erase_if(conn_.pending_, [&](const Pending& p) { return p.request_id == request_id_; });
  conn_.net_.world_.scheduler().release_slot(slot_);
}

void Connection::CallAwaiter::await_suspend(std::coroutine_handle<> h) {
  Network& net = conn_.net_;
  Scheduler& sched = net.world_.scheduler();
  Host& client = net.host(conn_.client_);
  slot_ = sched.acquire_slot(h, conn_.client_);
  armed_ = true;
  request_id_ = net.next_request_id_++;
  conn_.pending_.push_back({request_id_, slot_, &reply_});
  Network::Packet packet{Network::Kind::Request, conn_.id_, request_id_, client.incarnation(),
                         net.host(conn_.server_).incarnation(), std::move(argv_), {}, nullptr};
  net.send(conn_.client_, conn_.server_, std::move(packet));
  // The timeout runs on the client's monotonic clock.
  const HostClock& clock = client.clock();
  const TrueInstant deadline = clock.true_when_monotonic(clock.monotonic(sched.now()) + timeout_);
  sched.wake_at(std::max(deadline, sched.now()), slot_, 1);
}

Reply Connection::CallAwaiter::await_resume() {
  if (conn_.net_.world_.scheduler().slot_outcome(slot_) == 1) return Reply::error(kTimeoutError);
  return std::move(reply_);
}

// ---- Network -------------------------------------------------------------

Network::Network(World& world, Rng rng) : world_(world), rng_(rng) {}

Host& Network::host(HostId id) { return world_.host(id); }

void Network::register_service(HostId h, Service* service) {
  if (services_.size() <= h) services_.resize(h + 1, nullptr);
  services_[h] = service;
  hook_crashes(h);
}

void Network::hook_crashes(HostId h) {
  if (crash_hooked_.size() <= h) crash_hooked_.resize(h + 1, false);
  if (crash_hooked_[h]) return;
  crash_hooked_[h] = true;
  host(h).on_crash([this, h] { on_host_crash(h); });
}

void Network::PairIndex::set(HostId a, HostId b, std::size_t index) {
  const std::size_t need = std::max<std::size_t>({side_, std::size_t{a} + 1, std::size_t{b} + 1});
  if (need > side_) {
    std::vector<std::size_t> grown(need * need, kNone);
    for (std::size_t i = 0; i < side_; ++i)
      std::copy_n(cells_.begin() + static_cast<std::ptrdiff_t>(i * side_), side_,
                  grown.begin() + static_cast<std::ptrdiff_t>(i * need));
    cells_ = std::move(grown);
    side_ = need;
  }
  cells_[a * side_ + b] = index;
}

Connection& Network::connect(HostId client, HostId server) {
  if (const std::size_t i = connection_index_.find(client, server); i != PairIndex::kNone) return connections_[i];
  hook_crashes(client);
  hook_crashes(server);
  const std::size_t index = connections_.size();
  connections_.push_back(Connection(*this, index, client, server));
  connection_index_.set(client, server, index);
  return connections_.back();
}

Network::Link& Network::link(HostId from, HostId to) {
  if (const std::size_t i = link_index_.find(from, to); i != PairIndex::kNone) return links_[i];
  link_index_.set(from, to, links_.size());
  links_.push_back(Link{links_.size(), from, to, {}, Duration{0}, {}, {}});
  return links_.back();
}

void Network::send(HostId from, HostId to, Packet&& packet) {
  Link& l = link(from, to);
  l.in_flight.push_back(std::move(packet));
  ++packets_sent_;
  ++in_transit_;
  if (Activity* a = world_.scheduler().activity()) a->link(l.index, from, to).sends.push_back(world_.now());
  const Duration extra = std::exchange(l.pending_delay, Duration{0});
  schedule_delivery(l, extra);
}

void Network::schedule_delivery(Link& l, Duration extra) {
  Scheduler& sched = world_.scheduler();
  const TrueInstant t = std::max(sched.now() + latency_.sample(rng_) + extra, l.last_delivery);
  assert(t >= sched.now() && "a packet never arrives before it is sent");
  l.last_delivery = t;  // FIFO per link, as a TCP connection delivers
  sched.schedule_any_epoch(t, &Network::on_deliver, this, l.index, l.to);
}

void Network::on_deliver(void* ctx, std::uint64_t link_index) {
  auto& self = *static_cast<Network*>(ctx);
  Link& l = self.links_[link_index];
  assert(!l.in_flight.empty());
  Packet packet = l.in_flight.pop_front();
  if (Activity* a = self.world_.scheduler().activity()) a->link(l.index, l.from, l.to).deliveries.push_back(self.world_.now());
  assert(self.in_transit_ > 0 && "a delivered packet was counted in transit");
  if (self.cut(l.from, l.to)) {
    if (self.partition_mode_ == PartitionMode::Hold) l.held.push_back(std::move(packet));
    else --self.in_transit_;  // Drop: lost
    return;
  }
  --self.in_transit_;
  self.deliver(l, packet);
}

void Network::deliver(Link& l, Packet& packet) {
  Host& receiver = host(l.to);
  const bool current = receiver.up() && receiver.incarnation() == packet.to_incarnation;
  switch (packet.kind) {
    case Kind::Request: {
      if (!current) {
        // The server process is gone: the client's TCP stack sees a reset.
        const char* why = receiver.up() ? kResetError : kRefusedError;
        send(l.to, l.from, Packet{Kind::Reset, packet.conn, 0, 0, packet.from_incarnation, {}, {}, why});
        return;
      }
      Service* service = l.to < services_.size() ? services_[l.to] : nullptr;
      if (!service) {
        send(l.to, l.from, Packet{Kind::Reset, packet.conn, 0, 0, packet.from_incarnation, {}, {}, kRefusedError});
        return;
      }
      Request request{packet.conn, packet.id, l.from, l.to, packet.from_incarnation, std::move(packet.argv)};
      if (auto reply = service->on_request(request)) respond(request, std::move(*reply));
      argv_pool::give(std::move(request.argv));  // the next command is built in its buffers
      return;
    }
    case Kind::Reply:
      if (current) connections_[packet.conn].complete(packet.id, std::move(packet.reply));
      return;
    case Kind::Reset:
      if (current) connections_[packet.conn].fail_all(packet.reset_reason);
      return;
    case Kind::Message: {
      Service* service = l.to < services_.size() ? services_[l.to] : nullptr;
      if (current && service) service->on_message(l.from, packet.argv);
      argv_pool::give(std::move(packet.argv));
      return;
    }
  }
}

void Network::respond(const Request& request, Reply reply) {
  send(request.server, request.client,
       Packet{Kind::Reply, request.conn, request.id, host(request.server).incarnation(),
              request.client_incarnation, {}, std::move(reply), nullptr});
}

void Network::send_message(HostId from, HostId to, Argv message) {
  send(from, to, Packet{Kind::Message, 0, 0, host(from).incarnation(), host(to).incarnation(),
                        std::move(message), {}, nullptr});
}

void Network::delay_next(HostId from, HostId to, Duration d) { link(from, to).pending_delay += d; }

bool Network::cut(HostId from, HostId to) const {
  if (!partitioned_) return false;
  const int a = from < group_of_.size() ? group_of_[from] : -1;
  const int b = to < group_of_.size() ? group_of_[to] : -1;
  return a >= 0 && b >= 0 && a != b;
}

void Network::partition(const std::vector<std::vector<HostId>>& groups, PartitionMode mode) {
  group_of_.assign(world_.host_count(), -1);
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (HostId h : groups[g]) {
      assert(h < group_of_.size() && group_of_[h] == -1 && "each host in at most one partition group");
      group_of_[h] = static_cast<int>(g);
    }
  partitioned_ = true;
  partition_mode_ = mode;
  release_held();
}

void Network::heal() {
  partitioned_ = false;
  group_of_.clear();
  release_held();
}

void Network::release_held() {
  for (Link& l : links_) {
    if (l.held.empty() || cut(l.from, l.to)) continue;
    // Held packets go first: they were sent before anything still in flight.
    const std::size_t n = l.held.size();
    l.in_flight.prepend(l.held);
    assert(l.held.empty() && "held packets move to the link, not copied");
    for (std::size_t i = 0; i < n; ++i) schedule_delivery(l, Duration{0});
  }
}

void Network::on_host_crash(HostId h) {
  for (Connection& c : connections_) {
    if (c.server_ == h) {
      // The reset travels the FIFO link behind replies already in flight.
      send(h, c.client_, Packet{Kind::Reset, c.id_, 0, host(h).incarnation(),
                                host(c.client_).incarnation(), {}, {}, kResetError});
    }
    if (c.client_ == h) c.pending_.clear();  // its frames are gone already
  }
}

}  // namespace locksim::sim
