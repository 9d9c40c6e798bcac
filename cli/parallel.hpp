// What the commands that run many worlds at once share (sweep, check):
// `--shard K/N` parsing, Ctrl-C handling, the worker threads, and the writer that puts each
// result line into the output in work-list order whatever thread finished
// it first, so an output file is the same for any --jobs.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/terminal.hpp"
#include "scenarios/schedule_gen.hpp"

namespace locksim::cli {

// "K/N": two plain integers around one slash (the number layer reads each:
// no blanks, no signs, N at most 2^32-1), 1 <= K <= N. Errors name `command`.
std::pair<unsigned, unsigned> parse_shard(const std::string& command, const std::string& text);

// The stop flag of the command that runs many worlds (sweep, check): set by
// the first Ctrl-C or SIGTERM, by a run that failed, or by request_stop();
// a run in flight reads it too (RunOptions::stop) and ends early.
std::atomic<bool>& stop_flag();
void request_stop();

// Ctrl-C and SIGTERM for a long command: the first signal sets the stop flag
// (the command ends its runs in flight, keeps what finished and exits 130);
// a second writes `second` to stderr and exits 130 at once. Each call clears
// the flag and the signal count.
void handle_stop_signals(const char* second);

// The workers of sweep and check: `step` takes one piece of work, runs it
// and says whether its worker goes on. A step that throws
// sim::Scheduler::Stopped (a signal during a run) ends its worker; any other
// exception sets the stop flag, and run() rethrows the first once every
// worker has left. `on_leave` runs as each worker leaves (check wakes the
// workers that wait for a result that will not come). A thread that cannot
// start (out of memory or threads: --jobs 2000 in a container) ends the
// spawning, and the command goes on with the workers it has (the caller's
// thread is one).
class WorkerPool {
 public:
  enum class Next { More, Done, Retired };
  WorkerPool(std::string command, std::ostream& log) : command_(std::move(command)), log_(log) {}
  void run(unsigned jobs, const std::function<Next()>& step, const std::function<void()>& on_leave = [] {});
  // For a worker whose run ran out of memory: true while another worker
  // still runs (this one then gives its work back and returns
  // Next::Retired); says so once. False for the last worker: its error stands.
  bool may_retire();

 private:
  void work(const std::function<Next()>& step, const std::function<void()>& on_leave);
  std::string command_;
  std::ostream& log_;
  std::atomic<unsigned> active_{0};
  std::atomic<unsigned> retired_{0};
  std::atomic<bool> told_retiring_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

// Memory held back while a sweep's workers run. When an allocation fails,
// the new-handler gives one block back to the heap and the allocation is
// retried: so no std::bad_alloc is thrown where it cannot be caught (a
// library destructor that allocates while unwinding ends the process), and
// each block given back asks one worker to retire after its run. One at a
// time (the handler is process-wide); the old handler comes back at the end.
class MemoryReserve {
 public:
  explicit MemoryReserve(std::size_t blocks);
  ~MemoryReserve();
  MemoryReserve(const MemoryReserve&) = delete;
  MemoryReserve& operator=(const MemoryReserve&) = delete;

  // True once for each block given back: that many workers should retire.
  static bool retirement_requested();
};

// Writes results in work-list order as they become contiguous, and draws
// the progress (cli/terminal.hpp) on `log` as `what` ("sweep").
class OrderedWriter {
 public:
  OrderedWriter(std::ostream& out, std::uint64_t total, ProgressMode progress, std::ostream& log,
                std::string what = "sweep")
      : out_(out), total_(total), progress_(progress), log_(log), what_(std::move(what)), started_(Clock::now()),
        pacer_(started_) {}

  void deliver(std::size_t position, std::string line, bool matched) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.emplace(position, std::make_pair(std::move(line), matched));
    while (!pending_.empty() && pending_.begin()->first == next_) {
      write(pending_.begin()->second);
      pending_.erase(pending_.begin());
      ++next_;
    }
    if (!out_) failed_ = true;
    draw_progress(false);
  }
  // After an interrupt: writes the finished results still waiting for an
  // earlier one that will not come (a live run costs real seconds; --resume
  // runs only what is missing, whatever the order).
  void write_waiting() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [position, result] : pending_) write(result);
    pending_.clear();
    if (!out_) failed_ = true;
  }
  void finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    draw_progress(true);
  }
  std::uint64_t written() const { return written_; }
  std::uint64_t unmatched() const { return unmatched_; }
  bool failed() const { return failed_; }

 private:
  using Clock = std::chrono::steady_clock;
  void write(const std::pair<std::string, bool>& result) {
    out_ << result.first << '\n';
    out_.flush();
    written_ += 1;
    unmatched_ += result.second ? 0 : 1;
  }
  void draw_progress(bool final) {
    const auto now = Clock::now();
    const double secs = std::chrono::duration<double>(now - started_).count();
    if (progress_ == ProgressMode::Lines && !final && pacer_.due(written_, total_, now))
      log_ << progress_line(what_, written_, total_, secs) << std::endl;
    if (progress_ != ProgressMode::Redraw) return;
    if (!final && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    const double rate = secs > 0 ? static_cast<double>(written_) / secs : 0.0;
    const double eta = rate > 0 ? static_cast<double>(total_ - written_) / rate : 0.0;
    const int width = 30;
    const int filled = total_ ? static_cast<int>(width * written_ / total_) : width;
    char buf[160];
    std::snprintf(buf, sizeof buf, "\r[%-*s] %llu/%llu runs  %.0f runs/s  ETA %.0fs  unmatched %llu ", width,
                  std::string(static_cast<std::size_t>(filled), '=').c_str(),
                  static_cast<unsigned long long>(written_), static_cast<unsigned long long>(total_), rate, eta,
                  static_cast<unsigned long long>(unmatched_));
    log_ << buf << (final ? "\n" : "") << std::flush;
  }

  std::ostream& out_;
  std::uint64_t total_;
  ProgressMode progress_;
  std::ostream& log_;
  std::string what_;
  Clock::time_point started_;
  ProgressPacer pacer_;
  Clock::time_point last_draw_{};
  std::mutex mutex_;
  std::map<std::size_t, std::pair<std::string, bool>> pending_;
  std::size_t next_ = 0;
  std::uint64_t written_ = 0;
  std::uint64_t unmatched_ = 0;
  bool failed_ = false;
};

// hunt --jobs: a hunt's cases (scenarios::HuntCaseSource) run on `jobs`
// threads, kept for the whole search (a library lock's zygote is per
// thread) and taken in index order, so the case found is the same for any
// number. The threads run at most 4 cases each past the one taken last
// (what they ran past a failing case is work thrown away) and stop when the
// source goes. With jobs 1: none (the cases run where hunt() runs).
std::function<std::unique_ptr<scenarios::HuntCaseSource>(const scenarios::HuntOptions&)> hunt_cases_on_threads(
    unsigned jobs);

}  // namespace locksim::cli
