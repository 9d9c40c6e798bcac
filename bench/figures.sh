#!/usr/bin/env bash
# Every figure in one command: the Google Benchmark micro figures (kernel,
# Redis engine, scenario runs with the simulated/wall time ratio, hunt) and
# whole-CLI figures (standard sweep runs/s on 2 jobs, peak RSS as the sweep
# grows, and the peak RSS of a 1,000,000-run sweep: it must stay flat because
# results stream out). Usage: bench/figures.sh [build-dir]
# MILLION_RUNS=0 skips the million-run sweep (about 2 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
"$build/bench/locksim_bench" --benchmark_counters_tabular=true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sweep() {  # seeds -> prints "runs seconds peak_kib"
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$build/locksim" sweep --seeds "$1" --jobs 2 --quiet \
    --out "$tmp/sweep.jsonl" 2>/dev/null || [[ $? -eq 1 ]]
  echo "$(wc -l < "$tmp/sweep.jsonl") $(cat "$tmp/time")"
}
echo
echo "whole-CLI figures (all locks x all catalog scenarios, 2 jobs):"
for seeds in ${SWEEP_SEEDS:-10 50 200}; do
  read -r runs secs kib <<<"$(sweep "$seeds")"
  awk -v r="$runs" -v s="$secs" -v k="$kib" -v n="$seeds" \
    'BEGIN { printf "  %4d seeds: %7d runs in %6.2f s = %8.0f runs/s, peak RSS %6.1f MiB\n", n, r, s, r / (s > 0 ? s : 1), k / 1024 }'
done

# A million runs of the cheapest catalog scenario (9 locks x 111,112 seeds),
# streamed to /dev/null: peak RSS must not grow with the run count.
if [[ ${MILLION_RUNS:-1} != 0 ]]; then
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$build/locksim" sweep --scenario get-then-del-pause \
    --seeds 111112 --jobs 2 --quiet --out - 2>"$tmp/log" >/dev/null || [[ $? -eq 1 ]]
  runs=$(grep -o "[0-9]* runs written" "$tmp/log" | grep -o "^[0-9]*")
  read -r secs kib < "$tmp/time"
  awk -v r="$runs" -v s="$secs" -v k="$kib" \
    'BEGIN { printf "  million-run sweep: %d runs in %.1f s = %.0f runs/s, peak RSS %.1f MiB\n", r, s, r / (s > 0 ? s : 1), k / 1024 }'
fi
