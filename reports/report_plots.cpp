// Drawing the report's plots (see report_plots.hpp). Each plot is a row per
// lock: a label column, the bars, and a value column on the right.
#include "reports/report_plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

#include "reports/xml_text.hpp"

namespace locksim::reports {

const char* severity_colour(Severity severity) {
  switch (severity) {
    case Severity::Corruption: return "#d93f33";
    case Severity::Overlap: return "#f0a830";
    case Severity::Unavailable: return "#5b7fd6";
    case Severity::Safe: return "#6cc17a";
  }
  return "#6cc17a";
}

namespace {

constexpr int kWidth = 600;
constexpr int kLabel = 150;   // lock names, cut at 19 characters
constexpr int kValue = 110;   // numbers on the right
constexpr int kRow = 22;
constexpr int kTop = 30;

std::string n(std::int64_t v) { return std::to_string(v); }

std::string svg_open(int height, const std::string& label) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + n(kWidth) + "\" height=\"" +
         n(height) + "\" viewBox=\"0 0 " + n(kWidth) + " " + n(height) + "\" role=\"img\" aria-label=\"" +
         xml_escape(label) + "\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" class=\"plot\">\n<title>" +
         xml_escape(label) + "</title>\n";
}

std::string text(int x, int y, const std::string& s, int px, const char* extra = "") {
  return "<text x=\"" + n(x) + "\" y=\"" + n(y) + "\" font-size=\"" + n(px) + "\" fill=\"#222222\"" + extra + ">" +
         xml_escape(s) + "</text>\n";
}

std::string rect(int x, int y, int w, int h, const char* colour, const std::string& tip) {
  return "<rect x=\"" + n(x) + "\" y=\"" + n(y) + "\" width=\"" + n(std::max(w, 0)) + "\" height=\"" + n(h) +
         "\" fill=\"" + colour + "\"><title>" + xml_escape(tip) + "</title></rect>\n";
}

// A lock name cut to fit the label column.
std::string label_of(const std::string& lock, std::size_t fit = 19) {
  return lock.size() > fit ? lock.substr(0, fit - 1) + "\xE2\x80\xA6" : lock;
}

// A decade of microseconds for an axis: "1 µs", "10 ms", "100 s".
std::string decade_label(int decade) {
  static const char* const units[] = {"\xC2\xB5s", "ms", "s"};
  const int unit = std::clamp(decade / 3, 0, 2);
  std::int64_t value = 1;
  for (int i = unit * 3; i < decade; ++i) value *= 10;
  return n(value) + " " + units[unit];
}

}  // namespace

std::string severity_share_svg(const Comparison& c, const Decision& d) {
  const int bar = kWidth - kLabel - kValue;
  const int height = kTop + static_cast<int>(d.locks.size()) * kRow + 8;
  std::string out = svg_open(height, "Runs by worst violation, per lock");
  out += text(kLabel, 16, "share of runs, by the worst thing that happened", 11, " fill-opacity=\"0.8\"");
  out += text(kWidth - kValue + 8, 16, "broke", 11);
  int y = kTop;
  for (const auto& lock : d.locks) {
    std::map<Severity, std::uint64_t> runs;
    std::uint64_t total = 0;
    for (const auto& [key, cell] : c.cells()) {
      if (key.second != lock || !c.no_lock_method(key.first).empty()) continue;  // a story without the lock
      for (const auto& [kinds, count] : cell.outcomes) runs[severity_of(kinds)] += count;
      total += cell.runs;
    }
    out += text(kLabel - 6, y + 14, label_of(lock), 12, " text-anchor=\"end\"");
    int x = kLabel;
    std::uint64_t seen = 0;
    for (Severity s : kSeveritiesWorstFirst) {
      if (!runs[s] || !total) continue;
      seen += runs[s];
      const int end = kLabel + static_cast<int>(static_cast<std::int64_t>(seen) * bar / static_cast<std::int64_t>(total));
      out += rect(x, y + 3, end - x, kRow - 6, severity_colour(s),
                  lock + ": " + std::string(severity_words(s)) + " in " + n(static_cast<std::int64_t>(runs[s])) + " of " +
                      n(static_cast<std::int64_t>(total)) + " runs");
      x = end;
    }
    const std::uint64_t broke = total - runs[Severity::Safe];
    out += text(kWidth - kValue + 8, y + 14, total ? format_rate(static_cast<double>(broke) / static_cast<double>(total)) : "—", 12);
    y += kRow;
  }
  return out + "</svg>\n";
}

