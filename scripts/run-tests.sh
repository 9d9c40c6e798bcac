#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run every ctest test
# (unit, property, differential against a real redis-server, compile-fail).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
ctest --output-on-failure --parallel "$(nproc)" "$@"
