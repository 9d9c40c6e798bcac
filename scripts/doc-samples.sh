#!/usr/bin/env bash
# Re-generates the sample outputs the documents show. A sample is a fenced
# block right after a marker line
#     <!-- sample: locksim run gc-pause --lock naive-del --seed 1 -->
# and holds what that command prints (stdout; its exit code does not
# matter); or, for output that is Markdown itself (a report's table), the
# lines between the marker and a closing `<!-- /sample -->`. `locksim` in the command is the binary given. Only deterministic
# (simulated) commands belong in a marker. ctest doc_samples runs it with
# --check: a document whose sample differs from what the command prints
# fails, so no sample goes stale.
#   scripts/doc-samples.sh [--check] [LOCKSIM_BINARY]   # default build/locksim
set -euo pipefail
cd "$(dirname "$0")/.."
check=false
if [[ ${1:-} == --check ]]; then check=true; shift; fi
bin=$(realpath "${1:-build/locksim}")
status=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for doc in README.md docs/*.md; do
  grep -q '^<!-- sample: ' "$doc" || continue
  out=$work/doc.md
  : > "$out"
  state=text  # text -> marker (saw a marker) -> skip (inside the old block) -> text
  while IFS= read -r line || [[ -n $line ]]; do
    case $state in
      text)
        printf '%s\n' "$line" >> "$out"
        if [[ $line =~ ^'<!-- sample: '(.*)' -->'$ ]]; then
          command=${BASH_REMATCH[1]}
          state=marker
        fi ;;
      marker)
        fenced=false end='<!-- /sample -->'
        if [[ $line == '```'* ]]; then printf '%s\n' "$line" >> "$out"; fenced=true end='```'; fi
        (cd "$work" && PATH="$(dirname "$bin"):$PATH" LOCKSIM_NO_EXAMPLES=1 NO_COLOR=1 \
           bash -c "${command//locksim /$(basename "$bin") }" >> "$out" 2>/dev/null) || true
        state=skip
        # An empty Markdown sample: the closing marker is this very line.
        if ! $fenced && [[ $line == "$end" ]]; then printf '%s\n' "$line" >> "$out"; state=text; fi ;;
      skip)
        [[ $line == "$end" ]] && { printf '%s\n' "$line" >> "$out"; state=text; } ;;
    esac
  done < "$doc"
  [[ $state == text ]] || { echo "doc-samples: $doc: a sample is not closed (\`\`\` or <!-- /sample -->)" >&2; exit 2; }
  if ! cmp -s "$doc" "$out"; then
    if $check; then
      echo "doc-samples: a sample in $doc differs from what its command prints now (scripts/doc-samples.sh rewrites it):" >&2
      diff -u "$doc" "$out" | head -20 >&2
      status=1
    else
      cp "$out" "$doc"
      echo "doc-samples: rewrote the samples in $doc"
    fi
  fi
done
exit $status
