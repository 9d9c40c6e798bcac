// Trace: every event of a run, folded into a 64-bit digest.
//
// The scheduler folds each fired event's (true time, seq, host) into the
// digest, and components add semantic records (a command executed, a lock
// acquired, a fault injected) with a kind and a detail string. Printable
// records are kept only when recording is on (`--trace`, timelines), so a
// sweep pays for the digest alone. Same seed ⇒ same digest, on any machine:
// the fold uses only integers and stable string hashes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/time.hpp"

namespace locksim::sim {

using HostId = std::uint32_t;
inline constexpr HostId kNoHost = 0xffffffffu;

struct TraceRecord {
  TrueInstant at;
  std::uint64_t seq;  // the scheduler event during which it was recorded
  HostId host;
  std::string kind;
  std::string detail;
};

class Trace {
 public:
  // The digest's format: which events exist and how they fold. A digest is
  // comparable only with one of the same format (run records carry it as
  // `digest_format`). 2: a wait that lost (a timeout after its reply, a
  // sleep whose frame is gone) is cancelled, not popped as an event, and a
  // run stops once its story is over (scenarios/runner.cpp story_over).
  static constexpr int kDigestFormat = 2;

  // Recording keeps at most `limit` printable records (memory: a record is
  // about 100-200 bytes). Past it no record is kept, full() turns true and
  // the runner stops the run (scenarios/runner.cpp): a long run under
  // `--trace` would otherwise grow until the allocator fails. The digest
  // never depends on recording.
  static constexpr std::size_t kDefaultRecordLimit = 2'000'000;
  void set_recording(bool on, std::size_t limit = kDefaultRecordLimit) {
    recording_ = on;
    limit_ = limit;
  }
  bool recording() const { return recording_; }
  bool full() const { return full_; }
  std::size_t record_limit() const { return limit_; }

  // Fold one scheduler event (cheap: no strings).
  void fold_event(TrueInstant at, std::uint64_t seq, HostId host) {
    fold(static_cast<std::uint64_t>(at.time_since_epoch().count()));
    fold(seq);
    fold(host);
    ++events_;
  }
  // A semantic record: folded into the digest; kept when recording.
  void record(TrueInstant at, std::uint64_t seq, HostId host, std::string_view kind,
              std::string_view detail);

  // A printable record only (when recording), not folded into the digest:
  // detail that `--trace` shows but the digest already covers through the
  // events themselves, so recording never changes a digest.
  void annotate(TrueInstant at, std::uint64_t seq, HostId host, std::string_view kind, std::string_view detail) {
    if (recording_) keep({at, seq, host, std::string(kind), std::string(detail)});
  }

  std::uint64_t digest() const { return digest_; }
  std::uint64_t event_count() const { return events_; }
  const std::vector<TraceRecord>& records() const { return records_; }

  // 16 lowercase hex digits.
  static std::string hex(std::uint64_t digest);

 private:
  void fold(std::uint64_t word) {
    // A multiply-xorshift fold (the finaliser of SplitMix64 applied to a
    // running state): order-sensitive, cheap, stable.
    std::uint64_t z = digest_ ^ (word + 0x9e3779b97f4a7c15ULL + (digest_ << 6) + (digest_ >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    digest_ = z ^ (z >> 31);
  }

  void keep(TraceRecord r) {
    if (records_.size() < limit_) records_.push_back(std::move(r));
    else full_ = true;
  }

  bool recording_ = false;
  bool full_ = false;
  std::size_t limit_ = kDefaultRecordLimit;
  std::uint64_t digest_ = 0x6c6f636b73696d00ULL | kDigestFormat;  // "locksim" and the format
  std::uint64_t events_ = 0;
  std::vector<TraceRecord> records_;
};

}  // namespace locksim::sim
