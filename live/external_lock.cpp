// ExternalLock: a Lock whose operations a client library performs in its
// own process, over the JSON-lines protocol of external_lock.hpp
// (docs/external-clients.md).
#include "live/external_lock.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "live/installed_files.hpp"
#include "locks/adapter_protocol.hpp"
#include "live/live_runtime.hpp"
#include "live/preload/preload_control.h"
#include "live/process_group.hpp"
#include "live/server_preload.hpp"
#include "scenarios/fault_kinds.hpp"

#ifndef LOCKSIM_ADAPTERS_DIR
#define LOCKSIM_ADAPTERS_DIR "adapters"
#endif

namespace locksim::live {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

// Beyond the operation's own bound (the acquire timeout, a command
// timeout): an interpreter's start-up and a loaded machine's scheduling.
constexpr auto kAnswerGrace = 10s;
// A line of the adapter's in an error: control characters escaped, cut short.
std::string shown(const std::string& text) { return locks::shown_adapter_line(text); }

std::string command_text(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

// The adapter's process: its stdin and stdout as pipes, stderr in a log
// file (its last line goes into an error), its group signalled by faults.
class AdapterProcess {
 public:
  AdapterProcess(const std::vector<std::string>& argv, const std::vector<std::string>* env, const std::string& label) {
    log_ = std::filesystem::temp_directory_path() /
           ("locksim-adapter-" + std::to_string(::getpid()) + "-" + std::to_string(next_log_id()) + ".log");
    int to_child[2], from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0) throw AdapterFailure(label + ": cannot create a pipe");
    if (::pipe2(from_child, O_CLOEXEC) != 0) {
      ::close(to_child[0]), ::close(to_child[1]);
      throw AdapterFailure(label + ": cannot create a pipe");
    }
    pid_ = spawn_process_group(argv, env, log_, ChildStdio{to_child[0], from_child[1]});
    ::close(to_child[0]);
    ::close(from_child[1]);
    in_ = to_child[1];
    out_ = from_child[0];
    if (pid_ < 0) throw AdapterFailure(label + ": cannot start " + command_text(argv) + " (fork failed)");
  }
  ~AdapterProcess() {
    kill_process_group(pid_);
    if (in_ >= 0) ::close(in_);
    if (out_ >= 0) ::close(out_);
    std::error_code ignored;
    std::filesystem::remove(log_, ignored);
  }
  AdapterProcess(const AdapterProcess&) = delete;
  AdapterProcess& operator=(const AdapterProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool send(const std::string& line) {
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(in_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
  enum class Read { Line, Eof, Waiting };
  // Up to `wait` for a whole line; the line (without its newline) in `out`.
  Read read_line(std::string& out, std::chrono::milliseconds wait) {
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        out = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return Read::Line;
      }
      pollfd p{out_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(wait.count()));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return Read::Waiting;
      char chunk[4096];
      const ssize_t n = ::read(out_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Read::Eof;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  // The last non-empty line the adapter wrote to stderr, "" if none.
  std::string last_stderr_line() const {
    std::ifstream in(log_);
    std::string line, last;
    while (std::getline(in, line))
      if (!line.empty()) last = line;
    return last;
  }

 private:
  static std::uint64_t next_log_id() {
    static std::atomic<std::uint64_t> id{0};
    return id.fetch_add(1);
  }
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::filesystem::path log_;
  std::string buffer_;
};

namespace {

// The adapter's environment: the client preload (live/preload/) on the
// client's own control block, so that its clock faults reach the process
// (ClientClock::process_control); the parent's environment when the world
// keeps no client clocks (nullptr).
std::optional<std::vector<std::string>> adapter_environment(LiveWorld& world, std::size_t client,
                                                            const std::string& label) {
  ClientClock* clock = world.client_clock(client);
  if (!clock) return std::nullopt;
  const auto library = locate_client_preload();
  if (!library)
    throw AdapterFailure(label + ": liblocksim_client_preload.so not found (build the locksim_client_preload target)");
  std::string why;
  const std::string control = clock->process_control(&why);
  if (control.empty()) throw AdapterFailure(label + ": " + why);
  std::vector<std::string> env = preload_environment(*library, control, {});
  if (const auto discovery = world.adapter_discovery(client))
    env.push_back(std::string(LOCKSIM_CLIENT_SOURCE_ADDR_ENV) + "=" + discovery->source_address);
  return env;
}

}  // namespace

// Spawns the adapter and sends hello: where the servers are and the lock's
// settings (as scaled for live mode). The answer is read by finish_hello,
// so that several adapters start up side by side.
ExternalClient::ExternalClient(LiveWorld& world, std::size_t client, std::string client_name,
                               std::vector<std::string> servers, const locks::LockConfig& config,
                               std::vector<std::string> command)
    : world_(world), client_(client), client_name_(std::move(client_name)), config_(config) {
  label_ = "client " + client_name_ + "'s adapter (" + command_text(command) + ")";
  const auto env = adapter_environment(world_, client_, label_);
  process_ = std::make_unique<AdapterProcess>(command, env ? &*env : nullptr, label_);
  world_.adapter_process(client_, process_->pid(), label_);
  hello_ = locks::adapter_hello(client_name_, std::move(servers), config_, world_.command_timeout(), world_.time_scale());
  hello_["id"] = next_id_++;
  if (const auto discovery = world_.adapter_discovery(client_)) {  // a Sentinel-aware library asks them
    hello_["sentinels"] = discovery->sentinels;
    hello_["master_names"] = discovery->master_names;
  }
  process_->send(hello_.dump() + "\n");  // a failure shows when its answer is read
}

ExternalClient::~ExternalClient() {
  world_.adapter_process(client_, -1, label_);  // no fault signals it from here on
}

void ExternalClient::finish_hello() {
  if (hello_.is_null()) return;
  const std::string line = hello_.dump() + "\n";
  hello_ = json();
  const auto answer = answer_to(line, "hello", 0, Duration{0});
  if (answer && !(*answer)["result"].get<bool>())  // its library could not be set up: nothing to run
    broken("hello", "the adapter could not start its library: " + shown(answer->value("error", json()).dump()), line);
  if (answer && answer->contains("library") && (*answer)["library"].is_string())
    world_.adapter_note(client_, label_ + " runs " + (*answer)["library"].get<std::string>());
}

// One request, one answer. nullopt: the run ended first. Throws
// ClientCrashed when a crash fault killed the process, AdapterFailure when
// the adapter broke the protocol.
std::optional<json> ExternalClient::call(json request, Duration bound) {
  finish_hello();
  const std::string op = request["op"].get<std::string>();
  const std::int64_t id = next_id_++;
  request["id"] = id;
  const std::string line = request.dump() + "\n";
  if (!process_->send(line)) {
    if (world_.crashed(client_)) throw ClientCrashed{};
    broken(op, "the adapter closed its stdin", line);
  }
  return answer_to(line, op, id, bound);
}

std::optional<json> ExternalClient::answer_to(const std::string& line, const std::string& op, std::int64_t id,
                                              Duration bound) {
  const auto text = await_line(op, line, bound);
  if (!text) return std::nullopt;
  json answer = json::parse(*text, nullptr, false);
  if (answer.is_discarded()) broken(op, "the answer is not JSON: " + shown(*text), line);
  if (auto problem = locks::adapter_answer_problem(answer, id, op); !problem.empty())
    broken(op, problem + ": " + shown(*text), line);
  if (answer.contains("unsupported"))
    broken(op, "the adapter does not support '" + op + "' (" + shown(answer["unsupported"].dump()) + ")", line);
  if (answer.contains("error")) {
    const json& e = answer["error"];
    world_.adapter_note(client_, "client " + client_name_ + ": " + op + " raised " + e["class"].get<std::string>() +
                                     ": " + shown(e.value("message", std::string())));
  }
  world_.pause_point(client_);  // a pause that began meanwhile holds the client here
  return answer;
}

// The answer line, waiting at most `bound` + a command timeout + the grace
// while the client is not paused (a stopped process cannot answer).
std::optional<std::string> ExternalClient::await_line(const std::string& op, const std::string& request, Duration bound) {
  const auto allowed = std::chrono::duration_cast<Clock::duration>(bound + world_.command_timeout() + kAnswerGrace);
  Clock::duration waited{0};
  std::string text;
  for (;;) {
    const auto before = Clock::now();
    const auto got = process_->read_line(text, 20ms);
    if (got == AdapterProcess::Read::Line) return text;
    if (world_.crashed(client_)) throw ClientCrashed{};
    if (got == AdapterProcess::Read::Eof) broken(op, "the adapter exited before answering", request);
    if (world_.stopping()) return std::nullopt;
    if (!world_.paused(client_)) waited += Clock::now() - before;
    if (waited > allowed)
      broken(op,
             "no answer within " + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(allowed).count()) +
                 " ms",
             request);
  }
}

void ExternalClient::broken(const std::string& op, const std::string& what, const std::string& line) {
  std::string message = label_ + ", " + op + ": " + what + " (request: " + shown(line.substr(0, line.size() - 1)) + ")";
  if (const std::string last = process_->last_stderr_line(); !last.empty()) message += "; its stderr ended: " + shown(last);
  throw AdapterFailure(message);
}

namespace {

class ExternalLock final : public locks::Lock {
 public:
  ExternalLock(std::unique_ptr<ExternalClient> client, const locks::LockConfig& config)
      : client_(std::move(client)), key_(config.key), acquire_timeout_(config.acquire_timeout) {
    client_->finish_hello();
  }

  Task<std::optional<locks::Lease>> try_acquire() override {
    const auto answer = client_->call({{"op", "acquire"}}, acquire_timeout_);
    if (!answer || !(*answer)["result"].get<bool>()) co_return std::nullopt;
    locks::Lease lease;
    lease.key = key_;
    lease.token = (*answer)["token"].get<std::string>();
    if (answer->contains("fencing") && (*answer)["fencing"].is_number_integer())
      lease.fencing_token = (*answer)["fencing"].get<std::int64_t>();
    co_return lease;
  }
  Task<bool> release(locks::Lease& lease) override { co_return answered_yes("release", lease); }
  Task<bool> extend(locks::Lease& lease) override { co_return answered_yes("extend", lease); }
  bool still_valid(const locks::Lease& lease) override { return answered_yes("valid", lease); }
  std::uint64_t round_trips() const override { return 0; }  // the library's commands are its own

 private:
  // nullopt (the run ended) is a no: nothing more is written.
  bool answered_yes(const char* op, const locks::Lease& lease) {
    const auto answer = client_->call({{"op", op}, {"token", lease.token}}, Duration{0});
    return answer && (*answer)["result"].get<bool>();
  }
  std::unique_ptr<ExternalClient> client_;
  std::string key_;
  Duration acquire_timeout_;
};

locks::LockFactory external_factory(std::string name) {
  return [name](locks::Runtime& rt, const locks::LockConfig& config) -> std::unique_ptr<locks::Lock> {
    auto* live = dynamic_cast<LiveRuntime*>(&rt);
    if (!live) throw AdapterFailure("a library lock runs only in `locksim live`");
    // The first incarnation's process was started before the run began
    // (start-up is not part of the story); a restart starts a new one now.
    std::unique_ptr<ExternalClient> client = live->world().take_adapter(live->client());
    if (!client) {
      client = std::make_unique<ExternalClient>(live->world(), live->client(), live->client_name(),
                                                live->world().adapter_servers(live->client()), config,
                                                adapter_command(name, config));
    }
    return std::make_unique<ExternalLock>(std::move(client), config);
  };
}

}  // namespace

std::string adapters_dir() {
  if (const char* dir = std::getenv("LOCKSIM_ADAPTERS"); dir && *dir) return dir;
  std::filesystem::path installed;
#ifdef LOCKSIM_INSTALLED_ADAPTERS_DIR
  installed = beside_executable(LOCKSIM_INSTALLED_ADAPTERS_DIR);
  std::error_code ec;
  if (!installed.empty() && std::filesystem::is_directory(installed, ec)) return installed.string();
#endif
  // Without either, the installed path: the adapter's failure to start names it.
  if (build_tree_allowed() || installed.empty()) return LOCKSIM_ADAPTERS_DIR;
  return installed.string();
}

std::vector<std::string> adapter_command(const std::string& lock, const locks::LockConfig& config) {
  const auto info = locks::find_lock(lock);
  if (info && !info->adapter.script.empty()) {
    std::vector<std::string> command = info->adapter.interpreter;
    command.push_back(adapters_dir() + "/" + info->adapter.script);
    command.insert(command.end(), info->adapter.arguments.begin(), info->adapter.arguments.end());
    return command;
  }
  if (config.command.empty()) throw AdapterFailure("lock external needs its adapter: --client \"CMD ARGS\" or [lock] command");
  return config.command;
}

std::optional<std::string> adapter_clock_refusal(const scenarios::Scenario& s, const locks::LockInfo& lock) {
  using scenarios::ClockEffect;
  const auto& a = lock.adapter;
  for (const auto& c : s.clients)
    if (c.clock_drift_ppm != 0 && !a.no_clock_drift.empty())
      return "client " + c.name + " has clock_drift_ppm, and lock " + lock.name +
             " cannot drift its adapter's clocks: " + a.no_clock_drift + " (docs/external-clients.md)";
  for (const scenarios::FaultSpec& f : s.faults) {
    const bool on_client = std::any_of(s.clients.begin(), s.clients.end(), [&](auto& c) { return c.name == f.target; });
    const ClockEffect effect = scenarios::fault_kind_info(f.kind).clock;
    const std::string& why = effect == ClockEffect::Step    ? a.no_clock_step
                             : effect == ClockEffect::Drift ? a.no_clock_drift
                                                            : std::string();
    if (on_client && !why.empty())
      return "fault " + std::string(scenarios::fault_kind_name(f.kind)) + " on client " + f.target + ": lock " +
             lock.name + " cannot " + (effect == ClockEffect::Step ? "step" : "drift") +
             " its adapter's clocks: " + why + " (docs/external-clients.md)";
  }
  return std::nullopt;
}

// The library locks' entries (locks/library_locks.cpp) with a factory that
// starts their adapter.
void register_library_locks() {
  static const bool registered = [] {
    for (locks::LockInfo info : locks::library_locks()) {
      info.factory = external_factory(info.name);
      locks::register_lock(std::move(info));
    }
    return true;
  }();
  (void)registered;
}

}  // namespace locksim::live
