#!/usr/bin/env bash
# The main job: install what is missing, build, sweep every lock over every
# catalog scenario (SEEDS seeds each, default 100) and write the comparison
# report (HTML, Markdown, JSON, JUnit) into OUT (default out/). Exits 1 if a
# run did not match its expectation (the report says which), 0 otherwise.
#
# The simulated report is written first, as soon as the simulated sweep is
# done, and its path printed: read it while the live sweep runs. With a
# redis-server installed (setup.sh installs one; LIVE=0 skips this), it then
# runs every scenario x lock once against real servers (`sweep --live`,
# LIVE_JOBS at a time, default the cores: each run starts its own servers on
# its own loopback ports) into OUT/live.jsonl, with a progress line, and
# rewrites the report with the live cells, so it says per cell whether real
# Redis confirmed the simulation. Live runs never change the exit code; a
# live sweep that fails midway leaves a warning and the cells it finished.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh locksim
out=${OUT:-out}
seeds=${SEEDS:-100}
mkdir -p "$out"
status=0
build/locksim sweep --scenario all --lock all --seeds "$seeds" --jobs "$(nproc)" --out "$out/sweep.jsonl" || status=$?
[[ $status -le 1 ]] || exit "$status"
inputs=("$out/sweep.jsonl")
write_report() {
  local report_status=0
  build/locksim report "${inputs[@]}" --format html,md,json,junit --out "$out/report" || report_status=$?
  [[ $report_status -le 1 ]] || exit "$report_status"
}
write_report
report_path="$(cd "$out/report" && pwd)/report.html"
if [[ ${LIVE:-1} != 0 ]] && command -v redis-server /usr/sbin/redis-server /usr/bin/redis-server > /dev/null; then
  echo "locksim: the simulated report is ready: $report_path (the live sweep runs now and adds its cells; LIVE=0 skips it)"
  live_status=0
  build/locksim sweep --live --scenario all --lock all --jobs "${LIVE_JOBS:-$(nproc)}" --out "$out/live.jsonl" || live_status=$?
  [[ $live_status -ne 130 ]] || exit 130
  [[ $live_status -le 1 ]] || echo "locksim: warning: the live sweep stopped early (exit $live_status); the report has the cells it finished" >&2
  [[ ! -f "$out/live.jsonl" ]] || { inputs+=("$out/live.jsonl"); write_report; }
fi
# The headline: one sentence per lock (the report's decision), the cells
# where real Redis differed from the simulation, and where the report is.
echo
echo "Which lock survives which fault (one line per lock; the table is in the report):"
awk '/^## Which lock survives/ {on = 1; next} on && /^## / {exit} on && /^- [a-z0-9-]+: / {print "  " substr($0, 3)}' \
  "$out/report/report.md"
differs=$(grep -E '^\|.*\| \*\*differs\*\* \|' "$out/report/report.md" | awk -F'|' '{gsub(/ /, "", $2); gsub(/ /, "", $3); print "  " $2 " x " $3}' || true)
if [[ -n $differs ]]; then
  echo
  echo "Cells where real Redis differed from the simulation (docs/live.md says why rows differ):"
  echo "$differs"
fi
echo
echo "locksim: report written to $report_path (also report.md, report.json, report.xml)"
exit "$status"
