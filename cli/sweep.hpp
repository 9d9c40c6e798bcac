// Sweeps: every scenario × lock × seed, in parallel, sharded and resumable.
//
// The work list is a deterministic sequence (scenario-major, then lock, then
// seed); `--shard K/N` takes every item whose position % N == K-1, so N
// shard files together hold exactly the runs of one unsharded sweep, with
// the same per-run digests. Workers run whole independent worlds on
// separate threads; a writer puts each result line into the output file in
// work-list order and flushes it, so the file is the same for any --jobs and
// a crash or Ctrl-C loses only runs that had not finished. --resume reads
// an existing file, drops a torn last line, and runs only what is missing.
// Memory stays flat: results are streamed, never held.
//
// --live runs each item against real redis-server processes instead
// (live/live_runner.hpp): one job (real time, real processes, and the
// servers must be forked from the main thread), each line `live --format
// json`'s object; a cell live mode cannot do (run_live's exit-2 reason) is
// a skip line with the reason (cli/live_result.hpp), so resume and the
// report see it. A server failure (exit 3) stops the sweep with every
// finished line kept; Ctrl-C during a live run stops it like any sweep.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/terminal.hpp"

namespace locksim::cli {

// The most parallel worlds one sweep runs (--jobs): more threads than this
// only add memory and contention on any machine locksim targets.
inline constexpr unsigned kMaxJobs = 256;
// --jobs when not given, for sweep and check alike: every core.
inline unsigned default_jobs() { return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxJobs); }

struct SweepOptions {
  std::vector<std::string> scenarios{"all"};  // catalog names, .toml files, or "all"
  std::vector<std::string> locks{"all"};      // lock kinds or "all"
  std::vector<std::string> expect_files;      // --expect: a user's expectations (scenarios/lock_expectations.hpp)
  std::uint64_t seeds = 100;
  std::uint64_t seed_start = 1;
  unsigned jobs = 1;
  unsigned shard_index = 1;  // K of K/N, 1-based
  unsigned shard_count = 1;  // N
  std::string out;           // JSONL path ("-" = stdout)
  bool resume = false;
  ProgressMode progress = ProgressMode::Off;  // on stderr (cli/terminal.hpp)
  bool live = false;         // real redis-server processes (one job)
  bool verify = false;       // --verify: each run twice, digests compared (not with --live)
  std::optional<double> time_scale;  // live: --time-scale (else the scenario's [live] time_scale, else 0.01)
  std::string redis_server;  // live: the binary (empty = search PATH)
};

struct SweepSummary {
  std::uint64_t planned = 0;    // runs in this shard
  std::uint64_t resumed = 0;    // already in the file
  std::uint64_t ran = 0;        // run now
  std::uint64_t unmatched = 0;  // of those run now
  std::vector<std::string> skipped_pairs;  // scenario × lock the topology cannot serve
  std::vector<std::string> live_skipped;   // live: "scenario × lock: why" (a skip line each)
  bool interrupted = false;
};

// Throws InputError (cli/commands.hpp) for bad input: unknown scenario or
// lock, two scenario sources with one name (runs are keyed by scenario
// name, lock and seed: two sources under one name would collide on
// --resume and in `report`), --jobs outside 1..kMaxJobs, seeds past 2^64-1
// or more runs than 2^64, an unreadable/unwritable file, a --resume file
// from another sweep or with a bad line,
// --live without a redis-server; EnvironmentError when a live run's server
// failed.
SweepSummary run_sweep(const SweepOptions& options, std::ostream& log);

}  // namespace locksim::cli
