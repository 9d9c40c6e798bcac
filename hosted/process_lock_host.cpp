// ProcessLockHost (process_lock_host.hpp): library locks as real processes
// in a simulated run.
#include "hosted/process_lock_host.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>

#include "hosted/hosted_client.hpp"
#include "locks/adapter_protocol.hpp"
#include "sim/world.hpp"

namespace locksim::hosted {

using nlohmann::json;

namespace {

std::string command_text(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

std::string shown(const std::string& text) { return locks::shown_adapter_line(text); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The adapter's zygote for this thread: started at its first use, kept for
// the thread's later runs (a sweep's or hunt's worker), killed with the
// thread (thread_local; PR_SET_PDEATHSIG if the thread dies first). Its
// stdin and stdout are pipes like a process's (the start sees the same
// kinds of fds), unused: the children get their own.
//
// The zygote is only a faster start: an adapter whose start does not stop
// at the shim's first read of stdin (a C program reading through stdio,
// whose reads glibc makes internally; one that exits or is refused first)
// has none, and its processes start afresh, which decides what happens to
// them. Null then, with the reason in `why_not` (kept for the thread's
// later runs, so a failing start is paid once).
ControlledProcess* zygote_for(const ProcessSpec& process, std::string& why_not) {
  struct Zygote {
    std::unique_ptr<ControlledProcess> process;
    std::string why_not;  // no zygote for this command: why
  };
  using Key = std::pair<std::vector<std::string>, std::vector<std::pair<std::string, std::string>>>;
  thread_local std::map<Key, Zygote> zygotes;
  Zygote& zygote = zygotes[{process.argv, process.env}];
  // A runtime with helper threads (Node) cannot be one: a fork's child has
  // only the forking thread.
  if (process.helper_threads > 0) zygote.why_not = "its runtime runs helper threads, which a fork does not copy";
  why_not = zygote.why_not;
  if (!why_not.empty()) return nullptr;
  if (zygote.process && zygote.process->serving_forks()) return zygote.process.get();
  zygote.process.reset();
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe");
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw std::runtime_error("cannot create a pipe");
  }
  ProcessSpec spec;
  spec.argv = process.argv;
  spec.env = process.env;
  spec.preload = process.preload;
  spec.bound = process.bound;
  spec.first_input = FirstInput::zygote;
  spec.stdin_fd = in[0];
  spec.stdout_fd = out[1];
  auto started = std::make_unique<ControlledProcess>(spec);
  for (const int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
  const Stop stop = started->run_until_blocked();
  if (!started->serving_forks()) {
    const auto* refused = std::get_if<Refused>(&stop);
    zygote.why_not = "its start ended before the shim's first read of stdin" +
                     (refused ? " (" + refused->reason + ")" : std::string());
    why_not = zygote.why_not;
    return nullptr;
  }
  zygote.process = std::move(started);
  return zygote.process.get();
}

}  // namespace

struct ProcessLockHost::Client {
  std::string name, label;
  sim::Host* host = nullptr;
  std::unique_ptr<HostedClient> hosted;
  int to_stdin = -1, from_stdout = -1;  // our ends of its pipes
  // Its stderr: a file of its own (a memfd), whatever locksim's is — Node
  // builds another process.stderr for a pipe than for a file (ioredis's
  // `debug` reads it at load), and the run's scheduler events followed.
  int stderr_file = -1;
  std::string buffer;                   // stdout bytes not yet a whole line
  std::deque<std::string> lines;        // answer lines not yet taken
  std::optional<sim::Scheduler::SlotRef> waiting;  // the operation awaiting a line
  std::int64_t next_id = 0;
  bool hello_pending = false;  // its answer is the first line
  ~Client() {
    close_fd(to_stdin);
    close_fd(from_stdout);
    close_fd(stderr_file);
  }
  // The end of what it wrote to stderr, for a failure's message.
  std::string stderr_tail() const {
    char text[600];
    const off_t size = stderr_file < 0 ? 0 : ::lseek(stderr_file, 0, SEEK_END);
    const off_t from = size > static_cast<off_t>(sizeof text) ? size - static_cast<off_t>(sizeof text) : 0;
    const ssize_t got = size > 0 ? ::pread(stderr_file, text, sizeof text, from) : 0;
    return got > 0 ? "; its stderr ends: " + shown(std::string(text, static_cast<std::size_t>(got))) : "";
  }
};

namespace {

// co_await: the client's next answer line, once run_processes has read it.
class AnswerAwaiter {
 public:
  explicit AnswerAwaiter(ProcessLockHost::Client& cl) : cl_(cl), sched_(cl.host->scheduler()) {}
  AnswerAwaiter(const AnswerAwaiter&) = delete;
  AnswerAwaiter& operator=(const AnswerAwaiter&) = delete;
  ~AnswerAwaiter() {
    if (armed_) sched_.release_slot(slot_);
  }
  bool await_ready() const noexcept { return !cl_.lines.empty(); }
  void await_suspend(std::coroutine_handle<> h) {
    slot_ = sched_.acquire_slot(h, cl_.host->id());
    armed_ = true;
    cl_.waiting = slot_;
  }
  std::string await_resume() {
    std::string line = std::move(cl_.lines.front());
    cl_.lines.pop_front();
    return line;
  }

 private:
  ProcessLockHost::Client& cl_;
  sim::Scheduler& sched_;
  sim::Scheduler::SlotRef slot_;
  bool armed_ = false;
};

// A request (outside the coroutines: g++ 12 rejects a braced json in a co_await).
json request(const std::string& op) { return json{{"op", op}}; }
json request(const std::string& op, const std::string& token) { return json{{"op", op}, {"token", token}}; }

class ProcessLock final : public locks::Lock {
 public:
  ProcessLock(ProcessLockHost& host, std::size_t client, const locks::LockConfig& config)
      : host_(host), client_(client), key_(config.key) {}

  Task<std::optional<locks::Lease>> try_acquire() override {
    const json answer = co_await host_.call(client_, request("acquire"));
    if (!answer["result"].get<bool>()) co_return std::nullopt;
    locks::Lease lease;
    lease.key = key_;
    lease.token = answer["token"].get<std::string>();
    if (answer.contains("fencing") && answer["fencing"].is_number_integer())
      lease.fencing_token = answer["fencing"].get<std::int64_t>();
    co_return lease;
  }
  Task<bool> release(locks::Lease& lease) override {
    const json answer = co_await host_.call(client_, request("release", lease.token));
    co_return answer["result"].get<bool>();
  }
  Task<bool> extend(locks::Lease& lease) override {
    const json answer = co_await host_.call(client_, request("extend", lease.token));
    co_return answer["result"].get<bool>();
  }
  bool still_valid(const locks::Lease& lease) override {
    return host_.call_now(client_, request("valid", lease.token))["result"].get<bool>();
  }
  std::uint64_t round_trips() const override { return 0; }  // the library's commands are its own

 private:
  ProcessLockHost& host_;
  std::size_t client_;
  std::string key_;
};

}  // namespace

// Node's helper threads, measured (Node 20): 4 V8 platform workers by
// default (--v8-pool-size; through NODE_OPTIONS, so env's exec of node
// keeps it), the platform's delayed-task scheduler, the inspector's signal
// thread; libuv's pool (UV_THREADPOOL_SIZE) on first use. libuv 1.45+
// submits through io_uring, past the shim's wrappers: UV_USE_IO_URING=0.
RuntimeProfile runtime_profile(const std::vector<std::string>& command) {
  const auto name = [&](std::size_t i) {
    return i < command.size() ? std::filesystem::path(command[i]).filename().string() : std::string();
  };
  if (name(0) != "node" && !(name(0) == "env" && name(1) == "node")) return {};
  // 3 helpers: one platform worker, the delayed-task scheduler, the
  // inspector's starter; a 4th (libuv's pool, a worker) is refused.
  return {3,
          {{"UV_THREADPOOL_SIZE", "1"}, {"UV_USE_IO_URING", "0"}},
          {"--single-threaded", "--v8-pool-size=1"},
          " (Node --single-threaded: its idle helper threads run beside the serialised main thread)"};
}

ProcessLockHost::ProcessLockHost(ProcessLockOptions options)
    : options_(std::move(options)), runtime_(runtime_profile(options_.command)) {}
ProcessLockHost::~ProcessLockHost() = default;

std::unique_ptr<locks::Lock> ProcessLockHost::make_lock(std::size_t c, locks::SimRuntime& runtime,
                                                        const locks::LockConfig& config) {
  if (clients_.size() <= c) clients_.resize(c + 1);
  if (!clients_[c]) {
    auto cl = std::make_unique<Client>();
    cl->host = &runtime.host();
    cl->name = cl->host->name();
    cl->label = "client " + cl->name + "'s adapter (" + command_text(options_.command) + ")";
    cl->hosted = std::make_unique<HostedClient>(*cl->host, runtime.node_count(),
                                                [&runtime](std::size_t n) { return runtime.node_host(n); });
    cl->host->on_crash([this, c] { on_crash(c); });
    clients_[c] = std::move(cl);
  }
  start_process(c, runtime, config);
  return std::make_unique<ProcessLock>(*this, c, config);
}

// The incarnation's process, its pipes, and the hello written to it (its
// answer is read by the first call).
void ProcessLockHost::start_process(std::size_t c, locks::SimRuntime& runtime, const locks::LockConfig& config) {
  Client& cl = *clients_[c];
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    throw scenarios::ProcessFailure(cl.label + ": cannot create a pipe");
  close_fd(cl.to_stdin);
  close_fd(cl.from_stdout);
  cl.to_stdin = in[1];
  cl.from_stdout = out[0];
  ::fcntl(cl.from_stdout, F_SETFL, O_NONBLOCK);
  cl.buffer.clear();
  cl.lines.clear();
  cl.waiting.reset();
  ProcessSpec spec;
  spec.argv = options_.command;
  const auto node_at = std::find_if(spec.argv.begin(), spec.argv.end(), [](const std::string& a) {
    return std::filesystem::path(a).filename() == "node";
  });
  if (node_at != spec.argv.end())
    spec.argv.insert(node_at + 1, runtime_.runtime_args.begin(), runtime_.runtime_args.end());
  spec.preload = options_.preload;
  spec.bound = options_.bound;
  spec.helper_threads = runtime_.helper_threads;
  spec.env = runtime_.env;
  spec.stdin_fd = in[0];
  spec.stdout_fd = out[1];
  spec.first_input = FirstInput::settle;
  close_fd(cl.stderr_file);
  cl.stderr_file = static_cast<int>(::memfd_create("locksim-adapter-stderr", MFD_CLOEXEC));
  spec.stderr_fd = cl.stderr_file;
  const auto close_child_ends = [&] {
    ::close(in[0]);
    ::close(out[1]);
  };
  ControlledProcess* zygote = nullptr;
  std::string no_zygote;
  try {
    if (options_.zygote) zygote = zygote_for(spec, no_zygote);
    cl.hosted->start(spec, "hosted-" + cl.name + "-" + std::to_string(cl.host->incarnation()), zygote);
  } catch (const scenarios::ProcessFailure&) {
    close_child_ends();
    throw;
  } catch (const std::runtime_error& e) {  // a pipe, fork or zygote that failed
    close_child_ends();
    throw scenarios::ProcessFailure(cl.label + ": " + e.what());
  }
  close_child_ends();
  mechanism_.push_back("simulated time: client " + cl.name + "'s adapter ran as process " +
                       std::to_string(cl.hosted->process()->pid()) + " under " +
                       std::filesystem::path(options_.preload).filename().string() + runtime_.note +
                       (zygote ? ", forked from its zygote (process " + std::to_string(zygote->pid()) + ")" : "") +
                       (no_zygote.empty() ? "" : ", started afresh: no zygote, " + no_zygote));
  std::vector<std::string> servers;
  for (std::size_t n = 0; n < runtime.node_count(); ++n)
    servers.push_back(cl.hosted->address(n));
  json hello = locks::adapter_hello(cl.name, std::move(servers), config, runtime.command_timeout(), 1.0);
  cl.next_id = 0;
  send(cl, hello);
  cl.hello_pending = true;
}

void ProcessLockHost::on_crash(std::size_t c) {
  Client& cl = *clients_[c];
  cl.hosted->kill();
  close_fd(cl.to_stdin);
  close_fd(cl.from_stdout);
  cl.lines.clear();
  cl.waiting.reset();
  cl.hello_pending = false;
}

void ProcessLockHost::run_processes() {
  for (auto& cl : clients_)
    if (cl && cl->hosted->run()) collect_output(*cl);  // only a process that ran wrote anything
  for (auto& cl : clients_)
    if (cl) cl->hosted->send_commands();
}

// Its stdout's whole lines; a line wakes the operation awaiting it. An
// ended process (not killed by a crash) ends the run.
void ProcessLockHost::collect_output(Client& cl) {
  char chunk[4096];
  ssize_t n;
  while (cl.from_stdout >= 0 && (n = ::read(cl.from_stdout, chunk, sizeof chunk)) > 0)
    cl.buffer.append(chunk, static_cast<std::size_t>(n));
  for (auto nl = cl.buffer.find('\n'); nl != std::string::npos; nl = cl.buffer.find('\n')) {
    cl.lines.push_back(cl.buffer.substr(0, nl));
    cl.buffer.erase(0, nl + 1);
  }
  sim::Scheduler& sched = cl.host->scheduler();
  if (!cl.lines.empty() && cl.waiting) {
    if (sched.slot_live(*cl.waiting)) sched.wake_at(sched.now(), *cl.waiting, 0);
    cl.waiting.reset();
  }
  const ClientEnd& end = cl.hosted->end();
  if (!end.refused.empty())
    throw scenarios::ProcessFailure(cl.label + ": the simulated-time mechanism refused it: " + end.refused +
                                    cl.stderr_tail());
  if (end.exit_status)
    throw scenarios::ProcessFailure(cl.label + ": the adapter exited (status " + std::to_string(*end.exit_status) +
                                    ") during the run" +
                                    (cl.buffer.empty() ? "" : ", its last output: " + shown(cl.buffer)) +
                                    cl.stderr_tail());
}

// Writes the request with a fresh id; returns the line written.
std::string ProcessLockHost::send(Client& cl, json& request) {
  request["id"] = cl.next_id++;
  const std::string line = request.dump() + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(cl.to_stdin, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) broken(cl, request["op"].get<std::string>(), "the adapter closed its stdin", line);
    done += static_cast<std::size_t>(n);
  }
  cl.hosted->input_ready(0);
  return line;
}

Task<json> ProcessLockHost::call(std::size_t c, json request) {
  Client& cl = *clients_.at(c);
  if (cl.hello_pending) {
    cl.hello_pending = false;
    const std::string text = co_await AnswerAwaiter(cl);
    checked(cl, text, "hello", 0, "(hello)");
  }
  const std::string op = request["op"].get<std::string>();
  const std::string line = send(cl, request);
  const std::string text = co_await AnswerAwaiter(cl);
  co_return checked(cl, text, op, request["id"].get<std::int64_t>(), line);
}

json ProcessLockHost::call_now(std::size_t c, json request) {
  Client& cl = *clients_.at(c);
  const std::string op = request["op"].get<std::string>();
  if (cl.hello_pending) broken(cl, op, "asked before the adapter's hello was answered", "(hello)");
  const std::string line = send(cl, request);
  cl.hosted->run();
  collect_output(cl);
  if (cl.lines.empty()) {
    const auto& b = cl.hosted->blocked();
    broken(cl, op,
           "the adapter waited (in " + (b ? b->call : std::string("?")) +
               ") before answering: locksim's still_valid() is synchronous, the answer must need no server "
               "call nor sleep",
           line);
  }
  const std::string text = std::move(cl.lines.front());
  cl.lines.pop_front();
  return checked(cl, text, op, request["id"].get<std::int64_t>(), line);
}

json ProcessLockHost::checked(Client& cl, const std::string& text, const std::string& op, std::int64_t id,
                              const std::string& request) {
  json answer = json::parse(text, nullptr, false);
  if (answer.is_discarded()) broken(cl, op, "the answer is not JSON: " + shown(text), request);
  if (auto problem = locks::adapter_answer_problem(answer, id, op); !problem.empty())
    broken(cl, op, problem + ": " + shown(text), request);
  if (answer.contains("unsupported"))
    broken(cl, op, "the adapter does not support '" + op + "' (" + shown(answer["unsupported"].dump()) + ")", request);
  if (op == "hello" && !answer["result"].get<bool>())
    broken(cl, op, "the adapter could not start its library: " + shown(answer.value("error", json()).dump()), request);
  if (answer.contains("error")) {
    const json& e = answer["error"];
    cl.host->world().note(cl.host->id(), "adapter", op + " raised " + e["class"].get<std::string>() + ": " +
                                                        shown(e.value("message", std::string())));
  }
  return answer;
}

void ProcessLockHost::broken(Client& cl, const std::string& op, const std::string& what, const std::string& request) {
  std::string req = request;
  if (!req.empty() && req.back() == '\n') req.pop_back();
  throw scenarios::ProcessFailure(cl.label + ", " + op + ": " + what + " (request: " + shown(req) + ")");
}

}  // namespace locksim::hosted
