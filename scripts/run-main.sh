#!/usr/bin/env bash
# The main job: install what is missing, build, and run locksim.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/locksim list
