// The sweep engine: plan, resume, run in parallel, write in order.
#include "cli/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>

#include "cli/commands.hpp"
#include "cli/live_result.hpp"
#include "cli/output_files.hpp"
#include "cli/parallel.hpp"
#include "cli/process_locks.hpp"
#include "cli/version.hpp"
#include "live/live_runner.hpp"
#include "live/redis_cluster.hpp"
#include "locks/registry.hpp"
#include "reports/numbers.hpp"
#include "reports/run_output.hpp"
#include "reports/run_record.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/input_file.hpp"
#include "scenarios/lock_expectations.hpp"
#include "scenarios/runner.hpp"
#include "sim/scheduler.hpp"

namespace locksim::cli {

namespace {

struct Pair {
  std::size_t scenario;
  std::string lock;
};

struct Plan {
  std::vector<scenarios::Scenario> scenarios;
  std::vector<std::string> refs;  // as the user named them (for repro commands)
  std::vector<Pair> pairs;
  std::uint64_t seeds;
  std::uint64_t seed_start;
  std::uint64_t total() const { return pairs.size() * seeds; }
};

std::vector<std::string> expand(const std::string& option, const std::vector<std::string>& args,
                                const std::vector<std::string>& all) {
  std::vector<std::string> out;
  for (const auto& item : comma_list("sweep", option, args)) {
    if (item == "all") out.insert(out.end(), all.begin(), all.end());
    else out.push_back(item);
  }
  return out;
}

// A skipped pair's reason is a clause about the lock or the scenario, so it
// reads after the pair ("gc-pause × etcd-mutex (the lock needs an etcd
// topology)") and after a count in the summary ("70 because the lock needs
// an etcd topology").
std::string needed_topology(locks::Topology t) {
  switch (t) {
    case locks::Topology::Redis: return "the lock needs a Redis topology";
    case locks::Topology::Etcd: return "the lock needs an etcd topology";
    case locks::Topology::ZooKeeper: return "the lock needs a ZooKeeper topology";
  }
  return "the lock needs another topology";
}

Plan make_plan(const SweepOptions& o, SweepSummary& summary) {
  std::vector<std::string> catalog_names, lock_names;
  for (const auto& e : scenarios::catalog()) catalog_names.push_back(e.name);
  for (const auto& l : locks::all_locks()) lock_names.push_back(l.name);
  Plan plan{{}, {}, {}, o.seeds, o.seed_start};
  std::map<std::string, std::string> ref_of_name;  // runs are keyed by scenario name: one source per name
  for (const auto& ref : expand("--scenario", o.scenarios, catalog_names)) {
    auto s = scenarios::resolve_scenario(ref);
    if (!s) throw InputError(s.error().to_string());
    if (auto [it, fresh] = ref_of_name.emplace(s->name, ref); !fresh)
      throw InputError("sweep: --scenario " + it->second + " and " + ref + " are both named \"" + s->name +
                       "\"; a sweep's runs are keyed by scenario name, so each name may come from one source only");
    plan.scenarios.push_back(std::move(*s));
    plan.refs.push_back(ref);
  }
  if (auto e = scenarios::apply_expectation_files(o.expect_files, plan.scenarios)) throw InputError(e->to_string());
  const auto locks = expand("--lock", o.locks, lock_names);
  for (const auto& lock : locks)
    if (!locks::find_lock(lock)) throw InputError("sweep: " + locks::unknown_lock_message(lock));
  // Through `all`, a lock runs only on the scenarios that state what it
  // should show (an expectation for every lock, or one for it): the
  // reproductions of shipped bugs and their fixes run on the scenarios that
  // tell their story, and every run of `--lock all` has an expectation to
  // match. A lock named one by one runs on every scenario.
  const std::vector<std::string> named = expand("--lock", o.locks, {});
  for (std::size_t s = 0; s < plan.scenarios.size(); ++s) {
    for (const auto& lock : locks) {
      const auto info = locks::find_lock(lock);
      if (info->topology != plan.scenarios[s].topology) {  // a Redis lock on etcd, a CP lock on Redis, ...
        summary.skipped_pairs.push_back(plan.scenarios[s].name + " × " + lock + " (" + needed_topology(info->topology) +
                                        ")");
        continue;
      }
      if (!plan.scenarios[s].expected_for(lock) && std::find(named.begin(), named.end(), lock) == named.end()) {
        summary.skipped_pairs.push_back(plan.scenarios[s].name + " × " + lock +
                                        " (the scenario states no expectation for the lock, and --lock did not name it)");
        continue;
      }
      if (info->topology == locks::Topology::Redis &&
          static_cast<std::size_t>(plan.scenarios[s].redis.masters) < info->min_nodes) {
        summary.skipped_pairs.push_back(plan.scenarios[s].name + " × " + lock + " (the lock needs " +
                                        std::to_string(info->min_nodes) + " masters)");
        continue;
      }
      plan.pairs.push_back({s, lock});
    }
  }
  if (plan.scenarios.empty() || plan.pairs.empty()) throw InputError("sweep: nothing to run");
  if (!reports::checked_mul(plan.pairs.size(), plan.seeds))
    throw InputError("sweep: --seeds " + std::to_string(plan.seeds) + " x " + std::to_string(plan.pairs.size()) +
                     " scenario x lock pairs is more runs than 2^64");
  return plan;
}

std::string run_key(const std::string& scenario, const std::string& lock, std::uint64_t seed) {
  return scenario + '\x1f' + lock + '\x1f' + std::to_string(seed);
}

// Reads the runs an earlier, interrupted sweep wrote (each line through the
// run record's one reader, reports/run_record.hpp); drops a torn last line
// (a kill mid-write) by truncating the file after the last whole line. Any
// other bad line — garbage at the end included — is an error: resuming past
// it would lose or repeat runs. A simulated sweep does not resume a live
// file, nor the other way round.
std::set<std::string> read_done(const std::string& path, bool live) {
  std::set<std::string> done;
  // Only a regular file can be continued: stdout has no earlier lines, a
  // FIFO would block (or hand over another writer's lines), a device never ends.
  if (path == "-") throw InputError("sweep: --resume continues an output file; --out - (stdout) has nothing to continue");
  std::error_code ec;
  if (std::filesystem::exists(path, ec))
    if (auto problem = scenarios::input_file_problem(path, std::numeric_limits<std::uintmax_t>::max()))
      throw InputError("sweep: --resume: " + path + ": " + *problem + "; only a sweep's own file can be continued");
  std::ifstream in(path, std::ios::binary);
  if (!in) return done;  // nothing yet: a fresh sweep
  reports::JsonlLine next;
  std::uintmax_t good_bytes = 0;
  int line_no = 0;
  while (reports::next_jsonl_line(in, next)) {
    ++line_no;
    const std::string& line = next.text;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    if (next.too_long) throw InputError(where + "the line " + reports::jsonl_line_too_long() + "; cannot resume");
    const bool terminated = next.terminated;
    if (!terminated && reports::classify_bad_line(line, terminated) == reports::LineDamage::Torn) break;
    // Resume needs a run's identity; `report` checks the rest of each line.
    auto record = reports::parse_run_record(line, reports::RecordNeed::Identity);
    if (record && record->lock.empty()) record = failure(std::string("lock: missing"));
    if (!record) throw InputError(where + "not a run result line (" + record.error() + "); cannot resume");
    if (record->is_live() != live)
      throw InputError(where + "a " + (live ? "simulated" : "live") + " run; cannot resume it " +
                       (live ? "with" : "without") + " --live");
    done.insert(run_key(record->scenario, record->lock, record->seed));
    good_bytes += line.size() + 1;
  }
  in.close();
  if (std::filesystem::file_size(path) != good_bytes) std::filesystem::resize_file(path, good_bytes);
  return done;
}

struct ItemResult {
  std::string line;
  bool matched = true;
  std::optional<std::string> live_skipped;  // "scenario × lock: why"
};

const Pair& pair_of(const Plan& plan, std::uint64_t item) { return plan.pairs[item / plan.seeds]; }
std::uint64_t seed_of(const Plan& plan, std::uint64_t item) { return plan.seed_start + item % plan.seeds; }

ItemResult simulate_item(const Plan& plan, std::uint64_t item, bool verify) {
  const Pair& pair = pair_of(plan, item);
  scenarios::RunOptions options;
  options.lock_kind = pair.lock;
  options.seed = seed_of(plan, item);
  options.scenario_ref = plan.refs[pair.scenario];
  options.program = program_name();
  options.stop = &stop_flag();  // Ctrl-C ends even a very long run (it throws sim::Scheduler::Stopped)
  options.verify = verify;
  auto run = scenarios::run_scenario(plan.scenarios[pair.scenario], options);
  if (!run) throw InputError(run.error());
  return {reports::to_line(reports::record_of(*run)), run->matched, std::nullopt};
}

// One live run; nullopt when a signal interrupted it (nothing to write).
std::optional<ItemResult> live_item(const Plan& plan, std::uint64_t item, const SweepOptions& o) {
  const Pair& pair = pair_of(plan, item);
  const scenarios::Scenario& scenario = plan.scenarios[pair.scenario];
  live::LiveOptions options;
  options.lock_kind = pair.lock;
  options.seed = seed_of(plan, item);
  options.time_scale_ppm = live_time_scale_ppm(scenario, o.time_scale);
  options.redis_server = o.redis_server;
  options.scenario_ref = plan.refs[pair.scenario];
  auto run = live::run_live(scenario, options);
  if (run) return ItemResult{reports::to_line(live_run_record(*run, options.time_scale_ppm)), run->run.matched, std::nullopt};
  const live::LiveError& e = run.error();
  if (e.exit_code == kBadInput) {
    const LiveSkip skip{options.scenario_ref, pair.lock, options.seed, options.time_scale_ppm, e.message};
    return ItemResult{reports::to_line(live_skip_record(scenario, skip)), true, scenario.name + " × " + pair.lock + ": " + e.message};
  }
  if (e.interrupted) return std::nullopt;
  throw EnvironmentError("sweep --live: " + scenario.name + " × " + pair.lock + ": " + e.message);
}

// Checks the live options before any run: the binary exists, the scale is valid.
void check_live_options(const SweepOptions& o, const Plan& plan) {
  live_time_scale_ppm(plan.scenarios.front(), o.time_scale);  // throws on a bad --time-scale
  // redis-server is needed only if a scenario runs on Redis (etcd and
  // ZooKeeper runs find their own binaries, and say so per run).
  const bool on_redis = std::any_of(plan.scenarios.begin(), plan.scenarios.end(),
                                    [](const scenarios::Scenario& s) { return s.topology == locks::Topology::Redis; });
  if (!on_redis) return;
  auto binary = live::locate_redis_server(o.redis_server);
  if (!binary) throw InputError("sweep --live: " + binary.error().message);
}

// This shard's work-list positions still to run, produced on demand (a
// huge --seeds must not build a list in memory): shard K/N holds positions
// K-1, K-1+N, ...; those already in the resumed file are skipped.
class WorkCursor {
 public:
  WorkCursor(const Plan& plan, const SweepOptions& o, const std::set<std::string>& done)
      : plan_(plan), done_(done), step_(o.shard_count), next_(o.shard_index - 1) {}

