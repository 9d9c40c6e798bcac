// The run record's one writer and one reader (reports/run_record.hpp).
#include "reports/run_record.hpp"

#include <charconv>
#include <limits>

#include "reports/numbers.hpp"
#include "reports/run_output.hpp"
#include "sim/trace.hpp"

namespace locksim::reports {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using Error = std::optional<std::string>;

std::string missing(const std::string& field) { return field + ": missing"; }

Result<std::string, std::string> json_string(const json& v, std::string_view field) {
  if (!v.is_string()) return failure(std::string(field) + ": expected a string");
  return v.get<std::string>();
}

// j[field] read by `read` (a JSON value -> Result) into `out`; absent is
// "field: missing" when required, else leaves `out` as it is.
template <class T, class Read>
Error read_field(const json& j, const std::string& field, T& out, bool required, Read read) {
  if (!j.contains(field)) return required ? Error(missing(field)) : std::nullopt;
  auto value = read(j[field], field);
  if (!value) return value.error();
  out = std::move(*value);
  return std::nullopt;
}

Error read_string(const json& j, const std::string& field, std::string& out, bool required = true) {
  return read_field(j, field, out, required, json_string);
}

Error read_unsigned(const json& j, const std::string& field, std::uint64_t& out, bool required = true) {
  return read_field(j, field, out, required, [](const json& v, std::string_view f) { return json_unsigned(v, f); });
}

Error read_signed(const json& j, const std::string& field, std::int64_t& out, bool required = true) {
  return read_field(j, field, out, required, json_signed);
}

Error read_strings(const json& j, const std::string& field, std::vector<std::string>& out) {
  if (!j.contains(field)) return std::nullopt;
  if (!j[field].is_array()) return field + ": expected an array of strings";
  for (const json& s : j[field]) {
    if (!s.is_string()) return field + ": expected an array of strings";
    out.push_back(s.get<std::string>());
  }
  return std::nullopt;
}

Error read_digest(const json& j, RunRecord& r) {
  if (auto err = read_string(j, "digest", r.digest)) return err;
  const char* begin = r.digest.data();
  const char* end = begin + r.digest.size();
  auto [ptr, ec] = std::from_chars(begin, end, r.digest_value, 16);
  if (r.digest.empty() || ec != std::errc() || ptr != end) return "digest: expected hex digits";
  return std::nullopt;
}

Error read_violation(const json& v, const std::string& at, ViolationRecord& out) {
  if (!v.is_object() || !v.contains("kind") || !v["kind"].is_string()) return at + ".kind: expected a string";
  out.kind = v["kind"].get<std::string>();
  if (auto err = read_signed(v, "at_ms", out.at_ms, false)) return at + "." + *err;
  if (auto err = read_string(v, "detail", out.detail, false)) return at + "." + *err;
  for (const char* list : {"clients", "evidence"}) {
    if (!v.contains(list)) continue;
    if (!v[list].is_array()) return at + "." + list + ": expected an array of strings";
    for (const json& s : v[list]) {
      if (!s.is_string()) return at + "." + list + ": expected an array of strings";
      (std::string_view(list) == "clients" ? out.clients : out.evidence).push_back(s.get<std::string>());
    }
  }
  return std::nullopt;
}

Error read_violations(const json& j, RunRecord& r) {
  if (!j.contains("violations")) return "violations: missing";
  if (!j["violations"].is_array()) return "violations: expected an array";
  int i = 0;
  for (const json& v : j["violations"]) {
    ViolationRecord out;
    if (auto err = read_violation(v, "violations[" + std::to_string(++i) + "]", out)) return err;
    r.violations.push_back(std::move(out));
  }
  return std::nullopt;
}

Error read_kind_set(const json& j, const char* field, std::set<std::string>& out) {
  if (!j[field].is_array()) return std::string(field) + ": expected an array of violation kinds";
  for (const json& k : j[field]) {
    if (!k.is_string()) return std::string(field) + ": expected an array of strings";
    out.insert(k.get<std::string>());
  }
  return std::nullopt;
}

Error read_expected(const json& j, RunRecord& r, bool required) {
  if (!j.contains("expected"))
    return required ? Error("expected: missing (an array of violation kinds, or null)") : std::nullopt;
  const json& e = j["expected"];
  if (!e.is_null()) {
    if (!e.is_array()) return "expected: expected an array of violation kinds, or null";
    r.expected.emplace();
    if (auto err = read_kind_set(j, "expected", *r.expected)) return err;
  }
  if (!j.contains("may")) return std::nullopt;  // optional: violations allowed but not required
  return read_kind_set(j, "may", r.may);
}

Error read_stats(const json& j, RunRecord& r) {
  if (!j.contains("stats")) return std::nullopt;  // older results carry none
  const json& s = j["stats"];
  if (!s.is_object()) return "stats: expected an object";
  RunStats st;
  for (auto err : {read_unsigned(s, "attempts", st.attempts, false),
                   read_unsigned(s, "acquisitions", st.acquisitions, false),
                   read_unsigned(s, "gave_up", st.gave_up, false), read_unsigned(s, "round_trips", st.round_trips, false),
                   read_signed(s, "acquire_p50_us", st.acquire_p50_us, false),
                   read_signed(s, "acquire_p99_us", st.acquire_p99_us, false)})
    if (err) return "stats." + *err;
  if (s.contains("sale")) {
    const json& sale = s["sale"];
    if (!sale.is_object()) return "stats.sale: expected an object";
    SaleStats ss;
    if (!sale.contains("method") || !sale["method"].is_string()) return "stats.sale.method: expected a string";
    ss.method = sale["method"].get<std::string>();
    for (auto err : {read_unsigned(sale, "orders", ss.orders, true), read_unsigned(sale, "refused", ss.refused, true)})
      if (err) return "stats.sale." + *err;
    if (sale.contains("sold_out_ms") && !sale["sold_out_ms"].is_null()) {
      std::int64_t at = 0;
      if (auto err = read_signed(sale, "sold_out_ms", at, true)) return "stats.sale." + *err;
      ss.sold_out_ms = at;
    }
    if (!sale.contains("orders_per_s") || !sale["orders_per_s"].is_number())
      return "stats.sale.orders_per_s: expected a number";
    ss.orders_per_s = sale["orders_per_s"].get<double>();
    st.sale = ss;
  }
  r.stats = st;
  return std::nullopt;
}

Error read_mechanism(const json& m, const std::string& at, scenarios::FaultMechanism& out) {
  if (!m.is_object()) return at + ": expected an object";
  if (auto err = read_string(m, "fault", out.fault)) return at + "." + *err;
  if (auto err = read_strings(m, "targets", out.targets)) return at + "." + *err;
  std::string produced;
  if (auto err = read_string(m, "produced", produced)) return at + "." + *err;
  const auto production = scenarios::fault_production_from_name(produced);
  if (!production) return at + ".produced: expected \"real\", \"observed\" or \"emulated\"";
  out.production = *production;
  if (auto err = read_string(m, "means", out.means)) return at + "." + *err;
  return std::nullopt;
}

Error read_mechanisms(const json& live, LiveRecord& out) {
  if (!live.contains("fault_mechanisms")) return std::nullopt;  // lines written before the field
  if (!live["fault_mechanisms"].is_array()) return "live.fault_mechanisms: expected an array";
  out.fault_mechanisms.emplace();
  for (const json& m : live["fault_mechanisms"]) {
    scenarios::FaultMechanism mechanism;
    const std::string at = "live.fault_mechanisms[" + std::to_string(out.fault_mechanisms->size() + 1) + "]";
    if (auto err = read_mechanism(m, at, mechanism)) return err;
    out.fault_mechanisms->push_back(std::move(mechanism));
  }
  return std::nullopt;
}

Error read_live(const json& j, RunRecord& r) {
  const json& live = j["live"];
  if (!live.is_object()) return "live: expected an object";
  if (!live.contains("time_scale") || !live["time_scale"].is_number()) return "live.time_scale: expected a number";
  LiveRecord out;
  out.time_scale = live["time_scale"].get<double>();
  if (live.contains("skipped")) {
    if (!live["skipped"].is_string()) return "live.skipped: expected a string (why it was not run live)";
    out.skipped = live["skipped"].get<std::string>();
  }
  if (auto err = read_strings(live, "notes", out.notes)) return "live." + *err;
  if (auto err = read_string(live, "key_prefix", out.key_prefix, false)) return "live." + *err;
  if (auto err = read_mechanisms(live, out)) return err;
  r.live = std::move(out);
  return std::nullopt;
}

// A skip line: the cell's identity, nothing that ran.
Error read_skip_fields(const json& j, RunRecord& r) {
  for (auto err : {read_string(j, "scenario", r.scenario), read_string(j, "lock", r.lock),
                   read_unsigned(j, "seed", r.seed), read_string(j, "repro", r.repro, false),
                   read_string(j, "source", r.source, false)})
    if (err) return err;
  return read_expected(j, r, false);
}

Error read_run_fields(const json& j, RunRecord& r, bool whole) {
  for (auto err : {read_string(j, "scenario", r.scenario), read_string(j, "lock", r.lock, whole),
                   read_unsigned(j, "seed", r.seed), read_string(j, "digest", r.digest, whole),
                   read_unsigned(j, "events", r.events, whole), read_signed(j, "sim_time_ms", r.sim_time_ms, whole),
                   read_string(j, "repro", r.repro, whole), read_unsigned(j, "digest_format", r.digest_format, false)})
    if (err) return err;
  if (!r.digest.empty() || whole)
    if (auto err = read_digest(j, r)) return err;
  if (whole || j.contains("violations"))
    if (auto err = read_violations(j, r)) return err;
  if (auto err = read_expected(j, r, whole)) return err;
  if (j.contains("matched") || whole) {
    if (!j.contains("matched") || !j["matched"].is_boolean()) return "matched: expected true or false";
    r.matched = j["matched"].get<bool>();
  }
  if (auto err = read_string(j, "source", r.source, false)) return err;
  if (auto err = read_string(j, "scenario_toml", r.scenario_toml, false)) return err;
  if (j.contains("outside_assumptions"))
    if (auto err = read_strings(j, "outside_assumptions", r.outside_assumptions)) return err;
  if (j.contains("adjusted"))
    if (auto err = read_strings(j, "adjusted", r.adjusted)) return err;
  return read_stats(j, r);
}

ordered_json violation_json(const ViolationRecord& v) {
  ordered_json jv;
  jv["kind"] = v.kind;
  jv["at_ms"] = v.at_ms;
  jv["clients"] = v.clients;
  jv["detail"] = v.detail;
  jv["evidence"] = v.evidence;
  return jv;
}

ordered_json expected_json(const std::optional<std::set<std::string>>& expected) {
  if (!expected) return nullptr;
  return std::vector<std::string>(expected->begin(), expected->end());
}

ordered_json live_json(const LiveRecord& live) {
  ordered_json j;
  j["time_scale"] = live.time_scale;
  j["deterministic"] = false;
  if (live.skipped) {
    j["skipped"] = *live.skipped;
    return j;
  }
  j["notes"] = live.notes;
  if (!live.key_prefix.empty()) j["key_prefix"] = live.key_prefix;
  if (live.fault_mechanisms) j["fault_mechanisms"] = fault_mechanisms_json(*live.fault_mechanisms);
  return j;
}

ordered_json skip_json(const RunRecord& r) {
  ordered_json j;
  j["scenario"] = r.scenario;
  j["lock"] = r.lock;
  j["seed"] = r.seed;
  j["source"] = r.source;
  j["expected"] = expected_json(r.expected);
  j["repro"] = r.repro;
  j["live"] = live_json(*r.live);
  return j;
}

}  // namespace

