// ServerClock, the fsync log reader and the power-loss cut
// (server_preload.hpp). The writer side of the seqlock in
// live/preload/preload_control.h: only the main thread of `locksim live`
// writes a block, so `seq` needs no compare-and-swap.
#include "live/server_preload.hpp"
#include "live/installed_files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>

#include "live/preload/preload_control.h"

extern char** environ;

namespace locksim::live {

namespace fs = std::filesystem;

namespace {

std::int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t drift_so_far(const locksim_preload_control& b, std::int64_t now) {
  return static_cast<std::int64_t>(static_cast<__int128>(now - b.drift_base_mono_ns) * b.drift_ppm / 1'000'000);
}

}  // namespace

std::unique_ptr<ServerClock> ServerClock::create(const fs::path& file, std::string* why) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::ftruncate(fd, sizeof(locksim_preload_control)) != 0) {
    if (fd >= 0) ::close(fd);
    *why = "cannot create " + file.string();
    return nullptr;
  }
  void* block = ::mmap(nullptr, sizeof(locksim_preload_control), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (block == MAP_FAILED) {
    *why = "cannot map " + file.string();
    return nullptr;
  }
  auto* b = static_cast<locksim_preload_control*>(block);
  *b = locksim_preload_control{};
  b->drift_base_mono_ns = monotonic_ns();
  __atomic_store_n(&b->magic, LOCKSIM_PRELOAD_MAGIC, __ATOMIC_RELEASE);
  return std::unique_ptr<ServerClock>(new ServerClock(file, b));
}

ServerClock::~ServerClock() { ::munmap(block_, sizeof(locksim_preload_control)); }

template <class F>
void ServerClock::write(F change) {
  __atomic_store_n(&block_->seq, block_->seq + 1, __ATOMIC_RELAXED);  // odd: readers retry
  std::atomic_thread_fence(std::memory_order_release);
  locksim_preload_control next = *block_;
  change(next);
  __atomic_store_n(&block_->step_ns, next.step_ns, __ATOMIC_RELAXED);
  __atomic_store_n(&block_->drift_ppm, next.drift_ppm, __ATOMIC_RELAXED);
  __atomic_store_n(&block_->drift_base_mono_ns, next.drift_base_mono_ns, __ATOMIC_RELAXED);
  __atomic_store_n(&block_->fsync_stall_until_mono_ns, next.fsync_stall_until_mono_ns, __ATOMIC_RELAXED);
  __atomic_store_n(&block_->drifted_ns, next.drifted_ns, __ATOMIC_RELAXED);
  __atomic_store_n(&block_->seq, block_->seq + 1, __ATOMIC_RELEASE);  // even again
}

void ServerClock::step(std::chrono::nanoseconds by) {
  write([&](locksim_preload_control& b) { b.step_ns += by.count(); });
}

void ServerClock::set_drift(std::int64_t ppm) {
  const std::int64_t now = monotonic_ns();
  write([&](locksim_preload_control& b) {
    b.drifted_ns += drift_so_far(b, now);
    b.drift_ppm = ppm;
    b.drift_base_mono_ns = now;
  });
}

void ServerClock::set(std::chrono::nanoseconds step, std::chrono::nanoseconds drifted, std::int64_t ppm) {
  const std::int64_t now = monotonic_ns();
  write([&](locksim_preload_control& b) {
    b.step_ns = step.count();
    b.drifted_ns = drifted.count();
    b.drift_ppm = ppm;
    b.drift_base_mono_ns = now;
  });
}

void ServerClock::stall_fsync(std::chrono::nanoseconds d) {
  const std::int64_t until = monotonic_ns() + d.count();
  write([&](locksim_preload_control& b) { b.fsync_stall_until_mono_ns = std::max(b.fsync_stall_until_mono_ns, until); });
}

void ServerClock::end_fsync_stall() {
  write([](locksim_preload_control& b) { b.fsync_stall_until_mono_ns = 0; });
}

