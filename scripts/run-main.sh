#!/usr/bin/env bash
# The main job: install what is missing, build, sweep every lock over every
# catalog scenario (SEEDS seeds each, default 100) and write the comparison
# report (HTML, Markdown, JSON, JUnit) into OUT (default out/). Exits 1 if a
# run did not match its expectation (the report says which), 0 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
out=${OUT:-out}
seeds=${SEEDS:-100}
mkdir -p "$out"
status=0
build/locksim sweep --scenario all --lock all --seeds "$seeds" --jobs "$(nproc)" --out "$out/sweep.jsonl" || status=$?
[[ $status -le 1 ]] || exit "$status"
report_status=0
build/locksim report "$out/sweep.jsonl" --format html,md,json,junit --out "$out/report" || report_status=$?
[[ $report_status -le 1 ]] || exit "$report_status"
echo "locksim: report written to $out/report/ (open $out/report/report.html)"
exit "$status"
