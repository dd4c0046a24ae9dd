#!/usr/bin/env bash
# Regenerates testbench/unit/fpu/golden_vectors.txt: builds fpu_golden_gen.c for RV32IMF
# with Debian's riscv64-unknown-elf-gcc and runs it under qemu-riscv32, whose F extension
# (SoftFloat) is the oracle. Needs gcc-riscv64-unknown-elf and qemu-user (scripts/deps.sh);
# the unit test itself needs neither. The output is deterministic: rerunning it must
# leave the committed file unchanged (git diff shows any change of qemu's answers).
#
# Bulk cross-check (not committed): regen.sh --random N --seed S --out FILE writes N random
# tuples per op (times five modes) from seed S; then run
#   IPUSIM_FPU_EXTRA_VECTORS=FILE build/bin/fpu_test --gtest_filter='FpuGolden.*'
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../golden_vectors.txt"
defines=()
while [ $# -gt 0 ]; do
  case "$1" in
    --random) defines+=("-DRANDOM_TUPLES=$2"); shift 2 ;;
    --seed) defines+=("-DSEED=$2ull"); shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "regen.sh: unknown argument '$1' (use --random N, --seed S, --out FILE)" >&2; exit 2 ;;
  esac
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

riscv64-unknown-elf-gcc -O2 -march=rv32imf -mabi=ilp32f -ffreestanding -nostdlib -nostartfiles \
  "${defines[@]}" -Wl,--no-warn-rwx-segments -T "$here/rv32.ld" \
  -o "$tmp/fpu_golden_gen.elf" "$here/fpu_golden_gen.c" -lgcc
qemu-riscv32 "$tmp/fpu_golden_gen.elf" > "$tmp/golden_vectors.txt"
mv "$tmp/golden_vectors.txt" "$out"
echo "wrote $(grep -vc '^#' "$out") vectors to $out"
