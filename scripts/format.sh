#!/usr/bin/env bash
# scripts/format.sh [--check]: formats the C++ sources git tracks with the
# repository's .clang-format (clang-format 14, Debian 12's), in place.
# --check changes nothing: it lists the files that would change and the
# number of lines, and exits 1 if there is any.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
format=${CLANG_FORMAT:-clang-format-14}
command -v "$format" > /dev/null || { echo "format.sh: $format not found (apt-get install clang-format-14)" >&2; exit 2; }
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac

mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
if ((check == 0)); then
  "$format" -i --style=file "${files[@]}"
  exit 0
fi
differ=0
lines=0
for f in "${files[@]}"; do
  n=$("$format" --style=file "$f" | diff "$f" - | grep -c '^<' || true)
  if ((n > 0)); then
    echo "$f: $n lines"
    differ=$((differ + 1))
    lines=$((lines + n))
  fi
done
if ((differ > 0)); then
  echo "format.sh: $differ of ${#files[@]} files differ from .clang-format ($lines lines); run scripts/format.sh" >&2
  exit 1
fi
