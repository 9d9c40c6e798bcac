// The report's plots, inline SVG (no scripts, no external assets, integer
// coordinates, so the same comparison draws the same bytes): how often each
// lock broke and how badly (runs by severity, per lock), and how long it
// took to acquire (each run's acquire p50 across runs, per lock, on a log
// axis, with the worst run's p99 and the throughput beside it).
#pragma once

#include <string>

#include "reports/comparison.hpp"
#include "reports/decision.hpp"

namespace locksim::reports {

std::string severity_share_svg(const Comparison& comparison, const Decision& decision);
std::string acquire_latency_svg(const Comparison& comparison);
// A sale's throughput (issue 17 item 4): one bar per (scenario, lock) that
// sold a stock, its mean orders per simulated second, labelled with the
// method and the mean time to sell out; "" when no run sold anything.
std::string sale_throughput_svg(const Comparison& comparison);

// The colours of the severities, shared with the HTML report's CSS.
const char* severity_colour(Severity severity);

}  // namespace locksim::reports
