// Stale live-run directories (live_leftovers.hpp).
#include "live/live_leftovers.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace locksim::live {

namespace fs = std::filesystem;

namespace {

constexpr const char* kOwnerFile = "owner.pid";

// True when the pid file names a process that no longer exists.
bool owner_gone(const fs::path& dir) {
  std::ifstream in(dir / kOwnerFile);
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return false;  // no owner file: not provably ours and stale
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

void mark_live_dir_owner(const fs::path& dir) { std::ofstream(dir / kOwnerFile) << ::getpid() << "\n"; }

std::size_t remove_stale_live_dirs(const fs::path& base) {
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& dir = it->path();
    if (dir.filename().string().rfind("locksim-live-", 0) != 0 || !it->is_directory(ec)) continue;
    if (!owner_gone(dir)) continue;
    std::error_code rm;
    fs::remove_all(dir, rm);
    removed += rm ? 0 : 1;
  }
  return removed;
}

}  // namespace locksim::live
