// The run record: one run as other tools see it — the `locksim run --format
// json` object, a `sweep` line, a `live` line (the same object plus a
// "live" object) and a live sweep's skip line. This is its one C++ type,
// with one writer (to_json) and one reader (read_run_record); run output,
// sweep --resume, shard merging, `report`, `replay` and live mode all go
// through them, so no two places can disagree on a field.
//
// The fields are a contract (other tools parse them): keys and meanings are
// fixed and new keys are only ever added. In order:
//   "scenario", "lock", "seed", "digest" (16 hex digits), "events",
//   "sim_time_ms", "violations" [{"kind","at_ms","clients","detail",
//   "evidence"}], "expected" (array or null), "may" (only when non-empty),
//   "matched", "outside_assumptions" (only when the scenario does not give
//   the lock what it assumes, e.g. fencing storage for a fenced lock: one
//   sentence each), "adjusted" (only when the etcd or ZooKeeper service
//   changes the lock's ttl as its server does: one sentence each), "repro", "source" (catalog name or scenario file), "stats"
//   {"attempts","acquisitions","gave_up","round_trips","acquire_p50_us",
//   "acquire_p99_us", "sale" (runs that sell a stock: {"method", "orders",
//   "refused", "sold_out_ms" (or null), "orders_per_s"})}, and for live runs "live" {"time_scale",
//   "deterministic": false, "notes", "key_prefix" (with --redis),
//   "fault_mechanisms" [{"fault", "targets", "produced", "means"}]: how live
//   mode produced each fault, "produced" one of "real", "observed",
//   "emulated" (scenarios/fault_mechanism.hpp; lines written before it have
//   none)}, and last "scenario_toml" (only when "source" names no file: a
//   `check` schedule's scenario as runnable TOML, which `replay` runs).
// A skip line (a cell live mode cannot run) carries only "scenario", "lock",
// "seed", "source", "expected", "repro" and "live" {"time_scale",
// "deterministic": false, "skipped": "why"}: nothing ran.
//
// The reader checks every field's type and every integer's range (through
// reports/numbers.hpp) and names the field in its error ("seed: expected a
// non-negative integer"); it never throws a JSON type error. A violation's
// "clients", "detail" and "evidence" are optional to it, so `report` may
// drop them while parsing (they are not aggregated).
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/fault_mechanism.hpp"
#include "scenarios/runner.hpp"
#include "vocab/result.hpp"

namespace locksim::reports {

struct ViolationRecord {
  std::string kind;
  std::int64_t at_ms = 0;
  std::vector<std::string> clients;
  std::string detail;
  std::vector<std::string> evidence;
};

// A sale's figures ("stats"."sale", runs that sell a stock only).
struct SaleStats {
  std::string method;
  std::uint64_t orders = 0;
  std::uint64_t refused = 0;
  std::optional<std::int64_t> sold_out_ms;  // null: the stock did not run out
  double orders_per_s = 0;                  // orders stored per simulated second
};

struct RunStats {
  std::uint64_t attempts = 0;
  std::uint64_t acquisitions = 0;
  std::uint64_t gave_up = 0;
  std::uint64_t round_trips = 0;
  std::int64_t acquire_p50_us = 0;
  std::int64_t acquire_p99_us = 0;
  std::optional<SaleStats> sale;
};

// The "live" object of a live line or a skip line.
struct LiveRecord {
  double time_scale = 0.01;
  std::vector<std::string> notes;      // what was emulated (runs only)
  std::string key_prefix;              // with --redis; empty = not written
  std::optional<std::string> skipped;  // a skip line: why live mode could not run the cell
  // How each fault was produced (runs only); nullopt: a line from before the field.
  std::optional<std::vector<scenarios::FaultMechanism>> fault_mechanisms;
};

struct RunRecord {
  std::string scenario;
  std::string lock;
  std::uint64_t seed = 0;
  std::string digest;  // 16 hex digits as written ("" in a skip line)
  std::uint64_t digest_value = 0;
  // sim::Trace::kDigestFormat of the build that wrote it (absent: 1, the
  // format before lost waits were cancelled); digests of two formats differ.
  std::uint64_t digest_format = 1;
  std::uint64_t events = 0;
  std::int64_t sim_time_ms = 0;
  std::vector<ViolationRecord> violations;
  std::optional<std::set<std::string>> expected;  // nullopt = no expectation (null)
  std::set<std::string> may;
  bool matched = false;
  std::vector<std::string> outside_assumptions;  // the lock's unmet assumptions (empty: none)
  std::vector<std::string> adjusted;             // what the service made of the lock's ttl (empty: as written)
  std::string repro;
  std::string source;              // defaults to the scenario name when a line has none
  std::optional<RunStats> stats;   // older lines carry none
  std::optional<LiveRecord> live;  // live lines and skip lines
  std::string scenario_toml;       // the scenario itself when `source` names no file ("": none)

