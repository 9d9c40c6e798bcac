#!/usr/bin/env bash
# A library lock (lib:redis-py, the unmodified library in simulated time)
# through every command that runs runs (issue 39, points 3 and 4), with
# the determinism self-check --verify: a sweep with --jobs 2 equals one
# with --jobs 1 byte for byte, and a sweep line's digest is `run`'s with its
# seed and `replay FILE --line N`'s; `run`, `sweep` and `hunt` under
# --verify find every run deterministic; `check` and `report` run it; the
# mechanism line is on stderr when stdout is JSON. Small on purpose (one
# story, few seeds): each run starts real Python processes.
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
lock=lib:redis-py

# sweep --jobs 2 --verify: every run twice, same digest; == --jobs 1.
"$bin" sweep --scenario gc-pause --lock $lock --seeds 3 --jobs 2 --verify --quiet --out "$dir/j2.jsonl" \
  2> "$dir/j2.err" || [ $? -eq 1 ] || { cat "$dir/j2.err"; fail "sweep --jobs 2 --verify"; }
grep -q "simulated time: every run of $lock" "$dir/j2.err" || { cat "$dir/j2.err"; fail "sweep: no mechanism line"; }
"$bin" sweep --scenario gc-pause --lock $lock --seeds 3 --jobs 1 --quiet --out "$dir/j1.jsonl" 2>/dev/null || [ $? -eq 1 ]
[ "$(wc -l < "$dir/j1.jsonl")" -eq 3 ] || fail "expected 3 runs"
cmp "$dir/j1.jsonl" "$dir/j2.jsonl" || fail "--jobs 2 differs from --jobs 1"
echo "sweep: --jobs 2 --verify == --jobs 1 (3 runs of $lock)"

# A story where the library names the server in what it raises (B's
# connection reset by the crash): the address it is told is the same in
# every run, 127.0.0.1:6379 (its shim maps it to the socket's ephemeral
# port), so the digest is too.
"$bin" run aof-everysec-power-loss --lock $lock --seed 1 --verify --trace > "$dir/aof.out" 2>&1 || [ $? -eq 1 ] ||
  { cat "$dir/aof.out"; fail "run aof-everysec-power-loss --verify"; }
grep -q "Error while reading from 127.0.0.1:6379 :" "$dir/aof.out" || { cat "$dir/aof.out"; fail "no told address"; }
echo "aof-everysec-power-loss: a reset naming 127.0.0.1:6379, the same digest twice"

# The same seed, the same digest: sweep line 2 (seed 2), run --seed 2, replay --line 2.
digest_of() { sed -n 's/.*"digest":"\([0-9a-f]*\)".*/\1/p'; }
swept=$(sed -n 2p "$dir/j1.jsonl" | digest_of)
ran=$("$bin" run gc-pause --lock $lock --seed 2 --format json --verify 2> "$dir/run.err" | digest_of) || true
grep -q "simulated time: client A's adapter ran as process" "$dir/run.err" || { cat "$dir/run.err"; fail "run --format json: no mechanism line on stderr"; }
replayed=$("$bin" replay "$dir/j1.jsonl" --line 2 --format json 2>/dev/null | digest_of) || true
[ -n "$swept" ] && [ "$swept" = "$ran" ] && [ "$ran" = "$replayed" ] ||
  fail "digests differ: sweep $swept, run $ran, replay $replayed"
echo "seed 2: sweep, run --verify and replay --line 2 give digest $swept"

# hunt over the library's own code: search and shrink (seed 11 finds a
# stale-write in its first case, as it does for the port, token).
code=0
"$bin" hunt --scenario gc-pause --lock $lock --seed 11 --budget 1 --no-examples > "$dir/hunt.out" 2>&1 || code=$?
[ $code -eq 1 ] || { cat "$dir/hunt.out"; fail "hunt: exit $code, expected 1 (a counterexample)"; }
grep -q "simulated time: every run of $lock" "$dir/hunt.out" || fail "hunt: no mechanism line"
grep -q "adapter ran as process" "$dir/hunt.out" || fail "hunt: the minimal run's processes not named"
echo "hunt: $(grep -m1 '^hunt .*after' "$dir/hunt.out")"

# check (bounded checking; one shard of the crash schedules: a client's
# process killed and restarted), the HTML report's re-runs, a timeline.
code=0
"$bin" check gc-pause --lock $lock --faults 1 --kinds crash --shard 1/40 --jobs 2 --no-examples > "$dir/check.out" 2>&1 ||
  code=$?
[ $code -le 1 ] || { cat "$dir/check.out"; fail "check: exit $code"; }
grep -q "simulated time: every run of $lock" "$dir/check.out" || fail "check: no mechanism line"
code=0  # exit 1: the library lock's runs have no expectation to match
"$bin" report "$dir/j1.jsonl" --format html --out "$dir/report.html" 2> "$dir/report.err" || code=$?
[ $code -le 1 ] || { cat "$dir/report.err"; fail "report: exit $code"; }
grep -q "Timelines: " "$dir/report.html" || fail "report: no timeline re-run of $lock"
grep -q "report: simulated time: every run of $lock" "$dir/report.err" || fail "report: no mechanism line"
"$bin" run gc-pause --lock $lock --timeline "$dir/t.svg" > /dev/null 2>&1 || [ $? -eq 1 ]
grep -q "<svg" "$dir/t.svg" || fail "run --timeline wrote no SVG"
echo "check, report (html) and --timeline ran $lock"
