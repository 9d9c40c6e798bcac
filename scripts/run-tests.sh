#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run every ctest test
# (unit, property, differential against a real redis-server, live, compile-fail,
# the custom-lock example).
#
# Built without the profile-guided pass (LOCKSIM_PGO=1 turns it on): it
# changes the speed of a run, never its result (scripts/hardening.sh checks
# that two compilers at two optimisation levels sweep byte for byte alike),
# and costs a second build on a fresh machine.
#
# ctest runs in two phases. First everything but the real-time suites, two
# at a time (compiles, sweeps, the deterministic suites: CPU-bound). Then the
# suites labelled `realtime` (real servers against real deadlines: live,
# live_agreement, cp_live, cp_differential, locks_real, external_clients,
# preload, peers_smoke), two at a time beside each other only: they mostly
# wait on real time, and a compile or a CPU-bound suite beside them is what
# makes deadlines slip. The simulation is deterministic, so the first phase
# gets no second chance; a real-time suite may, on a loaded machine, miss a
# deadline, so the second phase's failures are re-run once and that run
# decides.
#
# Then the hardening passes (scripts/hardening.sh, docs/hardening.md). By
# default "clang fuzz": the Clang ASan+UBSan build whose catalog sweep must
# equal GCC's and whose deterministic suites must run clean, then each
# libFuzzer target for FUZZ_SECONDS (30 here). HARDENING=all adds the GCC
# ASan+UBSan pass (a slower compile); HARDENING="asan clang" picks passes,
# HARDENING=0 skips them all (a quick local run). Arguments given to this
# script go to ctest only.
set -euo pipefail
cd "$(dirname "$0")/.."
LOCKSIM_PGO=${LOCKSIM_PGO:-0} scripts/setup.sh

run_ctest() {
  cd build
  ctest --output-on-failure --parallel "$(nproc)" --label-exclude realtime "$@"
  local status=0
  ctest --output-on-failure --parallel 2 --label-regex realtime "$@" || status=$?
  [[ $status -eq 0 ]] && return 0
  echo "run-tests: real-time suites failed ($(cut -d: -f2 Testing/Temporary/LastTestsFailed.log | sort -u | xargs));" \
    "re-running them once"
  ctest --output-on-failure --parallel 2 --rerun-failed
}

(run_ctest "$@")
hardening=${HARDENING:-clang fuzz}
export FUZZ_SECONDS=${FUZZ_SECONDS:-30}
case "$hardening" in
  0) ;;
  all) scripts/hardening.sh ;;
  *) read -ra passes <<<"$hardening" && scripts/hardening.sh "${passes[@]}" ;;
esac
