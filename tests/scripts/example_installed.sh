#!/usr/bin/env bash
# The user-CI example (examples/custom-lock), as a user builds it: install
# locksim into a prefix, build the example from outside the tree with
# find_package(locksim), run its Catch2 + rapidcheck test with a JUnit report,
# and use the project's own CLI (my-locksim) on its lock.
#   example_installed.sh LOCKSIM_BUILD_DIR WORK_DIR GENERATOR CXX
set -euo pipefail
build=$1 work=$2 generator=$3 cxx=$4
src=$(cd "$(dirname "$0")/../.." && pwd)/examples/custom-lock
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
# The example's own CI step (its .github/workflows/locksim.yml runs this
# script too): build against the prefix, run the test with a JUnit report
# (shown on a failure: the evidence and the repro command are in it).
(cd "$work" && GENERATOR=$generator "$src/ci/test-my-lock.sh" "$work/build" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix")

cli=$work/build/my-locksim
# grep without -q reads to the end: `grep -q` exits at the first match, and
# under pipefail the writer's SIGPIPE (exit 141) failed the script at random.
"$cli" --version | grep >/dev/null '^my-locksim '
"$cli" list | grep >/dev/null 'my-lock'
# The file's lock.kind says token; --lock picks the user's lock, and the repro
# line names the user's tool.
out=$("$cli" run baseline --lock my-lock --seed 2)
grep -q '^lock      my-lock' <<<"$out"
grep -q 'repro     my-locksim run baseline --lock my-lock --seed 2' <<<"$out"
set +e
"$cli" run gc-pause --lock my-lock --seed 1 >/dev/null; code=$?
set -e
[ "$code" -eq 1 ] || { echo "gc-pause with my-lock: expected exit 1 (violations, no expectation), got $code"; exit 1; }

# A token lock whose extend() sends a bare PEXPIRE (no token check) must fail
# the example's own test (issue 35): the same project with that one line
# changed. The failure prints the repro command and rapidcheck's reproduce
# parameter each on one line, and that parameter replays the same case.
bad=$work/bad-extend
rm -rf "$bad" && mkdir -p "$bad" && cp "$src"/CMakeLists.txt "$src"/*.cpp "$bad"/
sed -i 's/cmd(0, "EVAL", kCompareAndPexpireScript, "1", lease.key, lease.token, ms_arg(config_.ttl))/cmd(0, "PEXPIRE", lease.key, ms_arg(config_.ttl))/' \
  "$bad/my_lock.cpp"
grep -q 'cmd(0, "PEXPIRE", lease.key' "$bad/my_lock.cpp" || { echo "could not make the bare-PEXPIRE variant"; exit 1; }
cmake -S "$bad" -B "$bad/build" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$bad/build" --target my_lock_tests >/dev/null
property="my-lock never releases another client's lock under generated fault schedules"
set +e
out=$(cd "$bad/build" && LOCKSIM_EXAMPLES_DIR="$bad/examples" ./my_lock_tests "$property" 2>&1); code=$?
set -e
fail() { printf '%s\n' "$out"; echo "bare-PEXPIRE extend: $1"; exit 1; }
[ "$code" -ne 0 ] || fail "the example's test passed"
grep >/dev/null 'wrong-owner-release' <<<"$out" || fail "no wrong-owner-release reported"
grep >/dev/null -E '^repro     my-locksim run [^ ]+\.toml --lock my-lock --seed [0-9]+$' <<<"$out" ||
  fail "no repro command on one line"
replay=$(grep -E '^replay    RC_PARAMS="reproduce=[^" ]+"$' <<<"$out" | head -n 1 | sed 's/^replay    RC_PARAMS="//; s/"$//')
[ -n "$replay" ] || fail "no RC_PARAMS=\"reproduce=...\" line"
# A generated schedule's failure is kept in the failing-example database.
[ -n "$(find "$bad/examples/my-lock" -name '*.toml' 2>/dev/null)" ] || fail "no scenario kept in the examples folder"
repro=$(grep -E '^repro     my-locksim run ' <<<"$out" | tail -n 1)
set +e
# With the kept example moved away, rapidcheck's own replay reproduces it.
mv "$bad/examples" "$bad/examples.kept"
again=$(cd "$bad/build" && RC_PARAMS="$replay" LOCKSIM_EXAMPLES_DIR="$bad/examples" ./my_lock_tests "$property" 2>&1); code=$?
set -e
[ "$code" -ne 0 ] || { out=$again; fail "RC_PARAMS=reproduce=... did not fail again"; }
grep >/dev/null -xF "$repro" <<<"$again" || { out=$again; fail "the replay printed another repro than: $repro"; }
# And without RC_PARAMS the kept example is replayed first: the same failure.
set +e
third=$(cd "$bad/build" && LOCKSIM_EXAMPLES_DIR="$bad/examples" ./my_lock_tests "$property" 2>&1); code=$?
set -e
[ "$code" -ne 0 ] || { out=$third; fail "the kept example did not fail the next run"; }
grep >/dev/null -xF "$repro" <<<"$third" || { out=$third; fail "the kept example's replay printed another repro than: $repro"; }
echo "installed package: my_lock_tests passed; my-locksim runs my-lock; a bare-PEXPIRE extend fails the test"
