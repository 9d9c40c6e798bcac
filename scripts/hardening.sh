#!/usr/bin/env bash
# The hardening passes CI runs after the ctest suite (scripts/run-tests.sh;
# docs/hardening.md says what each one guards):
#   clang   build-clang/: Clang with AddressSanitizer + UndefinedBehaviorSanitizer
#           and libFuzzer's coverage (-O1, every check fatal). Its `locksim`
#           sweeps the catalog and the file must equal the GCC build's byte
#           for byte (same seed, same digest, on any conforming compiler, at
#           any optimisation level), which is also the sanitized catalog
#           sweep; then the deterministic test suites run under the sanitizers.
#   fuzz    the libFuzzer targets (fuzz/) of the same build-clang/, each run
#           for FUZZ_SECONDS over its seed corpus (the catalog, the tests'
#           inputs, fuzz/corpus/). A crash leaves its input in build-clang/.
#   clang-build  only builds build-clang/ (the clang and fuzz steps' tree);
#           scripts/run-tests.sh runs it beside the real-time suites.
#   asan    build-asan/: GCC with ASan + UBSan (-O1): the deterministic suites
#           and a sanitized sweep again, under the other compiler's checks.
#           Its compile takes about twice the Release build's, so CI leaves
#           it out; `scripts/hardening.sh asan` runs it.
# `scripts/hardening.sh` runs all three; `scripts/hardening.sh clang fuzz`
# some. Each step prints its wall time. Needs build/locksim (setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
SWEEP_SEEDS=${SWEEP_SEEDS:-3}
jobs=$(nproc)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O1: fast enough for the sanitized catalog sweep (the task trampoline keeps
# the stack flat at any level: docs/hardening.md). -g1: line tables only,
# enough for the sanitizers' stack traces, and a quicker compile than -g.
debug="-O1 -g1"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# The suites that are deterministic and need no real redis-server. One
# Catch2 process runs its test cases one after another on one core, so with
# two cores they run as two processes: [catalog], the longest, beside the
# rest (ctest runs the same suites side by side in the GCC build).
deterministic_heavy="[catalog]"
# Under the sanitizers the catalog's verdict test runs 3 seeds of each story,
# not 20: the GCC suite checks the verdicts over 20, this pass looks for
# memory errors and undefined behaviour (tests/test_catalog.cpp, catalog_seeds).
export LOCKSIM_CATALOG_SEEDS=${LOCKSIM_CATALOG_SEEDS:-3}
deterministic_rest="[sim],[redis],[locks],[rules],[scenarios],[reports],[report],[runner],[perf],[sweep],[consensus]"

timed() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "hardening: $name took $((SECONDS - start)) s"
}

configure() {  # configure DIR [cmake args...]
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja "${launcher[@]}" -DLOCKSIM_WERROR=ON "$@" >/dev/null
}

deterministic_suites() {  # deterministic_suites TEST_BINARY LOG_DIR
  if ((jobs < 2)); then
    "$1" "$deterministic_heavy,$deterministic_rest"
    return
  fi
  local status=0 pid
  "$1" "$deterministic_heavy" >"$2/suites-heavy.log" 2>&1 &
  pid=$!
  "$1" "$deterministic_rest" >"$2/suites-rest.log" 2>&1 || status=$?
  wait "$pid" || status=$?
  cat "$2/suites-heavy.log" "$2/suites-rest.log"
  return "$status"
}

catalog_sweep() {  # catalog_sweep BINARY OUT
  "$1" sweep --seeds "$SWEEP_SEEDS" --jobs "$jobs" --quiet --out "$2"
}

asan() {
  configure build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="$debug" -DCMAKE_CXX_FLAGS="$sanitize" \
    -DLOCKSIM_DETERMINISTIC_TESTS_ONLY=ON
  cmake --build build-asan --parallel "$jobs" --target locksim locksim_tests
  deterministic_suites build-asan/tests/locksim_tests build-asan
  catalog_sweep build-asan/locksim build-asan/catalog-sweep.jsonl
}

# One Clang tree for the determinism check, the sanitized suites and the
# fuzz targets: -fsanitize=fuzzer-no-link instruments the libraries for
# libFuzzer and leaves the other binaries ordinary programs. UBSan's
# `function` check is off: with coverage on, Clang 14 cannot assemble
# coroutine code it instruments ("Cannot represent a difference across
# sections"); every other UBSan check is on.
configure_clang() {
  configure build-clang -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++-14 -DLOCKSIM_FUZZ=ON \
    -DLOCKSIM_DETERMINISTIC_TESTS_ONLY=ON -DCMAKE_CXX_FLAGS_DEBUG="$debug" \
    -DCMAKE_CXX_FLAGS="$sanitize -fno-sanitize=function -fsanitize=fuzzer-no-link"
}

