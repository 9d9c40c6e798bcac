// The live session's recorder (live_recorder.hpp).
#include "live/live_recorder.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "scenarios/fault_kinds.hpp"
#include "scenarios/history.hpp"
#include "scenarios/inventory_workload.hpp"

namespace locksim::live {

namespace {

using Kind = sim::redis::KeyEvent::Kind;

constexpr const char* kProbeOnly = "(probe)";  // a probed command that left the entry as it was

}  // namespace

void LiveRecorder::start(const scenarios::Scenario& s, const LiveServers& servers) {
  history_.nodes.clear();
  history_.sale = scenarios::sale_terms(s);
  for (std::size_t n = 0; n < servers.server_count(); ++n) history_.nodes.push_back(servers.server_name(n));
  for (std::size_t c = 0; c < s.clients.size(); ++c)
    history_.clients.push_back({s.clients[c].name, static_cast<sim::HostId>(servers.server_count() + c), {}, {}});
}

void LiveRecorder::record_entry(const ProbedCommand& p, std::optional<Kind> kind, bool present_before,
                                ServerStamp stamp, std::chrono::nanoseconds server_wall_offset) {
  std::lock_guard lk(core_.mutex);
  if (core_.stop.load()) return;
  // TIME shows the node's own wall clock (stepped or drifting under a clock
  // fault): take its offset off to place the command in real time.
  const TrueInstant at = core_.wall_to_true(std::chrono::microseconds(stamp.time_us) -
                                            std::chrono::duration_cast<std::chrono::microseconds>(server_wall_offset));
  const auto node = static_cast<sim::HostId>(p.node);
  if (kind)
    history_.entries.push_back(
        {at, static_cast<std::uint64_t>(stamp.order), node, p.client, false, *kind, p.key, p.command});
  else  // a probe that changed nothing still tells whether the entry was there
    history_.entries.push_back(
        {at, static_cast<std::uint64_t>(stamp.order), node, p.client, false, Kind::Expired, p.key, kProbeOnly});
  entry_before_.push_back(present_before);
}

void LiveRecorder::record_observed(std::size_t node, const scenarios::KeyspaceReplay::Effect& e,
                                   std::int64_t real_time_us) {
  std::lock_guard lk(core_.mutex);
  const TrueInstant at = core_.wall_to_true(std::chrono::microseconds(real_time_us));
  history_.entries.push_back({at, observed_++, static_cast<sim::HostId>(node), e.client, e.replicated, e.kind, e.key,
                              scenarios::entry_command_text(e.argv)});
  // The replay saw every command and its own expiries: only a creation
  // found the entry absent, so finish() adds no expiry of its own.
  entry_before_.push_back(e.kind != Kind::Created);
}

void LiveRecorder::note_fault(const scenarios::FaultSpec& f, std::optional<Duration> until) {
  std::lock_guard lk(core_.mutex);
  const auto at = core_.now_true();
  std::optional<TrueInstant> end;
  if (until) end = at + core_.in_scenario_time(*until);
  scenarios::FaultSpec shown = f;  // durations back in scenario time, as every other time shown
  shown.duration = core_.in_scenario_time(f.duration);
  shown.by = core_.in_scenario_time(f.by);
  history_.faults.push_back(
      {at, f.kind, scenarios::fault_kind_info(f.kind).describe(shown), scenarios::fault_record_target(f), end});
}

void LiveRecorder::fault_seen(scenarios::FaultKind kind, std::string description, std::string target) {
  std::lock_guard lk(core_.mutex);
  history_.faults.push_back({core_.now_true(), kind, std::move(description), std::move(target), std::nullopt});
}

void LiveRecorder::note(std::string text) {
  std::lock_guard lk(core_.mutex);
  notes_.push_back(std::move(text));
}

void LiveRecorder::adapter_note(const std::string& text) {
  constexpr std::size_t kShownNotes = 40;
  std::lock_guard lk(core_.mutex);
  if (++adapter_notes_ <= kShownNotes) notes_.push_back(text);
  else if (adapter_notes_ == kShownNotes + 1) notes_.push_back("(further notes from the client libraries not shown)");
}

// Execution order per node (server TIME, then the INCR counter); a probe
// that found no entry where the previous one left it present means the
// server expired it in between: an Expired event (time: when it was noticed).
void LiveRecorder::finish(Duration end) {
  history_.end = TrueInstant{end};
  std::vector<std::size_t> idx(history_.entries.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  auto& es = history_.entries;
  std::stable_sort(idx.begin(), idx.end(),
                   [&](auto a, auto b) { return std::tie(es[a].at, es[a].seq) < std::tie(es[b].at, es[b].seq); });
  std::vector<scenarios::EntryEvent> out;
  std::map<std::pair<sim::HostId, std::string>, bool> present;  // per node and lock key
  for (auto i : idx) {
    scenarios::EntryEvent e = es[i];
    bool& was_present = present[{e.node, e.key}];
    if (!entry_before_[i] && was_present)
      out.push_back({e.at, e.seq, e.node, std::nullopt, false, Kind::Expired, e.key, "(expired)"});
    if (e.command == kProbeOnly) {
      was_present = entry_before_[i];
      continue;
    }
    was_present = e.kind != Kind::Deleted;
    out.push_back(std::move(e));
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].seq = i;
  es = std::move(out);
}

}  // namespace locksim::live
