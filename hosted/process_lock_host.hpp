// ProcessLockHost: scenarios::ProcessLocks over real processes in simulated
// time (issue 39). Each client incarnation of a library lock (lib:redis-py,
// ...) is the library's adapter (adapters/, docs/external-clients.md) run as
// a HostedClient on the client's simulated host, inside the normal
// simulated run: the scenario's nodes, faults, workload and checkers.
//
// The protocol travels over the process's stdin and stdout pipes: a request
// written to stdin ends its wait on fd 0; after it blocks, its stdout is
// read, and a complete answer line completes the lock operation awaiting it
// (an event at the current instant on the client's host, so a pause defers
// it). The hello carries the client's own loopback ports (one per node) and
// the scenario's settings unscaled (time_scale "1": the time is simulated).
// still_valid() is synchronous in locks::Lock: the process runs until it
// answers, and one that waits on anything else first is refused. A crash of
// the client's host kills the process (its sockets reset); the restarted
// incarnation starts a new one. A refused, exited or misbehaving adapter
// ends the run with a scenarios::ProcessFailure naming client and line.
//
// Every process settles at its first input (FirstInput::settle): its start
// (the interpreter and the library's imports) is the same in every run, and
// by default it is made once: a zygote per adapter command and thread forks
// each process there (controlled_process.hpp), a few ms instead of the
// start's hundreds.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenarios/process_locks.hpp"
#include "vocab/task.hpp"

namespace locksim::hosted {

struct ProcessLockOptions {
  std::vector<std::string> command;        // the adapter's command line (live::adapter_command)
  std::string preload;                     // liblocksim_simtime.so
  std::chrono::milliseconds bound{10000};  // real time a process may run without blocking
  // Fork each process from the adapter's zygote (one per command and
  // thread, kept across runs: zygote_for in the .cpp) instead of starting
  // the program afresh. The run is the same either way.
  bool zygote = true;
};

// What the adapter's runtime needs in simulated time, from its command.
// Node (program `node`, or `env node`): its helper threads run beside the
// main thread (ProcessSpec::helper_threads), as few as Node allows, and
// libuv without io_uring (docs/external-clients.md, "Node in simulated
// time"). Other runtimes: nothing (a second thread is refused).
struct RuntimeProfile {
  int helper_threads = 0;  // ProcessSpec::helper_threads
  std::vector<std::pair<std::string, std::string>> env;  // added to the adapter's environment
  std::vector<std::string> runtime_args;                  // after the runtime's program (node) in the command
  std::string note;  // for the mechanism line: "" or " (Node: ...)"
};
RuntimeProfile runtime_profile(const std::vector<std::string>& command);

class ProcessLockHost final : public scenarios::ProcessLocks {
 public:
  explicit ProcessLockHost(ProcessLockOptions options);
  ~ProcessLockHost() override;
  ProcessLockHost(const ProcessLockHost&) = delete;
  ProcessLockHost& operator=(const ProcessLockHost&) = delete;

  std::unique_ptr<locks::Lock> make_lock(std::size_t client, locks::SimRuntime& runtime,
                                         const locks::LockConfig& config) override;
  void run_processes() override;

  // One line per process started: "simulated time: client A's adapter ran
  // as process N under liblocksim_simtime.so" (pids are not in the trace).
  std::vector<std::string> mechanism() const override { return mechanism_; }

  // The lock's operations (ProcessLock in the .cpp): one request, its
  // checked answer; call_now runs the process until it answers.
  Task<nlohmann::json> call(std::size_t client, nlohmann::json request);
  nlohmann::json call_now(std::size_t client, nlohmann::json request);

  struct Client;  // public for the awaiter in the .cpp

 private:
  void start_process(std::size_t c, locks::SimRuntime& runtime, const locks::LockConfig& config);
  void on_crash(std::size_t c);
  void collect_output(Client& cl);
  std::string send(Client& cl, nlohmann::json& request);
  nlohmann::json checked(Client& cl, const std::string& text, const std::string& op, std::int64_t id,
                         const std::string& request);
  [[noreturn]] void broken(Client& cl, const std::string& op, const std::string& what, const std::string& request);

  ProcessLockOptions options_;
  RuntimeProfile runtime_;
  std::vector<std::unique_ptr<Client>> clients_;  // by client index, made by its first make_lock
  std::vector<std::string> mechanism_;
};

}  // namespace locksim::hosted