std::string acquire_latency_svg(const Comparison& c) {
  const auto locks = c.locks();
  const int bar = kWidth - kLabel - kValue;
  const int height = kTop + static_cast<int>(locks.size()) * kRow + 26;
  // A log axis from the smallest p10 to the largest p99, whole decades.
  std::int64_t lo = 1'000'000'000, hi = 1;
  for (const auto& l : locks) {
    const CellPerf p = c.lock_perf(l);
    if (!p.acquire_p50_us.count()) continue;
    lo = std::min(lo, std::max<std::int64_t>(1, p.acquire_p50_us.percentile(10)));
    hi = std::max({hi, p.acquire_p50_us.percentile(90), p.acquire_p99_us_max});
  }
  if (lo > hi) lo = hi;
  const int d0 = static_cast<int>(std::floor(std::log10(static_cast<double>(lo))));
  const int d1 = std::max(d0 + 1, static_cast<int>(std::ceil(std::log10(static_cast<double>(std::max<std::int64_t>(hi, 1))))));
  auto x_of = [&](std::int64_t us) {
    const double v = std::log10(static_cast<double>(std::max<std::int64_t>(us, 1)));
    return kLabel + static_cast<int>(std::lround((v - d0) / (d1 - d0) * bar));
  };
  std::string out = svg_open(height, "Time to acquire, per lock");
  out += text(8, 16, "each run's acquire p50: bar p10\xE2\x80\x93p90, tick median, \xE2\x97\x86 worst p99", 11,
              " fill-opacity=\"0.8\"");
  out += text(kWidth - kValue + 8, 16, "acq / sim s", 11);
  const int axis = kTop + static_cast<int>(locks.size()) * kRow;
  // A label every `step` decades, so that labels ("100 ms": ~40 px at
  // 10 px) never touch; every decade keeps its grid line.
  const int per_decade = bar / std::max(d1 - d0, 1);
  const int step = per_decade >= 48 ? 1 : per_decade >= 24 ? 2 : 3;
  for (int d = d0; d <= d1; ++d) {
    const std::int64_t us = static_cast<std::int64_t>(std::lround(std::pow(10.0, d)));
    const int x = x_of(us);
    out += "<line x1=\"" + n(x) + "\" y1=\"" + n(kTop) + "\" x2=\"" + n(x) + "\" y2=\"" + n(axis) +
           "\" stroke=\"#dddddd\"/>\n";
    if ((d - d0) % step == 0)
      out += text(x, axis + 14, decade_label(d), 10, " text-anchor=\"middle\" fill-opacity=\"0.8\"");
  }
  int y = kTop;
  for (const auto& l : locks) {
    const CellPerf p = c.lock_perf(l);
    out += text(kLabel - 6, y + 14, label_of(l), 12, " text-anchor=\"end\"");
    if (p.acquire_p50_us.count()) {
      const std::int64_t p10 = p.acquire_p50_us.percentile(10), p50 = p.acquire_p50_us.percentile(50),
                         p90 = p.acquire_p50_us.percentile(90);
      const int x10 = x_of(p10), x90 = std::max(x_of(p90), x_of(p10) + 2);
      out += rect(x10, y + 6, x90 - x10, kRow - 12, "#8fb3de",
                  l + ": acquire p50 across " + n(static_cast<std::int64_t>(p.acquire_p50_us.count())) + " runs: p10 " +
                      format_latency_us(p10) + ", median " + format_latency_us(p50) + ", p90 " + format_latency_us(p90));
      const int xm = x_of(p50);
      out += "<line x1=\"" + n(xm) + "\" y1=\"" + n(y + 3) + "\" x2=\"" + n(xm) + "\" y2=\"" + n(y + kRow - 3) +
             "\" stroke=\"#1d3570\" stroke-width=\"2\"/>\n";
      const int xp = x_of(p.acquire_p99_us_max);
      out += "<path d=\"M" + n(xp) + " " + n(y + 5) + "L" + n(xp + 5) + " " + n(y + 11) + "L" + n(xp) + " " +
             n(y + 17) + "L" + n(xp - 5) + " " + n(y + 11) + "Z\" fill=\"#1d3570\"><title>" +
             xml_escape(l + ": worst run's acquire p99 " + format_latency_us(p.acquire_p99_us_max)) + "</title></path>\n";
    }
    out += text(kWidth - kValue + 8, y + 14, format_fixed(p.acquisitions_per_sim_second(), 2), 12);
    y += kRow;
  }
  return out + "</svg>\n";
}

namespace {

// One sale's figures merged over cells (a no-lock story: every lock the
// sweep named, since none is taken).
struct SaleBar {
  std::string scenario, method;
  CellPerf perf;
};

std::string sale_value(double rate) { return format_fixed(rate, rate < 10 ? 2 : 0); }

std::string sale_tip(const std::string& who, const SaleBar& b) {
  const CellPerf& p = b.perf;
  std::string tip = who + " (" + b.method + "): " + format_fixed(p.mean_orders_per_s(), 2) +
                    " orders per simulated second over " + n(static_cast<std::int64_t>(p.sale_runs)) + " runs";
  if (p.sale_sold_out_runs)
    tip += "; sold out after " +
           format_fixed(static_cast<double>(p.sale_sold_out_ms_sum) / static_cast<double>(p.sale_sold_out_runs) / 1000.0, 3) +
           " s on average (" + n(static_cast<std::int64_t>(p.sale_sold_out_runs)) + " runs sold out)";
  return tip;
}

}  // namespace

