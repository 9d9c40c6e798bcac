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
cmake -S "$src" -B "$work/build" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build"
# The JUnit report goes to a file; on a failure, show it (the evidence and
# the repro command are in it).
(cd "$work/build" && ./my_lock_tests --reporter junit --out "$work/my_lock_junit.xml") ||
  { cat "$work/my_lock_junit.xml"; echo "my_lock_tests failed"; exit 1; }
grep -q 'testsuite ' "$work/my_lock_junit.xml"

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
echo "installed package: my_lock_tests passed; my-locksim runs my-lock"
