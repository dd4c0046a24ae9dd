#!/usr/bin/env bash
# The main demo: builds everything, then loads the hello firmware onto every tile of a
# full GC200 chip (1472 tiles) and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec build/bin/ipusim run --config configs/gc200.yaml --elf build/firmware/hello.elf "$@"
