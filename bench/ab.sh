#!/usr/bin/env bash
# bench/ab.sh [REV] [BUILD]: this build against another revision, in one run.
#
# A speed figure is a ratio measured in one sitting: the same benchmarks of
# both builds, alternated round by round so that the machine's drift (a
# shared VM speeds up and slows down by 30 % over an hour) hits both alike.
# REV (default 46ac6f7, the build issue 20's targets were set against) is
# exported with `git archive` into $AB_DIR (default $TMPDIR/locksim-ab-REV)
# and built once, Release, without a profile; BUILD (default build/) is
# this tree's build, as scripts/setup.sh made it.
#
# Prints, per figure, the median of ROUNDS rounds (default 3) for each
# build and the ratio old/new (above 1: this build is faster):
#   - a gc-pause run, a catalog run, a kernel request/reply, an in-process
#     hunt (bench/locksim_bench, --benchmark_min_time=$MIN_TIME s each);
#   - `locksim hunt --lock naive-del` in a cold process (COLD processes of
#     each build per round, alternating; wall time from bash).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:-46ac6f7}
new=$(cd "${2:-$here/build}" && pwd)
rounds=${ROUNDS:-3}
min_time=${MIN_TIME:-1}
cold=${COLD:-20}
short=$(git -C "$here" rev-parse --short=12 "$rev^{commit}")
old_tree=${AB_DIR:-${TMPDIR:-/tmp}/locksim-ab-$short}
old=$old_tree/build

for b in "$new/locksim" "$new/bench/locksim_bench"; do
  [[ -x $b ]] || { echo "ab.sh: $b is missing: build this tree first (scripts/setup.sh)" >&2; exit 2; }
done
if [[ ! -x $old/locksim || ! -x $old/bench/locksim_bench ]]; then
  # Only a directory this script made (its marker inside) is ever emptied:
  # AB_DIR may name a directory of the user's.
  if [[ -e $old_tree && ! -e $old_tree/.locksim-ab ]] && [[ -n $(ls -A "$old_tree") ]]; then
    echo "ab.sh: $old_tree exists and was not made by ab.sh; set AB_DIR to a new directory" >&2
    exit 2
  fi
  echo "building $short in $old_tree (once; a few minutes)" >&2
  rm -rf "$old_tree" && mkdir -p "$old_tree" && touch "$old_tree/.locksim-ab"
  git -C "$here" archive "$short" | tar -x -C "$old_tree"
  cmake -S "$old_tree" -B "$old" -DCMAKE_BUILD_TYPE=Release > "$old_tree/cmake.log"
  cmake --build "$old" --parallel "$(nproc)" --target locksim locksim_bench > "$old_tree/build.log"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

benches=(BM_ScenarioGcPauseRuns BM_ScenarioCatalogRuns BM_KernelRequestReply BM_HuntNaiveDel)
bench_once() {  # build name -> its real time per iteration, in the benchmark's unit
  "$1/bench/locksim_bench" --benchmark_filter="^$2(/real_time)?\$" --benchmark_min_time="$min_time" \
    --benchmark_format=csv 2>/dev/null | awk -F, -v n="$2" '$1 == "\"" n "\"" || $1 == "\"" n "/real_time\"" { print $3 }' | tail -1
}
cold_once() {  # build -> wall ms of one cold `hunt --lock naive-del`
  local start=$EPOCHREALTIME
  "$1/locksim" hunt --lock naive-del > /dev/null 2>&1 || [[ $? -eq 1 ]]
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'
}

for ((r = 1; r <= rounds; r++)); do
  echo "round $r of $rounds" >&2
  for name in "${benches[@]}"; do
    bench_once "$old" "$name" >> "$tmp/old.$name"
    bench_once "$new" "$name" >> "$tmp/new.$name"
  done
  for ((i = 0; i < cold; i++)); do
    cold_once "$old" >> "$tmp/old.cold"
    cold_once "$new" >> "$tmp/new.cold"
  done
done

row() {  # label file-suffix
  local a b
  a=$(median < "$tmp/old.$2")
  b=$(median < "$tmp/new.$2")
  awk -v l="$1" -v a="$a" -v b="$b" 'BEGIN { printf "  %-44s %10.1f %10.1f %7.2fx\n", l, a, b, a / b }'
}
echo "A/B: $new against $short, $rounds rounds alternating (load: $(cut -d' ' -f1-3 /proc/loadavg))"
printf "  %-44s %10s %10s %8s\n" figure "$short" "this" ratio
row "gc-pause run, naive-del (us)" BM_ScenarioGcPauseRuns
row "catalog run (us)" BM_ScenarioCatalogRuns
row "kernel request/reply batch (ms)" BM_KernelRequestReply
row "in-process hunt --lock naive-del (ms)" BM_HuntNaiveDel
row "cold hunt --lock naive-del, median of $((cold * rounds)) (ms)" cold
