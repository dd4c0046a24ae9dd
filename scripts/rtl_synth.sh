#!/usr/bin/env bash
# Synthesises an RTL block with yosys and checks its cell count against the block doc.
#
#   rtl_synth.sh <README.md> <label> <top> "<param=value ...>" <sources...>
#
# The block doc's table has a row whose first cell is <label> and whose last cell is the
# total cell count yosys reports for <top> with those parameters (generic `synth`, so the
# figure is technology-independent and the same on every machine with the same yosys).
# A mismatch fails with both numbers: update the table with the RTL, so a designer sees
# what the change costs.
set -euo pipefail
[ $# -ge 5 ] || { echo "usage: $0 README LABEL TOP \"PARAMS\" SOURCES..." >&2; exit 2; }
readme=$1 label=$2 top=$3 params=$4
shift 4
yosys=${IPUSIM_YOSYS:-yosys}

chparams=""
for p in $params; do
  name=${p%%=*} value=${p#*=}
  [ "$name" != "$p" ] || { echo "rtl_synth: parameter '$p' is not NAME=VALUE" >&2; exit 2; }
  chparams+="chparam -set $name $value $top; "
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$yosys" -q -l "$log" -p "read_verilog -sv $*; ${chparams}synth -top $top; tee -o /dev/stdout stat" >/dev/null 2>&1; then
  echo "rtl_synth: yosys failed on $top ($label: $params):" >&2
  grep -iE "error|warning" "$log" >&2 || tail -20 "$log" >&2
  exit 1
fi
cells=$(grep -E "^ +Number of cells: +[0-9]+" "$log" | tail -1 | awk '{print $4}')
[ -n "$cells" ] || { echo "rtl_synth: no cell count in yosys's output for $top" >&2; exit 1; }

row=$(grep -E "^\| *$label *\|" "$readme" || true)
if [ -z "$row" ]; then
  echo "rtl_synth: $readme has no table row '| $label | ... | cells |'; yosys counts $cells cells for $top ($params)" >&2
  exit 1
fi
documented=$(echo "$row" | awk -F'|' '{v=$(NF-1); gsub(/[ ,]/, "", v); print v}')
if [ "$documented" != "$cells" ]; then
  echo "rtl_synth: $top ($label: $params): yosys counts $cells cells, $readme says $documented: update its table" >&2
  exit 1
fi
echo "rtl_synth: $top ($label: $params): $cells cells, as $readme says"
