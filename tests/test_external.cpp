// Real client libraries in their own process (live/external_lock.hpp):
// the adapter protocol's error paths with tiny scripted adapters, faults on
// the adapter process, and gc-pause with redis-py's own Lock. Each test
// starts its own redis-servers on free loopback ports (run_live does).
#include <catch2/catch.hpp>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "live/external_lock.hpp"
#include "live/monitor_replay.hpp"
#include "live/tcp_proxy.hpp"
#include "locks/hiredis/hiredis_conn.hpp"
#include "locks/hiredis/monitor_feed.hpp"
#include "scenarios/checkers.hpp"
#include "live/live_runner.hpp"
#include "live/server_preload.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/shell.hpp"

using namespace locksim;
namespace fs = std::filesystem;

namespace {

// A scenario with one or two clients of lock "external" running `adapter`.
std::string external_toml(const std::string& adapter, const std::string& extra = "") {
  return R"(name = "external-test"
duration = "20s"
[workload]
kind = "lock"
key = "lock:external-test"
[lock]
kind = "external"
ttl = "5s"
retry = "50ms"
acquire_timeout = "2s"
command = ["/bin/sh", ")" + adapter + R"("]
[redis]
masters = 1
[[client]]
name = "A"
work = "2s"
writes = 1
)" + extra;
}

scenarios::Scenario scenario_from(const std::string& toml) {
  live::register_library_locks();
  auto s = scenarios::load_scenario_text(toml, "inline.toml");
  if (!s) FAIL(s.error().to_string());
  return *s;
}

// A /bin/sh adapter in a fresh temp file: `body` runs after hello's answer.
std::string script(const std::string& name, const std::string& body) {
  const fs::path path = fs::temp_directory_path() / ("locksim-test-adapter-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << "read hello\necho '{\"id\":0,\"result\":true,\"library\":\"fake 1\"}'\n" << body << "\n";
  return path.string();
}

std::string run_error(const std::string& toml, std::int64_t ppm = 10'000) {
  live::LiveOptions options;
  options.time_scale_ppm = ppm;
  auto run = live::run_live(scenario_from(toml), options);
  REQUIRE_FALSE(run);
  CHECK(run.error().exit_code == 2);
  return run.error().message;
}

// The processes whose command line holds `marker`, and whether any is stopped.
std::pair<int, bool> processes_with(const std::string& marker) {
  int n = 0;
  bool stopped = false;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream cmd(entry.path() / "cmdline");
    std::string line((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
    if (line.find(marker) == std::string::npos || entry.path().filename() == std::to_string(::getpid())) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = all.rfind(')');
    const char state = close != std::string::npos && close + 2 < all.size() ? all[close + 2] : '?';
    if (state == 'Z') continue;
    ++n;
    stopped = stopped || state == 'T';
  }
  return {n, stopped};
}

}  // namespace

TEST_CASE("library locks are listed apart, refused by the simulator, and parsed from [lock] command", "[external]") {
  live::register_library_locks();
  const auto lib = locks::find_lock("lib:redis-py");
  REQUIRE(lib);
  CHECK(lib->library.find("redis-py 4.3.4") != std::string::npos);
  for (const auto& info : locks::all_locks()) CHECK(info.library.empty());  // sweeps and hunts never draw them
  CHECK(locks::library_locks().size() >= 2);
  const auto s = scenario_from(external_toml("/x/adapter.sh"));
  CHECK(s.lock.command == std::vector<std::string>{"/bin/sh", "/x/adapter.sh"});
  auto sim = scenarios::run_scenario(s, scenarios::RunOptions{});
  REQUIRE_FALSE(sim);
  CHECK(sim.error().find("`locksim live`") != std::string::npos);
  std::string bad_toml = external_toml("x");
  bad_toml.replace(bad_toml.find("command = ["), 11, "command = [1, ");
  auto bad = scenarios::load_scenario_text(bad_toml, "bad.toml");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().to_string().find("lock.command") != std::string::npos);
  // A client clock fault reaches the adapter's process through the client
  // preload; where its runtime's waits would not follow, refused, not faked.
  const auto jump = scenario_from(external_toml("/x/a.sh", "[[fault]]\nkind = \"clock-jump\"\ntarget = \"A\"\nat = \"1s\"\nby = \"+10s\"\n"));
  CHECK_FALSE(live::live_unsupported(jump, *locks::find_lock("external")));
  CHECK_FALSE(live::live_unsupported(jump, *locks::find_lock("lib:redis-py")));
  auto drift = jump;
  drift.faults[0].kind = scenarios::FaultKind::ClockDrift;
  drift.faults[0].ppm = 50'000;
  CHECK_FALSE(live::live_unsupported(drift, *locks::find_lock("lib:node-redlock")));
  const auto kazoo = live::adapter_clock_refusal(drift, *locks::find_lock("lib:kazoo"));
  REQUIRE(kazoo);
  CHECK(kazoo->find("cannot drift its adapter's clocks: kazoo's Lock.acquire waits in threading.Event.wait(timeout), a "
                    "Python threading wait (sem_clockwait") != std::string::npos);
  const auto etcd = live::adapter_clock_refusal(jump, *locks::find_lock("lib:python-etcd3"));
  REQUIRE(etcd);
  CHECK(etcd->find("cannot step its adapter's clocks: python-etcd3: gRPC") != std::string::npos);
}

