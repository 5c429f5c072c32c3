#!/usr/bin/env bash
# yosys elaboration of the board top: the RTL (adapter, glue, board modules) with the vendor IP
# and library primitives as black boxes (their port-list stubs, read with -lib). Fails on a
# latch or a combinational loop anywhere in the RTL around them.
# Usage: check/elaborate.sh OUTDIR TOP FILE... (run from firmware/; the Makefile's check does)
set -euo pipefail
out="$1"
top="$2"
shift 2
board=boards/au50
mkdir -p "$out"
# yosys 0.23 cannot parse package imports inside modules: the copy synth/yosys_sv.py makes
files="$(python3 synth/yosys_sv.py "$out/rtl" "$@" | tr '\n' ' ')"
stubs="$(ls $board/ip_stubs/*.sv $board/ip_stubs/unisim/*.sv | tr '\n' ' ')"
yosys -l "$out/yosys.log" -q -p "
  read_verilog -sv -lib $stubs
  read_verilog -sv $files
  hierarchy -check -top $top
  proc
  flatten
  check -assert
  select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr
  tee -o $out/blackboxes.txt select -list t:au50_* t:IBUFDS* t:BUFG t:DNA_PORTE2 t:MMCME4_BASE
" > /dev/null 2> "$out/yosys.stderr" || { tail -5 "$out/yosys.stderr" >&2; exit 1; }
echo "yosys: $top elaborated with $(wc -l < "$out/blackboxes.txt") black boxes; no latches, no combinational loops"
