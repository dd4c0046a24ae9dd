#!/usr/bin/env bash
# Builds everything and runs the whole test suite (ctest, every test with a timeout).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
jobs="${IPUSIM_JOBS:-$(nproc)}"
ctest --test-dir build --output-on-failure -j "$jobs" "$@"