namespace {

// A Python probe under the client preload on `control`: the wall clock's
// lead over CLOCK_TAI (which the preload leaves real; TAI - UTC is 0 or 37
// s here), and a 0.2 s time.sleep measured on the probe's monotonic clock
// and on CLOCK_TAI (real time).
struct Probe {
  double wall_ahead_s = 0, mono_elapsed_s = 0, real_elapsed_s = 0;
};
Probe probe_clocks(const std::string& library, const std::string& control) {
  const std::string out = tests::run_shell(
      "env LD_PRELOAD=" + library + " LOCKSIM_PRELOAD_CONTROL=" + control +
      " /usr/bin/python3 -c 'import time\nt0 = time.clock_gettime(time.CLOCK_TAI); m0 = time.monotonic()\n"
      "w = time.time() - t0\ntime.sleep(0.2)\n"
      "print(w, time.monotonic() - m0, time.clock_gettime(time.CLOCK_TAI) - t0)'").first;
  Probe p;
  std::istringstream(out) >> p.wall_ahead_s >> p.mono_elapsed_s >> p.real_elapsed_s;
  return p;
}

// One of our own children running `script` (an adapter), or -1.
pid_t own_adapter(const std::string& script) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;  // not a process
    std::ifstream cmd(entry.path() / "cmdline"), stat(entry.path() / "stat");
    const std::string line((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
    std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = all.rfind(')');
    if (line.find(script) == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(all.substr(close + 2));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == ::getpid()) return std::stoi(name);
  }
  return -1;
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The value of `name` in process `pid`'s environment.
std::string environment_of(pid_t pid, const std::string& name) {
  const std::string env = file_text("/proc/" + std::to_string(pid) + "/environ");
  std::size_t at = 0;
  for (std::size_t end; (end = env.find('\0', at)) != std::string::npos; at = end + 1)
    if (env.compare(at, name.size() + 1, name + "=") == 0)
      return env.substr(at + name.size() + 1, end - at - name.size() - 1);
  return "";
}

}  // namespace

TEST_CASE("the client preload steps the wall clock only and drifts every clock and time.sleep (Python)",
          "[external][preload]") {
  const auto library = live::locate_client_preload();
  REQUIRE(library);
  const fs::path control = fs::temp_directory_path() / ("locksim-test-client-clock-" + std::to_string(::getpid()));
  std::string why;
  auto clock = live::ServerClock::create(control, &why);
  REQUIRE(clock);
  clock->step(std::chrono::hours(1));
  Probe p = probe_clocks(library->string(), control.string());
  CHECK(p.wall_ahead_s > 3590);
  CHECK(p.wall_ahead_s < 3650);
  CHECK(p.mono_elapsed_s == Approx(p.real_elapsed_s).margin(0.02));  // a step leaves monotonic time alone
  // +100%: the probe's clocks run twice as fast, so its 0.2 s sleep lasts
  // 0.1 s of real time (a loaded machine only lengthens it: 0.17 s of slack).
  clock->set_drift(1'000'000);
  p = probe_clocks(library->string(), control.string());
  CHECK(p.mono_elapsed_s >= 0.2);
  CHECK(p.real_elapsed_s < 0.17);
  CHECK(p.mono_elapsed_s == Approx(2 * p.real_elapsed_s).epsilon(0.1));
  CHECK(clock->monotonic_offset().count() > 0);
  fs::remove(control);
}

// lib:redis-py and lib:node-redlock with a +1 h step and then a +90% drift
// of client A at 1 s (0.1 s real): the adapter process mapped the client
// preload and its client's control block, and a probe on that block sees
// the stepped wall clock (by 360 s: `by` is scaled as every duration) and
// the drifted monotonic clock and sleeps; the
// run gives its verdict (the libraries time their leases on the server's
// PX and their own monotonic clock: no violation) and says how.
TEST_CASE("a client clock fault reaches redis-py's and node-redlock's adapter process through the client preload",
          "[external][live]") {
  tests::skip_without_redis_server();
  const auto library = live::locate_client_preload();
  REQUIRE(library);
  for (const auto& [lock, script] : {std::pair{"lib:redis-py", "redis-py/adapter.py"},
                                      std::pair{"lib:node-redlock", "node-redlock/adapter.js"}}) {
    INFO(lock);
    auto s = scenario_from(external_toml("x", "[[fault]]\nkind = \"clock-jump\"\ntarget = \"A\"\nat = \"1s\"\n"
                                              "by = \"+1h\"\n[[fault]]\nkind = \"clock-drift\"\ntarget = \"A\"\n"
                                              "at = \"1s\"\nppm = 900000\n"));
    s.clients[0].work = std::chrono::seconds(15);  // 1.5 s real: the adapter outlives the probe
    live::LiveOptions options;
    options.lock_kind = lock;
    options.time_scale_ppm = 100'000;
    std::atomic<bool> done{false};
    std::string maps, control;
    Probe p;
    std::thread watcher([&] {
      const auto start = std::chrono::steady_clock::now();
      while (!done.load() && p.wall_ahead_s < 300) {
        const pid_t pid = own_adapter(script);
        if (pid > 0 && std::chrono::steady_clock::now() - start > std::chrono::milliseconds(100)) {
          maps = file_text("/proc/" + std::to_string(pid) + "/maps");
          control = environment_of(pid, "LOCKSIM_PRELOAD_CONTROL");
          if (!control.empty()) p = probe_clocks(library->string(), control);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
    auto run = live::run_live(s, options);
    done.store(true);
    watcher.join();
    REQUIRE(run);
    CHECK(maps.find("liblocksim_client_preload.so") != std::string::npos);
    CHECK((!control.empty() && maps.find(control) != std::string::npos));
    CHECK(p.wall_ahead_s > 359);  // +1 h scaled to 0.1: 360 s
    CHECK(p.mono_elapsed_s >= 0.2);
    CHECK(p.real_elapsed_s < 0.17);
    CHECK(run->run.violation_kinds().empty());
    int said = 0;
    for (const auto& m : run->fault_mechanisms) said += m.means.find("the client preload (LD_PRELOAD)") == 0;
    CHECK(said == 2);
  }
}

TEST_CASE("an adapter that breaks the protocol ends the run naming the client and the line", "[external][live]") {
  tests::skip_without_redis_server();
  struct Broken {
    const char* name;
    const char* body;  // after hello's answer
    std::vector<std::string> said;
    std::int64_t ppm = 10'000;
  };
  const std::vector<Broken> cases = {
      {"garbage", "read req\necho 'this is not json'\nsleep 60",
       {"client A's adapter", "acquire: the answer is not JSON: this is not json", "\"op\":\"acquire\""}},
      {"wrong", "read req\necho '{\"id\":1,\"result\":true}'\nsleep 60", {"must carry the library's \"token\""}},
      {"exits", "read req\necho 'gone' >&2\nexit 3",
       {"acquire: the adapter exited before answering", "its stderr ended: gone"}},
      {"unsupported", "read req\necho '{\"id\":1,\"unsupported\":\"no locks here\"}'\nsleep 60",
       {"does not support 'acquire'"}},
      // At time scale 1 the 20 s run outlasts the deadline: 2 s acquire
      // timeout + the command timeout + 10 s of grace (a shorter run ends first).
      {"silent", "read req\nsleep 600", {"acquire: no answer within"}, 1'000'000},
  };
  for (const Broken& c : cases) {
    INFO(c.name);
    const auto why = run_error(external_toml(script(c.name, c.body)), c.ppm);
    for (const auto& text : c.said) CHECK(why.find(text) != std::string::npos);
  }
  CHECK(processes_with("locksim-test-adapter-" + std::to_string(::getpid())).first == 0);  // none left behind
}

TEST_CASE("a pause stops the adapter's process (SIGSTOP) and a crash kills it; none outlives the run", "[external][live]") {
  tests::skip_without_redis_server();
  // A python adapter granting a fixed token; A is paused 20 s (0.2 s real)
  // and the test watches /proc for the stopped process meanwhile.
  const std::string marker = "locksim-test-adapter-" + std::to_string(::getpid()) + "-pause";
  const fs::path path = fs::temp_directory_path() / (marker + ".py");
  std::ofstream(path) << "import json, sys\n"
                         "for line in sys.stdin:\n"
                         "    r = json.loads(line)\n"
                         "    a = {'id': r['id'], 'result': True}\n"
                         "    if r['op'] == 'acquire': a['token'] = 't-' + str(r['id'])\n"
                         "    print(json.dumps(a), flush=True)\n";
  auto s = scenario_from(external_toml("x", "[[fault]]\nkind = \"pause\"\ntarget = \"A\"\nafter = \"A:acquired\"\nat = \"10ms\"\nduration = \"20s\"\n"));
  s.lock.command = {"/usr/bin/python3", path.string()};
  std::atomic<bool> done{false};
  bool seen_stopped = false;
  std::thread watcher([&] {
    while (!done.load()) {
      seen_stopped = seen_stopped || processes_with(marker).second;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  auto run = live::run_live(s, live::LiveOptions{});
  done.store(true);
  watcher.join();
  REQUIRE(run);
  CHECK(seen_stopped);
  CHECK(run->run.history.beliefs.size() == 1);
  bool labelled = false;
  for (const auto& n : run->notes) labelled = labelled || n.find("external client: client A's adapter") != std::string::npos;
  CHECK(labelled);
  bool said_sigstop = false;  // the record says how: on the adapter's process, not a client thread
  for (const auto& m : run->fault_mechanisms) said_sigstop = said_sigstop || m.means.find("SIGSTOP of the client's adapter process") == 0;
  CHECK(said_sigstop);
  CHECK(processes_with(marker).first == 0);
  // A crash kills it and the restart runs a new process (a second note).
  s.faults[0].kind = scenarios::FaultKind::Crash;
  s.faults[0].restart_after = std::chrono::seconds(1);
  run = live::run_live(s, live::LiveOptions{});
  REQUIRE(run);
  int started = 0;
  for (const auto& n : run->notes) started += n.find("external client: client A's adapter") != std::string::npos;
  CHECK(started == 2);
  CHECK(run->run.history.clients[0].crashes.size() == 1);
  CHECK(processes_with(marker).first == 0);
}

// A catalog story with a library lock at time scale 0.1 (gc-pause: a 3 s
// TTL, a 100 ms socket timeout: a loaded machine's scheduling noise does
// not decide the story): the verdict of up to three runs that first equals `want`.
static std::set<std::string> live_kinds(const std::string& story, const std::string& lock,
                                        const std::set<std::string>& want) {
  auto s = scenarios::load_catalog_scenario(story);
  REQUIRE(s);
  live::LiveOptions options;
  options.lock_kind = lock;
  options.time_scale_ppm = 100'000;
  std::set<std::string> got;
  for (int attempt = 0; attempt < 3; ++attempt) {  // at least one run, also when `want` is empty
    auto run = live::run_live(*s, options);
    REQUIRE(run);
    got = run->run.violation_kinds();
    if (got == want) break;
  }
  return got;
}

TEST_CASE("gc-pause with redis-py's own Lock: two holders and a stale write, as redis-py 4.3.4 really does", "[external][live]") {
  tests::skip_without_redis_server();
  const std::set<std::string> want = {"mutual-exclusion", "stale-write"};
  CHECK(live_kinds("gc-pause", "lib:redis-py", want) == want);
}

TEST_CASE("gc-pause with npm redlock over ioredis: two holders (A abandons on the library's own expiration)", "[external][live]") {
  tests::skip_without_redis_server();
  const std::set<std::string> want = {"mutual-exclusion"};
  CHECK(live_kinds("gc-pause", "lib:node-redlock", want) == want);
}

TEST_CASE("no adapter process outlives locksim stopped by SIGINT, SIGTERM or SIGKILL", "[external][live]") {
  tests::skip_without_redis_server();
  const std::string adapter = live::adapters_dir() + "/redis-py/adapter.py";
  const std::string pattern = live::adapters_dir() + "/redis-p[y]/adapter.py";  // does not match the shell's own line
  for (const char* sig : {"INT", "TERM", "KILL"}) {
    INFO(sig);
    // At time scale 1 the run lasts minutes: the signal comes mid-run, once
    // the adapters are up (seen in /proc), then the process tree is checked.
    const auto [out, code] = tests::run_shell(std::string(LOCKSIM_BINARY) +
                                              " live gc-pause --lock lib:redis-py --time-scale 1 >/dev/null 2>&1 & pid=$!; "
                                              "for i in $(seq 100); do pgrep -f '" + pattern +
                                              "' >/dev/null && { echo seen; break; }; sleep 0.1; done; kill -" + sig +
                                              " $pid; wait $pid; for i in $(seq 50); do pgrep -f '" + pattern +
                                              "' >/dev/null || break; sleep 0.1; done; echo done");
    CHECK(out.find("seen") != std::string::npos);  // the adapters were running when the signal came
    CHECK(out.find("done") != std::string::npos);
    CHECK(processes_with(adapter).first == 0);
  }
}

// ---- the CP libraries: kazoo on a real ZooKeeper ensemble, python-etcd3 on a real etcd cluster
// (run_live starts the members on free ports and stops them; a missing etcd or JRE fails, never skips)

namespace {

live::LiveRun cp_live_run(const std::string& story, const std::string& lock) {
  auto s = scenarios::load_catalog_scenario(story);
  REQUIRE(s);
  live::LiveOptions options;
  options.lock_kind = lock;
  options.time_scale_ppm = s->live_time_scale_ppm.value_or(100'000);
  auto run = live::run_live(*s, options);
  INFO((run ? std::string() : run.error().message));
  REQUIRE(run);
  return std::move(*run);
}

bool noted(const live::LiveRun& run, const std::string& text) {
  return std::any_of(run.notes.begin(), run.notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

// The violation kinds of up to three live runs of `story`, the first that equals `want`.
std::set<std::string> cp_story_kinds(const std::string& story, const std::string& lock, const std::set<std::string>& want) {
  std::set<std::string> got;
  for (int attempt = 0; attempt < 3 && (attempt == 0 || got != want); ++attempt)
    got = cp_live_run(story, lock).run.violation_kinds();
  return got;
}

}  // namespace

TEST_CASE("lib:kazoo and lib:python-etcd3 are listed with their package and run only on their own topology", "[external]") {
  live::register_library_locks();
  const auto kazoo = locks::find_lock("lib:kazoo");
  const auto etcd3 = locks::find_lock("lib:python-etcd3");
  REQUIRE(kazoo);
  REQUIRE(etcd3);
  CHECK(kazoo->library.find("kazoo 2.8.0") != std::string::npos);
  CHECK(etcd3->library.find("python-etcd3 0.12.0") != std::string::npos);
  CHECK(kazoo->topology == locks::Topology::ZooKeeper);
  CHECK(etcd3->topology == locks::Topology::Etcd);
  // A library of another topology: exit 2 naming it, before any server starts.
  const std::vector<std::pair<std::string, std::string>> mismatched = {
      {"gc-pause", "lib:kazoo"}, {"zk-gc-pause", "lib:redis-py"}, {"etcd-gc-pause", "lib:kazoo"}, {"zk-baseline", "lib:python-etcd3"}};
  for (const auto& [story, lock] : mismatched) {
    INFO(story << " " << lock);
    auto s = scenarios::load_catalog_scenario(story);
    REQUIRE(s);
    live::LiveOptions options;
    options.lock_kind = lock;
    auto refused = live::run_live(*s, options);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().exit_code == 2);
    CHECK(refused.error().message.find("topology") != std::string::npos);
  }
}

TEST_CASE("lib:kazoo on a real ZooKeeper ensemble: three clients take turns, safely, through kazoo's own Lock", "[external][cp-external]") {
  const auto run = cp_live_run("zk-baseline", "lib:kazoo");
  CHECK(run.run.violations.empty());
  CHECK(run.run.history.beliefs.size() >= 6);  // three clients, three turns each: most of them granted
  CHECK(noted(run, "runs kazoo 2.8.0"));
  for (const auto& b : run.run.history.beliefs) CHECK(b.fencing_token.has_value());  // the node's czxid
}

// python-etcd3 0.12.0's Lock.acquire waits through tenacity with a
// two-argument wait callback (etcd3/locks.py); tenacity 8 (Debian's 8.2.1)
// calls it with one retry_state: every acquire that finds the key taken
// raises TypeError instead of waiting (python-etcd3 issue #2149). Only an
// acquire that finds the key free succeeds. The test states that finding.
TEST_CASE("lib:python-etcd3 on a real etcd cluster: uncontended acquires work, a contended one raises TypeError", "[external][cp-external]") {
  const auto run = cp_live_run("etcd-baseline", "lib:python-etcd3");
  CHECK(run.run.violations.empty());
  CHECK(!run.run.history.beliefs.empty());
  CHECK(noted(run, "runs python-etcd3 0.12.0"));
  CHECK(noted(run, "acquire raised TypeError: Lock.acquire.<locals>.wait() missing 1 required positional argument"));
  for (const auto& b : run.run.history.beliefs) CHECK(b.fencing_token.has_value());  // the key's create_revision
}

// zk-gc-pause: kazoo's session expires during A's pause and B takes the
// lock: two holders, as zk-fenced (the adapter reports the czxid, so the
// fencing storage rejects whatever A writes late, or A's listener has seen
// LOST by its validity check and it abandons).
TEST_CASE("zk-gc-pause with kazoo's own Lock: two holders, no stale write (czxid fencing), as zk-fenced", "[external][cp-external]") {
  const std::set<std::string> want = {"mutual-exclusion"};
  CHECK(cp_story_kinds("zk-gc-pause", "lib:kazoo", want) == want);
}

// etcd-gc-pause: A's lease expires in its pause; B's acquire, made while A
// held the key, raised TypeError (above) and gave up, so C is the second
// holder: two holders, and A's late writes are rejected by create_revision.
TEST_CASE("etcd-gc-pause with python-etcd3's own Lock: two holders (A and C), no stale write, as etcd-fenced", "[external][cp-external]") {
  const std::set<std::string> want = {"mutual-exclusion"};
  CHECK(cp_story_kinds("etcd-gc-pause", "lib:python-etcd3", want) == want);
}

// zk-holder-crash: the crash SIGKILLs A's kazoo process (its session is
// not closed: the kernel drops the connection), the ensemble expires the
// session a timeout later and B, waiting in kazoo's own Lock, gets it.
TEST_CASE("zk-holder-crash with kazoo: the killed holder's session expires and the waiter gets the lock", "[external][cp-external]") {
  const auto run = cp_live_run("zk-holder-crash", "lib:kazoo");
  CHECK(run.run.violations.empty());
  REQUIRE(run.run.history.clients.size() == 2);
  CHECK(run.run.history.clients[0].crashes.size() == 1);
  const auto& beliefs = run.run.history.beliefs;
  CHECK(std::any_of(beliefs.begin(), beliefs.end(), [](const auto& b) { return b.client == 1; }));  // B held it
  CHECK(processes_with(live::adapters_dir() + "/kazoo/adapter.py").first == 0);
}

// zk-holder-partitioned: the partition acts on A's kazoo connections (its
// links on the member proxies drop everything). kazoo hears no ping answer
// within its read timeout (2/3 of the session timeout) and goes SUSPENDED
// before the session expires, so A, asking its listener before each write,
// abandons before B is granted the lock: no two holders, unlike zk-fenced
// (Curator's InterProcessMutex does not watch the connection state).
TEST_CASE("zk-holder-partitioned with kazoo: its listener says SUSPENDED and A abandons before B holds", "[external][cp-external]") {
  const auto run = cp_live_run("zk-holder-partitioned", "lib:kazoo");
  CHECK(run.run.violations.empty());
  const auto& beliefs = run.run.history.beliefs;
  REQUIRE(beliefs.size() >= 2);
  CHECK(beliefs[0].client == 0);
  CHECK(beliefs[0].end_reason == "abandon");
  CHECK(std::any_of(beliefs.begin(), beliefs.end(), [](const auto& b) { return b.client == 1; }));  // B held it after
}

TEST_CASE("lock options reach the adapter as text; a non-string option or one the adapter does not read is exit 2",
          "[external][live]") {
  tests::skip_without_redis_server();
  std::string with_option = external_toml("x");
  with_option.replace(with_option.find("command = ["), 11, "options = { timeout = \"0\", mode = \"a b\" }\ncommand = [");
  const auto s = scenario_from(with_option);
  CHECK(s.lock.adapter_options == std::map<std::string, std::string>{{"mode", "a b"}, {"timeout", "0"}});
  std::string typed = external_toml("x");
  typed.replace(typed.find("command = ["), 11, "options = { timeout = 0 }\ncommand = [");
  auto bad = scenarios::load_scenario_text(typed, "typed.toml");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().to_string().find("lock.options.timeout: expected a string, got integer") != std::string::npos);
  // An adapter that reads no such option says so in hello's answer: the run ends with exit 2.
  auto unknown = scenarios::load_catalog_scenario("gc-pause");
  REQUIRE(unknown);
  unknown->lock.adapter_options["mode"] = "x";
  live::LiveOptions options;
  options.lock_kind = "lib:redis-py";
  auto run = live::run_live(*unknown, options);
  REQUIRE_FALSE(run);
  CHECK(run.error().exit_code == 2);
  CHECK(run.error().message.find("unknown [lock] options mode") != std::string::npos);
}

// redis-py#4279 with the real library (docs/reproductions.md): Lock(timeout=0)'s
// reacquire() deletes the key and answers True, so B takes the lock beside A;
// with PR #4315's fix applied in the adapter, A learns it cannot renew.
TEST_CASE("redis-py-reacquire-no-timeout: redis-py 4.3.4 gives two holders, PR #4315's fix none", "[external][live]") {
  tests::skip_without_redis_server();
  live::register_library_locks();
  auto s = scenarios::load_catalog_scenario("redis-py-reacquire-no-timeout");
  REQUIRE(s);
  for (const std::string lock : {"lib:redis-py", "lib:redis-py-pr4315"}) {
    live::LiveOptions options;
    options.lock_kind = lock;
    options.time_scale_ppm = s->live_time_scale_ppm.value();  // the story's [live] time_scale: real time
    auto run = live::run_live(*s, options);
    REQUIRE(run);
    INFO(lock);
    CHECK(run->run.matched);
    CHECK(run->run.violation_kinds().count("mutual-exclusion") == (lock == "lib:redis-py" ? 1U : 0U));
  }
}

// node-redlock#169 with the real library (docs/reproductions.md): B wins
// after retries longer than the TTL; 5.0.0-beta.2 dates its lock from the
// first attempt, so using()'s extension fails at once and the keys expire
// under B's routine: C takes the lock. PR #273 in the adapter: none. At
// time scale 0.1 (using() needs a duration 100 ms over its threshold); the
// verdict of up to three runs, as for gc-pause above (12 of 13 by hand on a
// loaded machine).
TEST_CASE("node-redlock-late-grant: redlock 5.0.0-beta.2's using() gives two holders, PR #273's fix none",
          "[external][live]") {
  tests::skip_without_redis_server();
  live::register_library_locks();
  auto s = scenarios::load_catalog_scenario("node-redlock-late-grant");
  REQUIRE(s);
  CHECK(s->lock.adapter_options.at("using") == "true");
  const std::set<std::string> two_holders = {"mutual-exclusion", "stale-write"};
  CHECK(live_kinds("node-redlock-late-grant", "lib:node-redlock", two_holders) == two_holders);
  CHECK(live_kinds("node-redlock-late-grant", "lib:node-redlock-pr273", {}).empty());
}

TEST_CASE("a MONITOR line is read back into its time, source and arguments, escapes undone", "[external]") {
  const auto c = locks::parse_monitor_line(R"(1796563529.148405 [0 127.0.0.1:49834] "set" "k" "a\"b c\x00\n" "PX" "30000")");
  REQUIRE(c);
  CHECK(c->time_us == 1796563529148405);
  CHECK(c->source == "127.0.0.1:49834");
  CHECK(c->source_port() == 49834);
  CHECK(c->argv == Argv{"set", "k", std::string("a\"b c\0\n", 7), "PX", "30000"});
  const auto lua = locks::parse_monitor_line(R"(1796563529.161036 [0 lua] "del" "k")");
  REQUIRE(lua);
  CHECK(lua->source == "lua");
  CHECK(lua->source_port() == 0);
  CHECK_FALSE(locks::parse_monitor_line("OK"));
  CHECK_FALSE(locks::parse_monitor_line(R"(17965.1 [0 lua] "del")"));   // not <sec>.<usec>
  CHECK_FALSE(locks::parse_monitor_line(R"(1796563529.161036 [0 lua] "unterminated)"));
}

// Two clients through the proxy, as a client library's own connections
// would reach a server: B deletes A's entry once by DEL and once by a script;
// a compare-and-delete with the wrong token deletes nothing. The replay
// attributes each by the proxy's upstream port, and the checker sees B.
TEST_CASE("MONITOR replay: who changed whose lock entry on a real server, scripts included", "[external]") {
  tests::skip_without_redis_server();
  tests::RedisServerProcess server;
  auto proxy = live::TcpProxy::start("127.0.0.1", server.port(), {"A", "B"});
  REQUIRE(proxy);
  live::TcpProxy& p = **proxy;
  const std::vector<std::string> names = {"A", "B"};
  live::MonitorReplay::Node node{"127.0.0.1", server.port(), [&](int port) -> std::optional<std::size_t> {
                                   const std::string source = p.source_of_upstream_port(port);
                                   for (std::size_t i = 0; i < names.size(); ++i)
                                     if (names[i] == source) return i;
                                   return std::nullopt;
                                 },
                                 {}, {}};
  live::MonitorReplay replay({node}, [](const std::string& key) { return key == "lock"; });
  REQUIRE_FALSE(replay.start());
  const auto conn = [&](const std::string& source) {
    return locks::HiredisConn({"127.0.0.1", p.port(source), std::chrono::milliseconds(1000),
                               std::chrono::milliseconds(1000)});
  };
  auto a = conn("A");
  auto b = conn("B");
  const std::string cad = "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) end return 0";
  CHECK(a.execute({"SET", "lock", "tok-a", "NX", "PX", "30000"}).str == "OK");
  CHECK(b.execute({"EVAL", cad, "1", "lock", "tok-b"}).integer == 0);  // not its token: nothing deleted
  CHECK(b.execute({"DEL", "lock"}).integer == 1);
  CHECK(a.execute({"SET", "lock", "tok-a2", "NX", "PX", "30000"}).str == "OK");
  CHECK(b.execute({"EVAL", "return redis.call('del', KEYS[1])", "1", "lock"}).integer == 1);
  CHECK(a.execute({"SET", "other", "x"}).str == "OK");  // not a lock key
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto seen = replay.stop();

  using Kind = sim::redis::KeyEvent::Kind;
  REQUIRE(seen.size() == 4);
  const std::vector<std::pair<std::optional<std::size_t>, Kind>> expected = {
      {0, Kind::Created}, {1, Kind::Deleted}, {0, Kind::Created}, {1, Kind::Deleted}};
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].effect.client == expected[i].first);
    CHECK(seen[i].effect.kind == expected[i].second);
  }
  CHECK(seen[3].effect.argv.front() == "EVAL");

  scenarios::History h;
  h.clients = {{"A", 1, {}, {}}, {"B", 2, {}, {}}};
  h.nodes = {"redis-1"};
  for (const auto& [node, e, real_time_us] : seen)
    h.entries.push_back({TrueInstant{std::chrono::microseconds(e.time_us - seen.front().effect.time_us)},
                         h.entries.size(), static_cast<sim::HostId>(node), e.client, false, e.kind, e.key, scenarios::entry_command_text(e.argv)});
  const auto found = scenarios::check_wrong_owner_release(h);
  REQUIRE(found.size() == 2);
  CHECK(found[0].clients == std::vector<std::string>{"B", "A"});
}

// A user's own adapter (lock "external") around redis-py whose release is a
// bare DEL, in gc-pause: A wakes after its entry expired and B took the
// lock, and deletes B's entry. locksim never sees that command — the
// adapter's process sends it — so the verdict's wrong-owner-release comes
// from the server's own command stream (MONITOR, attributed by A's proxy
// link), as the simulated naive-del lock's does from the simulated node.
TEST_CASE("a library's wrong delete is observed on the real server: a bare-DEL adapter in gc-pause", "[external][live]") {
  tests::skip_without_redis_server();
  const fs::path adapter = fs::temp_directory_path() / ("locksim-test-bare-del-" + std::to_string(::getpid()) + ".py");
  std::ofstream(adapter) << "import sys, time, uuid\nimport redis\nsys.path.insert(0, '" LOCKSIM_SOURCE_DIR "/adapters')\n"
                            "from jsonlines_loop import serve\nstate = {}\n"
                            "def hello(req):\n"
                            "    host, port = req['servers'][0].rsplit(':', 1)\n"
                            "    state['r'] = redis.Redis(host=host, port=int(port), socket_timeout=req['command_timeout_us'] / 1e6)\n"
                            "    state['req'] = req\n"
                            "    return {'result': True, 'library': 'redis-py ' + redis.__version__ + ', bare DEL'}\n"
                            "def acquire(req):\n"  // SET NX PX, retried until the acquire timeout
                            "    h, token = state['req'], uuid.uuid4().hex\n"
                            "    deadline = time.monotonic() + h['acquire_timeout_us'] / 1e6\n"
                            "    while not state['r'].set(h['key'], token, nx=True, px=h['ttl_us'] // 1000):\n"
                            "        if time.monotonic() >= deadline:\n"
                            "            return {'result': False}\n"
                            "        time.sleep(h['retry_us'] / 1e6)\n"
                            "    return {'result': True, 'token': token, 'fencing': None}\n"
                            "def release(req):\n"
                            "    state['r'].delete(state['req']['key'])\n"
                            "    return {'result': True}\n"
                            "serve({'hello': hello, 'acquire': acquire, 'release': release,\n"
                            "       'valid': lambda req: {'result': True}}, 'bare-del')\n";
  auto s = scenarios::load_catalog_scenario("gc-pause");
  REQUIRE(s);
  s->lock.command = {"/usr/bin/python3", adapter.string()};
  live::register_library_locks();
  live::LiveOptions options;
  options.lock_kind = "external";
  options.time_scale_ppm = 100'000;  // as live_kinds above: 0.1, scheduling noise does not decide the story
  scenarios::RunOptions sim_options;
  sim_options.lock_kind = "naive-del";
  const auto simulated = scenarios::run_scenario(*s, sim_options);
  REQUIRE(simulated);
  const std::set<std::string> want = simulated->violation_kinds();
  REQUIRE(want.count("wrong-owner-release") == 1);
  std::set<std::string> got;
  std::optional<live::LiveRun> last;
  for (int attempt = 0; attempt < 3 && got != want; ++attempt) {
    auto run = live::run_live(*s, options);
    REQUIRE(run);
    got = run->run.violation_kinds();
    last = std::move(*run);
  }
  fs::remove(adapter);
  CHECK(got == want);
  // The delete is A's (client 0), of the entry B or C (whichever the real
  // race let in first) created after A's expired.
  bool a_deleted_anothers = false;
  std::optional<std::size_t> creator;
  for (const auto& e : last->run.history.entries) {
    if (e.kind == sim::redis::KeyEvent::Kind::Created) creator = e.client;
    if (e.kind == sim::redis::KeyEvent::Kind::Deleted && e.client == 0U && creator && *creator != 0U)
      a_deleted_anothers = true;
  }
  CHECK(a_deleted_anothers);
}

// With a Sentinel quorum (replica-failover) redis-py is made as an
// application makes it: redis.sentinel.Sentinel(...).master_for(name), the
// master asked of the real sentinels. They hand out the address a node
// announces (its proxy's shared listener); the client preload binds the
// adapter's connections to its host's own loopback address, so its links
// there are still A's (faults, and the MONITOR replay's attribution: A's
// own SET is A's entry on redis-1).
TEST_CASE("lib:redis-py asks the real Sentinel quorum for the master, and its links stay its own", "[external][live]") {
  tests::skip_without_redis_server();
  live::register_library_locks();
  auto s = scenarios::load_catalog_scenario("replica-failover");
  REQUIRE(s);
  REQUIRE(s->redis.replicas > 0);
  live::LiveOptions options;
  options.lock_kind = "lib:redis-py";
  options.time_scale_ppm = s->live_time_scale_ppm.value_or(1'000'000);
  auto run = live::run_live(*s, options);
  REQUIRE(run);
  bool via_sentinel = false;
  for (const auto& n : run->notes) via_sentinel = via_sentinel || n.find("master from Redis Sentinel") != std::string::npos;
  CHECK(via_sentinel);
  bool a_created = false;
  for (const auto& e : run->run.history.entries)
    a_created = a_created || (e.kind == sim::redis::KeyEvent::Kind::Created && e.client == 0U && e.node == 0U);
  CHECK(a_created);
}

// What the replay relies on, on this redis-server: a replica's MONITOR
// shows not the writes it refused (READONLY) but what it applied from its
// master (a script's effects, from the master's address), and a script's
// EVAL line comes before the commands it ran.
TEST_CASE("MONITOR on redis-server 7.0: refused commands are not fed, replicated ones are, EVAL first", "[external]") {
  tests::skip_without_redis_server();
  tests::RedisServerProcess master;
  tests::RedisServerOptions as_replica;
  as_replica.replicaof_port = master.port();
  tests::RedisServerProcess replica(as_replica);
  locks::HiredisConn to_master({"127.0.0.1", master.port(), std::chrono::milliseconds(1000), std::chrono::milliseconds(1000)});
  locks::HiredisConn to_replica({"127.0.0.1", replica.port(), std::chrono::milliseconds(1000), std::chrono::milliseconds(1000)});
  for (int i = 0; i < 100 && to_replica.execute({"INFO", "replication"}).str.find("master_link_status:up") ==
                                 std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the first sync
  auto master_feed = locks::MonitorFeed::open("127.0.0.1", master.port(), std::chrono::milliseconds(1000));
  auto replica_feed = locks::MonitorFeed::open("127.0.0.1", replica.port(), std::chrono::milliseconds(1000));
  REQUIRE(master_feed);
  REQUIRE(replica_feed);
  CHECK(to_replica.execute({"SET", "x", "1"}).type == Reply::Type::Error);  // READONLY
  CHECK(to_master.execute({"EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "y"}).str == "OK");
  CHECK(to_master.execute({"WAIT", "1", "2000"}).integer == 1);
  CHECK(to_replica.execute({"GET", "y"}).str == "v");
  const auto words = [&master](locks::MonitorFeed& feed) {
    std::vector<std::string> out;
    for (;;) {
      auto next = feed.next(std::chrono::milliseconds(300));
      REQUIRE(next);
      if (!*next) return out;
      const auto& c = **next;
      out.push_back(c.source == "lua" ? "lua " + c.argv[0] : c.argv[0] + (c.source_port() == master.port() ? " (master)" : ""));
    }
  };
  CHECK(words(**replica_feed) == std::vector<std::string>{"SELECT (master)", "set (master)", "GET"});
  CHECK(words(**master_feed) == std::vector<std::string>{"EVAL", "lua set", "WAIT"});
}