  // The next position to run and its ordinal among those (for the writer).
  std::optional<std::pair<std::size_t, std::uint64_t>> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!returned_.empty()) {
      const auto work = returned_.back();
      returned_.pop_back();
      return work;
    }
    for (; next_ < plan_.total(); next_ += step_) {
      if (already_done(next_)) continue;
      const std::uint64_t item = next_;
      next_ += step_;
      return std::make_pair(taken_++, item);
    }
    return std::nullopt;
  }
  // Room for one given-back position per worker (a worker gives back once,
  // then retires), so that give_back, called when the heap is exhausted,
  // never allocates.
  void expect_workers(unsigned jobs) { returned_.reserve(jobs); }
  // A taken position whose run could not finish here (its worker ran out
  // of memory and retired): the next take() hands it out again.
  void give_back(std::pair<std::size_t, std::uint64_t> work) {
    std::lock_guard<std::mutex> lock(mutex_);
    returned_.push_back(work);
  }
  bool already_done(std::uint64_t item) const {
    if (done_.empty()) return false;
    const Pair& pair = pair_of(plan_, item);
    return done_.count(run_key(plan_.scenarios[pair.scenario].name, pair.lock, seed_of(plan_, item))) > 0;
  }

 private:
  const Plan& plan_;
  const std::set<std::string>& done_;
  std::vector<std::pair<std::size_t, std::uint64_t>> returned_;
  const std::uint64_t step_;
  std::uint64_t next_;
  std::size_t taken_ = 0;
  std::mutex mutex_;
};