std::set<std::string> RunRecord::violation_kinds() const {
  std::set<std::string> kinds;
  for (const auto& v : violations) kinds.insert(v.kind);
  return kinds;
}

RunRecord record_of(const scenarios::RunResult& run) {
  RunRecord r;
  r.scenario = run.scenario;
  r.lock = run.lock;
  r.seed = run.seed;
  r.digest = sim::Trace::hex(run.digest);
  r.digest_value = run.digest;
  r.digest_format = sim::Trace::kDigestFormat;
  r.events = run.events;
  r.sim_time_ms = run.sim_time_ms;
  for (const auto& v : run.violations)
    r.violations.push_back({v.kind, to_ms(v.at), v.clients, v.detail, v.evidence});
  r.expected = run.expected;
  r.may = run.may;
  r.matched = run.matched;
  r.outside_assumptions = run.outside_assumptions;
  r.adjusted = run.adjusted;
  r.repro = run.repro;
  r.source = run.source;
  const auto& s = run.summary;
  r.stats = RunStats{s.attempts, s.acquisitions, s.gave_up, s.round_trips, percentile(s.acquire_latency_us, 50),
                     percentile(s.acquire_latency_us, 99), std::nullopt};
  if (s.sale)
    r.stats->sale = SaleStats{s.sale->method, s.sale->orders, s.sale->refused, s.sale->sold_out_ms,
                              static_cast<double>(s.sale->orders_per_s_milli) / 1000.0};
  return r;
}

