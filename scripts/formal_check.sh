#!/usr/bin/env bash
# Bounded model check of an RTL block's formal harness with yosys-smtbmc and z3.
#
#   formal_check.sh <depth> <top> "<param=value ...>" <sources...>
#
# yosys reads the RTL and the harness (hw/<block>/formal/) with -formal, so the harness's
# immediate assert / assume and (* anyconst *) become SMT-LIB 2 properties; yosys-smtbmc
# then checks every assertion in every step from 0 to depth - 1. Fails with the failing
# assertion's file:line and a counterexample trace (<top>.vcd in $IPUSIM_FORMAL_DIR, or a
# temporary directory) when one is reachable.
#
# z3 is run on the unrolled problem as plain bit vectors, without its incremental core
# (combined_solver.ignore_solver1): it then bit-blasts each step's query to SAT. The
# incremental core, yosys-smtbmc's default, had not finished step 0 of the sync
# controller's check after a minute; bit-blasted, its 14 steps take seconds.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 DEPTH TOP \"PARAMS\" SOURCES..." >&2; exit 2; }
depth=$1 top=$2 params=$3
shift 3
yosys=${IPUSIM_YOSYS:-yosys}
smtbmc=${IPUSIM_YOSYS_SMTBMC:-yosys-smtbmc}
command -v z3 >/dev/null || { echo "formal_check: z3 is not installed (scripts/deps.sh)" >&2; exit 2; }

chparams=""
for p in $params; do
  name=${p%%=*} value=${p#*=}
  [ "$name" != "$p" ] || { echo "formal_check: parameter '$p' is not NAME=VALUE" >&2; exit 2; }
  chparams+="chparam -set $name $value $top; "
done

dir=${IPUSIM_FORMAL_DIR:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
start=$(date +%s%N)
# memory_map: the solver is given plain bit vectors (no SMT arrays); async2sync and
# dffunmap: the asynchronous resets become synchronous logic yosys-smtbmc can step.
# -DSYNTHESIS: -formal leaves SYNTHESIS undefined, and the RTL's own SVA section (its DPI
# calls are Verilator's, docs/cosim.md "Assertions and coverage") is fenced by it; the
# harness states the properties proven here.
if ! "$yosys" -q -l "$dir/$top.yosys.log" -p "read_verilog -sv -formal -DSYNTHESIS $*; ${chparams}prep -top $top; \
    memory_map; opt -fast; async2sync; dffunmap; write_smt2 -wires $dir/$top.smt2" >/dev/null 2>&1; then
  echo "formal_check: yosys failed on $top:" >&2
  grep -iE "error" "$dir/$top.yosys.log" >&2 || tail -20 "$dir/$top.yosys.log" >&2
  exit 1
fi
status=0
"$smtbmc" -s z3 --unroll --logic QF_BV -S combined_solver.ignore_solver1=true --noprogress \
  -t "$depth" --dump-vcd "$dir/$top.vcd" "$dir/$top.smt2" > "$dir/$top.smtbmc.log" 2>&1 || status=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
seconds=$((ms / 1000)).$(printf %03d $((ms % 1000)))
if [ $status -ne 0 ] || ! grep -q "Status: PASSED" "$dir/$top.smtbmc.log"; then
  grep -E "failed|Assert|Error|Status" "$dir/$top.smtbmc.log" >&2 || tail -20 "$dir/$top.smtbmc.log" >&2
  echo "formal_check: $top FAILED at depth $depth ($params) after ${seconds}s; trace: $dir/$top.vcd" >&2
  [ -n "${IPUSIM_FORMAL_DIR:-}" ] || echo "formal_check: set IPUSIM_FORMAL_DIR to keep the trace" >&2
  exit 1
fi
echo "formal_check: $top ($params): every assertion holds to depth $depth (${seconds} s)"