// Runs in this shard and, of those, runs the resumed file already holds.
// Without a resume this is arithmetic; with one it walks the shard once,
// holding nothing.
std::pair<std::uint64_t, std::uint64_t> count_shard(const Plan& plan, const SweepOptions& o, const WorkCursor& cursor,
                                                    bool resuming) {
  const std::uint64_t first = o.shard_index - 1;
  const std::uint64_t planned = plan.total() > first ? (plan.total() - first - 1) / o.shard_count + 1 : 0;
  std::uint64_t resumed = 0;
  if (resuming)
    for (std::uint64_t i = first; i < plan.total(); i += o.shard_count) resumed += cursor.already_done(i) ? 1 : 0;
  return {planned, resumed};
}

// The options' own bounds, before anything is read.
void check_options(const SweepOptions& o) {
  if (o.shard_count == 0 || o.shard_index == 0 || o.shard_index > o.shard_count)
    throw InputError("sweep: --shard must be K/N with 1 <= K <= N");
  if (o.seeds == 0) throw InputError("sweep: --seeds must be at least 1");
  if (o.jobs == 0 || o.jobs > kMaxJobs)
    throw InputError("sweep: --jobs must be from 1 to " + std::to_string(kMaxJobs) + ", got " + std::to_string(o.jobs));
  if (!reports::checked_add(o.seed_start, o.seeds - 1))
    throw InputError("sweep: --seed-start " + std::to_string(o.seed_start) + " with --seeds " + std::to_string(o.seeds) +
                     " goes past the largest seed, 18446744073709551615");
  if (o.out.empty()) throw InputError("sweep: --out FILE.jsonl is required");
  if (o.live && o.verify)
    throw InputError("sweep: --verify compares two runs of a seed; a live run is not deterministic (drop --live)");
}

