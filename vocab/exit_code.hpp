// The process exit codes of every locksim command, a contract (docs/cli.md):
// the CLI returns them and live mode's errors carry them (live/live_servers.hpp
// LiveError), so one enum serves both.
#pragma once

namespace locksim {

// kNondeterministic: --verify ran a run twice and the digests differed.
// kInterrupted: stopped by Ctrl-C or SIGTERM (128 + SIGINT, as a shell reports it).
enum ExitCode : int {
  kMatched = 0,
  kUnmatched = 1,
  kBadInput = 2,
  kInternal = 3,
  kNondeterministic = 4,
  kInterrupted = 130
};

}  // namespace locksim
