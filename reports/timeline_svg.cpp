// Rendering one run's timeline as SVG (see timeline_svg.hpp for what it
// shows). Layout comes first (the time scale, the lanes and their heights),
// then one pass per part of the figure writes into a string; the <svg> header
// is prepended last, once the height is known. Label placement is greedy:
// each lane has a few text rows, and a label that would overlap another one
// moves to the next row or is left to its shape's tooltip (<title>).
#include "reports/timeline_svg.hpp"

#include "reports/xml_text.hpp"
#include "scenarios/host_names.hpp"
#include "vocab/violation_kinds.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace locksim::reports {

namespace {

using scenarios::Belief;
using scenarios::ClockEffect;
using scenarios::EntryEvent;
using scenarios::FaultRecord;
using scenarios::History;
using scenarios::HostEffect;
using scenarios::OrderRecord;
using scenarios::RunResult;
using scenarios::StorageWrite;
using scenarios::Violation;
using EntryKind = sim::redis::KeyEvent::Kind;

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSec = 1000 * kMs;
constexpr std::int64_t kMin = 60 * kSec;
constexpr std::int64_t kHour = 60 * kMin;

// Client colours (Tableau 10 without its red and green, which mean
// "rejected/violation" and "accepted" here).
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#9467bd", "#8c564b",
                                    "#e377c2", "#17becf", "#bcbd22", "#393b79"};
constexpr std::size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr const char* kAccepted = "#2ca02c";
constexpr const char* kRed = "#d62728";
constexpr const char* kFault = "#b35900";
constexpr const char* kInk = "#222222";
constexpr const char* kMuted = "#666666";
constexpr const char* kStretch = "#e8a317";  // a stretched stretch of the time axis
constexpr const char* kDeadline = "#3b1f5c";  // lease deadlines

const char* client_colour(std::size_t client) { return kPalette[client % kPaletteSize]; }

std::int64_t ns(TrueInstant t) { return t.time_since_epoch().count(); }
std::string ms_text(TrueInstant t) { return std::to_string(to_ms(t)) + "ms"; }

// ---------------------------------------------------------------- text ----

// SVG labels are single lines: tabs and newlines become spaces.
std::string xml_text(std::string_view s) { return xml_escape(s, Newlines::Space); }

std::size_t code_points(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Estimated rendered width in px of s at a sans-serif font size.
int text_width(std::string_view s, int font_px) { return static_cast<int>(code_points(s)) * font_px * 62 / 100; }

// The first n code points of s.
std::string prefix_points(std::string_view s, std::size_t n) {
  std::size_t i = 0;
  for (std::size_t seen = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && seen++ == n) break;
  }
  return std::string(s.substr(0, i));
}

std::string truncated(std::string_view s, std::size_t max_points) {
  if (code_points(s) <= max_points) return std::string(s);
  return prefix_points(s, max_points > 1 ? max_points - 1 : 0) + "\xE2\x80\xA6";  // …
}

// Greedy word wrap to lines of at most max_points code points.
std::vector<std::string> wrapped(std::string_view s, std::size_t max_points) {
  std::vector<std::string> lines(1);
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = s.find(' ', i);
    if (j == std::string_view::npos) j = s.size();
    std::string word(s.substr(i, j - i));
    i = j + 1;
    while (code_points(word) > max_points) {  // a word longer than a line is cut
      if (!lines.back().empty()) lines.emplace_back();
      lines.back() = prefix_points(word, max_points);
      word = word.substr(lines.back().size());
      lines.emplace_back();
    }
    const std::string& last = lines.back();
    if (!last.empty() && code_points(last) + 1 + code_points(word) > max_points) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
  }
  return lines;
}

std::string first_word(std::string_view s) { return std::string(s.substr(0, s.find(' '))); }

// "clock-jump redis-3 +10s" -> "clock-jump +10s": the lane already names the target.
std::string without_target(const FaultRecord& f) {
  const std::string needle = " " + f.target;
  std::string d = f.description;
  const auto at = d.find(needle);
  if (!f.target.empty() && at != std::string::npos &&
      (at + needle.size() == d.size() || d[at + needle.size()] == ' '))
    d.erase(at, needle.size());
  return d;
}

// ----------------------------------------------------------------- svg ----

std::string attr(std::string_view name, std::string_view value) {
  return " " + std::string(name) + "=\"" + xml_text(value) + "\"";
}
std::string num(std::int64_t v) { return std::to_string(v); }

// A write-only SVG body. Style arguments are attribute strings made from
// constants; every piece of data goes through xml_text().
class Svg {
 public:
  std::string& out() { return out_; }
  void open(std::string_view tag, std::string_view attrs = {}) {
    out_ += "<" + std::string(tag) + std::string(attrs) + ">\n";
  }
  void close(std::string_view tag) { out_ += "</" + std::string(tag) + ">\n"; }
  void rect(int x, int y, int w, int h, std::string_view style, std::string_view tip = {}) {
    shape("rect", attr("x", num(x)) + attr("y", num(y)) + attr("width", num(std::max(w, 1))) +
                      attr("height", num(std::max(h, 1))) + std::string(style), tip);
  }
  void line(int x1, int y1, int x2, int y2, std::string_view style, std::string_view tip = {}) {
    shape("line", attr("x1", num(x1)) + attr("y1", num(y1)) + attr("x2", num(x2)) + attr("y2", num(y2)) +
                      std::string(style), tip);
  }
  void circle(int cx, int cy, int r, std::string_view style, std::string_view tip = {}) {
    shape("circle", attr("cx", num(cx)) + attr("cy", num(cy)) + attr("r", num(r)) + std::string(style), tip);
  }
  void path(std::string_view d, std::string_view style, std::string_view tip = {}) {
    shape("path", attr("d", d) + std::string(style), tip);
  }
  void text(int x, int y, std::string_view content, std::string_view style) {
    out_ += "<text" + attr("x", num(x)) + attr("y", num(y)) + std::string(style) + ">" + xml_text(content) +
            "</text>\n";
  }
  // An ✕ of half-size r, drawn (not a glyph: no font needed).
  void cross(int cx, int cy, int r, std::string_view colour, std::string_view tip) {
    const std::string d = "M" + num(cx - r) + " " + num(cy - r) + "L" + num(cx + r) + " " + num(cy + r) + "M" +
                          num(cx - r) + " " + num(cy + r) + "L" + num(cx + r) + " " + num(cy - r);
    path(d, attr("stroke", colour) + attr("stroke-width", "3") + attr("stroke-linecap", "round"), tip);
  }

 private:
  void shape(std::string_view tag, const std::string& attrs, std::string_view tip) {
    out_ += "<" + std::string(tag) + attrs;
    if (tip.empty()) {
      out_ += "/>\n";
    } else {
      out_ += "><title>" + xml_text(tip) + "</title></" + std::string(tag) + ">\n";
    }
  }
  std::string out_;
};

std::string fill(std::string_view colour) { return attr("fill", colour); }
std::string font(int px, std::string_view colour = kInk, std::string_view extra = {}) {
  return attr("font-size", num(px)) + attr("fill", colour) + std::string(extra);
}
const std::string kBold = attr("font-weight", "bold");
const std::string kMiddle = attr("text-anchor", "middle");
const std::string kItalic = attr("font-style", "italic");

// --------------------------------------------------------------- scale ----

// The run's end in true time: the history's, else the reported duration.
std::int64_t run_end_ns(const RunResult& run) {
  if (ns(run.history.end) > 0) return ns(run.history.end);
  return std::max<std::int64_t>(run.sim_time_ms, 0) * kMs;
}

// Where marks sit that could hide one another: writes, violations, entry
// changes, faults, crashes.
void append_mark_times(const RunResult& run, std::vector<std::int64_t>& t) {
  const History& h = run.history;
  for (const EntryEvent& e : h.entries) t.push_back(ns(e.at));
  for (const StorageWrite& w : h.writes) t.push_back(ns(w.at));
  for (const FaultRecord& f : h.faults) t.push_back(ns(f.at));
  for (const auto& c : h.clients)
    for (TrueInstant x : c.crashes) t.push_back(ns(x));
  for (const Violation& v : run.violations) t.push_back(ns(v.at));
}

