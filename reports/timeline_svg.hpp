// The SVG timeline of one run: the figure Kleppmann's "How to do distributed
// locking" draws by hand, drawn from a run's History in true time.
//
// One lane per client (what it believed and when: belief bars from acquire
// reply to end, the part past a validity deadline hatched, acquire attempts,
// GC pauses, crashes, storage writes, a dashed tie to a write that arrived
// after the belief ended), one lane per Redis node the run touched (the lock
// entry's lifetime and who created it, deletions by a non-owner, node
// faults), a storage lane with every write, a lane for faults aimed at no
// drawn host (partitions), and each violation as a red line with a numbered
// badge explained in a legend below the lanes. The time axis covers the
// interesting span (first event to a little after the last), snapped to
// ticks; every shape carries a <title> tooltip with the exact times.
//
// The document is self-contained so it can be inlined into an HTML report or
// written standalone (`locksim run --timeline out.svg`): presentation
// attributes only (no <style>, which would leak into a host page's CSS), no
// scripts, no external fonts or links, every text escaped. Output is a pure
// function of the input: integer coordinates and integer-only formatting, so
// the same run renders to the same bytes on any machine and locale.
#pragma once

#include <cstddef>
#include <string>

#include "scenarios/runner.hpp"

namespace locksim::reports {

struct TimelineOptions {
  int width_px = 1000;               // the document's width; height follows the content
  bool full_span = false;            // draw the whole run, not just the interesting span
  std::string id_prefix;             // prefix of <pattern>/<clipPath> ids; empty: "tl-" and a hash of
                                     // scenario, lock and seed, so timelines inlined in one page differ
  std::size_t max_violations = 32;   // badges and legend entries drawn; the rest are counted
  bool evidence = true;              // list each violation's evidence under its legend entry
};

// One complete <svg> document (no XML declaration, so it also inlines into HTML).
std::string render_timeline_svg(const scenarios::RunResult& run, const TimelineOptions& options = {});

}  // namespace locksim::reports
