# bash completion for locksim (installed as bash-completion/completions/locksim).
# Subcommands and options are listed here (tests/scripts/cli_conventions.sh
# checks this list against every subcommand's --help); scenario and lock names
# come from `locksim list --format json` at completion time.

_locksim_names() {  # $1 = scenarios | locks | faults
  "${COMP_WORDS[0]}" list --format json 2>/dev/null | awk -v want="\"$1\":" '
    $1 == want { inside = 1; next }
    inside && /^  \]/ { inside = 0 }
    inside && $1 == "\"name\":" { gsub(/[",]/, "", $2); print $2 }'
}

_locksim() {
  local cur prev sub
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  sub=${COMP_WORDS[1]}
  local subcommands="list run replay sweep hunt check report live examples"
  if ((COMP_CWORD == 1)); then
    mapfile -t COMPREPLY < <(compgen -W "$subcommands --help --version" -- "$cur")
    return
  fi
  if [[ $sub == examples ]] && ((COMP_CWORD == 2)); then
    mapfile -t COMPREPLY < <(compgen -W "list replay prune --help" -- "$cur")
    return
  fi
  case $prev in
    --lock) mapfile -t COMPREPLY < <(compgen -W "$(_locksim_names locks) all" -- "$cur"); return ;;
    --scenario) mapfile -t COMPREPLY < <(compgen -W "$(_locksim_names scenarios) all" -- "$cur"); compopt -o default; return ;;
    --property) mapfile -t COMPREPLY < <(compgen -W "mutual-exclusion wrong-owner-release stale-write lock-unavailable" -- "$cur"); return ;;
    --faults) [[ $sub == check ]] && { COMPREPLY=(); return; }
      mapfile -t COMPREPLY < <(compgen -W "$(_locksim_names faults)" -- "$cur"); return ;;
    --kinds) mapfile -t COMPREPLY < <(compgen -W "$(_locksim_names faults)" -- "$cur"); return ;;
    --format) mapfile -t COMPREPLY < <(compgen -W "text json md html junit" -- "$cur"); return ;;
    --color) mapfile -t COMPREPLY < <(compgen -W "auto always never" -- "$cur"); return ;;
    --workload) mapfile -t COMPREPLY < <(compgen -W "lock inventory" -- "$cur"); return ;;
    --method) mapfile -t COMPREPLY < <(compgen -W "read-check-write lock decr lua segmented" -- "$cur"); return ;;
    --out|--timeline|--redis-server|--store|--expect) compopt -o default; COMPREPLY=(); return ;;
    --examples-dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
  esac
  local opts=""
  case $sub in
    list) opts="--format" ;;
    run) opts="--lock --expect --seed --format --trace --verify --timeline --store --color" ;;
    replay) opts="--format --trace --verify --timeline --line --color" ;;
    sweep) opts="--scenario --lock --expect --seeds --seed-start --jobs --shard --out --resume --quiet --verify --live --time-scale --redis-server" ;;
    hunt) opts="--lock --scenario --kinds --budget --time --seed --out --property --workload --method --jobs --verify --examples-dir --no-examples --color" ;;
    check) opts="--scenario --lock --faults --kinds --property --jobs --shard --out --merge --examples-dir --no-examples --color" ;;
    report) opts="--format --out" ;;
    live) opts="--lock --time-scale --redis-server --format --seed --redis --prefix --allow-remote --client --color" ;;
    examples) opts="--examples-dir --lock --property" ;;
  esac
  [[ $sub == examples && ${COMP_WORDS[2]} == prune ]] && opts+=" --all"
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$opts --help" -- "$cur")
  elif [[ $sub == run || $sub == live || $sub == check || $sub == hunt ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_locksim_names scenarios)" -- "$cur")
    compopt -o default
  else
    compopt -o default; COMPREPLY=()
  fi
}
complete -F _locksim locksim
