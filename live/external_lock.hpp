// A lock run by a real client library in a process of its own: locksim's
// workload, checkers and history stay locksim's (scenarios/workload.cpp
// drives this Lock like any other), and each lock operation is delegated
// to the client's adapter program over JSON lines on its stdin/stdout
// (docs/external-clients.md is the protocol's reference):
//
//   locksim → adapter  {"id":0,"op":"hello","protocol":1,"client":"A",
//                        "servers":["127.0.0.1:40123"],"key":"lock:x",
//                        "ttl_us":300000,"retry_us":100,
//                        "acquire_timeout_us":600000,"command_timeout_us":50000,
//                        "time_scale":"0.01"}
//   adapter → locksim  {"id":0,"result":true,"library":"redis-py 4.3.4"}
//   locksim → adapter  {"id":1,"op":"acquire"}
//   adapter → locksim  {"id":1,"result":true,"token":"8f0c…","fencing":null}
//                      {"id":2,"result":false,"error":{"class":"LockNotOwnedError",
//                                                      "message":"…"}}
//                      {"id":3,"unsupported":"kazoo's Lock has no extend"}
//
// Operations: acquire, release, extend, valid ("do you still hold it?"
// from the library's own state, no server call unless the library makes
// one). One process per client incarnation, in a process group of its own
// with a watchdog (live/process_group.hpp); a crash fault SIGKILLs it and
// the restarted incarnation starts a new one. A malformed answer, no answer
// before the deadline, the adapter's exit and an unsupported operation end
// the run with an AdapterFailure naming the client, the adapter and the
// line — never a default answer.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "locks/registry.hpp"
#include "scenarios/scenario.hpp"

namespace locksim::live {

class LiveWorld;
class AdapterProcess;  // the child process and its pipes (external_lock.cpp)

// The run cannot go on: the adapter broke the protocol (exit 2: the
// adapter, like a scenario, is the user's input).
struct AdapterFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One client incarnation's adapter process and the protocol spoken with
// it. Built (spawned, hello sent) before the run for the first incarnation,
// so interpreter start-up is not part of the scenario's timeline.
class ExternalClient {
 public:
  ExternalClient(LiveWorld& world, std::size_t client, std::string client_name, std::vector<std::string> servers,
                 const locks::LockConfig& config, std::vector<std::string> command);
  ~ExternalClient();
  ExternalClient(const ExternalClient&) = delete;
  ExternalClient& operator=(const ExternalClient&) = delete;
  // Reads hello's answer (once; call() does it first if needed).
  void finish_hello();
  // Sends {"op": ..., ...} with a fresh id and returns the checked answer;
  // nullopt if the run ended first. `bound`: how long the operation may
  // take by the scenario (acquire: its timeout) before the grace.
  std::optional<nlohmann::json> call(nlohmann::json request, Duration bound);

 private:
  std::optional<nlohmann::json> answer_to(const std::string& line, const std::string& op, std::int64_t id,
                                          Duration bound);
  std::optional<std::string> await_line(const std::string& op, const std::string& request, Duration bound);
  [[noreturn]] void broken(const std::string& op, const std::string& what, const std::string& line);

  LiveWorld& world_;
  std::size_t client_;
  std::string client_name_;
  locks::LockConfig config_;
  std::string label_;
  std::unique_ptr<AdapterProcess> process_;
  nlohmann::json hello_;  // until its answer is read
  std::int64_t next_id_ = 0;
};

// The adapter's command line for library lock `lock`: a shipped adapter's
// (LockInfo::adapter, its script under adapters_dir()), or the scenario's
// `command` for "external" (AdapterFailure if none).
std::vector<std::string> adapter_command(const std::string& lock, const locks::LockConfig& config);

// Why a clock fault of scenario `s` on a client (clock_drift_ppm, a
// clock-jump or clock-drift fault) cannot reach lock `lock`'s adapter
// process (LockInfo::Adapter::no_clock_step / no_clock_drift), nullopt if
// every one can: the client preload steps and drifts it.
std::optional<std::string> adapter_clock_refusal(const scenarios::Scenario& s, const locks::LockInfo& lock);

// Registers the library locks (idempotent): "external" (the user's
// adapter, from `[lock] command` / `--client`) and the shipped ones
// (lib:redis-py, ...). run_live calls it, and so does the program's start
// (cli/main.cpp), so that listings and scenario files know them.
void register_library_locks();

// The directory of the shipped adapters: $LOCKSIM_ADAPTERS if set, else
// where an install puts them relative to the running executable
// (live/installed_files.hpp), else the source tree's adapters/ (compiled
// in; not under LOCKSIM_NO_BUILD_TREE).
std::string adapters_dir();

}  // namespace locksim::live
