// `locksim run --store DIR`: keep everything about a run on disk, as
// Jepsen's store does, so a verdict can be looked at again without re-running:
//   DIR/<scenario>/<lock>/seed-<N>/result.json    the run record (run --format json)
//                                  history.jsonl  what happened (reports/history_jsonl)
//                                  timeline.svg   the timeline
//                                  trace.txt      every event of the trace
//                                  verdict.txt    the text verdict
//   DIR/latest -> <scenario>/<lock>/seed-<N>      the last run stored
// Runs are deterministic, so a run's folder is named by what it is (scenario,
// lock, seed), not by when it ran: storing the same run again replaces it.
#pragma once

#include <string>
#include <vector>

#include "scenarios/runner.hpp"

namespace locksim::cli {

// Writes the run's files; returns the run's folder. Throws InputError when
// DIR cannot be written, or when a file it would write is one of `inputs`
// (the files the command read), before writing any.
std::string store_run(const std::string& dir, const scenarios::RunResult& run, const std::string& description,
                      const std::vector<std::string>& inputs = {});

}  // namespace locksim::cli
