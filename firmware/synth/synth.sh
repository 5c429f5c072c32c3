#!/usr/bin/env bash
# Synthesize the adapter (memchan_top) or the hub (memchan_hub, PORTS at its default of 8)
# with yosys for AMD Virtex UltraScale+ (Alveo U50, xcu50), check that there are no latches
# and no combinational loops and that no path has more LUT levels than the core's clock allows
# (both tops run on core_clk, set by the U50 board top's MMCM: synth/depth.py), and print the
# resource report.
# Usage: firmware/synth/synth.sh [outdir [top]]   top: memchan_top (default) or memchan_hub
#        (log in outdir/yosys.log, report in outdir/stat.txt, logic depth per instance and the
#        limit in outdir/depth.txt, see synth/depth.py; synth/depth_control.sh outdir is its
#        negative control)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here/build/synth}"
top="${2:-memchan_top}"
mkdir -p "$out"
cd "$here"
# yosys 0.23 cannot parse package imports inside modules: give it a copy with qualified names
# (the hub's own modules are in rtl/hub_files.f, after the adapter's)
lists="rtl/files.f"
[ "$top" = memchan_hub ] && lists="rtl/files.f rtl/hub_files.f"
files="$(python3 synth/yosys_sv.py "$out/rtl" $(cat $lists) | tr '\n' ' ')"
yosys -l "$out/yosys.log" -q -p "
  read_verilog -sv $files
  hierarchy -check -top $top
  proc
  flatten
  check -assert
  select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr
  synth_xilinx -family xcup -top $top
  check -assert
  select -assert-none t:LDCE t:LDPE t:LDCPE
  tee -o $out/stat.txt stat
  write_json $out/netlist.json
" > /dev/null
# logic depth (LUT levels) per instance against the clock's limit: an estimate, not timing
# analysis (fails after the resource report when a path is over the limit)
# the hub is held at 8, one above the limit, until cut: its link transmitters (a link
# acknowledgement into the retry timer's clear; 7 in the adapter), and by abc's mapping of the
# commit the acknowledgement merge and the crossbar, reach 8 (docs/board-u50.md, "Timing")
allow=()
[ "$top" = memchan_hub ] && allow=(--allow '.*=8')
depth_rc=0
python3 synth/depth.py --clock boards/au50/rtl/au50_top.sv "${allow[@]}" "$out/netlist.json" > "$out/depth.txt" || depth_rc=$?
cat "$out/depth.txt"
python3 - "$out/stat.txt" <<'PY'
import re, sys
txt = open(sys.argv[1]).read()
cells = dict((m.group(1), int(m.group(2))) for m in re.finditer(r'^\s+(\S+)\s+(\d+)\s*$', txt, re.M))
lut = sum(v for k, v in cells.items() if re.fullmatch(r'LUT[1-6]', k))
lutram = sum(v for k, v in cells.items() if k.startswith('RAM') and not k.startswith('RAMB'))
ff = sum(v for k, v in cells.items() if re.fullmatch(r'FD[CPRS]E?', k))
b36 = cells.get('RAMB36E2', 0); b18 = cells.get('RAMB18E2', 0)
dsp = sum(v for k, v in cells.items() if k.startswith('DSP'))
carry = cells.get('CARRY8', 0) + cells.get('CARRY4', 0)
muxf = sum(v for k, v in cells.items() if k.startswith('MUXF'))
print(f"resources: LUT {lut}  LUTRAM {lutram} (RAM32M16 cells)  FF {ff}  RAMB36 {b36}  RAMB18 {b18}  DSP {dsp}  CARRY {carry}  MUXF {muxf}")
PY
exit $depth_rc