// Every instant something happens at (not the open ends of still-held beliefs).
std::vector<std::int64_t> event_times(const RunResult& run) {
  const History& h = run.history;
  std::vector<std::int64_t> t;
  for (const Belief& b : h.beliefs) {
    t.push_back(ns(b.start));
    if (b.end) t.push_back(ns(*b.end));
    if (b.deadline && (!b.end || *b.deadline < *b.end)) t.push_back(ns(*b.deadline));  // a later one is moot
  }
  for (const auto& a : h.attempts) {
    t.push_back(ns(a.start));
    if (a.end) t.push_back(ns(*a.end));
  }
  append_mark_times(run, t);
  return t;
}

// A tick step from 1-2-5 and clock-friendly steps, giving at most max_ticks.
std::int64_t tick_step(std::int64_t span, std::int64_t max_ticks) {
  static constexpr std::int64_t kSteps[] = {
      1'000,      2'000,      5'000,       10'000,      20'000,      50'000,      100'000,    200'000,
      500'000,    kMs,        2 * kMs,     5 * kMs,     10 * kMs,    20 * kMs,    50 * kMs,   100 * kMs,
      200 * kMs,  500 * kMs,  kSec,        2 * kSec,    5 * kSec,    10 * kSec,   15 * kSec,  30 * kSec,
      kMin,       2 * kMin,   5 * kMin,    10 * kMin,   15 * kMin,   30 * kMin,   kHour,      2 * kHour,
      3 * kHour,  6 * kHour,  12 * kHour,  24 * kHour};
  for (std::int64_t step : kSteps)
    if (span / step <= max_ticks) return step;
  const std::int64_t days = span / (24 * kHour * max_ticks) + 1;
  return days * 24 * kHour;
}

// "250ms", "10.5s", "1m30s", "2h": precise enough for the tick step.
std::string tick_label(std::int64_t t, std::int64_t step) {
  if (step < kMs) return num(t / 1000) + "us";
  if (step < 100 * kMs) return num(t / kMs) + "ms";
  if (step < kSec) {
    const std::int64_t tenths = t / (100 * kMs);
    return num(tenths / 10) + (tenths % 10 ? "." + num(tenths % 10) : "") + "s";
  }
  const std::int64_t h = t / kHour, m = t % kHour / kMin, s = t % kMin / kSec;
  std::string out;
  if (h) out += num(h) + "h";
  if (m) out += num(m) + "m";
  if (s || out.empty()) out += num(s) + "s";
  return out;
}

// True time to x. Linear, except that a gap between two events that would
// be drawn closer than kMinGapPx is stretched to that width (the rest of the
// span shrinks to make room): a broken axis, so that no event hides behind
// another (two writes 4 ms apart in a minute-long run). `knots` are the
// (time, x) corners of the piecewise-linear map; `stretched` the true-time
// gaps drawn wider than their share, marked on the axis.
struct Scale {
  static constexpr int kMinGapPx = 14;
  std::int64_t start = 0;
  std::int64_t end = 1;
  std::int64_t tick = 1;
  int left = 0;
  int right = 1;
  std::vector<std::pair<std::int64_t, int>> knots;  // empty: linear
  std::vector<std::pair<std::int64_t, std::int64_t>> stretched;

  int linear_x(std::int64_t t) const {
    const std::int64_t span = end - start;
    const std::int64_t q = std::max<std::int64_t>(1, span / 1'000'000'000'000);  // no int64 overflow
    const std::int64_t d = std::clamp(t - start, -span, 2 * span);
    return left + static_cast<int>(d / q * (right - left) / (span / q));
  }
  int x(std::int64_t t) const {
    if (knots.size() < 2 || t <= start || t >= end) return linear_x(t);
    auto hi = std::upper_bound(knots.begin(), knots.end(), t,
                               [](std::int64_t v, const std::pair<std::int64_t, int>& k) { return v < k.first; });
    if (hi == knots.end()) return right;
    auto lo = std::prev(hi);
    const std::int64_t dt = hi->first - lo->first;
    return lo->second + static_cast<int>((t - lo->first) * (hi->second - lo->second) / std::max<std::int64_t>(dt, 1));
  }
  int x(TrueInstant t) const { return x(ns(t)); }
};

// Marks that could hide one another, sorted, each instant once.
std::vector<std::int64_t> mark_times(const RunResult& run) {
  std::vector<std::int64_t> t;
  append_mark_times(run, t);
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

// Stretches the gaps between marks that a linear axis would draw closer
// than kMinGapPx, taking the room from the other gaps. At most half of the
// width goes to stretched gaps; with too many of them the axis stays linear.
void stretch_dense_gaps(Scale& s, const std::vector<std::int64_t>& marks) {
  std::vector<std::int64_t> points{s.start};
  for (std::int64_t t : marks)
    if (t > s.start && t < s.end) points.push_back(t);
  points.push_back(s.end);
  const std::int64_t width = s.right - s.left;
  std::vector<bool> dense(points.size() - 1, false);
  std::int64_t dense_count = 0, dense_time = 0;
  for (bool changed = true; changed;) {
    changed = false;
    const std::int64_t room = width - dense_count * Scale::kMinGapPx, time = (s.end - s.start) - dense_time;
    if (room <= width / 2 || time <= 0) return;  // too crowded to help: stay linear
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
      const std::int64_t gap = points[i + 1] - points[i];
      if (dense[i] || gap <= 0 || gap / 1000 * room / std::max<std::int64_t>(time / 1000, 1) >= Scale::kMinGapPx) continue;
      dense[i] = true;
      ++dense_count;
      dense_time += gap;
      changed = true;
    }
  }
  if (dense_count == 0) return;
  const std::int64_t room = width - dense_count * Scale::kMinGapPx, time = (s.end - s.start) - dense_time;
  std::int64_t x = s.left, linear_time = 0;
  s.knots.emplace_back(points[0], s.left);
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const std::int64_t gap = points[i + 1] - points[i];
    if (dense[i]) {
      x += Scale::kMinGapPx;
      s.stretched.emplace_back(points[i], points[i + 1]);
    } else {
      linear_time += gap;
    }
    // Linear gaps from the running total, so rounding never accumulates.
    const std::int64_t at = s.left + static_cast<std::int64_t>(s.stretched.size()) * Scale::kMinGapPx +
                            linear_time / 1000 * room / std::max<std::int64_t>(time / 1000, 1);
    x = i + 2 == points.size() ? s.right : std::max(x, at);
    s.knots.emplace_back(points[i + 1], static_cast<int>(x));
  }
}

// The interesting span: from the first event to a little after the last one,
// from 0 when the first event is early anyway; snapped to ticks.
Scale make_scale(const RunResult& run, const TimelineOptions& o, int left, int right) {
  const std::int64_t run_end = run_end_ns(run);
  const auto times = event_times(run);
  const auto [first, last] = std::minmax_element(times.begin(), times.end());
  std::int64_t lo = 0, hi = run_end;
  if (!o.full_span && !times.empty()) {
    lo = std::max<std::int64_t>(0, *first);
    hi = std::max(*last, lo + 10 * kMs);
    hi += std::max<std::int64_t>((hi - lo) / 20, kMs);
    lo = lo * 10 < hi * 3 ? 0 : std::max<std::int64_t>(0, lo - (hi - lo) / 20);
  }
  if (hi <= lo) hi = lo + kSec;
  Scale s;
  s.left = left;
  s.right = right;
  s.tick = tick_step(hi - lo, std::max(2, (right - left) / 80));
  s.start = lo / s.tick * s.tick;
  s.end = (hi + s.tick - 1) / s.tick * s.tick;
  // Never past the run's end, unless something was recorded after it.
  if (run_end > s.start && s.end > run_end && (times.empty() || *last <= run_end)) s.end = run_end;
  stretch_dense_gaps(s, mark_times(run));
  return s;
}

// -------------------------------------------------------------- labels ----

// One row of text in a lane: labels are placed only where nothing else is.
class LabelRow {
 public:
  LabelRow(int lo, int hi) : lo_(lo), hi_(hi) {}
  bool fits(int x0, int x1) const {
    if (x0 < lo_ || x1 > hi_) return false;
    return std::none_of(taken_.begin(), taken_.end(),
                        [&](const auto& r) { return x0 < r.second + 4 && r.first < x1 + 4; });
  }
  void take(int x0, int x1) { taken_.emplace_back(x0, x1); }
  bool claim(int x0, int x1) {
    if (!fits(x0, x1)) return false;
    take(x0, x1);
    return true;
  }
  // A label centred on x, nudged inside the row's bounds: its centre, if placed.
  std::optional<int> claim_centred(int x, int width) {
    int x0 = x - width / 2;
    x0 = std::max(lo_, std::min(x0, hi_ - width));
    if (!claim(x0, x0 + width)) return std::nullopt;
    return x0 + width / 2;
  }

