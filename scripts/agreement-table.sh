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
#   scripts/agreement-table.sh --libraries [--table-only] [BUILD_DIR]   # ~11 minutes
#       the client-library section instead: every lib:* adapter live on the
#       stories of its topology and its C++ port simulated (seed 1); the
#       report's "Client libraries beside their ports" table goes between the
#       library-table markers. Inputs stay in out/agreement/libs-*.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."

# Puts the report section headed $2 of report $1 between the markers named $3.
put_section() {
  local report=$1 heading=$2 marker=$3 table
  table=$(mktemp)
  awk -v h="## $heading" '$0 == h {on = 1; next} on && /^## / {exit} on {print}' "$report" | sed 's/^## /### /' > "$table"
  grep -q '^| scenario |' "$table" || { echo "agreement-table: no table under '$heading' in $report" >&2; exit 1; }
  awk -v table="$table" -v begin="<!-- $marker:begin -->" -v end="<!-- $marker:end -->" '
    $0 == begin {print; while ((getline line < table) > 0) print line; skip = 1; next}
    $0 == end {skip = 0}
    !skip {print}' docs/agreement.md > docs/agreement.md.tmp
  mv docs/agreement.md.tmp docs/agreement.md
  rm -f "$table"
}

if [[ ${1:-} == --libraries ]]; then
  shift
  libs_table_only=false
  if [[ ${1:-} == --table-only ]]; then libs_table_only=true; shift; fi
  locksim=${1:-build}/locksim
  out=out/agreement
  mkdir -p "$out"
  libs=lib:redis-py,lib:node-redlock,lib:kazoo,lib:python-etcd3
  ports=$("$locksim" list --format json | /usr/bin/python3 -c '
import json, sys
libs = sys.argv[1].split(",")
print(",".join(sorted({l["port"] for l in json.load(sys.stdin)["libraries"] if l["name"] in libs and l.get("port")})))' "$libs")
  if ! $libs_table_only; then
    "$locksim" sweep --live --lock "$libs" --quiet --out "$out/libs-live.jsonl" || [[ $? -le 1 ]]
    "$locksim" sweep --seeds 1 --lock "$ports" --quiet --out "$out/libs-sim.jsonl" || [[ $? -le 1 ]]
  fi
  "$locksim" report "$out/libs-sim.jsonl" "$out/libs-live.jsonl" --format md --out "$out/libs-report.md" || [[ $? -le 1 ]]
  put_section "$out/libs-report.md" "Client libraries beside their ports" library-table
  echo "agreement-table: docs/agreement.md's library table updated from $out/libs-report.md"
  exit 0
fi

table_only=false
if [[ ${1:-} == --table-only ]]; then table_only=true; shift; fi
locksim=${1:-build}/locksim
out=out/agreement
mkdir -p "$out"
if ! $table_only; then
  "$locksim" sweep --seeds 1 --quiet --out "$out/sim.jsonl" || [[ $? -le 1 ]]
  "$locksim" sweep --live --quiet --out "$out/live.jsonl" || [[ $? -le 1 ]]
fi
"$locksim" report "$out/sim.jsonl" "$out/live.jsonl" --format md --out "$out/report.md" || [[ $? -le 1 ]]
put_section "$out/report.md" "Confirmed on real Redis" agreement-table
echo "agreement-table: docs/agreement.md updated from $out/report.md"
