#!/usr/bin/env bash
# ctest `peers_smoke`: the peer benchmarks of bench/figures.sh in a tiny mode,
# so they do not rot. It checks what they find, never how fast: the
# Hypothesis harness must find and shrink a wrong-owner-release of the naive
# lock and none of the token lock, and one real-redis gc-pause run must show
# the story's three violations and print a parseable runs/s figure.
set -euo pipefail
cd "$(dirname "$0")"
py=/usr/bin/python3
"$py" -c 'import hypothesis, fakeredis, lupa, redis' 2>/dev/null ||
  { echo "python3-hypothesis, -fakeredis, -lupa or -redis missing (scripts/setup.sh installs them)"; exit 1; }
fail() { echo "peers_smoke: $*"; exit 1; }

find=$("$py" hypothesis_gc_pause.py --find --lock naive --seeds 1 --examples 2000)
echo "$find"
grep -q '^found=1/1 ' <<<"$find" || fail "Hypothesis found no naive-del wrong-owner-release"
grep -q "shrunk_clients=2 shrunk_pauses=1 " <<<"$find" || fail "the shrunk counterexample is not 2 clients and 1 pause"

rate=$("$py" hypothesis_gc_pause.py --rate --lock token --examples 20)
echo "$rate"
grep -Eq '^examples=[0-9]+ seconds=[0-9.]+ examples_per_s=[0-9.]+ cpu_examples_per_s=[0-9.]+$' <<<"$rate" || fail "no examples/s figure"

real=$("$py" real_gc_pause.py --ttl-ms 500 --runs 1) || fail "the real run did not reproduce: $real"
echo "$real"
grep -q 'violations=mutual-exclusion,wrong-owner-release,stale-write' <<<"$real" || fail "violations missing"
grep -Eq 'reproduced=1/1 seconds_per_run=[0-9.]+ runs_per_s=[0-9.]+$' <<<"$real" || fail "no runs/s figure"
echo "peers smoke: Hypothesis found and shrank the counterexample, real redis reproduced gc-pause"
