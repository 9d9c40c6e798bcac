#!/usr/bin/env bash
# The README's GNU parallel recipe, exercised: four shards run by `parallel`
# on the local cores, merged, must equal one unsharded sweep line for line.
set -euo pipefail
bin=$1
command -v parallel >/dev/null || { echo "GNU parallel is not installed (scripts/setup.sh installs it)"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=(--scenario gc-pause,baseline --lock token,naive-del --seeds 10 --quiet)
"$bin" sweep "${args[@]}" --jobs 1 --out "$dir/whole.jsonl" 2>/dev/null
parallel --will-cite -j 2 "$bin" sweep "${args[@]}" --jobs 1 --shard {}/4 --out "$dir/shard-{}.jsonl" ::: 1 2 3 4 2>/dev/null
cat "$dir"/shard-*.jsonl | sort > "$dir/merged"
sort "$dir/whole.jsonl" > "$dir/expected"
[ "$(wc -l < "$dir/expected")" -eq 40 ] || { echo "expected 40 runs"; exit 1; }
cmp "$dir/merged" "$dir/expected"
echo "4 shards under GNU parallel == 1 unsharded sweep (40 runs)"
