#!/usr/bin/env bash
# The main demo: builds everything, then runs the host program gemm_demo
# (host_driver/examples/gemm): GEMM on the 1472 tiles of a GC200 of an IPU-M2000
# simulated in the demo's own process, weights from streaming memory, activations
# through a host stream, checked bit for bit. Arguments go to gemm_demo (e.g. a
# unix:PATH locator of a running `ipusim serve`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec build/bin/gemm_demo "$@"
