// The one place a run's scenarios::ProcessLocks is made for a library lock
// (lib:redis-py, ...): install_process_locks() gives run_scenario a factory
// that starts, for each run, a hosted::ProcessLockHost of its own (the
// lock's adapter command under liblocksim_simtime.so). So every command —
// run, replay, sweep (each seed, each --jobs worker), hunt (each case and
// shrink step), check (each schedule), report's re-runs — runs the library
// in simulated time, and no process or socket is shared between runs.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace locksim::cli {

// Called once by main, before any run.
void install_process_locks();

// For a library lock: the line a command that runs many of its runs prints
// once ("simulated time: every run of lib:redis-py starts its adapter (...)
// as one process per client under liblocksim_simtime.so"); "" for any other.
std::string process_locks_line(const std::string& lock);
// Those lines for the library locks among `locks`, each lock once, in order.
std::vector<std::string> process_locks_lines(const std::vector<std::string>& locks);

// A run's mechanism lines (RunResult::mechanism), one a line, to `out`.
void print_mechanism(const std::vector<std::string>& lines, std::ostream& out);

}  // namespace locksim::cli
