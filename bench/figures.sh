#!/usr/bin/env bash
# Every figure in one command: the Google Benchmark micro figures (kernel,
# Redis engine, scenario runs, hunt) and whole-CLI figures (standard sweep
# runs/s on 2 jobs, peak RSS as the sweep grows: it must stay flat because
# results stream to the file). Usage: bench/figures.sh [build-dir]
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