// How the sweep's library locks run (cli/process_locks.hpp), once each.
void print_process_locks(const Plan& plan, std::ostream& log) {
  std::vector<std::string> locks;
  for (const Pair& pair : plan.pairs) locks.push_back(pair.lock);
  for (const std::string& line : process_locks_lines(locks)) log << "sweep: " << line << "\n";
}

// Runs this shard's work on the workers into `writer`; the live skips into
// `summary`.
void run_workers(const Plan& plan, const SweepOptions& o, WorkCursor& cursor, std::uint64_t to_run,
                 OrderedWriter& writer, SweepSummary& summary, std::ostream& log) {
  // A worker that runs out of memory (many --jobs under a memory limit: each
  // thread's stack and heap) gives its run back and retires while others
  // remain; the last one's is an error. One whose run needed the memory
  // reserve (parallel.hpp) retires after writing it.
  WorkerPool pool("sweep", log);
  std::mutex skipped_mutex;
  std::map<std::size_t, std::string> live_skipped;  // by position: listed in work-list order for any --jobs
  // Live runs that overlap share live mode's SIGINT/SIGTERM handlers: the
  // first run in installs them, the last one out puts the sweep's back
  // (live/live_runner.cpp, InterruptGuard).
  auto run_item = [&](std::uint64_t item) {
    return o.live ? live_item(plan, item, o) : std::optional<ItemResult>(simulate_item(plan, item, o.verify));
  };
  auto step = [&]() -> WorkerPool::Next {
    const auto work = cursor.take();
    if (!work) return WorkerPool::Next::Done;
    const auto [p, item] = *work;
    try {
      auto result = run_item(item);
      if (!result) {
        request_stop();
        return WorkerPool::Next::Done;
      }
      if (result->live_skipped) {
        std::lock_guard<std::mutex> lock(skipped_mutex);
        live_skipped.emplace(p, *result->live_skipped);
      }
      writer.deliver(p, std::move(result->line), result->matched);
      const bool retire = MemoryReserve::retirement_requested() && pool.may_retire();
      return retire ? WorkerPool::Next::Retired : WorkerPool::Next::More;
    } catch (const std::bad_alloc&) {
      if (!pool.may_retire()) throw;
      cursor.give_back(*work);
      return WorkerPool::Next::Retired;
    }
  };
  const unsigned jobs = static_cast<unsigned>(std::clamp<std::uint64_t>(std::min<std::uint64_t>(o.jobs, to_run), 1, UINT_MAX));
  cursor.expect_workers(jobs);
  const MemoryReserve reserve(16);  // 16 MB: each MB the runs fall back on retires a worker
  try {
    pool.run(jobs, step);
  } catch (...) {  // a live server failed: the lines that finished stay
    if (o.live) writer.write_waiting();
    throw;
  }
  if (o.live && stop_flag().load()) writer.write_waiting();
  writer.finish();
  for (auto& [position, why] : live_skipped) summary.live_skipped.push_back(std::move(why));
}

}  // namespace

