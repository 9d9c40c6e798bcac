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
# decides. The Clang tree of the hardening passes builds beside both
# phases, under SCHED_IDLE (below).
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
hardening=${HARDENING:-clang fuzz}
export FUZZ_SECONDS=${FUZZ_SECONDS:-30}

ctest_phase() { (cd build && ctest --output-on-failure "$@"); }

# The real-time phase leaves most of the CPU idle, and the first phase some
# (its longest suites run one core each), so the Clang tree the hardening
# passes need is built beside them under SCHED_IDLE (and idle I/O):
# the kernel runs it only when no test wants the core, and a test that wakes
# preempts it at once, so the tests' deadlines see it as little as possible.
clang_build_pid=
start_clang_build() {
  [[ $hardening == all || $hardening == *clang* || $hardening == *fuzz* ]] || return 0
  mkdir -p build-clang
  local idle=(nice -n 19)
  command -v chrt >/dev/null && idle=(chrt --idle 0 "${idle[@]}")
  command -v ionice >/dev/null && idle+=(ionice -c 3)
  # A process group of its own, so an exit of this script stops the compilers too.
  setsid "${idle[@]}" scripts/hardening.sh clang-build >build-clang/background-build.log 2>&1 &
  clang_build_pid=$!
}
stop_clang_build() { [[ -z $clang_build_pid ]] || kill -- "-$clang_build_pid" 2>/dev/null || true; }
trap stop_clang_build EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
finish_clang_build() {
  [[ -n $clang_build_pid ]] || return 0
  local status=0
  wait "$clang_build_pid" || status=$?
  clang_build_pid=
  tail -n 1 build-clang/background-build.log
  ((status == 0)) || { cat build-clang/background-build.log >&2; return "$status"; }
}

start_clang_build
ctest_phase --parallel "$(nproc)" --label-exclude realtime "$@"
status=0
ctest_phase --parallel 2 --label-regex realtime "$@" || status=$?
if ((status != 0)); then
  echo "run-tests: real-time suites failed ($(cut -d: -f2 build/Testing/Temporary/LastTestsFailed.log | sort -u | xargs));" \
    "re-running them once"
  ctest_phase --parallel 2 --rerun-failed
fi
finish_clang_build
case "$hardening" in
  0) ;;
  all) scripts/hardening.sh ;;
  *) read -ra passes <<<"$hardening" && scripts/hardening.sh "${passes[@]}" ;;
esac
