#!/usr/bin/env bash
# Builds this project against an installed locksim (find_package(locksim):
# the Debian package's /usr, or CMAKE_PREFIX_PATH given after BUILD_DIR) and
# runs the lock's Catch2 + rapidcheck test with a JUnit report in
# BUILD_DIR/my_lock_junit.xml. Run it from your repository's root: the
# failing examples are kept in ./.locksim/examples/ (LOCKSIM_EXAMPLES_DIR)
# and each failure's evidence in ./my-lock-failures/ (MY_LOCK_EVIDENCE_DIR),
# and the next run replays the kept examples first. Exit 0, or 1 with the
# failures printed. Your CI workflow (.github/workflows/locksim.yml) and
# locksim's own test of this example (ctest example_custom_lock) both run it.
#   ci/test-my-lock.sh BUILD_DIR [CMAKE_ARGS...]     (GENERATOR: default Ninja)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$1
shift
cmake -S "$src" -B "$build" -G "${GENERATOR:-Ninja}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build"
build=$(cd "$build" && pwd)
# On a failure, the JUnit file has the evidence and the repro commands.
"$build/my_lock_tests" --reporter junit --out "$build/my_lock_junit.xml" ||
  { cat "$build/my_lock_junit.xml"; echo "my_lock_tests failed: the failing examples are in ${LOCKSIM_EXAMPLES_DIR:-.locksim/examples}"; exit 1; }
grep -q 'testsuite ' "$build/my_lock_junit.xml"
