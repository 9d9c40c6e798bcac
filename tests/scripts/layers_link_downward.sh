#!/usr/bin/env bash
# tests/scripts/layers_link_downward.sh ARCHIVE...: the layer libraries,
# lowest first (liblocksim_vocab.a ... liblocksim_cli.a). Fails, naming the
# symbols, if one layer needs a symbol that only a layer above it defines:
# a call upward, which the one-library-per-layer build exists to forbid.
# Only strong definitions count (a template or an inline function that two
# layers both instantiate is nobody's layer).
set -euo pipefail
(($# >= 2)) || { echo "usage: layers_link_downward.sh ARCHIVE..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

layers=("$@")
for ((i = 0; i < ${#layers[@]}; i++)); do
  [[ -f ${layers[i]} ]] || { echo "layers_link_downward.sh: ${layers[i]}: no such archive" >&2; exit 2; }
  nm -g --defined-only "${layers[i]}" 2> /dev/null | awk 'NF == 3 && $2 ~ /^[TDBR]$/ { print $3 }' | sort -u > "$tmp/def.$i"
  nm -u "${layers[i]}" 2> /dev/null | awk 'NF == 2 { print $2 }' | sort -u > "$tmp/und.$i"
done
failed=0
for ((i = 0; i < ${#layers[@]}; i++)); do
  for ((j = i + 1; j < ${#layers[@]}; j++)); do
    up=$(comm -12 "$tmp/und.$i" "$tmp/def.$j" | c++filt)
    [[ -z $up ]] && continue
    echo "$(basename "${layers[i]}") uses what only $(basename "${layers[j]}"), a layer above it, defines:"
    sed 's/^/  /' <<< "$up"
    failed=1
  done
done
exit "$failed"
