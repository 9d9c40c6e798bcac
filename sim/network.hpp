// Network: FIFO links between hosts, like TCP streams.
//
// Each directed link (from, to) delivers packets in the order they were sent:
// a packet's delivery time is max(send + latency, the link's last delivery),
// so `delay_next` (the "90 s GitHub packet") holds everything queued behind
// it — head-of-line blocking. A delivery event belongs to the receiver host,
// so a paused receiver gets its packets when it resumes, in order.
// Partitions cut links between groups: `hold` keeps the packets until heal,
// `drop` loses them. A packet addressed to a host that is down, or that
// crashed since it was sent, is dropped; a request gets a reset back.
//
// On top of the links: request/reply connections. A client awaits
// `conn.call(argv, timeout)`; the server's Service answers now or later
// (WAIT). A timeout returns an error to the client while the request may
// still arrive and execute; a late reply is then dropped. When a server
// crashes, every connection to it gets a reset, which arrives after the
// replies already in flight (it travels the same FIFO link).
#pragma once

#include <cstdint>
#include <deque>
#include <iterator>
#include <optional>
#include <vector>

#include "sim/rng.hpp"
#include "sim/scheduler.hpp"
#include "vocab/partition_mode.hpp"
#include "vocab/reply.hpp"

namespace locksim::sim {

class World;
class Host;

// One-way latency: uniform in [min, max]; with a heavy tail, a fraction
// (tail_per_mille / 1000) of packets is slowed by a factor 2^k, k uniform in
// [1, tail_max_shift]. Integer math only.
struct LatencyModel {
  Duration min = std::chrono::milliseconds(1);
  Duration max = std::chrono::milliseconds(1);
  std::uint32_t tail_per_mille = 0;
  std::uint32_t tail_max_shift = 0;

  static LatencyModel fixed(Duration d) { return {d, d, 0, 0}; }
  static LatencyModel uniform(Duration lo, Duration hi) { return {lo, hi, 0, 0}; }
  Duration sample(Rng& rng) const;
};

// A request as the server sees it; keep it to answer later.
struct Request {
  std::uint64_t conn = 0;
  std::uint64_t id = 0;
  HostId client = kNoHost;
  HostId server = kNoHost;
  std::uint32_t client_incarnation = 0;
  Argv argv;
};

// What a server host runs to answer requests and receive one-way messages.
class Service {
 public:
  virtual ~Service() = default;
  // Return a reply to answer now, or nullopt to answer later via Network::respond.
  virtual std::optional<Reply> on_request(const Request& request) = 0;
  virtual void on_message(HostId from, const Argv& message) {
    (void)from;
    (void)message;
  }
};

class Network;

class Connection {
 public:
  class CallAwaiter;
  // co_await conn.call(argv, timeout) -> Reply (an error reply on timeout/reset).
  CallAwaiter call(Argv argv, Duration timeout);
  HostId client() const { return client_; }
  HostId server() const { return server_; }
  std::uint64_t id() const { return id_; }

 private:
  friend class Network;
  struct Pending {
    std::uint64_t request_id;
    Scheduler::SlotRef slot;
    Reply* out;
  };
  Connection(Network& net, std::uint64_t id, HostId client, HostId server)
      : net_(net), id_(id), client_(client), server_(server) {}
  void complete(std::uint64_t request_id, Reply reply);
  void fail_all(const char* error);

  Network& net_;
  std::uint64_t id_;
  HostId client_;
  HostId server_;
  std::vector<Pending> pending_;
};

class Connection::CallAwaiter {
 public:
  CallAwaiter(Connection& c, Argv argv, Duration timeout)
      : conn_(c), argv_(std::move(argv)), timeout_(timeout) {}
  CallAwaiter(const CallAwaiter&) = delete;
  CallAwaiter& operator=(const CallAwaiter&) = delete;
  ~CallAwaiter();
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h);
  Reply await_resume();

 private:
  Connection& conn_;
  Argv argv_;
  Duration timeout_;
  Reply reply_;
  std::uint64_t request_id_ = 0;
  Scheduler::SlotRef slot_{};
  bool armed_ = false;
};

class Network {
 public:
  Network(World& world, Rng rng);
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  void set_latency(LatencyModel model) { latency_ = model; }
  const LatencyModel& latency() const { return latency_; }

