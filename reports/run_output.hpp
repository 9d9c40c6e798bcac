// How one run is shown: its JSON object (the run record of
// reports/run_record.hpp: other tools parse it, keys are only ever added)
// and the human text verdict of `locksim run`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "scenarios/runner.hpp"

namespace locksim::reports {

// The run's JSON object: to_json(record_of(run)) (reports/run_record.hpp
// has the fields, the one writer and the one reader).
nlohmann::ordered_json run_to_json(const scenarios::RunResult& run);

// How text output looks: colour (ANSI) only where a person reads it on a
// terminal; the CLI decides (a TTY and no NO_COLOR), never the renderer.
struct TextStyle {
  bool colour = false;
};

// The seed first, then a verdict per property, the violations explained
// with their evidence, the expectation, and the repro command.
std::string run_to_text(const scenarios::RunResult& run, const std::string& description, TextStyle style = {});

// The event trace, one line per record: "  35.012s  A  acquired  grant 2".
std::string trace_to_text(const scenarios::RunResult& run);

// Percentile p (0..100) of sorted values, nearest-rank; 0 for none.
std::int64_t percentile(std::vector<std::int64_t> values, int p);

}  // namespace locksim::reports