// A column per sale that takes the lock (a row per lock, a bar per cell,
// each labelled by its row's lock and its value), then a row per sale that
// takes none (labelled by its method's row name: the lock the sweep named
// does not matter there). Bars of one column share a linear scale, and so
// do the no-lock rows; a value is printed at every bar.
std::string sale_throughput_svg(const Comparison& c) {
  std::map<std::string, SaleBar> locked, unlocked;  // by scenario
  std::set<std::string> sale_locks;
  for (const auto& [key, cell] : c.cells()) {
    if (!cell.perf.sale_runs) continue;
    const bool no_lock = !c.no_lock_method(key.first).empty();
    SaleBar& b = (no_lock ? unlocked : locked)[key.first];
    b.scenario = key.first;
    b.method = cell.perf.sale_method;
    if (no_lock) b.perf.merge(cell.perf);
    else sale_locks.insert(key.second);
  }
  if (locked.empty() && unlocked.empty()) return "";
  std::vector<std::string> lock_rows;
  for (const auto& l : c.locks())
    if (sale_locks.count(l)) lock_rows.push_back(l);
  const int cols = static_cast<int>(locked.size());
  const int col_w = cols == 0 ? 0 : std::clamp(900 / std::max(cols, 1), 140, 240);
  constexpr int kSaleRow = 17;
  constexpr int kSaleLabel = 180;  // lock names and no-lock rows, cut at 26 characters
  const int width = std::max(kWidth, kSaleLabel + cols * col_w + 10);
  const int head = kTop + (cols ? 16 : 0);
  const int no_lock_top = head + static_cast<int>(lock_rows.size()) * kSaleRow + (unlocked.empty() ? 0 : 22);
  const int height = no_lock_top + static_cast<int>(unlocked.size()) * kSaleRow + 8;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + n(width) + "\" height=\"" +
                    n(height) + "\" viewBox=\"0 0 " + n(width) + " " + n(height) +
                    "\" role=\"img\" aria-label=\"Orders per simulated second, per sale\" font-family=\"DejaVu Sans, "
                    "Verdana, Arial, sans-serif\" class=\"plot sales\">\n<title>Orders per simulated second, per "
                    "sale</title>\n";
  out += text(8, 16, "mean orders stored per simulated second; a column per sale that takes the lock, a row per lock", 11,
              " fill-opacity=\"0.8\"");
  int x0 = kSaleLabel;
  for (const auto& [scenario, bar] : locked) {  // column heads, then their bars
    double top = 0;
    for (const auto& l : lock_rows)
      if (const Cell* cell = c.cell(scenario, l)) top = std::max(top, cell->perf.mean_orders_per_s());
    const std::string title = scenario + " (" + bar.method + ")";
    out += text(x0, head - 4, title.size() > 30 ? title.substr(0, 29) + "\xE2\x80\xA6" : title, 10, " font-weight=\"600\"");
    int y = head;
    for (const auto& l : lock_rows) {
      if (const Cell* cell = c.cell(scenario, l); cell && cell->perf.sale_runs) {
        const double rate = cell->perf.mean_orders_per_s();
        const int w = top > 0 ? static_cast<int>(std::lround(rate / top * (col_w - 60))) : 0;
        out += rect(x0, y + 3, std::max(w, 1), kSaleRow - 5, "#8fb3de", sale_tip(scenario + " --lock " + l, {scenario, bar.method, cell->perf}));
        out += text(x0 + std::max(w, 1) + 4, y + 12, sale_value(rate), 10);
      }
      y += kSaleRow;
    }
    x0 += col_w;
  }
  int y = head;
  for (const auto& l : lock_rows) {
    out += text(kSaleLabel - 6, y + 12, label_of(l, 26), 11, " text-anchor=\"end\"");
    y += kSaleRow;
  }
  if (!unlocked.empty()) {
    out += text(8, no_lock_top - 6, "no lock taken (merged over the locks the sweep named)", 10, " font-weight=\"600\"");
    double top = 0;
    for (const auto& [scenario, bar] : unlocked) top = std::max(top, bar.perf.mean_orders_per_s());
    const int span = width - kSaleLabel - 10 - 200;
    y = no_lock_top;
    for (const auto& [scenario, bar] : unlocked) {
      const double rate = bar.perf.mean_orders_per_s();
      const int w = top > 0 ? static_cast<int>(std::lround(rate / top * span)) : 0;
      out += text(kSaleLabel - 6, y + 12, label_of(no_lock_row_name(bar.method), 26), 11, " text-anchor=\"end\"");
      out += rect(kSaleLabel, y + 3, std::max(w, 1), kSaleRow - 5, "#c9b5de", sale_tip(scenario, bar));
      out += text(kSaleLabel + std::max(w, 1) + 4, y + 12, sale_value(rate) + "  " + scenario, 10);
      y += kSaleRow;
    }
  }
  return out + "</svg>\n";
}

}  // namespace locksim::reports
