#!/usr/bin/env bash
# Builds the iss_speed matmul kernel twice from the same mm.c: tile.elf for the ISS and
# qemu.elf for `qemu-riscv32` (Linux user mode), plus tile_workers.elf (the same work on
# six workers), then runs iss_speed on them.
#   bench/iss_speed_mm/build.sh OUTDIR [path/to/iss_speed]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: build.sh OUTDIR [iss_speed]}"
mkdir -p "$out"
cc=(riscv64-unknown-elf-gcc -O2 -march=rv32imf -mabi=ilp32f --specs=picolibc.specs -nostartfiles)
"${cc[@]}" -T "$here/link.ld" "$here/crt0.S" "$here/console.c" "$here/mm.c" -o "$out/tile.elf"
"${cc[@]}" -T "$here/qemu.ld" "$here/qemu_shim.c" "$here/mm.c" -o "$out/qemu.elf" 2>/dev/null
"${cc[@]}" -T "$here/link.ld" "$here/crt0.S" "$here/console.c" "$here/mm_workers.c" -o "$out/tile_workers.elf"
if [ $# -ge 2 ]; then
  "$2" --elf "$out/tile.elf" --qemu-elf "$out/qemu.elf" --reps 3
  "$2" --elf "$out/tile_workers.elf" --reps 3
fi