std::chrono::nanoseconds ServerClock::wall_offset() const {
  return std::chrono::nanoseconds(block_->step_ns + block_->drifted_ns + drift_so_far(*block_, monotonic_ns()));
}

std::chrono::nanoseconds ServerClock::monotonic_offset() const {
  return std::chrono::nanoseconds(block_->drifted_ns + drift_so_far(*block_, monotonic_ns()));
}

std::vector<std::string> preload_environment(const fs::path& library, const fs::path& control, const fs::path& log) {
  std::vector<std::string> env;
  std::string preload = "LD_PRELOAD=" + library.string();
  for (char** e = environ; *e; ++e) {
    const std::string var(*e);
    if (var.rfind("LD_PRELOAD=", 0) == 0) preload += ":" + var.substr(11);
    else if (var.rfind("LOCKSIM_PRELOAD_", 0) != 0) env.push_back(var);
  }
  env.push_back(preload);
  env.push_back(std::string(LOCKSIM_PRELOAD_CONTROL_ENV) + "=" + control.string());
  if (!log.empty()) env.push_back(std::string(LOCKSIM_PRELOAD_LOG_ENV) + "=" + log.string());
  return env;
}

std::vector<fs::path> library_candidates(const char* built, const std::string& name) {
  std::vector<fs::path> out;
#ifdef LOCKSIM_INSTALLED_PRELOAD_DIR
  if (const fs::path dir = beside_executable(LOCKSIM_INSTALLED_PRELOAD_DIR); !dir.empty()) out.push_back(dir / name);
#endif
  if (const fs::path dir = beside_executable("."); !dir.empty()) out.push_back(dir / name);
  if (built && build_tree_allowed()) out.emplace_back(built);
  return out;
}

namespace {

std::optional<fs::path> locate_library(const char* built, const std::string& name) {
  std::error_code ec;
  for (const auto& p : library_candidates(built, name))
    if (fs::is_regular_file(p, ec)) return p;
  return std::nullopt;
}

}  // namespace

std::optional<fs::path> locate_client_preload() {
#ifdef LOCKSIM_CLIENT_PRELOAD_PATH
  return locate_library(LOCKSIM_CLIENT_PRELOAD_PATH, "liblocksim_client_preload.so");
#else
  return locate_library(nullptr, "liblocksim_client_preload.so");
#endif
}

std::optional<fs::path> locate_simtime_library() {
#ifdef LOCKSIM_SIMTIME_PATH
  return locate_library(LOCKSIM_SIMTIME_PATH, "liblocksim_simtime.so");
#else
  return locate_library(nullptr, "liblocksim_simtime.so");
#endif
}

FsyncLog read_fsync_log(const fs::path& log) {
  FsyncLog out;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string word;
    std::uint64_t pid = 0, dev = 0, ino = 0, size = 0;
    words >> word >> pid;
    if (word == "hello") {
      std::string exe;
      std::getline(words >> std::ws, exe);
      out.loaded_by.push_back(exe);
    } else if (word == "sync" && (words >> dev >> ino >> size)) {
      out.durable[{dev, ino}] = size;  // the last fsync of an inode wins
    }
  }
  return out;
}

std::vector<PowerCut> cut_to_durable(const fs::path& dir, const FsyncLog& log) {
  std::vector<PowerCut> cuts;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return cuts;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    struct stat st {};
    if (::stat(entry.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const auto found = log.durable.find({static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)});
    const std::uint64_t durable = found == log.durable.end() ? 0 : found->second;
    const auto written = static_cast<std::uint64_t>(st.st_size);
    if (written <= durable) continue;
    if (::truncate(entry.path().c_str(), static_cast<off_t>(durable)) != 0) continue;
    cuts.push_back({fs::relative(entry.path(), dir, ec).string(), written, durable});
  }
  std::sort(cuts.begin(), cuts.end(), [](const PowerCut& a, const PowerCut& b) { return a.file < b.file; });
  return cuts;
}

}  // namespace locksim::live
