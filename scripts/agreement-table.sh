#!/usr/bin/env bash
# Regenerates docs/agreement.md from measurements,
# never by hand: every catalog scenario x lock run live (`sweep --live`, each
# scenario at its [live] time_scale, else 0.01, or 0.1 for the etcd-* / zk-*
# stories on real etcd clusters and ZooKeeper ensembles; the member clock
# stories are live skips with the reason) and simulated (seed 1), then
# the "Confirmed on real Redis" section of `locksim report --format md` is
# put between the agreement-table markers of docs/agreement.md (headings one level down).
#
#   scripts/agreement-table.sh [BUILD_DIR]      # default build/; takes ~18 minutes
#   scripts/agreement-table.sh --table-only [BUILD_DIR]
#       rebuilds the table from out/agreement/*.jsonl as they are, e.g. after
#       re-running a few cells with `locksim sweep --live --scenario S --resume
#       --out out/agreement/live.jsonl` (drop their lines first)
#
# Live runs are real-time: run it on an otherwise idle machine. The inputs
# stay in out/agreement/ (sim.jsonl, live.jsonl, report.md).
set -euo pipefail
cd "$(dirname "$0")/.."
table_only=false
if [[ ${1:-} == --table-only ]]; then table_only=true; shift; fi
locksim=${1:-build}/locksim
out=out/agreement
mkdir -p "$out"
if ! $table_only; then
  "$locksim" sweep --seeds 1 --quiet --out "$out/sim.jsonl" || [[ $? -le 1 ]]
  "$locksim" sweep --live --quiet --out "$out/live.jsonl" || [[ $? -le 1 ]]
fi
"$locksim" report "$out/sim.jsonl" "$out/live.jsonl" --format md --out "$out/report.md"
awk '/^## Confirmed on real Redis/ {on = 1; next} on && /^## / {exit} on {print}' "$out/report.md" \
  | sed 's/^## /### /' > "$out/table.md"
grep -q '^| scenario | lock |' "$out/table.md" || { echo "agreement-table: no table in $out/report.md" >&2; exit 1; }
awk -v table="$out/table.md" '
  /<!-- agreement-table:begin -->/ {print; while ((getline line < table) > 0) print line; skip = 1; next}
  /<!-- agreement-table:end -->/ {skip = 0}
  !skip {print}' docs/agreement.md > docs/agreement.md.tmp
mv docs/agreement.md.tmp docs/agreement.md
echo "agreement-table: docs/agreement.md updated from $out/report.md"
