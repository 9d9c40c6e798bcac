#!/usr/bin/env bash
# bench/hosted-speed.sh [BUILD]: what one gc-pause run costs, in one sitting
# (issue 39, point 5): the story with the real redis-py (lib:redis-py) in
# simulated time, each adapter process started afresh (cold) or forked from
# the zygote; the same story live at real time (one run, time scale 1); and
# the C++ port (token) in the simulator. The simulated rows are
# locksim_bench's BM_GcPause (bench/bench_hosted_time.cpp): 2 threads (the
# 2-core target), one seed after another, each thread's zygote started
# before the timing and kept, as a sweep's worker keeps it. Prints, per
# row, the wall ms per run over both threads (1 / runs per second), runs/s,
# the CPU ms per run of all processes (locksim and the adapters, from
# time(1)), and the ratios. Needs the locksim, locksim_bench and
# locksim_simtime targets; takes about 2 minutes (the live run is 50 s).
set -euo pipefail
build=$(cd "${1:-$(dirname "$0")/../build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for row in redis_py_cold redis_py_zygote token; do  # each under time(1): its CPU, adapters included
  /usr/bin/time -f "%U %S" -o "$work/$row.cpu" "$build/bench/locksim_bench" --benchmark_filter="BM_GcPause/$row/" \
    --benchmark_format=json >"$work/$row.json" 2>/dev/null
done
start=$(date +%s.%N)
"$build/locksim" live gc-pause --lock lib:redis-py --time-scale 1 >"$work/live.txt" 2>&1 || true
end=$(date +%s.%N)
live_ms=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", (e - s) * 1000 }')
live_kinds=$(grep -o 'VIOLATED [a-z-]*' "$work/live.txt" | cut -d' ' -f2 | sort -u | paste -sd+ -)
# NAME: wall ms per run over both threads (1 / runs per second), runs/s, and
# CPU ms per run of all processes (the runs before the timing counted in).
row() {
  jq -r '.benchmarks[0] | "\(.real_time) \(.runs_per_s) \(.iterations)"' "$work/$1.json" |
    awk -v cpu="$(awk '{ print $1 + $2 }' "$work/$1.cpu")" '{ print $1, $2, cpu * 1000 / ($3 + 2) }'
}
read -r cold_ms cold_rate cold_cpu < <(row redis_py_cold)
read -r zygote_ms zygote_rate zygote_cpu < <(row redis_py_zygote)
read -r token_ms token_rate token_cpu < <(row token)
printf '%-42s %12s %9s %12s %12s\n' "gc-pause, seed after seed, 2 threads" "ms per run" "runs/s" "CPU ms/run" "live / this"
line() {
  printf '%-42s %12.2f %9.2f %12.1f %12.0f\n' "$1" "$2" "$3" "$4" "$(awk -v l="$live_ms" -v m="$2" 'BEGIN { print l / m }')"
}
line "lib:redis-py, simulated time, cold" "$cold_ms" "$cold_rate" "$cold_cpu"
line "lib:redis-py, simulated time, zygote" "$zygote_ms" "$zygote_rate" "$zygote_cpu"
line "token (C++ port), simulator" "$token_ms" "$token_rate" "$token_cpu"
printf '%-42s %12.0f %9.3f %12s %12s   (%s)\n' "lib:redis-py, live at real time (1 run)" "$live_ms" \
  "$(awk -v m="$live_ms" 'BEGIN { print 1000 / m }')" - 1 "${live_kinds:-no violation}"
awk -v c="$cold_ms" -v z="$zygote_ms" -v t="$token_ms" \
  'BEGIN { printf "zygote vs cold: %.1fx faster; zygote vs the C++ port: %.1fx slower\n", c / z, z / t }'
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
