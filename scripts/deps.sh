#!/usr/bin/env bash
# Installs the Debian packages ipusim builds and tests with. Idempotent: when
# everything is already there it prints nothing and touches nothing.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache pkg-config
  libsystemc-dev verilator yosys z3 gtkwave
  lcov  # genhtml: the RTL coverage report (scripts/rtl_coverage.py)
  libboost-dev libyaml-cpp-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf binutils-riscv64-unknown-elf
  qemu-user
  zlib1g-dev libzstd-dev
  libxbyak-dev
  gdb-multiarch libdw-dev
  libpng-dev  # the memory report's tile map (docs/memory_report.md)
  valgrind golang-go  # callgrind_annotate and `go tool pprof` read --profile files (docs/profiling.md)
  openmpi-bin libopenmpi-dev  # mpirun, MPI: a system over ranks (docs/distributed.md)
  clang libclang-rt-14-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "ipusim: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
