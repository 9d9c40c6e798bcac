// Live mode's side of liblocksim_preload.so (live/preload/redis_preload.c),
// the library every redis-server that `locksim live` starts loads with
// LD_PRELOAD:
//  - ServerClock: one node's control block (a small file, mmap'd shared):
//    step and drift of that server's wall clock, and fsync stalls, changed
//    while it runs; the block survives the server's restarts, as a
//    machine's clock does. A client library's adapter process has one too
//    (ClientClock::process_control, live_runtime.hpp), read by the sibling
//    liblocksim_client_preload.so, whose drift also moves monotonic time;
//  - the fsync log: what each fsync made durable, per inode; a power loss
//    cuts every file of the AOF directory back to it (cut_to_durable).
// The layout and the log format are in live/preload/preload_control.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct locksim_preload_control;

namespace locksim::live {

class ServerClock {
 public:
  // Creates (or resets) `file` as a control block at zero: the real clock.
  static std::unique_ptr<ServerClock> create(const std::filesystem::path& file, std::string* why);
  ~ServerClock();
  ServerClock(const ServerClock&) = delete;
  ServerClock& operator=(const ServerClock&) = delete;

  const std::filesystem::path& file() const { return file_; }
  // The wall clock moves by `by` at once (NTP step, `date -s`).
  void step(std::chrono::nanoseconds by);
  // From now on the wall clock runs `ppm` fast (negative: slow); the drift
  // so far is kept as a step, so the clock stays continuous.
  void set_drift(std::int64_t ppm);
  // Sets the whole clock at once: `drifted` is the drift before now, `ppm`
  // the drift from now on (an adapter process's block, started from its
  // client's ClientClock).
  void set(std::chrono::nanoseconds step, std::chrono::nanoseconds drifted, std::int64_t ppm);
  // fsync/fdatasync calls wait until now + d (a longer stall wins).
  void stall_fsync(std::chrono::nanoseconds d);
  void end_fsync_stall();
  // How far the server's wall clock is ahead of the real one right now.
  std::chrono::nanoseconds wall_offset() const;
  // How far the drift has moved the monotonic clocks: those of an adapter
  // process (liblocksim_client_preload.so); a server's do not move.
  std::chrono::nanoseconds monotonic_offset() const;

 private:
  ServerClock(std::filesystem::path file, locksim_preload_control* block) : file_(std::move(file)), block_(block) {}
  template <class F>
  void write(F change);
  std::filesystem::path file_;
  locksim_preload_control* block_;
};

// The environment of a preloaded child: ours, with `library` first in
// LD_PRELOAD (a user's own, e.g. ASan's, kept after it), its control block
// and, if not empty, its log (no other LOCKSIM_PRELOAD_* variable).
std::vector<std::string> preload_environment(const std::filesystem::path& library, const std::filesystem::path& control,
                                             const std::filesystem::path& log);

// Where a preload library `name` may be, in order: where an install puts it
// (<bin>/../lib/locksim), next to the running executable, then `built` (the
// build tree's path, if not null and LOCKSIM_NO_BUILD_TREE is not set).
std::vector<std::filesystem::path> library_candidates(const char* built, const std::string& name);

// liblocksim_client_preload.so, the sibling an adapter process loads: where
// the build put it, else next to the running executable; nullopt if absent.
std::optional<std::filesystem::path> locate_client_preload();
// liblocksim_simtime.so (hosted/preload/), which `locksim run` loads into a
// library lock's adapter processes: found the same way.
std::optional<std::filesystem::path> locate_simtime_library();

// The fsync log's facts: the last durable length per (device, inode), and
// the executables that loaded the library ("hello" lines), in order.
struct FsyncLog {
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> durable;
  std::vector<std::string> loaded_by;
};
FsyncLog read_fsync_log(const std::filesystem::path& log);

// One file a power loss shortened (or emptied: never fsynced).
struct PowerCut {
  std::string file;  // relative to the directory
  std::uint64_t written = 0;
  std::uint64_t kept = 0;
};
// Every regular file under `dir` cut to its durable length (0 when no
// fsync covered it). Returns what changed.
std::vector<PowerCut> cut_to_durable(const std::filesystem::path& dir, const FsyncLog& log);

}  // namespace locksim::live