SweepSummary run_sweep(const SweepOptions& o, std::ostream& log) {
  check_options(o);
  stop_flag().store(false);  // this sweep's own signals and failures only
  SweepSummary summary;
  const Plan plan = make_plan(o, summary);
  if (o.live) check_live_options(o, plan);
  else print_process_locks(plan, log);

  // Nothing is read or truncated before the lock: a second sweep on this
  // --out is refused with the first one's file as it was.
  std::vector<std::string> inputs = plan.refs;  // the scenario files read (catalog names are no files)
  inputs.push_back(o.redis_server);
  if (o.out != "-") refuse_output_over_input("sweep", "--out", o.out, inputs);
  const OutputLock out_lock("sweep", "--out", o.out);
  std::set<std::string> done;
  if (o.resume) done = read_done(o.out, o.live);
  WorkCursor cursor(plan, o, done);
  std::tie(summary.planned, summary.resumed) = count_shard(plan, o, cursor, !done.empty());
  const std::uint64_t to_run = summary.planned - summary.resumed;

  std::ofstream file;
  if (o.out != "-") {
    file.open(o.out, std::ios::binary | (o.resume ? std::ios::app : std::ios::trunc));
    if (!file) throw InputError(o.out + ": cannot write");
  }
  std::ostream& out = o.out == "-" ? std::cout : file;
  OrderedWriter writer(out, to_run, o.progress, log, o.live ? "live sweep" : "sweep");
  run_workers(plan, o, cursor, to_run, writer, summary, log);
  if (writer.failed()) throw InputError(o.out + ": write failed (disk full?)");
  summary.ran = writer.written();
  summary.unmatched = writer.unmatched();
  summary.interrupted = stop_flag().load() && summary.ran < to_run;
  return summary;
}

}  // namespace locksim::cli
