// `locksim sweep`: the comparison sweep (cli/sweep.hpp does the work).
// Ctrl-C or SIGTERM stops dispatching, ends the runs in flight (each run
// checks the stop flag: sim/scheduler.hpp), writes every finished line and
// exits 130; a second signal exits 130 at once (every finished line is
// already flushed). `--resume` continues the file.
//
// `--live` (cli/sweep.hpp) runs each scenario × lock against real
// redis-server processes, one at a time, one run per cell unless --seeds
// says otherwise; `--time-scale` and `--redis-server` are `live`'s options.
#include <atomic>
#include <csignal>
#include <iostream>
#include <thread>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/sweep.hpp"

namespace locksim::cli {

namespace {

std::atomic<int> g_stop_signals{0};

// Async-signal-safe: an atomic, write(2) and _exit(2) only.
void on_stop_signal(int) {
  if (g_stop_signals.fetch_add(1) == 0) {
    request_sweep_stop();
    return;
  }
  static const char kMessage[] = "\nsweep: second signal: stopped at once; continue with --resume\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::_exit(130);
}

void parse_shard(const std::string& text, SweepOptions& o) {
  const auto slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    o.shard_index = static_cast<unsigned>(std::stoul(text.substr(0, slash)));
    o.shard_count = static_cast<unsigned>(std::stoul(text.substr(slash + 1)));
  } catch (const std::exception&) {
    throw InputError("sweep: --shard " + text + ": expected K/N, e.g. 2/8");
  }
}

}  // namespace

Handler add_sweep_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("sweep", "Run every scenario x lock x seed; one JSON line per run");
  auto o = std::make_shared<SweepOptions>();
  auto shard = std::make_shared<std::string>("1/1");
  auto quiet = std::make_shared<bool>(false);
  const unsigned default_jobs = std::max(1u, std::thread::hardware_concurrency());
  o->jobs = default_jobs;
  cmd->add_option("--scenario", o->scenarios, "Catalog names, .toml files, or all (repeat or comma-separate)")
      ->capture_default_str();
  cmd->add_option("--lock", o->locks, "Lock kinds or all (repeat or comma-separate)")->capture_default_str();
  auto* seeds = cmd->add_option("--seeds", o->seeds, "Seeds per scenario x lock (--live: runs per cell, default 1)")
                    ->capture_default_str();
  cmd->add_option("--seed-start", o->seed_start, "First seed")->capture_default_str();
  auto* jobs = cmd->add_option("--jobs", o->jobs, "Parallel worlds (threads); --live runs one at a time")
                   ->capture_default_str();
  cmd->add_option("--shard", *shard, "Run shard K of N (1-based), e.g. 2/8")->capture_default_str();
  cmd->add_option("--out", o->out, "Output JSONL file (- for stdout)")->required();
  cmd->add_flag("--resume", o->resume, "Continue a partial output file");
  cmd->add_flag("--quiet", *quiet, "No progress bar");
  cmd->add_flag("--live", o->live, "Run against real redis-server processes (lines as `live --format json`)");
  cmd->add_option("--time-scale", o->time_scale,
                  "--live: real seconds per scenario second (default: each scenario's [live] time_scale, else 0.01)");
  cmd->add_option("--redis-server", o->redis_server, "--live: the redis-server binary (default: found on PATH)");
  return [o, shard, quiet, seeds, jobs]() -> int {
    parse_shard(*shard, *o);
    if (!o->live && (o->time_scale || !o->redis_server.empty()))
      throw InputError("sweep: --time-scale and --redis-server need --live");
    if (o->live && seeds->count() == 0) o->seeds = 1;
    if (o->live && jobs->count() == 0) o->jobs = 1;
    o->progress = !*quiet && isatty(STDERR_FILENO) && o->out != "-";
    g_stop_signals.store(0);
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    const SweepSummary s = run_sweep(*o, std::cerr);
    for (const auto& skipped : s.skipped_pairs) std::cerr << "sweep: skipped " << skipped << "\n";
    for (const auto& skipped : s.live_skipped) std::cerr << "sweep: not run live: " << skipped << "\n";
    std::cerr << "sweep: " << s.ran << " runs written to " << o->out << " (" << s.resumed << " resumed, "
              << s.unmatched << " did not match their expectation";
    if (o->live) std::cerr << ", " << s.live_skipped.size() << " not run live";
    std::cerr << ")\n";
    if (s.interrupted) {
      std::cerr << "sweep: interrupted; continue with the same command plus --resume\n";
      return 130;
    }
    return s.unmatched ? kUnmatched : kMatched;
  };
}

}  // namespace locksim::cli