  void register_service(HostId host, Service* service);
  // A connection from client to server, created once and reused (stable address).
  Connection& connect(HostId client, HostId server);

  // One-way message, delivered to the receiver's Service::on_message.
  void send_message(HostId from, HostId to, Argv message);
  // Answers a request that Service::on_request deferred.
  void respond(const Request& request, Reply reply);

  // Holds the next packet sent on from->to (and all behind it) for d extra.
  void delay_next(HostId from, HostId to, Duration d);
  // Cuts every link between hosts of different groups; hosts in no group
  // keep all their links.
  void partition(const std::vector<std::vector<HostId>>& groups, PartitionMode mode);
  void heal();
  bool cut(HostId from, HostId to) const;

  std::uint64_t packets_sent() const { return packets_sent_; }
  // Packets sent and not yet delivered or lost (in flight or held by a partition).
  std::uint64_t packets_in_transit() const { return in_transit_; }

 private:
  friend class Connection;
  enum class Kind : std::uint8_t { Request, Reply, Reset, Message };
  struct Packet {
    Kind kind;
    std::uint64_t conn = 0;
    std::uint64_t id = 0;
    std::uint32_t from_incarnation = 0;
    std::uint32_t to_incarnation = 0;
    Argv argv;
    Reply reply;
    const char* reset_reason = nullptr;
  };
  // A link's FIFO. A vector and a read position rather than a std::deque: a
  // deque of these ~140-byte packets allocates a node every three pushes,
  // this keeps one buffer per link for the whole run.
  class PacketQueue {
   public:
    bool empty() const { return head_ == items_.size(); }
    std::size_t size() const { return items_.size() - head_; }
    void push_back(Packet&& p) { items_.push_back(std::move(p)); }
    Packet pop_front() {
      Packet p = std::move(items_[head_++]);
      if (head_ == items_.size()) {
        clear();
      } else if (head_ >= 64 && head_ * 2 >= items_.size()) {  // never drains: compact
        items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
      }
      return p;
    }
    // Moves all of `earlier` (in order) ahead of everything queued here.
    void prepend(PacketQueue& earlier) {
      items_.insert(items_.begin() + static_cast<std::ptrdiff_t>(head_),
                    std::make_move_iterator(earlier.items_.begin() + static_cast<std::ptrdiff_t>(earlier.head_)),
                    std::make_move_iterator(earlier.items_.end()));
      earlier.clear();
    }
    void clear() {
      items_.clear();
      head_ = 0;
    }

   private:
    std::vector<Packet> items_;
    std::size_t head_ = 0;
  };
  struct Link {
    std::size_t index;
    HostId from;
    HostId to;
    TrueInstant last_delivery{};
    Duration pending_delay{0};
    PacketQueue in_flight;
    PacketQueue held;
  };

  Link& link(HostId from, HostId to);
  void send(HostId from, HostId to, Packet&& packet);
  void schedule_delivery(Link& l, Duration extra);
  static void on_deliver(void* ctx, std::uint64_t link_index);
  void deliver(Link& l, Packet& packet);
  void on_host_crash(HostId host);
  void hook_crashes(HostId host);
  void release_held();  // re-sends held packets on links that are no longer cut
  Host& host(HostId id);

  World& world_;
  Rng rng_;
  LatencyModel latency_;
  // (from, to) -> an index, in a dense square table: found on every packet
  // sent, where a std::map of pairs cost two tree walks per command.
  class PairIndex {
   public:
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t find(HostId a, HostId b) const {
      return a < side_ && b < side_ ? cells_[a * side_ + b] : kNone;
    }
    void set(HostId a, HostId b, std::size_t index);

   private:
    std::size_t side_ = 0;
    std::vector<std::size_t> cells_;
  };
  PairIndex link_index_;
  std::deque<Link> links_;  // stable addresses; index = creation order
  std::deque<Connection> connections_;
  PairIndex connection_index_;
  std::vector<Service*> services_;
  std::vector<int> group_of_;  // per host; -1 = in no group
  PartitionMode partition_mode_ = PartitionMode::Hold;
  bool partitioned_ = false;
  std::uint64_t next_request_id_ = 1;
  std::uint64_t packets_sent_ = 0;
  std::uint64_t in_transit_ = 0;
  std::vector<bool> crash_hooked_;
};

}  // namespace locksim::sim
