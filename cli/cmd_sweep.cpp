// `locksim sweep`: the comparison sweep (cli/sweep.hpp does the work).
// Ctrl-C or SIGTERM stops dispatching, ends the runs in flight (each run
// checks the stop flag: sim/scheduler.hpp), writes every finished line and
// exits 130; a second signal exits 130 at once (every finished line is
// already flushed). `--resume` continues the file.
//
// `--live` (cli/sweep.hpp) runs each scenario × lock against real
// redis-server processes, one run per cell unless --seeds says otherwise,
// one at a time unless --jobs says otherwise; `--time-scale` and
// `--redis-server` are `live`'s options.
//
// Progress goes to stderr (cli/terminal.hpp): a redrawn bar on a terminal,
// whole lines in a long run off one (a CI log); --quiet silences both.
#include <algorithm>
#include <iostream>
#include <limits>
#include <map>
#include <thread>
#include <tuple>

#include "cli/commands.hpp"
#include "cli/parallel.hpp"
#include "cli/sweep.hpp"
#include "cli/terminal.hpp"
#include "vocab/printable.hpp"

namespace locksim::cli {

namespace {

// The integer options, read as text by the one number layer; an option not
// given keeps SweepOptions' value (and --live's defaults).
struct SweepNumbers {
  std::string seeds, seed_start, jobs;
  CLI::Option* seeds_option = nullptr;
  CLI::Option* seed_start_option = nullptr;
  CLI::Option* jobs_option = nullptr;
};

void read_numbers(const SweepNumbers& n, SweepOptions& o) {
  constexpr std::uint64_t kMaxSeed = reports::Bounds{}.max;
  if (n.seeds_option->count()) o.seeds = option_number("sweep", "--seeds", n.seeds, {1, kMaxSeed});
  if (n.seed_start_option->count()) o.seed_start = option_number("sweep", "--seed-start", n.seed_start);
  if (n.jobs_option->count()) o.jobs = static_cast<unsigned>(option_number("sweep", "--jobs", n.jobs, {1, kMaxJobs}));
}

// "sweep: skipped 119 scenario × lock pairs: 80 because the lock needs an
// etcd topology; ...": one line of counts by reason (the clause in a pair's
// parentheses), not a line per pair (they are many, and alike).
void print_skip_counts(const std::vector<std::string>& skipped, std::ostream& out) {
  if (skipped.empty()) return;
  std::map<std::string, std::size_t> by_reason;
  for (const auto& pair : skipped) {
    const auto open = pair.rfind(" (");
    by_reason[open == std::string::npos ? pair : pair.substr(open + 2, pair.size() - open - 3)]++;
  }
  out << "sweep: skipped " << skipped.size() << " scenario × lock pairs:";
  const char* sep = " ";
  for (const auto& [reason, n] : by_reason) out << sep << n << " because " << reason, sep = "; ";
  out << "\n";
}

}  // namespace

Handler add_sweep_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("sweep", "Run every scenario x lock x seed; one JSON line per run");
  auto o = std::make_shared<SweepOptions>();
  auto shard = std::make_shared<std::string>("1/1");
  auto quiet = std::make_shared<bool>(false);
  auto numbers = std::make_shared<SweepNumbers>();
  o->jobs = default_jobs();
  cmd->add_option("--scenario", o->scenarios, "Catalog names, .toml files, or all (repeat or comma-separate)")
      ->capture_default_str();
  cmd->add_option("--lock", o->locks, "Lock kinds or all (repeat or comma-separate)")->capture_default_str();
  cmd->add_option("--expect", o->expect_files,
                  "A TOML file of what you expect of your own lock per scenario (repeatable; docs/sweeps.md)");
  numbers->seeds_option =
      cmd->add_option("--seeds", numbers->seeds, "Seeds per scenario x lock (default 100; --live: runs per cell, default 1)");
  numbers->seed_start_option = cmd->add_option("--seed-start", numbers->seed_start, "First seed (default 1)");
  numbers->jobs_option = cmd->add_option("--jobs", numbers->jobs,
                  "Parallel worlds (threads, 1.." + std::to_string(kMaxJobs) +
                      "; default: the cores; --live: 1, each live run starts its own servers)");
  cmd->add_option("--shard", *shard, "Run shard K of N (1-based), e.g. 2/8")->capture_default_str();
  cmd->add_option("--out", o->out, "Output JSONL file (- for stdout)")->required();
  cmd->add_flag("--resume", o->resume, "Continue a partial output file");
  cmd->add_flag("--quiet", *quiet, "No progress on stderr (a bar on a terminal, a line every 10 % or 30 s off one)");
  add_verify_flag(*cmd, o->verify);
  cmd->add_flag("--live", o->live, "Run against real redis-server, etcd or ZooKeeper processes (lines as `live --format json`)");
  cmd->add_option("--time-scale", o->time_scale,
                  "--live: real seconds per scenario second (default: each scenario's [live] time_scale, else 0.01, "
                  "0.1 for etcd / ZooKeeper)");
  cmd->add_option("--redis-server", o->redis_server, "--live: the redis-server binary (default: found on PATH)");
  return [o, shard, quiet, numbers]() -> int {
    std::tie(o->shard_index, o->shard_count) = parse_shard("sweep", *shard);
    if (!o->live && (o->time_scale || !o->redis_server.empty()))
      throw InputError("sweep: --time-scale and --redis-server need --live");
    if (o->live) o->seeds = 1, o->jobs = 1;  // --live defaults: one run per cell, one at a time
    read_numbers(*numbers, *o);
    o->progress = progress_mode(*quiet, o->out != "-");
    handle_stop_signals("\nsweep: second signal: stopped at once; continue with --resume\n");
    const SweepSummary s = run_sweep(*o, std::cerr);
    print_skip_counts(s.skipped_pairs, std::cerr);
    for (const auto& skipped : s.live_skipped) std::cerr << "sweep: not run live: " << printable(skipped) << "\n";
    std::cerr << "sweep: " << s.ran << " runs written to " << printable(o->out) << " (" << s.resumed << " resumed, "
              << s.unmatched << " did not match their expectation";
    if (o->live) std::cerr << ", " << s.live_skipped.size() << " not run live";
    std::cerr << ")\n";
    if (s.interrupted) {
      std::cerr << "sweep: interrupted; continue with the same command plus --resume\n";
      return kInterrupted;
    }
    return s.unmatched ? kUnmatched : kMatched;
  };
}

}  // namespace locksim::cli
