#!/usr/bin/env bash
# The hardening passes CI runs after the ctest suite (scripts/run-tests.sh;
# docs/hardening.md says what each one guards):
#   asan    build-asan/: GCC with AddressSanitizer + UndefinedBehaviorSanitizer
#           (-O1, every UB check fatal); the deterministic test suites, then a
#           sanitized sweep of the whole catalog.
#   clang   build-clang/: the `locksim` binary built by Clang; it sweeps the
#           catalog and its file must equal the GCC build's byte for byte
#           (same seed, same digest, on any conforming compiler).
#   fuzz    build-fuzz/: the libFuzzer targets (fuzz/) with ASan, each
#           run for FUZZ_SECONDS over its seed corpus (the catalog, the tests'
#           inputs, fuzz/corpus/). A crash leaves its input in build-fuzz/.
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
# The suites that are deterministic and need no real redis-server.
deterministic_suites="[sim],[redis],[locks],[rules],[scenarios],[reports],[report],[runner],[catalog],[perf],[sweep],[consensus]"

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

catalog_sweep() {  # catalog_sweep BINARY OUT
  "$1" sweep --seeds "$SWEEP_SEEDS" --jobs "$jobs" --quiet --out "$2"
}

asan() {
  configure build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="$debug" -DCMAKE_CXX_FLAGS="$sanitize" \
    -DLOCKSIM_DETERMINISTIC_TESTS_ONLY=ON
  cmake --build build-asan --parallel "$jobs" --target locksim locksim_tests
  build-asan/tests/locksim_tests "$deterministic_suites"
  catalog_sweep build-asan/locksim build-asan/catalog-sweep.jsonl
}

clang_determinism() {
  configure build-clang -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-14
  cmake --build build-clang --parallel "$jobs" --target locksim
  catalog_sweep build/locksim build-clang/gcc-sweep.jsonl
  catalog_sweep build-clang/locksim build-clang/clang-sweep.jsonl
  if ! cmp -s build-clang/gcc-sweep.jsonl build-clang/clang-sweep.jsonl; then
    echo "hardening: the Clang and GCC builds disagree (first differing lines):" >&2
    diff build-clang/gcc-sweep.jsonl build-clang/clang-sweep.jsonl | head -4 >&2
    return 1
  fi
  echo "hardening: clang and gcc sweeps identical ($(wc -l <build-clang/gcc-sweep.jsonl) runs)"
}

# Seed corpora: fuzz/corpus/<target>/ plus inputs taken from the catalog and
# from a small sweep, so every target starts from valid inputs.
fuzz_corpus() {
  local c=build-fuzz/corpus
  mkdir -p "$c"/{scenario,jsonl,replay,redis_engine}
  cp fuzz/corpus/scenario/* scenarios/catalog/*.toml "$c/scenario/"
  cp fuzz/corpus/redis_engine/* "$c/redis_engine/"
  cp fuzz/corpus/replay/* "$c/replay/"
  build/locksim sweep --scenario gc-pause,replica-failover,random-nemesis --seeds 2 --quiet --out "$c/jsonl/sweep.jsonl"
  head -n 1 "$c/jsonl/sweep.jsonl" >"$c/replay/json_line"
}

# ASan only: Clang 14 fails to assemble coroutine code compiled with UBSan and
# coverage together ("Cannot represent a difference across sections");
# UBSan runs in the asan pass (GCC).
fuzz() {
  configure build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++-14 -DLOCKSIM_FUZZ=ON \
    -DCMAKE_CXX_FLAGS_DEBUG="$debug" -DCMAKE_CXX_FLAGS="-fsanitize=address -fno-omit-frame-pointer -fsanitize=fuzzer-no-link"
  cmake --build build-fuzz --parallel "$jobs" --target fuzz_scenario fuzz_jsonl fuzz_replay fuzz_redis_engine
  fuzz_corpus
  for target in scenario jsonl replay redis_engine; do
    (cd build-fuzz && ./fuzz/fuzz_$target -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
      -max_len=8192 -print_final_stats=0 corpus/$target 2>fuzz-$target.log) || {
      echo "hardening: fuzz_$target found a crash (build-fuzz/fuzz-$target.log, the input is in build-fuzz/):" >&2
      tail -n 30 build-fuzz/fuzz-$target.log >&2
      return 1
    }
    echo "hardening: fuzz_$target ran ${FUZZ_SECONDS} s clean ($(grep -o 'cov: [0-9]*' build-fuzz/fuzz-$target.log | tail -1))"
  done
}

steps=("$@")
((${#steps[@]})) || steps=(asan clang fuzz)
for step in "${steps[@]}"; do
  case $step in
    asan) timed "asan (build + suites + catalog sweep)" asan ;;
    clang) timed "clang determinism (build + two sweeps)" clang_determinism ;;
    fuzz) timed "fuzz (build + 4 x ${FUZZ_SECONDS} s)" fuzz ;;
    *) echo "hardening: unknown step '$step' (asan, clang, fuzz)" >&2; exit 2 ;;
  esac
done
