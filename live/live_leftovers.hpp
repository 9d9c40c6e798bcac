// Leftovers of live runs that were killed (SIGKILL, OOM, power): each run's
// temporary directory (`$TMPDIR/locksim-live-XXXXXX`, the servers' data and
// logs) records its owner's pid; the next live run removes every such
// directory whose owner no longer exists. A directory whose owner is alive
// (a concurrent run) or that has no owner file (not ours) is left alone.
#pragma once

#include <cstddef>
#include <filesystem>

namespace locksim::live {

// Writes `dir`/owner.pid with this process's pid.
void mark_live_dir_owner(const std::filesystem::path& dir);

// Removes the locksim-live-* directories under `base` whose owner is gone;
// returns how many.
std::size_t remove_stale_live_dirs(const std::filesystem::path& base);

}  // namespace locksim::live
