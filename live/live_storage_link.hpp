// The storage link of a live session: the protected storage
// (scenarios::Storage, its fencing rule) in this process, behind each
// client's emulated link to it — the same FIFO and delay rule as the
// simulated network (StorageLinks), cut or held by the network's partition.
// A write travels the link, is applied on arrival, and its reply travels
// back; a timed-out write may still arrive and be applied later, as in the
// simulator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "live/live_core.hpp"
#include "live/live_recorder.hpp"
#include "scenarios/storage.hpp"

namespace locksim::live {

class LiveStorageLink {
 public:
  using Answer = std::shared_ptr<std::optional<std::int64_t>>;  // set when the reply reaches the client

  LiveStorageLink(LiveCore& core, LiveEvents& events, LiveRecorder& recorder, const scenarios::Scenario& s)
      : core_(core), events_(events), recorder_(recorder), s_(s), storage_(s), links_(s.clients.size()) {}

  // Sends client c's request on its way; requires mutex. The core's cv is
  // notified when the answer is set.
  Answer send(std::size_t c, const scenarios::WriteRequest& request);
  // `delay from -> to` with the storage on one end: the next message on
  // that link waits d more, and everything behind it too.
  void delay(const std::string& client, bool to_storage, LiveCore::Clock::duration d);
  // The partition changed (requires mutex): held writes that may now pass
  // are delivered, in order.
  void repartition();
  bool holds_nothing() const { return held_.empty(); }  // requires mutex

 private:
  struct PendingWrite {
    scenarios::WriteRequest request;
    std::int64_t reply = 0;  // set on arrival (Storage::serve: 1/0, or a read's stock)
    Answer answer = std::make_shared<std::optional<std::int64_t>>();
  };
  void deliver(PendingWrite w);        // requires mutex
  void answer(const PendingWrite& w);  // requires mutex

  LiveCore& core_;
  LiveEvents& events_;
  LiveRecorder& recorder_;
  const scenarios::Scenario& s_;
  scenarios::Storage storage_;  // requires mutex
  StorageLinks links_;
  std::vector<PendingWrite> held_;  // held by a partition, in arrival order
};

}  // namespace locksim::live