nlohmann::ordered_json to_json(const RunRecord& r) {
  if (r.is_skip()) return skip_json(r);
  ordered_json j;
  j["scenario"] = r.scenario;
  j["lock"] = r.lock;
  j["seed"] = r.seed;
  j["digest"] = r.digest;
  j["digest_format"] = r.digest_format;
  j["events"] = r.events;
  j["sim_time_ms"] = r.sim_time_ms;
  j["violations"] = ordered_json::array();
  for (const auto& v : r.violations) j["violations"].push_back(violation_json(v));
  j["expected"] = expected_json(r.expected);
  if (!r.may.empty()) j["may"] = std::vector<std::string>(r.may.begin(), r.may.end());
  j["matched"] = r.matched;
  if (!r.outside_assumptions.empty()) j["outside_assumptions"] = r.outside_assumptions;
  if (!r.adjusted.empty()) j["adjusted"] = r.adjusted;
  j["repro"] = r.repro;
  j["source"] = r.source;
  if (r.stats) {
    const RunStats& s = *r.stats;
    j["stats"] = {{"attempts", s.attempts},         {"acquisitions", s.acquisitions},
                  {"gave_up", s.gave_up},           {"round_trips", s.round_trips},
                  {"acquire_p50_us", s.acquire_p50_us}, {"acquire_p99_us", s.acquire_p99_us}};
    if (s.sale)
      j["stats"]["sale"] = {{"method", s.sale->method},
                            {"orders", s.sale->orders},
                            {"refused", s.sale->refused},
                            {"sold_out_ms", s.sale->sold_out_ms ? ordered_json(*s.sale->sold_out_ms) : nullptr},
                            {"orders_per_s", s.sale->orders_per_s}};
  }
  if (r.live) j["live"] = live_json(*r.live);
  if (!r.scenario_toml.empty()) j["scenario_toml"] = r.scenario_toml;
  return j;
}

