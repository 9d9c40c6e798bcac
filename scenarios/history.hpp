// History: what happened in one run, in true time, as the checkers see it.
//
// The checkers judge a run only from this record (docs/architecture.md "Properties and
// violations"): clients' beliefs that they hold the lock, their acquire
// attempts, every command the Redis nodes executed on the lock key with its
// keyspace effect, and the storage's accepted and rejected writes. They never
// look inside a lock algorithm, so a new lock is judged by the same rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/fault_kinds.hpp"
#include "scenarios/trigger.hpp"
#include "sim/redis/engine.hpp"
#include "sim/trace.hpp"
#include "vocab/time.hpp"

namespace locksim::scenarios {

using sim::HostId;

// One grant a client believed it had: from the acquire reply until it
// started its release, abandoned, crashed, or its validity deadline passed.
struct Belief {
  std::size_t client;          // index into History::clients
  std::uint64_t grant;         // global order of acquire replies (true time order)
  TrueInstant start;
  std::optional<TrueInstant> end;       // nullopt = still believing at the end of the run
  std::optional<TrueInstant> deadline;  // the lock's validity deadline mapped to true time
  std::optional<std::int64_t> fencing_token;
  std::string end_reason;      // "release" | "abandon" | "crash" | "" (still held)
  std::string key = "";        // the lock key it covers ("" = the scenario's one key)
  TrueInstant effective_end(TrueInstant run_end) const;
};

// An acquire attempt in progress (for lock-unavailable).
struct Attempt {
  std::size_t client;
  TrueInstant start;
  std::optional<TrueInstant> end;
  bool acquired = false;
};

// A change to a lock entry on one node.
struct EntryEvent {
  TrueInstant at;
  std::uint64_t seq;
  HostId node;
  std::optional<std::size_t> client;  // who caused it (nullopt: the server itself, e.g. active expiry)
  bool replicated;                    // applied from the master's stream
  sim::redis::KeyEvent::Kind kind;
  std::string key;
  std::string command;  // the command as text (entry_command_text), for explanations
  // The entry's expiry after this event, mapped from the node's wall clock
  // to true time as the node stood then (a later clock step moves it):
  // the key's lease deadline, for timelines. nullopt: no TTL, or not known.
  std::optional<TrueInstant> deadline = std::nullopt;
};

// EntryEvent::command: the first six words, each cut to 24 characters (a
// script body would drown the explanation). The simulator and live mode
// both write it, so their timelines read alike.
inline std::string entry_command_text(const Argv& argv) {
  std::string s;
  for (std::size_t i = 0; i < argv.size() && i < 6; ++i) {
    std::string word = argv[i];
    if (word.size() > 24) word = word.substr(0, 21) + "...";
    s += (i ? " " : "") + word;
  }
  return s;
}

struct StorageWrite {
  TrueInstant at;  // when the storage applied or rejected it
  std::size_t client;
  std::uint64_t grant;
  std::optional<std::int64_t> fencing_token;
  bool accepted;
  int index;  // write number within the critical section (1-based)
  std::string key = "";  // the lock key whose grant covers it ("" = the scenario's one key)
};

// The inventory's record (scenarios/inventory_workload.hpp): the sale's
// terms, every order the database received, and what each buyer was told.
struct SaleTerms {
  std::int64_t stock = 0;  // items on sale (the gate: its one slot)
  int per_buyer = 1;       // orders one buyer may hold
};

struct OrderRecord {
  TrueInstant at;  // when the storage stored or refused it
  std::size_t client;
  int segment = 0;
  bool accepted = false;
  std::string refused;                      // "" | "fencing" | "unique"
  std::optional<std::int64_t> stock_after;  // the stock row written with it (read-check-write, lock, segmented)
};

// A buyer was told it bought one item (or won the gate's slot).
struct Purchase {
  std::size_t client;
  TrueInstant at;
};

struct ClientInfo {
  std::string name;
  HostId host;
  std::vector<TrueInstant> crashes;     // every crash, in order
  std::optional<TrueInstant> finished;  // when its workload ended
  std::int64_t clock_drift_ppm = 0;     // its clock's configured drift ([[client]] clock_drift_ppm)
};

// A trigger point a client reached ("A:acquired", "A:write#2"), when it did:
// `locksim check` places faults at the points a fault-free run reaches.
struct PointReached {
  std::size_t client;
  TriggerEvent event;   // acquiring, acquired, write or released
  int write_index = 0;  // for "write"
  TrueInstant at;
};

struct FaultRecord {
  TrueInstant at;
  FaultKind kind;           // what the timeline and the reports go by
  std::string description;  // "pause A 35s" (FaultKindInfo::describe): for people
  std::string target;
  std::optional<TrueInstant> until;  // pauses and partitions
};

struct History {
  std::vector<ClientInfo> clients;
  std::vector<std::string> nodes;  // node host names, by HostId order of creation
  std::vector<Belief> beliefs;
  std::vector<Attempt> attempts;
  std::vector<EntryEvent> entries;
  std::vector<StorageWrite> writes;
  std::vector<FaultRecord> faults;
  std::vector<PointReached> points;  // in the order they were reached
  std::optional<SaleTerms> sale;     // set when the run sells a stock (inventory)
  std::vector<OrderRecord> orders;   // in the order the storage received them
  std::vector<Purchase> purchases;   // confirmations, in true time order
  TrueInstant end{};
  std::uint64_t next_grant = 0;

  std::optional<std::size_t> client_of(HostId host) const;
};

}  // namespace locksim::scenarios
