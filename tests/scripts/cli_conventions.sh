#!/usr/bin/env bash
# The CLI's conventions that cannot be seen from inside the binary:
# `--version` names the git revision, the bash completion offers exactly the
# subcommands and options each subcommand's --help lists (so it cannot go
# stale), the man page documents every subcommand, and completion really
# completes lock names (run under bash with the completion sourced), and
# colour follows --color, then NO_COLOR, then CLICOLOR_FORCE (cli/terminal.hpp).
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

# The man page's SYNOPSIS and OPTIONS are the CLI's own definition.
"$root/scripts/man-page.sh" --check "$bin" || fail "docs/man/locksim.1 drifted from the CLI: run scripts/man-page.sh"

# Completing `locksim run x --lock na` offers naive-del.
words=$(PATH="$(dirname "$bin"):$PATH" bash -c '
  source "$1"
  COMP_WORDS=(locksim run gc-pause --lock na); COMP_CWORD=4
  _locksim; printf "%s\n" "${COMPREPLY[@]}"' _ "$completion")
grep -qx 'naive-del' <<<"$words" || fail "completing --lock na did not offer naive-del (got: $words)"
# Into a pipe: colour only when asked for.
esc=$'\e['
coloured() {  # ENV... -- ARGS...: whether `run baseline` printed an escape
  local env=()
  while [[ $1 != -- ]]; do env+=("$1"); shift; done
  shift
  env -u NO_COLOR -u CLICOLOR_FORCE "${env[@]}" "$bin" run baseline --lock token --seed 1 "$@" | grep -F "$esc" >/dev/null
}
! coloured -- || fail "colour into a pipe without --color or CLICOLOR_FORCE"
coloured -- --color always || fail "--color always gave no colour"
coloured CLICOLOR_FORCE=1 -- || fail "CLICOLOR_FORCE=1 gave no colour"
! coloured NO_COLOR=1 CLICOLOR_FORCE=1 -- || fail "NO_COLOR did not win over CLICOLOR_FORCE"
coloured NO_COLOR=1 -- --color always || fail "--color always did not win over NO_COLOR"
! coloured CLICOLOR_FORCE=1 -- --color never || fail "--color never did not win over CLICOLOR_FORCE"
set +e
out=$("$bin" run baseline --color sometimes 2>&1); code=$?
set -e
[[ $code -eq 2 ]] || fail "--color sometimes: exit $code, expected 2: $out"
echo "cli conventions hold: version, completion, man page, one option vocabulary, help, colour"
