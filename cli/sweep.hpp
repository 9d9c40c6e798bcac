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
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace locksim::cli {

struct SweepOptions {
  std::vector<std::string> scenarios{"all"};  // catalog names, .toml files, or "all"
  std::vector<std::string> locks{"all"};      // lock kinds or "all"
  std::uint64_t seeds = 100;
  std::uint64_t seed_start = 1;
  unsigned jobs = 1;
  unsigned shard_index = 1;  // K of K/N, 1-based
  unsigned shard_count = 1;  // N
  std::string out;           // JSONL path ("-" = stdout)
  bool resume = false;
  bool progress = false;     // a progress bar on stderr
};

struct SweepSummary {
  std::uint64_t planned = 0;    // runs in this shard
  std::uint64_t resumed = 0;    // already in the file
  std::uint64_t ran = 0;        // run now
  std::uint64_t unmatched = 0;  // of those run now
  std::vector<std::string> skipped_pairs;  // scenario × lock the topology cannot serve
  bool interrupted = false;
};

// Throws InputError (cli/commands.hpp) for bad input: unknown scenario or
// lock, an unreadable/unwritable file, a --resume file from another sweep.
SweepSummary run_sweep(const SweepOptions& options, std::ostream& log);

// Called from a signal handler: finish the runs in flight, write them, stop.
void request_sweep_stop();

}  // namespace locksim::cli
