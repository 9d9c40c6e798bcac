#!/usr/bin/env bash
# The CLI's conventions that cannot be seen from inside the binary:
# `--version` names the git revision, the bash completion offers exactly the
# subcommands and options each subcommand's --help lists (so it cannot go
# stale), the man page documents every subcommand, and completion really
# completes lock names (run under bash with the completion sourced).
#   cli_conventions.sh LOCKSIM_BINARY
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
completion=$root/scripts/completion/locksim.bash
man=$root/docs/man/locksim.1
fail() { echo "cli_conventions: $*"; exit 1; }

"$bin" --version | grep -Eq '^locksim [0-9.]+ \(git [0-9a-f]{7,}(-dirty)?\)$' ||
  fail "--version does not name a git revision: $("$bin" --version)"

subs=$("$bin" --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }' | sort)
listed=$(sed -n 's/^ *local subcommands="\(.*\)"/\1/p' "$completion" | tr ' ' '\n' | sort)
[[ "$subs" == "$listed" ]] || fail "completion subcommands ($(echo $listed)) differ from --help ($(echo $subs))"

for sub in $subs; do
  want=$("$bin" "$sub" --help | grep -oE '^ +(-[a-z],)?--[a-z-]+' | sed 's/.*--/--/' | grep -vx -- '--help' | sort -u)
  have=$(sed -n "s/^ *$sub) opts=\"\(.*\)\" ;;/\1/p" "$completion" | tr ' ' '\n' | sed '/^$/d' | sort -u)
  [[ "$want" == "$have" ]] || fail "completion options for '$sub' ($(echo $have)) differ from --help ($(echo $want))"
  grep -q "^\.B locksim $sub\$\|^\.B $sub\$" "$man" || fail "the man page does not document '$sub'"
done

# One vocabulary (cli/vocabulary.cpp): every option shows the value it takes,
# never CLI11's bare TEXT; `locksim help SUB` is `SUB --help`; a misspelt
# subcommand gets "did you mean", in help too.
for sub in $subs; do
  ! "$bin" "$sub" --help | grep -E '^ +(-[a-z],)?--[a-z-]+ TEXT' ||
    fail "'$sub --help' shows an option as TEXT: add it to cli/vocabulary.cpp"
  [[ "$("$bin" help "$sub")" == "$("$bin" "$sub" --help)" ]] || fail "'locksim help $sub' differs from '$sub --help'"
done
[[ "$("$bin" help)" == "$("$bin" --help)" ]] || fail "'locksim help' differs from --help"
for typo in "rnu gc-pause" "help rnu"; do
  set +e; said=$("$bin" $typo 2>&1); code=$?; set -e
  [[ $code -eq 2 && $said == *"did you mean 'run'?"* ]] || fail "'locksim $typo' gave exit $code: $said"
done

# Completing `locksim run x --lock na` offers naive-del.
words=$(PATH="$(dirname "$bin"):$PATH" bash -c '
  source "$1"
  COMP_WORDS=(locksim run gc-pause --lock na); COMP_CWORD=4
  _locksim; printf "%s\n" "${COMPREPLY[@]}"' _ "$completion")
grep -qx 'naive-del' <<<"$words" || fail "completing --lock na did not offer naive-del (got: $words)"
echo "cli conventions hold: version, completion, man page, one option vocabulary, help"
