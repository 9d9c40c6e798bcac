// Drawing the report's plots (see report_plots.hpp). Each plot is a row per
// lock: a label column, the bars, and a value column on the right.
#include "reports/report_plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

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
std::string label_of(const std::string& lock) { return lock.size() > 19 ? lock.substr(0, 18) + "\xE2\x80\xA6" : lock; }

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
      if (key.second != lock) continue;
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
  out += text(kLabel, 16, "each run's acquire p50: bar p10\xE2\x80\x93p90, tick median, \xE2\x97\x86 worst p99", 11,
              " fill-opacity=\"0.8\"");
  out += text(kWidth - kValue + 8, 16, "acq / sim s", 11);
  const int axis = kTop + static_cast<int>(locks.size()) * kRow;
  for (int d = d0; d <= d1; ++d) {
    const std::int64_t us = static_cast<std::int64_t>(std::lround(std::pow(10.0, d)));
    const int x = x_of(us);
    out += "<line x1=\"" + n(x) + "\" y1=\"" + n(kTop) + "\" x2=\"" + n(x) + "\" y2=\"" + n(axis) +
           "\" stroke=\"#dddddd\"/>\n";
    out += text(x, axis + 14, format_latency_us(us), 10, " text-anchor=\"middle\" fill-opacity=\"0.8\"");
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

std::string sale_throughput_svg(const Comparison& c) {
  std::vector<const Cell*> sales;
  double top = 0;
  for (const auto& [key, cell] : c.cells())
    if (cell.perf.sale_runs) {
      sales.push_back(&cell);
      top = std::max(top, cell.perf.mean_orders_per_s());
    }
  if (sales.empty()) return "";
  const int bar = kWidth - kLabel - kValue;
  const int height = kTop + static_cast<int>(sales.size()) * kRow + 8;
  std::string out = svg_open(height, "Orders per simulated second, per sale");
  out += text(kLabel, 16, "mean orders stored per simulated second (method; mean time to sell out)", 11,
              " fill-opacity=\"0.8\"");
  out += text(kWidth - kValue + 8, 16, "orders / sim s", 11);
  int y = kTop;
  for (const Cell* cell : sales) {
    const CellPerf& p = cell->perf;
    const double rate = p.mean_orders_per_s();
    std::string tip = cell->scenario + " --lock " + cell->lock + " (" + p.sale_method + "): " + format_fixed(rate, 2) +
                      " orders per simulated second over " + n(static_cast<std::int64_t>(p.sale_runs)) + " runs";
    if (p.sale_sold_out_runs)
      tip += "; sold out after " +
             format_fixed(static_cast<double>(p.sale_sold_out_ms_sum) / static_cast<double>(p.sale_sold_out_runs) / 1000.0, 3) +
             " s on average (" + n(static_cast<std::int64_t>(p.sale_sold_out_runs)) + " runs sold out)";
    out += text(kLabel - 6, y + 14, label_of(cell->scenario), 12, " text-anchor=\"end\"");
    const int w = top > 0 ? static_cast<int>(std::lround(rate / top * bar)) : 0;
    out += rect(kLabel, y + 3, std::max(w, 1), kRow - 6, "#8fb3de", tip);
    out += text(kLabel + 4, y + 15, p.sale_method, 10);
    out += text(kWidth - kValue + 8, y + 14, format_fixed(rate, 2), 12);
    y += kRow;
  }
  return out + "</svg>\n";
}

}  // namespace locksim::reports