nlohmann::ordered_json fault_mechanisms_json(const std::vector<scenarios::FaultMechanism>& mechanisms) {
  ordered_json out = ordered_json::array();
  for (const auto& m : mechanisms)
    out.push_back({{"fault", m.fault},
                   {"targets", m.targets},
                   {"produced", std::string(scenarios::fault_production_name(m.production))},
                   {"means", m.means}});
  return out;
}

std::string to_line(const RunRecord& record) { return to_json(record).dump(); }

Result<RunRecord, std::string> read_run_record(const nlohmann::json& j, RecordNeed need) {
  if (!j.is_object()) return failure(std::string("expected a JSON object (one run per line)"));
  RunRecord r;
  Error err;
  if (j.contains("live")) err = read_live(j, r);
  if (!err) err = r.is_skip() ? read_skip_fields(j, r) : read_run_fields(j, r, need == RecordNeed::Whole);
  if (err) return failure(std::move(*err));
  if (r.source.empty()) r.source = r.scenario;
  return r;
}

Result<RunRecord, std::string> parse_run_record(std::string_view line, RecordNeed need) {
  if (line.size() > kMaxJsonlLineBytes) return failure("the line " + jsonl_line_too_long());
  bool too_deep = false;
  const json j = parse_json_line(line, nullptr, &too_deep);
  if (too_deep) return failure(json_too_deep());
  if (j.is_discarded()) return failure(std::string("not valid JSON"));
  return read_run_record(j, need);
}

bool next_jsonl_line(std::istream& in, JsonlLine& line, std::size_t max_bytes) {
  line.text.clear();  // keeps its capacity from line to line
  line.terminated = line.too_long = false;
  // istream::getline into a chunk: as fast as std::getline, but the line
  // never grows past max_bytes + one chunk.
  char chunk[1 << 16];
  for (;;) {
    in.getline(chunk, sizeof chunk);
    const auto got = static_cast<std::size_t>(in.gcount());
    const bool full = in.fail() && !in.eof() && got == sizeof chunk - 1;  // the chunk filled, no newline yet
    if (full) in.clear(in.rdstate() & ~std::ios::failbit);
    const bool newline = !full && !in.eof() && !in.fail();
    line.text.append(chunk, newline ? got - 1 : got);
    if (line.text.size() > max_bytes) {
      line.too_long = true;
      if (!newline) in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
      line.terminated = !in.eof();
      return true;
    }
    if (full) continue;
    line.terminated = newline;
    return newline || !line.text.empty();
  }
}

std::string jsonl_line_too_long(std::size_t max_bytes) {
  return "is over " + std::to_string(max_bytes) + " bytes (the cap for one run record: a record is a few kilobytes)";
}

namespace {
struct TooDeep {};
}  // namespace

json parse_json_line(std::string_view line, const json::parser_callback_t& keep, bool* too_deep) {
  *too_deep = false;
  // The callback sees each array or object as it opens, at its depth, before
  // anything inside it is built: deeper than the cap ends the parse at once.
  auto bounded = [&keep](int depth, json::parse_event_t event, json& parsed) {
    if ((event == json::parse_event_t::array_start || event == json::parse_event_t::object_start) &&
        depth >= kMaxJsonDepth)
      throw TooDeep{};
    return keep ? keep(depth, event, parsed) : true;
  };
  try {
    return json::parse(line, bounded, false);
  } catch (const TooDeep&) {
    *too_deep = true;
    return json(json::value_t::discarded);
  }
}

std::string json_too_deep() {
  return "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (the cap for one run record, which nests a few levels)";
}

LineDamage classify_bad_line(std::string_view line, bool newline_terminated) {
  const auto first = line.find_first_not_of(" \t\r");
  const bool starts_like_object = first != std::string_view::npos && line[first] == '{';
  return !newline_terminated && starts_like_object ? LineDamage::Torn : LineDamage::Garbage;
}

}  // namespace locksim::reports