 private:
  int lo_, hi_;
  std::vector<std::pair<int, int>> taken_;
};

// --------------------------------------------------------------- lanes ----

enum class LaneKind { Client, Node, Storage, Other };

struct Lane {
  LaneKind kind;
  std::size_t index;  // client index or node HostId
  std::string name;
  int top = 0;
  int height = 0;
};

int lane_height(LaneKind k) {
  switch (k) {
    case LaneKind::Client: return 60;
    case LaneKind::Node: return 46;
    case LaneKind::Storage: return 50;
    case LaneKind::Other: return 40;
  }
  return 40;
}

const char* lane_kind_name(LaneKind k) {
  switch (k) {
    case LaneKind::Client: return "client";
    case LaneKind::Node: return "redis";
    case LaneKind::Storage: return "storage";
    case LaneKind::Other: return "other";
  }
  return "";
}

// Text rows of one lane, shared by everything drawn in it.
struct Rows {
  LabelRow top, bar, bottom;
  Rows(int lo, int hi) : top(lo, hi), bar(lo, hi), bottom(lo, hi) {}
};

// A lock entry's lifetime on one node, rebuilt from its events.
struct EntrySpan {
  const EntryEvent* created;
  std::int64_t end;
  const EntryEvent* ended = nullptr;  // nullptr: still there at the end of the run
  std::vector<const EntryEvent*> modified;
};

// A delete or change by a client other than the entry's creator (an expiry is
// never foreign, even when another client's command triggered it lazily).
bool foreign(const EntrySpan& span, const EntryEvent& e) {
  if (e.kind != EntryKind::Deleted && e.kind != EntryKind::Modified) return false;
  return e.client && span.created->client && *e.client != *span.created->client && !e.replicated;
}

// ------------------------------------------------------------ renderer ----

class Renderer {
 public:
  Renderer(const RunResult& run, const TimelineOptions& o)
      : run_(run),
        h_(run.history),
        o_(o),
        width_(std::max(o.width_px, 480)),
        id_prefix_(o.id_prefix.empty() ? default_id_prefix(run) : o.id_prefix) {}

  std::string render() {
    layout();
    draw_defs();
    draw_header();
    draw_axis();
    for (const Lane& lane : lanes_) draw_lane_frame(lane);
    draw_grid();
    svg_.open("g", attr("clip-path", "url(#" + id("clip") + ")"));
    draw_overlap_bands();
    for (const Lane& lane : lanes_) draw_lane(lane);
    svg_.close("g");
    draw_violation_marks();
    int y = lanes_bottom_ + 10;
    y = draw_violation_legend(y);
    y = draw_colour_legend(y);
    return document(y + 12);
  }

 private:
  static constexpr int kLabelColumn = 118;
  static constexpr int kBadgeRow = 22;
  static constexpr int kBadgeGap = 21;
  static constexpr std::size_t kMaxBadgeRows = 4;

  struct Badge {
    int row;
    int x;  // the badge's centre; the violation's own x may differ
  };

  std::string id(std::string_view what) const { return id_prefix_ + "-" + std::string(what); }

  // FNV-1a of what names the run: stable across machines, unlike std::hash.
  static std::string default_id_prefix(const RunResult& run) {
    std::uint64_t h = 14695981039346656037ull;
    for (const std::string& part : {run.scenario, run.lock, num_u(run.seed)})
      for (char c : part + '\0') h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return "tl-" + hex(h).substr(0, 8);
  }
  std::size_t shown_violations() const { return std::min(run_.violations.size(), o_.max_violations); }

  // ---- layout ----

  void layout() {
    scale_ = make_scale(run_, o_, kLabelColumn + 8, width_ - 16);
    assign_badges();
    int y = 86 + badge_rows_ * kBadgeRow;
    lanes_top_ = y;
    for (std::size_t c = 0; c < h_.clients.size(); ++c) add_lane(LaneKind::Client, c, h_.clients[c].name, y);
    for (std::size_t n = 0; n < h_.nodes.size(); ++n)
      if (node_used(n)) add_lane(LaneKind::Node, n, h_.nodes[n], y);
    add_lane(LaneKind::Storage, 0, scenarios::kStorageHost, y);  // named as faults name it
    if (std::any_of(h_.faults.begin(), h_.faults.end(), [&](const FaultRecord& f) { return !lane_of(f.target); }))
      add_lane(LaneKind::Other, 0, "network", y);
    lanes_bottom_ = y;
  }

  // A node gets a lane if it is one (a name) and something happened on it.
  bool node_used(std::size_t n) const {
    const std::string& name = h_.nodes[n];
    if (name.empty()) return false;
    return std::any_of(h_.entries.begin(), h_.entries.end(), [&](const EntryEvent& e) { return e.node == n; }) ||
           std::any_of(h_.faults.begin(), h_.faults.end(), [&](const FaultRecord& f) { return f.target == name; });
  }

  void add_lane(LaneKind kind, std::size_t index, const std::string& name, int& y) {
    lanes_.push_back({kind, index, name, y, lane_height(kind)});
    y += lane_height(kind);
  }

  // Badges closer than a badge's width go to the next row; past kMaxBadgeRows
  // rows a badge moves right of the row's last one and points at its time.
  void assign_badges() {
    std::vector<int> last_x;
    for (std::size_t i = 0; i < shown_violations(); ++i) {
      const int x = scale_.x(run_.violations[i].at);
      std::size_t row = 0;
      while (row < last_x.size() && x - last_x[row] < kBadgeGap) ++row;
      int bx = x;
      if (row == last_x.size() && row < kMaxBadgeRows) {
        last_x.push_back(x);
      } else if (row == last_x.size()) {
        row = static_cast<std::size_t>(std::min_element(last_x.begin(), last_x.end()) - last_x.begin());
        bx = last_x[row] + kBadgeGap;
      }
      last_x[row] = bx;
      badges_.push_back({static_cast<int>(row), bx});
    }
    badge_rows_ = static_cast<int>(last_x.size());
  }

  const Lane* lane_of(const std::string& host) const {
    for (const Lane& l : lanes_)
      if (l.kind != LaneKind::Other && l.name == host) return &l;
    return nullptr;
  }

  std::optional<std::size_t> client_named(const std::string& name) const {
    for (std::size_t c = 0; c < h_.clients.size(); ++c)
      if (h_.clients[c].name == name) return c;
    return std::nullopt;
  }

  std::string client_name(std::optional<std::size_t> c) const {
    return c && *c < h_.clients.size() ? h_.clients[*c].name : "server";
  }

  Rows rows() const { return Rows(scale_.left, scale_.right); }

  // ---- document ----

  std::string document(int height) {
    const std::string title = "locksim timeline: " + run_.scenario + " / " + run_.lock + " / seed " + num_u(run_.seed);
    std::string doc = "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"" + attr("width", num(width_)) +
                      attr("height", num(height)) + attr("viewBox", "0 0 " + num(width_) + " " + num(height)) +
                      attr("role", "img") + attr("aria-label", title) +
                      attr("font-family", "DejaVu Sans, Verdana, Arial, sans-serif") + ">\n";
    doc += "<title>" + xml_text(title) + "</title>\n";
    doc += "<rect x=\"0\" y=\"0\"" + attr("width", num(width_)) + attr("height", num(height)) + fill("#ffffff") +
           "/>\n";
    return doc + svg_.out() + "</svg>\n";
  }

  static std::string num_u(std::uint64_t v) { return std::to_string(v); }