  bool is_live() const { return live.has_value(); }
  bool is_skip() const { return live && live->skipped; }
  std::set<std::string> violation_kinds() const;
};

// The record of a simulated (or live) run's result. `live` is added by the
// caller for live runs.
RunRecord record_of(const scenarios::RunResult& run);

// "fault_mechanisms" as the run record writes it (the JSON report reuses it).
nlohmann::ordered_json fault_mechanisms_json(const std::vector<scenarios::FaultMechanism>& mechanisms);

// The one writer: the JSON object in the contract's key order.
nlohmann::ordered_json to_json(const RunRecord& record);
// to_json(record).dump(): one JSONL line, without the newline.
std::string to_line(const RunRecord& record);

// What a reader needs of a line: a whole record (sweep --resume, `report`),
// or just enough to re-run it (`replay`: "scenario" and "seed"; "lock",
// "digest", "source" and the rest are read, and type-checked, when present).
enum class RecordNeed { Whole, Identity };

// A JSONL line's bounds, checked as it is read (`report`, sweep --resume,
// shard merging, `replay`): a run record is a few kilobytes (at most 16
// violations of each kind, percentiles rather than samples), so a line over
// kMaxJsonlLineBytes, or JSON nested deeper than kMaxJsonDepth, is refused
// before a document is built (a 100 MB line of nested arrays needed 3.6 GB).
inline constexpr std::size_t kMaxJsonlLineBytes = std::size_t{1} << 20;
inline constexpr int kMaxJsonDepth = 64;

// One line of a JSONL stream: the text (without its newline), whether a
// newline ended it, and whether it was over the byte cap (then `text` holds
// only its start and the rest of the line was skipped unread into memory).
struct JsonlLine {
  std::string text;
  bool terminated = false;
  bool too_long = false;
};
// The next line, or false at the end of the stream.
bool next_jsonl_line(std::istream& in, JsonlLine& line, std::size_t max_bytes = kMaxJsonlLineBytes);
// "is over 1048576 bytes (...)": the message for a too_long line.
std::string jsonl_line_too_long(std::size_t max_bytes = kMaxJsonlLineBytes);

// json::parse of one line with the depth bound; `keep` (optional) filters
// as nlohmann's parser callback does. Not JSON: a discarded value and
// *too_deep false; nested past kMaxJsonDepth: a discarded value and
// *too_deep true.
nlohmann::json parse_json_line(std::string_view line, const nlohmann::json::parser_callback_t& keep, bool* too_deep);
// "nested deeper than 64 levels ...": the message for a too-deep line.
std::string json_too_deep();

// The one reader. Errors are "field: message" (the caller adds file:line).
Result<RunRecord, std::string> read_run_record(const nlohmann::json& j, RecordNeed need = RecordNeed::Whole);
// Parses one line of text and reads it; "not valid JSON" when it does not parse.
Result<RunRecord, std::string> parse_run_record(std::string_view line, RecordNeed need = RecordNeed::Whole);

// How a JSONL file's last line can be bad. A sweep writes each line and then
// its newline, so a line cut by a kill is a prefix of an object with no
// newline after it: Torn, safe to drop (resume re-runs it). Anything else
// that does not parse — any line that ends in a newline, or a last line
// that does not even start like an object — is Garbage: an error, never
// silently dropped.
enum class LineDamage { Torn, Garbage };
LineDamage classify_bad_line(std::string_view line, bool newline_terminated);

}  // namespace locksim::reports
