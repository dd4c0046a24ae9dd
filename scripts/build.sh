#!/usr/bin/env bash
# Installs what is missing, then configures and builds everything into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs="${IPUSIM_JOBS:-$(nproc)}"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja >/dev/null
fi
cmake --build build -j "$jobs"
