// ProcessLocks: library locks (lib:redis-py, ...) run by real client
// processes inside a simulated run, in simulated time (issue 39). The
// runner knows only this interface; hosted/process_lock_host.hpp implements
// it (real processes under liblocksim_simtime.so), and the CLI hands one to
// run_scenario through RunOptions::process_locks, or installs a factory
// (set_process_locks_factory) from which run_scenario makes a fresh one for
// each run of a library lock: every run of every command (a sweep's seeds,
// a hunt's cases and shrink steps, a check's schedules, each --jobs worker)
// then has processes of its own. Without either, the runner refuses a
// library lock.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "locks/lock.hpp"
#include "locks/registry.hpp"
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
  // Which process ran which client and under which mechanism, a line each
  // (RunResult::mechanism; never in the digest: pids vary).
  virtual std::vector<std::string> mechanism() const = 0;
};

struct Scenario;

// Makes the ProcessLocks of one run of library lock `lock` on `scenario`;
// throws ProcessFailure when it cannot (no shim, no adapter).
using ProcessLocksFactory =
    std::function<std::unique_ptr<ProcessLocks>(const Scenario& scenario, const locks::LockInfo& lock)>;

// Installed once by the program before any run (cli/process_locks.hpp, like
// locks::register_lock); run_scenario reads it from any thread.
void set_process_locks_factory(ProcessLocksFactory factory);
const ProcessLocksFactory& process_locks_factory();

}  // namespace locksim::scenarios