  void draw_defs() {
    svg_.open("defs");
    for (std::size_t c = 0; c < std::clamp<std::size_t>(h_.clients.size(), 1, kPaletteSize); ++c) {
      svg_.open("pattern", attr("id", id("hatch-" + num(static_cast<std::int64_t>(c)))) +
                               attr("patternUnits", "userSpaceOnUse") + attr("width", "6") + attr("height", "6") +
                               attr("patternTransform", "rotate(45)"));
      svg_.rect(0, 0, 6, 6, fill("#ffffff"));
      svg_.rect(0, 0, 3, 6, fill(client_colour(c)) + attr("fill-opacity", "0.75"));
      svg_.close("pattern");
    }
    svg_.open("clipPath", attr("id", id("clip")));
    svg_.rect(scale_.left - 9, lanes_top_, scale_.right - scale_.left + 18, lanes_bottom_ - lanes_top_, "");
    svg_.close("clipPath");
    svg_.close("defs");
  }

  std::string hatch_url(std::size_t client) const {
    return "url(#" + id("hatch-" + num(static_cast<std::int64_t>(client % kPaletteSize))) + ")";
  }

  // ---- header and axis ----

  bool passed() const { return run_.expected ? run_.matched : run_.violations.empty(); }

  // "as expected — 6 violations: ..." / "NOT as expected — ...": matching the
  // scenario's expectation is said as such, and the count comes with it.
  std::string verdict() const {
    std::string v = passed() ? "as expected" : "NOT as expected";
    if (run_.violations.empty()) {
      v += " \xE2\x80\x94 no violations";
    } else {
      v += " \xE2\x80\x94 " + num(static_cast<std::int64_t>(run_.violations.size())) +
           (run_.violations.size() == 1 ? " violation: " : " violations: ");
      std::string kinds;
      for (const std::string& k : run_.violation_kinds()) kinds += (kinds.empty() ? "" : ", ") + k;
      v += kinds;
    }
    if (run_.expected && !passed()) {
      std::string e;
      for (const std::string& k : *run_.expected) e += (e.empty() ? "" : ", ") + k;
      v += " (expected: " + (e.empty() ? std::string("none") : e) + ")";
    }
    return v;
  }

  // Green only for good news: no violation and as expected.
  const char* verdict_colour() const { return passed() && run_.violations.empty() ? kAccepted : kRed; }

  void draw_header() {
    const std::string title = run_.scenario + " \xC2\xB7 lock " + run_.lock + " \xC2\xB7 seed " + num_u(run_.seed);
    svg_.text(12, 24, truncated(title, static_cast<std::size_t>(width_ / 10)), font(17, kInk, kBold));
    svg_.text(12, 44, truncated(verdict(), static_cast<std::size_t>(width_ / 8)),
              font(13, verdict_colour(), kBold));
    const std::string run_length = format_duration(Duration(run_end_ns(run_)));
    std::string sub = "true time " + tick_label(scale_.start, scale_.tick) + " \xE2\x80\x93 " +
                      tick_label(scale_.end, scale_.tick) + " of a " + run_length + " run";
    if (run_.events) sub += " \xC2\xB7 " + num_u(run_.events) + " events";
    if (run_.digest) sub += " \xC2\xB7 digest " + hex(run_.digest);
    if (!run_.repro.empty()) sub += " \xC2\xB7 " + run_.repro;
    svg_.text(12, 62, truncated(sub, static_cast<std::size_t>(width_ / 7)), font(11, kMuted));
  }

