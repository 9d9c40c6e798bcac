# fish completion for locksim (installed as fish/vendor_completions.d/locksim.fish).
# Every word comes from the CLI itself at completion time, so this file
# cannot drift from it: subcommands from `locksim --help`, a subcommand's
# options from `locksim SUB --help` (the lists tests/scripts/cli_conventions.sh
# checks the bash completion against), scenario, lock and fault names from
# `locksim list --format json`.

function __locksim_bin
    set -l words (commandline -opc)
    echo $words[1]
end

function __locksim_subcommands  # name<TAB>description
    command (__locksim_bin) --help 2>/dev/null | awk '
        /^Subcommands:/ { on = 1; next }
        on && NF { name = $1; $1 = ""; sub(/^ +/, ""); print name "\t" $0 }'
end

function __locksim_options  # the options of the subcommand on the command line
    set -l words (commandline -opc)
    command $words[1] $words[2] --help 2>/dev/null | string match -rg '^ +(?:-[a-z],)?(--[a-z-]+)'
end

function __locksim_names --argument-names kind  # scenarios | locks | faults
    command (__locksim_bin) list --format json 2>/dev/null | awk -v want="\"$kind\":" '
        $1 == want { inside = 1; next }
        inside && /^  \]/ { inside = 0 }
        inside && $1 == "\"name\":" { gsub(/[",]/, "", $2); print $2 }'
end

function __locksim_after --argument-names option  # the previous word is OPTION
    set -l words (commandline -opc)
    test "$words[-1]" = "$option"
end

complete -c locksim -f
complete -c locksim -n __fish_use_subcommand -a '(__locksim_subcommands)'
complete -c locksim -n __fish_use_subcommand -l help -d 'Print help and exit'
complete -c locksim -n __fish_use_subcommand -l version -d 'Print the version and exit'
complete -c locksim -n 'not __fish_use_subcommand' -a '(__locksim_options)'
# Positional scenarios (names or files) of the subcommands that take one.
complete -c locksim -n '__fish_seen_subcommand_from run live check' -F -a '(__locksim_names scenarios)'
complete -c locksim -n '__fish_seen_subcommand_from replay report' -F
# Option values.
complete -c locksim -n '__locksim_after --lock' -x -a '(__locksim_names locks) all'
complete -c locksim -n '__locksim_after --scenario' -F -a '(__locksim_names scenarios) all'
complete -c locksim -n '__locksim_after --kinds' -x -a '(__locksim_names faults)'
complete -c locksim -n '__locksim_after --faults; and not __fish_seen_subcommand_from check' -x -a '(__locksim_names faults)'
complete -c locksim -n '__locksim_after --property; or __locksim_after --violation' -x \
    -a 'mutual-exclusion wrong-owner-release stale-write lock-unavailable'
complete -c locksim -n '__locksim_after --format' -x -a 'text json md html junit'
complete -c locksim -n '__locksim_after --workload' -x -a 'lock inventory'
complete -c locksim -n '__locksim_after --color' -x -a 'auto always never'
complete -c locksim -n '__locksim_after --method' -x -a 'read-check-write lock decr lua segmented'
for option in --out --timeline --redis-server --store
    complete -c locksim -n "__locksim_after $option" -F
end
