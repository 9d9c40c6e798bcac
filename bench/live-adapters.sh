#!/usr/bin/env bash
# bench/live-adapters.sh [RUNS] [BUILD]: what a live gc-pause run costs with
# each shipped client library beside the C++ port of its algorithm, in one
# sitting, rounds alternating (the machine's drift hits every row alike).
# Each row is `locksim live STORY --lock LOCK` at the story's default time
# scale: the wall time of the whole command (servers started and stopped;
# for a library, its adapter processes started — before the run's origin,
# so not part of the story) and the violation kinds each run found.
# Prints, per row: the median and range of the wall times and how many runs
# gave each verdict. RUNS defaults to 5.
set -euo pipefail
runs=${1:-5}
bin=$(cd "${2:-$(dirname "$0")/../build}" && pwd)/locksim
rows=("gc-pause lib:redis-py" "gc-pause token" "gc-pause lib:node-redlock" "gc-pause node-redlock-169"
  "zk-gc-pause lib:kazoo" "zk-gc-pause zk-fenced" "etcd-gc-pause lib:python-etcd3" "etcd-gc-pause etcd-fenced")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((r = 1; r <= runs; r++)); do
  echo "round $r of $runs" >&2
  for i in "${!rows[@]}"; do
    read -r story lock <<<"${rows[$i]}"
    start=$(date +%s.%N)
    out=$("$bin" live "$story" --lock "$lock" 2>&1) || true
    end=$(date +%s.%N)
    kinds=$(grep -o 'VIOLATED [a-z-]*' <<<"$out" | cut -d' ' -f2 | sort | paste -sd+ -)
    echo "$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }') ${kinds:-none}" >>"$work/$i"
  done
done
printf '%-16s %-20s %-26s %s\n' story lock "wall s: median (range)" "verdicts (runs)"
for i in "${!rows[@]}"; do
  read -r story lock <<<"${rows[$i]}"
  times=$(cut -d' ' -f1 "$work/$i" | sort -n)
  median=$(awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}' <<<"$times")
  verdicts=$(cut -d' ' -f2 "$work/$i" | sort | uniq -c | awk '{printf "%s%s (%d)", sep, $2, $1; sep=", "}')
  printf '%-16s %-20s %-26s %s\n' "$story" "$lock" "$(printf '%.2f (%.2f-%.2f)' "$median" "$(head -1 <<<"$times")" "$(tail -1 <<<"$times")")" "$verdicts"
done
