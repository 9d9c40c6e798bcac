#!/usr/bin/env bash
# Every figure in one command: the Google Benchmark micro figures (kernel,
# Redis engine, scenario runs with the simulated/wall time ratio, hunt) and
# whole-CLI figures (standard sweep runs/s on 2 jobs, peak RSS as the sweep
# grows, and the peak RSS of a 1,000,000-run sweep: it must stay flat because
# results stream out), then locksim beside its peers (bench/peers/:
# Hypothesis + fakeredis, a real redis-server) as ratios.
# Usage: bench/figures.sh [build-dir]
# MILLION_RUNS=0 skips the million-run sweep (about 2 minutes on 2 cores);
# PEERS=0 skips the peers (about 3 minutes).
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

# Peers (issue 20): the same search and the same story done the other ways,
# each beside locksim's figure as a ratio (locksim's advantage). bench/peers/
# has the scripts and says what each measures; PEERS=0 skips this section
# (about 2 minutes). Each figure is wall time and, in brackets, CPU time
# (user + sys): on a loaded machine the CPU ratio is the steadier one, except
# for real redis, whose run is mostly sleeping. PEER_TTL_MS is the real-redis
# TTL (default 200 ms, the shortest that was never flaky when measured);
# PEER_TTL_SEARCH=1 searches it again (20 runs per TTL, all must reproduce).
if [[ ${PEERS:-1} != 0 ]]; then
  py=/usr/bin/python3
  timed() {  # command... -> "wall cpu" seconds (exit 1 is a found violation)
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" > "$tmp/out" 2>/dev/null || [[ $? -eq 1 ]]
    awk '{ print $1, $2 + $3 }' "$tmp/time"
  }
  median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
  wall_of() {  # command... -> its wall seconds, to the microsecond (/usr/bin/time's %e counts in 10 ms steps)
    local start=$EPOCHREALTIME
    "$@" > "$tmp/out" 2>/dev/null || [[ $? -eq 1 ]]
    awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }'
  }
  cold_hunt() {  # hunt arguments -> "wall cpu": median wall of 10 cold processes, mean CPU
    # (CPU from one timed loop of the 10: /usr/bin/time counts in 10 ms steps)
    for _ in 1 2 3 4 5 6 7 8 9 10; do wall_of "$build/locksim" hunt "$@" --out "$tmp/hunt.toml"; done > "$tmp/colds"
    read -r _ loop_cpu <<<"$(timed bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do "$0" hunt "$@" >/dev/null || [[ $? -eq 1 ]]; done' \
      "$build/locksim" "$@")"
    echo "$(cut -d' ' -f1 "$tmp/colds" | median) $(awk -v c="$loop_cpu" 'BEGIN { print c / 10 }')"
  }
  field() { grep -oE "(^| )$1=[^ ]*" | tail -1 | cut -d= -f2; }  # key=value lines of bench/peers/
  echo
  echo "peers (bench/peers/; wall [cpu], ratios = locksim's advantage):"
  read -r hunt_wall hunt_cpu <<<"$(cold_hunt --lock naive-del)"
  read -r pause_wall pause_cpu <<<"$(cold_hunt --lock naive-del --kinds pause --property wrong-owner-release)"
  locksim_size=$(grep -c '^\[\[\(client\|fault\)\]\]' "$tmp/hunt.toml")
  "$py" bench/peers/hypothesis_gc_pause.py --find --lock naive --property wrong-owner-release \
    --seeds "${PEER_SEEDS:-3}" > "$tmp/hyp-find"
  hyp_size=$(grep -o 'shrunk_size=[0-9]*' "$tmp/hyp-find" | cut -d= -f2 | median)
  awk -v w="$pause_wall" -v c="$pause_cpu" -v hw="$hunt_wall" -v hc="$hunt_cpu" -v ls="$locksim_size" -v hs="$hyp_size" \
    -v f="$(field median_first_counterexample_s < "$tmp/hyp-find")" -v fc="$(field median_first_counterexample_cpu_s < "$tmp/hyp-find")" \
    -v s="$(field median_with_shrink_s < "$tmp/hyp-find")" -v sc="$(field median_with_shrink_cpu_s < "$tmp/hyp-find")" 'BEGIN {
    printf "  first counterexample, naive-del wrong-owner-release, pauses only:\n"
    printf "    locksim hunt --kinds pause (cold process, found and shrunk) %.1f ms [%.1f ms]\n", w * 1000, c * 1000
    printf "    Hypothesis+fakeredis, in process: found %.2f s [%.2f s] = %.0fx [%.0fx], shrunk %.2f s [%.2f s] = %.0fx [%.0fx]\n", f, fc, f / w, fc / c, s, sc, s / w, sc / c
    printf "    shrunk size (clients + faults): locksim %d, Hypothesis %d\n", ls, hs
    printf "  locksim hunt --lock naive-del (all fault kinds, cold process): %.1f ms [%.1f ms]\n", hw * 1000, hc * 1000 }'
  cases=${PEER_HUNT_CASES:-2000}
  read -r cases_wall cases_cpu <<<"$(timed "$build/locksim" hunt --lock token --kinds pause --property wrong-owner-release --budget "$cases")"
  "$py" bench/peers/hypothesis_gc_pause.py --rate --lock token --property wrong-owner-release \
    --examples "${PEER_EXAMPLES:-300}" > "$tmp/hyp-rate"
  awk -v n="$cases" -v w="$cases_wall" -v c="$cases_cpu" -v h="$(field examples_per_s < "$tmp/hyp-rate")" \
    -v hc="$(field cpu_examples_per_s < "$tmp/hyp-rate")" 'BEGIN {
    printf "  cases/s, token lock, pauses, no counterexample: locksim hunt %.0f/s [%.0f/s]; Hypothesis+fakeredis %.1f/s [%.1f/s] = %.0fx [%.0fx]\n", n / w, n / c, h, hc, n / w / h, n / c / hc }'
  sim_seeds=${PEER_SIM_SEEDS:-2000}
  read -r sim_wall sim_cpu <<<"$(timed "$build/locksim" sweep --scenario gc-pause --lock naive-del --seeds "$sim_seeds" \
    --jobs 1 --quiet --out -)"
  ttl=${PEER_TTL_MS:-200}
  if [[ ${PEER_TTL_SEARCH:-0} != 0 ]]; then
    "$py" bench/peers/real_gc_pause.py --search --runs 20 | tee "$tmp/search" | sed 's/^/  real redis search: /'
    ttl=$(field shortest_ttl_ms < "$tmp/search")
  fi
  "$py" bench/peers/real_gc_pause.py --ttl-ms "$ttl" --runs 20 > "$tmp/real" || true
  awk -v n="$sim_seeds" -v w="$sim_wall" -v c="$sim_cpu" -v t="$ttl" -v r="$(field runs_per_s < "$tmp/real")" \
    -v ok="$(field reproduced < "$tmp/real")" 'BEGIN {
    printf "  gc-pause runs/s, one core: locksim (simulated 120 s story, sweep --jobs 1) %.0f/s [%.0f/s]; real redis-server, TTL %d ms, real sleeps (%s reproduced) %.2f/s = %.0fx [%.0fx]\n", n / w, n / c, t, ok, r, n / w / r, n / c / r }'
fi