  static std::string hex(std::uint64_t v) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = kDigits[v & 15];
    return s;
  }

  int axis_y() const { return 82; }

  void draw_axis() {
    const int y = axis_y();
    svg_.line(scale_.left, y, scale_.right, y, attr("stroke", kMuted));
    svg_.text(12, y - 4, "true time \xE2\x86\x92", font(11, kMuted));
    LabelRow labels(0, width_);  // a stretched axis squeezes ticks elsewhere: skip labels that would touch
    for (std::int64_t t = scale_.start; t <= scale_.end; t += scale_.tick) {
      const int x = scale_.x(t);
      svg_.line(x, y - 4, x, y, attr("stroke", kMuted));
      const std::string label = tick_label(t, scale_.tick);
      const int half = text_width(label, 11) / 2;
      const int cx = std::min(x, width_ - 4 - half);
      if (labels.claim(cx - half, cx + half)) svg_.text(cx, y - 7, label, font(11, kMuted, kMiddle));
    }
    draw_stretched_gaps(y);
  }

  // The broken axis: each stretched gap as an amber bar on the axis, with
  // its true length in the tooltip.
  void draw_stretched_gaps(int y) {
    for (const auto& [t0, t1] : scale_.stretched) {
      const int x0 = scale_.x(t0), x1 = scale_.x(t1);
      svg_.open("g", attr("data-stretched", num((t1 - t0) / 1000) + "us"));
      svg_.rect(x0, y - 2, std::max(x1 - x0, 2), 5, fill(kStretch),
                "axis stretched: " + format_duration(Duration(t1 - t0)) + " from " + num(t0 / kMs) +
                    "ms drawn " + num(x1 - x0) + " px wide, so the events at both ends stay apart");
      svg_.close("g");
    }
  }

  void draw_grid() {
    for (std::int64_t t = scale_.start; t <= scale_.end; t += scale_.tick) {
      const int x = scale_.x(t);
      svg_.line(x, lanes_top_, x, lanes_bottom_, attr("stroke", "#dddddd"));
    }
  }

  void draw_lane_frame(const Lane& lane) {
    const bool odd = (&lane - lanes_.data()) % 2 == 1;
    svg_.rect(8, lane.top, width_ - 16, lane.height, fill(odd ? "#f4f4f4" : "#fbfbfb"));
    svg_.line(8, lane.top + lane.height, width_ - 8, lane.top + lane.height, attr("stroke", "#e4e4e4"));
    const char* colour = lane.kind == LaneKind::Client ? client_colour(lane.index) : kInk;
    const int mid = lane.top + lane.height / 2;
    svg_.open("g", attr("data-lane", lane_kind_name(lane.kind)) + attr("data-name", lane.name));
    const int px = code_points(lane.name) <= 12 ? 13 : code_points(lane.name) <= 15 ? 11 : 10;
    svg_.text(14, mid, truncated(lane.name, 17), font(px, colour, kBold));
    const std::string subtitle = lane.kind == LaneKind::Other ? "other faults" : lane_kind_name(lane.kind);
    svg_.text(14, mid + 14, subtitle, font(10, kMuted));
    svg_.close("g");
  }

  void draw_lane(const Lane& lane) {
    switch (lane.kind) {
      case LaneKind::Client: draw_client_lane(lane); break;
      case LaneKind::Node: draw_node_lane(lane); break;
      case LaneKind::Storage: draw_storage_lane(lane); break;
      case LaneKind::Other: draw_other_lane(lane); break;
    }
  }

  // ---- client lanes ----
  // top row y+12 | belief bar y+16..y+32 | attempts y+36..y+39 | bottom row y+53

  void draw_client_lane(const Lane& lane) {
    Rows r = rows();
    const std::size_t c = lane.index;
    for (const auto& a : h_.attempts)
      if (a.client == c) draw_attempt(lane, a);
    for (const FaultRecord& f : h_.faults)
      if (f.target == lane.name && host_effect(f) == HostEffect::Pauses) draw_pause(lane, f, r, "GC pause ");
    for (const Belief& b : h_.beliefs)
      if (b.client == c) r.bar.take(scale_.x(b.start), belief_end_x(b));
    for (const StorageWrite& w : h_.writes) {
      if (w.client != c) continue;
      r.bar.take(scale_.x(w.at) - 7, scale_.x(w.at) + 7);  // the marker
      if (const Belief* b = ended_before(w)) r.bar.take(scale_.x(*b->end), scale_.x(w.at));
    }
    for (const Belief& b : h_.beliefs)
      if (b.client == c) draw_belief(lane, b, r);
    for (const Belief& b : h_.beliefs)
      if (b.client == c) draw_belief_deadline(lane, b);
    draw_configured_drift(lane, r);
    for (const FaultRecord& f : h_.faults)
      if (f.target == lane.name && host_effect(f) != HostEffect::Pauses && host_effect(f) != HostEffect::TakesDown)
        draw_fault_marker(lane, f, r);
    for (std::int64_t t : crash_times(c)) draw_crash(lane, t, r);
    for (const StorageWrite& w : h_.writes)
      if (w.client == c) draw_lane_write(lane, w, r);
    for (const Belief& b : h_.beliefs)  // last: a write's token matters more
      if (b.client == c) draw_belief_end(lane, b, belief_end_x(b), r);
  }

  // How a fault is drawn is in the fault kind table (scenarios/fault_kinds.hpp).
  static HostEffect host_effect(const FaultRecord& f) { return scenarios::fault_kind_info(f.kind).host; }
  static ClockEffect clock_effect(const FaultRecord& f) { return scenarios::fault_kind_info(f.kind).clock; }

  // Crashes from the client record and from crash faults aimed at it, once each.
  std::vector<std::int64_t> crash_times(std::size_t c) const {
    std::vector<std::int64_t> t;
    for (TrueInstant x : h_.clients[c].crashes) t.push_back(ns(x));
    for (const FaultRecord& f : h_.faults)
      if (f.target == h_.clients[c].name && host_effect(f) == HostEffect::TakesDown) t.push_back(ns(f.at));
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    return t;
  }

  int belief_end_x(const Belief& b) const {
    return std::max(scale_.x(b.end ? ns(*b.end) : run_end_ns(run_)), scale_.x(b.start) + 2);
  }

  void draw_attempt(const Lane& lane, const scenarios::Attempt& a) {
    const int x0 = scale_.x(a.start);
    const int x1 = std::max(x0 + 2, scale_.x(a.end ? ns(*a.end) : run_end_ns(run_)));
    const std::string tip = h_.clients[a.client].name + " tried to acquire from " + ms_text(a.start) +
                            (a.end ? " to " + ms_text(*a.end) : std::string(" until the end")) +
                            (a.acquired ? " (acquired)" : " (did not acquire)");
    svg_.rect(x0, lane.top + 36, x1 - x0, 3, fill(client_colour(a.client)) + attr("fill-opacity", "0.55"), tip);
  }

  std::string belief_label(const Belief& b) const {
    std::string s = "grant " + num(static_cast<std::int64_t>(b.grant + 1));
    if (b.fencing_token) s += " \xC2\xB7 token " + num(*b.fencing_token);
    return s;
  }

  std::string belief_tip(const Belief& b) const {
    std::string s = h_.clients[b.client].name + " believed it held the lock (" + belief_label(b) + ") from " +
                    ms_text(b.start) + " to " + (b.end ? ms_text(*b.end) : std::string("the end of the run"));
    if (!b.end_reason.empty()) s += " (" + b.end_reason + ")";
    if (b.deadline) s += "; validity deadline " + ms_text(*b.deadline);
    return s;
  }

  void draw_belief(const Lane& lane, const Belief& b, Rows& r) {
    const int x0 = scale_.x(b.start), x1 = belief_end_x(b);
    const int xd = b.deadline ? std::clamp(scale_.x(*b.deadline), x0, x1) : x1;
    const std::string tip = belief_tip(b);
    svg_.open("g", attr("data-belief", num(static_cast<std::int64_t>(b.grant + 1))));
    if (xd > x0) svg_.rect(x0, lane.top + 16, xd - x0, 16, fill(client_colour(b.client)), tip);
    if (x1 > xd) {
      svg_.rect(xd, lane.top + 16, x1 - xd, 16,
                attr("fill", hatch_url(b.client)) + attr("stroke", client_colour(b.client)), tip + " (past deadline)");
    }
    svg_.close("g");
    const std::string label = belief_label(b);
    const int lx = std::max(x0, scale_.left);
    if (r.top.claim(lx, lx + text_width(label, 11))) svg_.text(lx, lane.top + 12, label, font(11, kInk, kBold));
  }

  // A lease deadline: a dark post with a flag, over the bar it ends.
  void deadline_mark(int x, int y, int h, const std::string& tip) {
    const std::string d = "M" + num(x) + " " + num(y) + "L" + num(x) + " " + num(y + h) + "M" + num(x) + " " +
                          num(y) + "L" + num(x + 6) + " " + num(y + 3) + "L" + num(x) + " " + num(y + 6) + "Z";
    svg_.path(d, attr("stroke", kDeadline) + attr("stroke-width", "2") + fill(kDeadline), tip);
  }

  // The holder's validity deadline (the lock's own estimate, in true time).
  void draw_belief_deadline(const Lane& lane, const Belief& b) {
    if (!b.deadline || ns(*b.deadline) < scale_.start || ns(*b.deadline) > scale_.end) return;
    svg_.open("g", attr("data-deadline", "holder"));
    deadline_mark(scale_.x(*b.deadline), lane.top + 13, 23,
                  h_.clients[b.client].name + "'s validity deadline for " + belief_label(b) + ": " + ms_text(*b.deadline));
    svg_.close("g");
  }

  void draw_belief_end(const Lane& lane, const Belief& b, int x1, Rows& r) {
    std::string reason = b.end ? b.end_reason : "held at end";
    if (reason.empty() || reason == "crash") return;  // the ✕ says it
    if (!b.end) x1 = std::min(x1, scale_.right - text_width(reason, 10) - 4);
    const int w = text_width(reason, 10);
    if (r.bar.claim(x1 + 5, x1 + 5 + w)) {
      svg_.text(x1 + 5, lane.top + 28, reason, font(10, kMuted, kItalic));
    } else if (r.bottom.claim(x1 - w, x1)) {
      svg_.text(x1 - w, lane.top + 53, reason, font(10, kMuted, kItalic));
    }
  }

  void draw_pause(const Lane& lane, const FaultRecord& f, Rows& r, const std::string& prefix) {
    const int x0 = scale_.x(f.at);
    const int x1 = std::max(x0 + 2, scale_.x(f.until ? ns(*f.until) : ns(f.at)));
    const std::string d = f.until ? format_duration(*f.until - f.at) : without_target(f);
    svg_.rect(x0, lane.top + 1, x1 - x0, lane.height - 2,
              fill("#7f7f7f") + attr("fill-opacity", "0.30") + attr("data-fault", "pause"),
              f.description + " at " + ms_text(f.at));
    const std::string label = prefix + d;
    const int w = text_width(label, 11);
    if (r.bottom.claim(x0 + 3, x0 + 3 + w)) {
      svg_.text(x0 + 3, lane.top + lane.height - 6, label, font(11, "#444444", kBold));
    } else if (r.top.claim(x0 + 3, x0 + 3 + w)) {
      svg_.text(x0 + 3, lane.top + 12, label, font(11, "#444444", kBold));
    }
  }

  void draw_crash(const Lane& lane, std::int64_t t, Rows& r) {
    const int x = scale_.x(t), mid = lane.top + lane.height / 2 - 6;
    svg_.open("g", attr("data-fault", "crash"));
    svg_.cross(x, mid, 7, kInk, "crash at " + num(t / kMs) + "ms");
    svg_.close("g");
    const int w = text_width("crash", 10);
    if (auto cx = r.bottom.claim_centred(x, w))
      svg_.text(*cx, lane.top + lane.height - 6, "crash", font(10, kInk, kMiddle));
  }

  std::string write_label(const StorageWrite& w) const {
    return w.fencing_token ? "token " + num(*w.fencing_token) : "write " + num(w.index);
  }

  std::string write_tip(const StorageWrite& w) const {
    std::string s = "storage " + std::string(w.accepted ? "accepted " : "rejected ") + client_name(w.client) +
                    "'s write " + num(w.index) + " (grant " + num(static_cast<std::int64_t>(w.grant + 1));
    if (w.fencing_token) s += ", fencing token " + num(*w.fencing_token);
    return s + ") at " + ms_text(w.at);
  }

  // A write the checker found stale (a stale-write violation at the write,
  // naming its client first) that the storage accepted anyway.
  bool stale_accepted(const StorageWrite& w) const {
    if (!w.accepted) return false;
    return std::any_of(run_.violations.begin(), run_.violations.end(), [&](const Violation& v) {
      return v.kind == violation_kind_name(ViolationKind::StaleWrite) && v.at == w.at && !v.clients.empty() && v.clients.front() == client_name(w.client);
    });
  }

  // Accepted: a green disc; rejected: a red square (shape too, not only
  // colour); a stale write accepted: the green disc in a thick red ring.
  void write_marker(int x, int y, const StorageWrite& w) {
    const bool stale = stale_accepted(w);
    svg_.open("g", attr("data-write", w.accepted ? "accepted" : "rejected") + (stale ? attr("data-stale", "1") : ""));
    const std::string style = attr("stroke", "#ffffff") + attr("stroke-width", "1.5");
    if (stale) svg_.circle(x, y, 6, fill(kAccepted) + attr("stroke", kRed) + attr("stroke-width", "3"),
                           write_tip(w) + ": STALE, accepted although a later holder had written");
    else if (w.accepted) svg_.circle(x, y, 6, fill(kAccepted) + style, write_tip(w));
    else svg_.rect(x - 6, y - 6, 12, 12, fill(kRed) + style, write_tip(w));
    svg_.close("g");
  }

  void draw_lane_write(const Lane& lane, const StorageWrite& w, Rows& r) {
    const int x = scale_.x(w.at);
    draw_late_arrival(lane, w);
    write_marker(x, lane.top + 24, w);
    const std::string label = write_label(w) + (stale_accepted(w) ? " stale" : "");
    const char* colour = w.accepted && !stale_accepted(w) ? "#1e7a1e" : kRed;
    if (auto cx = r.bottom.claim_centred(x, text_width(label, 10)))
      svg_.text(*cx, lane.top + 53, label, font(10, colour, kMiddle + kBold));
  }

  // A write applied after its grant's belief ended (a delayed packet, a
  // timed-out request that still arrived): a dashed line from the belief's
  // end to where the storage applied it.
  void draw_late_arrival(const Lane& lane, const StorageWrite& w) {
    const Belief* b = ended_before(w);
    if (!b) return;
    svg_.line(scale_.x(*b->end), lane.top + 24, scale_.x(w.at), lane.top + 24,
              attr("stroke", client_colour(w.client)) + attr("stroke-width", "2") + attr("stroke-dasharray", "5 4") +
                  attr("data-late-write", num(w.index)),
              "write " + num(w.index) + " reached the storage " + format_duration(w.at - *b->end) + " after " +
                  h_.clients[w.client].name + " stopped believing it held the lock");
  }

  // The write's belief, if it had ended before the storage applied the write.
  const Belief* ended_before(const StorageWrite& w) const {
    for (const Belief& b : h_.beliefs)
      if (b.client == w.client && b.grant == w.grant && b.end && *b.end < w.at) return &b;
    return nullptr;
  }

  // ---- node lanes ----
  // top row y+12 | entry bar y+17..y+31 | bottom row y+43

  std::vector<EntrySpan> entry_spans(sim::HostId node) const {
    std::vector<EntrySpan> spans;
    bool open = false;
    for (const EntryEvent& e : h_.entries) {
      if (e.node != node) continue;
      if (open && (e.kind == EntryKind::Deleted || e.kind == EntryKind::Expired || e.kind == EntryKind::Created)) {
        spans.back().end = ns(e.at);
        spans.back().ended = &e;
        open = false;
      }
      if (e.kind == EntryKind::Created) {
        spans.push_back({&e, run_end_ns(run_), nullptr, {}});
        open = true;
      } else if (e.kind == EntryKind::Modified && open) {
        spans.back().modified.push_back(&e);
      }
    }
    return spans;
  }

  void draw_node_lane(const Lane& lane) {
    Rows r = rows();
    for (const FaultRecord& f : h_.faults)
      if (f.target == lane.name && host_effect(f) == HostEffect::Pauses) draw_pause(lane, f, r, "paused ");
    draw_down_periods(lane);
    const auto spans = entry_spans(static_cast<sim::HostId>(lane.index));
    for (const EntrySpan& s : spans) r.bar.take(scale_.x(s.created->at), scale_.x(s.end));
    for (const EntrySpan& s : spans) draw_entry(lane, s, r);
    for (const FaultRecord& f : h_.faults)
      if (f.target == lane.name && host_effect(f) != HostEffect::Pauses) draw_fault_marker(lane, f, r);
  }

  // A crashed node is down until its restart: shade it.
  void draw_down_periods(const Lane& lane) {
    for (std::size_t i = 0; i < h_.faults.size(); ++i) {
      const FaultRecord& f = h_.faults[i];
      if (f.target != lane.name || host_effect(f) != HostEffect::TakesDown) continue;
      std::int64_t up = run_end_ns(run_);
      for (std::size_t j = i + 1; j < h_.faults.size(); ++j)
        if (h_.faults[j].target == lane.name && host_effect(h_.faults[j]) == HostEffect::BringsUp) {
          up = ns(h_.faults[j].at);
          break;
        }
      const int x0 = scale_.x(f.at), x1 = std::max(x0 + 1, scale_.x(up));
      svg_.rect(x0, lane.top + 1, x1 - x0, lane.height - 2, fill("#000000") + attr("fill-opacity", "0.10"),
                lane.name + " down from " + ms_text(f.at) + " (" + std::string(scenarios::fault_kind_name(f.kind)) + ")");
    }
  }

  std::string entry_tip(const EntrySpan& s) const {
    std::string tip = "lock entry " + s.created->key + " created by " + client_name(s.created->client) +
                      (s.created->replicated ? " (replicated)" : "") + " at " + ms_text(s.created->at) + ": " +
                      s.created->command;
    if (s.ended) {
      const char* how = s.ended->kind == EntryKind::Expired   ? " expired at "
                        : s.ended->kind == EntryKind::Created ? " overwritten at "
                                                              : " deleted at ";
      tip += std::string(";") + how + ms_text(s.ended->at);
      const std::string who = client_name(s.ended->client);
      if (s.ended->kind != EntryKind::Expired) tip += " by " + who + ": " + s.ended->command;
      else if (s.ended->client) tip += " (lazily, on " + who + "'s " + first_word(s.ended->command) + ")";
    } else {
      tip += "; still there at the end";
    }
    return tip;
  }

  void draw_entry(const Lane& lane, const EntrySpan& s, Rows& r) {
    const int x0 = scale_.x(s.created->at), x1 = std::max(x0 + 2, scale_.x(s.end));
    const std::optional<std::size_t> owner = s.created->client;
    const char* colour = owner ? client_colour(*owner) : "#999999";
    svg_.open("g", attr("data-entry", client_name(owner)));
    svg_.rect(x0, lane.top + 17, x1 - x0, 14,
              fill(colour) + attr("fill-opacity", "0.40") + attr("stroke", colour) +
                  (s.created->replicated ? attr("stroke-dasharray", "3 2") : ""),
              entry_tip(s));
    svg_.close("g");
    std::string label = client_name(owner) + (s.created->replicated ? " (replicated)" : "");
    if (text_width(label, 11) + 6 > x1 - x0) label = client_name(owner);
    if (text_width(label, 11) + 6 <= x1 - x0) svg_.text(x0 + 4, lane.top + 28, label, font(11, kInk, kBold));
    for (const EntryEvent* m : s.modified) draw_entry_change(lane, s, *m, r);
    draw_entry_deadline(lane, s);
    if (s.ended && s.ended->kind != EntryKind::Created) draw_entry_end(lane, s, x1, r);
  }

  // The key's deadline on the node after its last change (an extension
  // moves it), when the entry was still there to reach it or was removed
  // after it; an expiry ends the bar at it anyway.
  void draw_entry_deadline(const Lane& lane, const EntrySpan& s) {
    const EntryEvent* last = s.modified.empty() ? s.created : s.modified.back();
    if (!last->deadline) return;
    const std::int64_t t = ns(*last->deadline);
    if (t < scale_.start || t > scale_.end) return;
    svg_.open("g", attr("data-deadline", "key"));
    deadline_mark(scale_.x(t), lane.top + 13, 21,
                  "the key's deadline on " + lane.name + " (TTL set by " + client_name(last->client) + " at " +
                      ms_text(last->at) + "): " + ms_text(*last->deadline));
    svg_.close("g");
  }

  // An extension or other change: a tick, red when not the creator's.
  void draw_entry_change(const Lane& lane, const EntrySpan& s, const EntryEvent& m, Rows& r) {
    const int x = scale_.x(m.at);
    const bool bad = foreign(s, m);
    svg_.line(x, lane.top + 15, x, lane.top + 33,
              attr("stroke", bad ? kRed : kInk) + attr("stroke-width", bad ? "3" : "1"),
              client_name(m.client) + " at " + ms_text(m.at) + ": " + m.command);
    if (!bad) return;
    const std::string label = first_word(m.command) + " by " + client_name(m.client);
    if (r.top.claim(x + 3, x + 3 + text_width(label, 11)))
      svg_.text(x + 3, lane.top + 12, label, font(11, kRed, kBold));
  }

  void draw_entry_end(const Lane& lane, const EntrySpan& s, int x1, Rows& r) {
    const EntryEvent& e = *s.ended;
    if (foreign(s, e)) {
      svg_.open("g", attr("data-foreign-delete", client_name(e.client)));
      svg_.line(x1, lane.top + 4, x1, lane.top + lane.height - 4, attr("stroke", kRed) + attr("stroke-width", "3"),
                client_name(e.client) + "'s " + e.command + " removed " + client_name(s.created->client) +
                    "'s lock at " + ms_text(e.at));
      svg_.close("g");
      const std::string label = first_word(e.command) + " by " + client_name(e.client);
      if (r.top.claim(x1 + 3, x1 + 3 + text_width(label, 11)))
        svg_.text(x1 + 3, lane.top + 12, label, font(11, kRed, kBold));
      return;
    }
    const bool expired = e.kind == EntryKind::Expired;
    svg_.line(x1, lane.top + 15, x1, lane.top + 33, attr("stroke", kInk) + attr("stroke-width", "2") +
                                                         (expired ? attr("stroke-dasharray", "2 2") : ""));
    const std::string label = expired ? "expired" : "deleted";
    if (r.bar.claim(x1 + 5, x1 + 5 + text_width(label, 10)))
      svg_.text(x1 + 5, lane.top + 28, label, font(10, kMuted, kItalic));
    else if (r.bottom.claim(x1 - text_width(label, 10), x1))
      svg_.text(x1 - text_width(label, 10), lane.top + 43, label, font(10, kMuted, kItalic));
  }

  // ---- faults other than pauses ----

  // A fault's words without its target (the lane names it); a process
  // fault is just its kind.
  std::string fault_label(const FaultRecord& f) const {
    std::string label = without_target(f);
    if (clock_effect(f) == ClockEffect::Step) label = "clock " + label.substr(label.find(' ') + 1);
    if (scenarios::fault_kind_info(f.kind).named_by_kind_alone) label = scenarios::fault_kind_name(f.kind);
    return label;
  }

  void draw_fault_marker(const Lane& lane, const FaultRecord& f, Rows& r) {
    if (clock_effect(f) != ClockEffect::None) return draw_clock_fault(lane, f, r);
    const int x = scale_.x(f.at);
    const bool down = host_effect(f) == HostEffect::TakesDown;
    svg_.open("g", attr("data-fault", scenarios::fault_kind_name(f.kind)));
    if (down) {  // above the entry bar, whose label it would hide
      svg_.cross(x, lane.top + 8, 5, kFault, f.description + " at " + ms_text(f.at));
    } else {
      svg_.line(x, lane.top + 2, x, lane.top + lane.height - 2,
                attr("stroke", kFault) + attr("stroke-width", "2") + attr("stroke-dasharray", "4 3"),
                f.description + " at " + ms_text(f.at));
    }
    svg_.close("g");
    place_fault_label(lane, down ? x + 6 : x, fault_label(f), r);
  }

  // The host's clock on its lane: a step drawn as a step, a drift as a
  // wedge widening from its start to the end of the span (the offset grows).
  void draw_clock_fault(const Lane& lane, const FaultRecord& f, Rows& r) {
    const int x = scale_.x(f.at), base = lane.top + lane.height - 6;
    const bool step = clock_effect(f) == ClockEffect::Step;
    svg_.open("g", attr("data-fault", step ? "clock-jump" : "clock-drift") + attr("data-clock", lane.name));
    if (step) {
      const std::string d = "M" + num(x - 8) + " " + num(base) + "L" + num(x) + " " + num(base) + "L" + num(x) + " " +
                            num(base - 14) + "L" + num(x + 8) + " " + num(base - 14);
      svg_.path(d, attr("stroke", kFault) + attr("stroke-width", "3") + fill("none"), f.description + " at " + ms_text(f.at));
    } else {
      drift_wedge(x, base, f.description + " from " + ms_text(f.at));
    }
    svg_.close("g");
    place_fault_label(lane, step ? x + 8 : x, fault_label(f), r);
  }

  void drift_wedge(int x, int base, const std::string& tip) {
    const int x1 = std::max(x + 4, scale_.right);
    const std::string d = "M" + num(x) + " " + num(base) + "L" + num(x1) + " " + num(base) + "L" + num(x1) + " " +
                          num(base - 10) + "Z";
    svg_.path(d, fill(kFault) + attr("fill-opacity", "0.35") + attr("stroke", kFault), tip);
  }

  // A client clock that drifts by configuration ([[client]] clock_drift_ppm)
  // for the whole run: the wedge from the start, labelled with its rate.
  void draw_configured_drift(const Lane& lane, Rows& r) {
    const std::int64_t ppm = h_.clients[lane.index].clock_drift_ppm;
    if (ppm == 0) return;
    const std::string label = "clock drift " + std::string(ppm > 0 ? "+" : "") + num(ppm) + " ppm";
    svg_.open("g", attr("data-fault", "clock-drift") + attr("data-clock", lane.name));
    drift_wedge(scale_.left, lane.top + lane.height - 6,
                lane.name + "'s clock runs " + num(ppm) + " ppm off true time for the whole run (" +
                    (ppm < 0 ? "slow" : "fast") + "): its timeouts and deadlines stretch or shrink by that much");
    svg_.close("g");
    place_fault_label(lane, scale_.left, label, r);
  }

  void place_fault_label(const Lane& lane, int x, const std::string& label, Rows& r) {
    const int w = text_width(label, 10);
    const std::string style = font(10, kFault, kBold);
    if (r.top.claim(x + 3, x + 3 + w)) svg_.text(x + 3, lane.top + 12, label, style);
    else if (r.bottom.claim(x + 3, x + 3 + w)) svg_.text(x + 3, lane.top + lane.height - 4, label, style);
    else if (r.top.claim(x - 3 - w, x - 3)) svg_.text(x - 3 - w, lane.top + 12, label, style);
  }

  // ---- storage and other lanes ----

  void draw_storage_lane(const Lane& lane) {
    Rows r = rows();
    for (const FaultRecord& f : h_.faults)
      if (f.target == lane.name && host_effect(f) == HostEffect::Pauses) draw_pause(lane, f, r, "paused ");
    for (const StorageWrite& w : h_.writes) {
      const int x = scale_.x(w.at);
      write_marker(x, lane.top + 26, w);
      const bool stale = stale_accepted(w);
      const std::string label = client_name(w.client) + " " + write_label(w) + (stale ? " stale" : "");
      const int width = text_width(label, 10);
      const std::string style = font(10, stale ? kRed : client_colour(w.client), kMiddle + kBold);
      if (auto cx = r.top.claim_centred(x, width)) svg_.text(*cx, lane.top + 12, label, style);
      else if (auto bx = r.bottom.claim_centred(x, width)) svg_.text(*bx, lane.top + 46, label, style);
    }
    for (const OrderRecord& o : h_.orders) draw_order(lane, o, r);
    for (const FaultRecord& f : h_.faults)
      if (f.target == lane.name && host_effect(f) != HostEffect::Pauses) draw_fault_marker(lane, f, r);
  }

  // A sale's order on the storage lane: a small square, green stored, red
  // refused (fencing, unique), with the stock level it left when the buyer
  // wrote the stock row back.
  void draw_order(const Lane& lane, const OrderRecord& o, Rows& r) {
    const int x = scale_.x(o.at), y = lane.top + 36;
    std::string tip = client_name(o.client) + "'s order " + (o.accepted ? "stored" : "refused (" + o.refused + ")") +
                      " at " + ms_text(o.at);
    if (o.stock_after) tip += "; stock row " + num(o.segment + 1) + " now " + num(*o.stock_after);
    svg_.open("g", attr("data-order", o.accepted ? "stored" : "refused"));
    svg_.rect(x - 3, y - 3, 6, 6, fill(o.accepted ? kAccepted : kRed), tip);
    svg_.close("g");
    if (!o.stock_after) return;
    const std::string label = "stock " + num(*o.stock_after);
    if (auto bx = r.bottom.claim_centred(x, text_width(label, 9))) svg_.text(*bx, lane.top + 46, label, font(9, kInk, kMiddle));
  }

  // Faults aimed at no drawn host: partitions, heals, the sentinel.
  void draw_other_lane(const Lane& lane) {
    Rows r = rows();
    for (const FaultRecord& f : h_.faults) {
      if (lane_of(f.target)) continue;
      if (f.until) {
        const int x0 = scale_.x(f.at), x1 = std::max(x0 + 2, scale_.x(*f.until));
        svg_.rect(x0, lane.top + 16, x1 - x0, 12, fill(kFault) + attr("fill-opacity", "0.25"),
                  f.description + " from " + ms_text(f.at) + " to " + ms_text(*f.until));
        place_fault_label(lane, x0, f.description, r);
      } else {
        draw_fault_marker(lane, f, r);
      }
    }
  }

  // ---- violations ----

  // Mutual exclusion: shade the true-time overlap of the two beliefs.
  void draw_overlap_bands() {
    for (std::size_t i = 0; i < shown_violations(); ++i) {
      const Violation& v = run_.violations[i];
      if (v.kind != violation_kind_name(ViolationKind::MutualExclusion)) continue;
      std::optional<std::int64_t> end;
      for (const std::string& name : v.clients)
        if (const Belief* b = belief_at(name, v.at)) {
          const std::int64_t e = ns(b->effective_end(h_.end));
          end = end ? std::min(*end, e) : e;
        }
      const int x0 = scale_.x(v.at), x1 = std::max(x0 + 2, scale_.x(end.value_or(ns(v.at))));
      svg_.rect(x0, lanes_top_, x1 - x0, lanes_bottom_ - lanes_top_, fill(kRed) + attr("fill-opacity", "0.08"));
    }
  }

  const Belief* belief_at(const std::string& client, TrueInstant t) const {
    const auto c = client_named(client);
    for (const Belief& b : h_.beliefs)
      if (c && b.client == *c && b.start <= t && t < b.effective_end(h_.end)) return &b;
    return nullptr;
  }

  void draw_violation_marks() {
    const std::string line_style = attr("stroke", kRed) + attr("stroke-width", "2") + attr("stroke-opacity", "0.85");
    for (std::size_t i = 0; i < shown_violations(); ++i) {
      const Violation& v = run_.violations[i];
      const int x = scale_.x(v.at), bx = badges_[i].x;
      const int cy = axis_y() + 13 + badges_[i].row * kBadgeRow;
      const std::string n = num(static_cast<std::int64_t>(i + 1));
      svg_.open("g", attr("data-violation", n));
      if (bx != x) svg_.line(bx, cy + 9, x, lanes_top_, attr("stroke", kRed) + attr("stroke-width", "1"));
      svg_.line(x, bx == x ? cy + 9 : lanes_top_, x, lanes_bottom_, line_style, v.detail);
      svg_.circle(bx, cy, 9, fill(kRed), n + ". " + v.kind + " at " + ms_text(v.at) + ": " + v.detail);
      svg_.text(bx, cy + 4, n, font(n.size() > 1 ? 9 : 11, "#ffffff", kMiddle + kBold));
      svg_.close("g");
    }
  }

  std::size_t chars_per_line(int font_px, int indent) const {
    return static_cast<std::size_t>(std::max(20, (width_ - 24 - indent) * 100 / (font_px * 62)));
  }

  int draw_violation_legend(int y) {
    if (run_.violations.empty()) return y;
    y += 16;
    svg_.text(12, y, "Violations", font(13, kInk, kBold));
    for (std::size_t i = 0; i < shown_violations(); ++i) y = draw_violation_entry(y, i);
    if (run_.violations.size() > shown_violations()) {
      y += 18;
      const auto more = static_cast<std::int64_t>(run_.violations.size() - shown_violations());
      svg_.text(34, y, "\xE2\x80\xA6 and " + num(more) + " more", font(12, kMuted));
    }
    return y;
  }

  int draw_violation_entry(int y, std::size_t i) {
    const Violation& v = run_.violations[i];
    const std::string n = num(static_cast<std::int64_t>(i + 1));
    const std::string line = n + ". " + v.kind + " at " + ms_text(v.at) + " \xE2\x80\x94 " + v.detail;
    y += 20;
    svg_.circle(20, y - 4, 8, fill(kRed));
    svg_.text(20, y, n, font(10, "#ffffff", kMiddle + kBold));
    bool first = true;
    for (const std::string& part : wrapped(line, chars_per_line(12, 22))) {
      if (!first) y += 15;
      svg_.text(34, y, part, font(12, kInk, kBold));
      first = false;
    }
    if (!o_.evidence) return y;
    for (const std::string& ev : v.evidence)
      for (const std::string& part : wrapped("\xC2\xB7 " + ev, chars_per_line(11, 40))) {
        y += 14;
        svg_.text(46, y, part, font(11, kMuted));
      }
    return y;
  }

  // ---- colour legend ----

  int draw_colour_legend(int y) {
    y += 28;
    int x = 12;
    auto item = [&](auto&& swatch, const std::string& label) {
      const int w = 22 + text_width(label, 11) + 18;
      if (x + w > width_ - 8) {
        x = 12;
        y += 20;
      }
      swatch(x, y - 9);
      svg_.text(x + 22, y, label, font(11, kInk));
      x += w;
    };
    const char* c0 = client_colour(0);
    item([&](int x0, int y0) { svg_.rect(x0, y0, 18, 10, fill(c0)); }, "believes it holds the lock");
    item([&](int x0, int y0) { svg_.rect(x0, y0, 18, 10, attr("fill", hatch_url(0)) + attr("stroke", c0)); },
         "past its validity deadline");
    item([&](int x0, int y0) { svg_.rect(x0, y0 + 4, 18, 3, fill(c0) + attr("fill-opacity", "0.55")); },
         "acquire attempt");
    item([&](int x0, int y0) { svg_.rect(x0, y0 - 2, 18, 14, fill("#7f7f7f") + attr("fill-opacity", "0.30")); },
         "pause");
    item([&](int x0, int y0) { svg_.cross(x0 + 9, y0 + 5, 5, kInk, ""); }, "crash");
    item([&](int x0, int y0) { svg_.circle(x0 + 9, y0 + 5, 6, fill(kAccepted)); }, "write accepted");
    item([&](int x0, int y0) { svg_.rect(x0 + 3, y0 - 1, 12, 12, fill(kRed)); }, "write rejected");
    item([&](int x0, int y0) {
      svg_.circle(x0 + 9, y0 + 5, 6, fill(kAccepted) + attr("stroke", kRed) + attr("stroke-width", "3"));
    }, "stale write accepted");
    item([&](int x0, int y0) { deadline_mark(x0 + 9, y0 - 3, 16, ""); }, "lease deadline (holder's / key's)");
    item([&](int x0, int y0) { svg_.rect(x0, y0 + 3, 18, 5, fill(kStretch)); }, "axis stretched (close events)");
    item([&](int x0, int y0) {
      svg_.line(x0, y0 + 5, x0 + 18, y0 + 5, attr("stroke", c0) + attr("stroke-width", "2") +
                                                 attr("stroke-dasharray", "5 4"));
    }, "write applied after its holder stopped");
    item([&](int x0, int y0) {
      svg_.rect(x0, y0, 18, 10, fill(c0) + attr("fill-opacity", "0.40") + attr("stroke", c0));
    }, "lock entry on a node (creator)");
    item([&](int x0, int y0) { svg_.rect(x0 + 8, y0 - 3, 3, 16, fill(kRed)); }, "removed/changed by a non-owner");
    item([&](int x0, int y0) {
      svg_.line(x0 + 9, y0 - 3, x0 + 9, y0 + 13, attr("stroke", kFault) + attr("stroke-width", "2") +
                                                     attr("stroke-dasharray", "4 3"));
    }, "fault");
    item([&](int x0, int y0) { svg_.circle(x0 + 9, y0 + 5, 7, fill(kRed)); }, "violation");
    return y;
  }

  const RunResult& run_;
  const History& h_;
  const TimelineOptions& o_;
  int width_;
  std::string id_prefix_;
  Scale scale_;
  std::vector<Lane> lanes_;
  std::vector<Badge> badges_;
  int badge_rows_ = 0;
  int lanes_top_ = 0;
  int lanes_bottom_ = 0;
  Svg svg_;
};

}  // namespace

std::string render_timeline_svg(const scenarios::RunResult& run, const TimelineOptions& options) {
  return Renderer(run, options).render();
}

}  // namespace locksim::reports
