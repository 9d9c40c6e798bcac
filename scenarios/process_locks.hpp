// ProcessLocks: library locks (lib:redis-py, ...) run by real client
// processes inside a simulated run, in simulated time (issue 39). The
// runner knows only this interface; hosted/process_lock_host.hpp implements
// it (real processes under liblocksim_simtime.so), and the CLI hands one to
// run_scenario through RunOptions::process_locks. Without one, the runner
// refuses a library lock.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>

#include "locks/lock.hpp"
#include "locks/sim_runtime.hpp"

namespace locksim::scenarios {

// The run cannot go on: a client's process broke the protocol, exited or
// was refused by the mechanism. run_scenario returns it as its error (the
// adapter, like a scenario, is the user's input: exit 2).
struct ProcessFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ProcessLocks {
 public:
  virtual ~ProcessLocks() = default;
  // The library lock of client `client`'s current incarnation, on its
  // runtime (its host, and node i's host now): starts the incarnation's
  // process. Called from the client's workload, as a LockFactory is.
  virtual std::unique_ptr<locks::Lock> make_lock(std::size_t client, locks::SimRuntime& runtime,
                                                 const locks::LockConfig& config) = 0;
  // Runs every process that may run until it blocks, and sends what it
  // wrote: the runner calls it before each instant it runs. Throws
  // ProcessFailure.
  virtual void run_processes() = 0;
};

}  // namespace locksim::scenarios