fuzz_targets=(fuzz_scenario fuzz_jsonl fuzz_replay fuzz_redis_engine)

clang_build() {
  configure_clang
  cmake --build build-clang --parallel "$jobs" --target locksim locksim_tests "${fuzz_targets[@]}"
}

clang_pass() {
  configure_clang
  timed "the clang build" cmake --build build-clang --parallel "$jobs" --target locksim locksim_tests
  catalog_sweep build/locksim build-clang/gcc-sweep.jsonl
  timed "the sanitized catalog sweep" catalog_sweep build-clang/locksim build-clang/clang-sweep.jsonl
  if ! cmp -s build-clang/gcc-sweep.jsonl build-clang/clang-sweep.jsonl; then
    echo "hardening: the Clang and GCC builds disagree (first differing lines):" >&2
    diff build-clang/gcc-sweep.jsonl build-clang/clang-sweep.jsonl | head -4 >&2
    return 1
  fi
  echo "hardening: clang (sanitized) and gcc sweeps identical ($(wc -l <build-clang/gcc-sweep.jsonl) runs)"
  timed "the deterministic suites (sanitized)" deterministic_suites build-clang/tests/locksim_tests build-clang
}

# Seed corpora: fuzz/corpus/<target>/ plus inputs taken from the catalog and
# from a small sweep, so every target starts from valid inputs.
fuzz_corpus() {
  local c=build-clang/corpus
  mkdir -p "$c"/{scenario,jsonl,replay,redis_engine}
  cp fuzz/corpus/scenario/* scenarios/catalog/*.toml "$c/scenario/"
  cp fuzz/corpus/redis_engine/* "$c/redis_engine/"
  cp fuzz/corpus/replay/* "$c/replay/"
  build/locksim sweep --scenario gc-pause,replica-failover,random-nemesis --seeds 2 --quiet --out "$c/jsonl/sweep.jsonl"
  head -n 1 "$c/jsonl/sweep.jsonl" >"$c/replay/json_line"
}

fuzz() {
  configure_clang
  cmake --build build-clang --parallel "$jobs" --target "${fuzz_targets[@]}"
  fuzz_corpus
  # libFuzzer runs one process on one core: the targets run $jobs at a time,
  # each still FUZZ_SECONDS on a core of its own (2 cores: 2 x 30 s of wall
  # time for the four, not 4 x 30 s).
  local targets=(scenario jsonl replay redis_engine) pids=() target i failed=0
  for ((i = 0; i < ${#targets[@]}; i += jobs)); do
    pids=()
    for target in "${targets[@]:i:jobs}"; do
      (cd build-clang && exec ./fuzz/fuzz_$target -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
        -max_len=8192 -print_final_stats=0 corpus/$target 2>fuzz-$target.log) &
      pids+=($!)
    done
    for target in "${targets[@]:i:jobs}"; do
      if wait "${pids[0]}"; then
        echo "hardening: fuzz_$target ran ${FUZZ_SECONDS} s clean ($(grep -o 'cov: [0-9]*' build-clang/fuzz-$target.log | tail -1))"
      else
        echo "hardening: fuzz_$target found a crash (build-clang/fuzz-$target.log, the input is in build-clang/):" >&2
        tail -n 30 build-clang/fuzz-$target.log >&2
        failed=1
      fi
      pids=("${pids[@]:1}")
    done
    ((failed == 0)) || return 1
  done
}

steps=("$@")
((${#steps[@]})) || steps=(clang fuzz asan)
for step in "${steps[@]}"; do
  case $step in
    asan) timed "asan (build + suites + catalog sweep)" asan ;;
    clang-build) timed "the clang build (locksim, tests, fuzz targets)" clang_build ;;
    clang) timed "clang (sanitized build + two sweeps + suites)" clang_pass ;;
    fuzz) timed "fuzz (build + 4 x ${FUZZ_SECONDS} s)" fuzz ;;
    *) echo "hardening: unknown step '$step' (asan, clang, clang-build, fuzz)" >&2; exit 2 ;;
  esac
done
