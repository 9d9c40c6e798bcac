// Activity: where in a run a fault could have acted — when each host's
// events ran, when each link sent and delivered a packet. A run records it
// only when asked (`locksim check`, for the schedules whose runs larger
// schedules read); recording reads the world and changes nothing in it.
//
// What it is for: a fault changes a run only through the state its
// mechanism sets, and only when that state is next consulted —
//  - a pause, when one of the host's events comes due inside its window
//    (Scheduler::step defers it);
//  - a delay, when the link next sends (Network::send takes pending_delay);
//  - a partition, when a packet is delivered across the cut inside its
//    window (Network::on_deliver checks cut());
//  - a clock jump, when the host's wall clock is next read (a step moves
//    only the wall clock: HostClock::wall);
//  - an fsync stall, when an fsync starts or ends inside its window
//    (RedisNode::start_background_fsync, on_fsync_done).
// So a fault whose window holds none of these in a run acts on nothing
// there: adding it gives the same run, event for event (check.hpp,
// RemovalReason::ActsOnNothing).
#pragma once

#include <vector>

#include "sim/trace.hpp"
#include "vocab/time.hpp"

namespace locksim::sim {

struct Activity {
  struct LinkUse {
    HostId from = 0, to = 0;
    std::vector<TrueInstant> sends;       // in time order
    std::vector<TrueInstant> deliveries;  // arrivals (before the cut is checked), in time order
  };
  std::vector<std::vector<TrueInstant>> dispatched;  // by HostId: when its events ran, in time order
  std::vector<TrueInstant> unowned;                  // when events of no host ran (faults, resumes), in time order
  std::vector<LinkUse> links;                        // by the network's link index
  std::vector<std::vector<TrueInstant>> wall_reads;  // by HostId: when its wall clock was read, in time order
  std::vector<std::vector<TrueInstant>> disk_checks; // by HostId: when an fsync started or ended, in time order

  void note_dispatch(HostId host, TrueInstant at) {
    if (host == kNoHost) {
      unowned.push_back(at);
      return;
    }
    if (host >= dispatched.size()) dispatched.resize(host + 1);
    dispatched[host].push_back(at);
  }
  void note_disk_check(HostId host, TrueInstant at) {
    if (host >= disk_checks.size()) disk_checks.resize(host + 1);
    disk_checks[host].push_back(at);
  }
  LinkUse& link(std::size_t index, HostId from, HostId to) {
    if (index >= links.size()) links.resize(index + 1);
    links[index].from = from;
    links[index].to = to;
    return links[index];
  }
};

}  // namespace locksim::sim
