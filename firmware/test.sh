#!/usr/bin/env bash
# firmware/test.sh: everything CI runs for the FPGA adapter RTL.
#   installs verilator, iverilog, yosys if missing (Debian 12 packages),
#   regmap check, verilator lint, parameter-check test, every bench, the co-simulated board's
#   device process (cosim/build.sh), yosys synthesis
#   (no latches, no combinational loops), resource report.
# Ends with "firmware: N passed, N failed"; exit status non-zero on any failure.
# Environment: FW_SEEDS="1 2 3" seeds for the random benches (default "1 2 3 4 5 6").
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$here"
build="$here/build"
mkdir -p "$build"
passed=0
failed=0
seeds="${FW_SEEDS:-1 2 3 4 5 6}"

step() {   # step NAME COMMAND...: run, log to build/NAME.log, count
  local name="$1"; shift
  local t0=$SECONDS
  if "$@" > "$build/$name.log" 2>&1; then
    passed=$((passed + 1)); echo "PASS  $name ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1)); echo "FAIL  $name ($((SECONDS - t0)) s), last lines of build/$name.log:"
    tail -n 15 "$build/$name.log" | sed 's/^/      /'
  fi
}

# ---- tools ----
"$root/scripts/need-packages" verilator iverilog yosys ||
  { echo "firmware: 0 passed, 1 failed"; exit 1; }

timed() {     # timed NAME COMMAND...: runs, logs to build/NAME.log, leaves "status seconds" in build/NAME.status
  local name="$1" t0; shift
  t0=$(date +%s)
  "$@" > "$build/$name.log" 2>&1
  echo "$? $(($(date +%s) - t0))" > "$build/$name.status"
}
collect() {   # collect NAME: waits for a step started in the background, then counts it as step does
  local name="$1" rc secs
  while [ ! -f "$build/$name.status" ]; do sleep 1; done
  read -r rc secs < "$build/$name.status"
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1)); echo "PASS  $name ($secs s, beside the benches)"
  else
    failed=$((failed + 1)); echo "FAIL  $name ($secs s, beside the benches), last lines of build/$name.log:"
    tail -n 15 "$build/$name.log" | sed 's/^/      /'
  fi
}
# yosys is single-threaded and reads only the RTL: the two syntheses (about 4 minutes) run one
# after the other on the second core while the benches run; collected at the end
rm -f "$build/synth.status" "$build/synth_hub.status"
( timed synth synth/synth.sh "$build/synth"
  timed synth_hub synth/synth.sh "$build/synth_hub" memchan_hub ) &

RTL="-f rtl/files.f"
TBC="tb/common/tb_score_pkg.sv tb/common/tb_host_mem.sv tb/common/tb_link_chan.sv tb/common/tb_adapter.sv"
# benches build without C++ optimization: compile time dominates, the runs take seconds
VFLAGS="--binary --timing -O1 -j 2 -Wno-fatal -Wno-WIDTH -Wno-UNUSED -MAKEFLAGS OPT_FAST=-O0 -MAKEFLAGS OPT_SLOW=-O0 -MAKEFLAGS OPT_GLOBAL=-O0"

# ---- register map is generated and fresh ----
step regmap_check python3 "$root/regmap/gen.py" --check

# ---- lint: the whole adapter, all warnings ----
step lint verilator --lint-only -Wall lint/verilator.vlt $RTL --top-module memchan_top

# ---- parameter checks fire at elaboration (this must FAIL to elaborate) ----
param_check() {
  if verilator --lint-only -Wall lint/verilator.vlt $RTL --top-module memchan_top -GPAGE_SIZE=5000; then
    echo "PAGE_SIZE=5000 elaborated: parameter check missing"; return 1
  fi
  echo "PAGE_SIZE=5000 rejected at elaboration, as it must be"
}
step param_check param_check

# ---- the hub: lint, and PORTS beyond 32 rejected at elaboration ----
step hub_lint verilator --lint-only -Wall lint/verilator.vlt $RTL -f rtl/hub_files.f --top-module memchan_hub
hub_param_check() {
  if verilator --lint-only -Wall lint/verilator.vlt $RTL -f rtl/hub_files.f --top-module memchan_hub -GPORTS=33; then
    echo "PORTS=33 elaborated: parameter check missing"; return 1
  fi
  echo "PORTS=33 rejected at elaboration, as it must be"
}
step hub_param_check hub_param_check

# ---- benches ----
bench() {   # bench NAME TOP FILES... ; build once, run with the given plusargs
  local name="$1" top="$2"; shift 2
  verilator $VFLAGS --Mdir "$build/$name" $RTL "$@" --top-module "$top" -o "$top"
}
run() {     # run NAME TOP PLUSARGS...: the bench must exit 0 and print PASS
  local name="$1" top="$2"; shift 2
  "$build/$name/$top" "$@" | tee "$build/$name.run.log" | tail -n 30
  [ "${PIPESTATUS[0]}" -eq 0 ] && grep -q "PASS" "$build/$name.run.log"
}

step crc_build      verilator --binary --timing -O1 -Wno-fatal --Mdir "$build/crc" rtl/memchan_crc32.sv tb/crc/tb_crc.sv --top-module tb_crc -o tb_crc
step crc_verilator  run crc tb_crc
crc_iverilog() {
  iverilog -g2012 -o "$build/crc/tb_crc.vvp" rtl/memchan_crc32.sv tb/crc/tb_crc.sv &&
  vvp -n "$build/crc/tb_crc.vvp" | tee "$build/crc_iverilog.run.log" && grep -q PASS "$build/crc_iverilog.run.log"
}
step crc_iverilog crc_iverilog

# Icarus Verilog 11 (second simulator): the whole adapter elaborates, the FIFO bench runs.
# The RTL goes through lint/icarus_sv.sh (two mechanical rewrites, see there); the benches
# that use tb/common need associative arrays, void casts and break, which Icarus 11 lacks.
icarus_elab() {   # icarus_elab TOP BAD_PARAM=VALUE FILE_LIST...: elaborates; BAD_PARAM rejected
  local top="$1" bad="$2" files; shift 2
  files="$(lint/icarus_sv.sh "$build/icarus" $(cat "$@") | tr '\n' ' ')"
  iverilog -g2012 -o "$build/icarus/$top.vvp" -s "$top" $files &&
  vvp -n "$build/icarus/$top.vvp" || return 1
  # the parameter checks fire under Icarus too (at time 0)
  iverilog -g2012 -P"$top.$bad" -o "$build/icarus/bad_$top.vvp" -s "$top" $files &&
  if vvp -n "$build/icarus/bad_$top.vvp"; then echo "$bad accepted under Icarus"; return 1; fi
  echo "$top elaborates under Icarus; $bad rejected"
}
step icarus_rtl icarus_elab memchan_top PAGE_SIZE=5000 rtl/files.f
# the hub too (its benches use tb/common, see above)
step icarus_hub icarus_elab memchan_hub PORTS=33 rtl/files.f rtl/hub_files.f
fifo_iverilog() {
  lint/icarus_sv.sh "$build/icarus" rtl/memchan_ram_sdp.sv rtl/memchan_fifo.sv > /dev/null &&
  iverilog -g2012 -o "$build/icarus/tb_fifo.vvp" -s tb_fifo "$build/icarus/memchan_ram_sdp.sv" \
    "$build/icarus/memchan_fifo.sv" tb/fifo/tb_fifo.sv &&
  vvp -n "$build/icarus/tb_fifo.vvp" | tee "$build/fifo_iverilog.run.log" && grep -q PASS "$build/fifo_iverilog.run.log"
}
step fifo_build     verilator --binary --timing -O1 -Wno-fatal --Mdir "$build/fifo" rtl/memchan_ram_sdp.sv rtl/memchan_fifo.sv tb/fifo/tb_fifo.sv --top-module tb_fifo -o tb_fifo
step fifo           run fifo tb_fifo
step fifo_iverilog  fifo_iverilog

skid_iverilog() {
  lint/icarus_sv.sh "$build/icarus" rtl/memchan_skid.sv > /dev/null &&
  iverilog -g2012 -o "$build/icarus/tb_skid.vvp" -s tb_skid "$build/icarus/memchan_skid.sv" \
    tb/skid/tb_skid.sv &&
  vvp -n "$build/icarus/tb_skid.vvp" | tee "$build/skid_iverilog.run.log" && grep -q PASS "$build/skid_iverilog.run.log"
}
step skid_build     verilator --binary --timing -O1 -Wno-fatal --Mdir "$build/skid" rtl/memchan_skid.sv tb/skid/tb_skid.sv --top-module tb_skid -o tb_skid
step skid           run skid tb_skid
step skid_iverilog  skid_iverilog

step selftest_build bench selftest tb_selftest $TBC tb/selftest/tb_selftest.sv
for s in $seeds; do step "selftest_seed$s" run selftest tb_selftest +seed=$s; done

step b2b_build bench b2b tb_b2b $TBC tb/common/tb_pair.sv tb/b2b/tb_b2b.sv
for s in $seeds; do step "b2b_seed$s" run b2b tb_b2b +seed=$s +rounds=6; done

step link_errors_build bench link_errors tb_link_errors $TBC tb/common/tb_pair.sv tb/link_errors/tb_link_errors.sv
for s in $seeds; do step "link_errors_seed$s" run link_errors tb_link_errors +seed=$s; done

step features_build bench features tb_features $TBC tb/common/tb_pair.sv tb/features/tb_features.sv
for s in $seeds; do step "features_seed$s" run features tb_features +seed=$s; done

step vhub_build bench vhub tb_vhub $TBC tb/common/tb_pair.sv tb/vhub/tb_vhub.sv
for s in $seeds; do step "vhub_seed$s" run vhub tb_vhub +seed=$s +rounds=64; done

# the hub: 4 (+nodes=8: 8) adapters on an 8-port memchan_hub (docs/firmware.md "The hub"),
# one build for all of its runs (rtl/hub_files.f: the hub's own modules, after rtl/files.f)
HUBC="-f rtl/hub_files.f $TBC tb/common/tb_hub_net.sv"
step hub_build bench hub tb_hub $HUBC tb/hub/tb_hub.sv
for s in $seeds; do step "hub_seed$s" run hub tb_hub +seed=$s +rounds=12; done
step hub_backpressure run hub tb_hub +seed=7 +rounds=12 +bp=60
# 5000 ppm on every cable: frames, LNAKs and LACKs are lost on both hops of every path
for s in 8 9 10; do step "hub_bitflips_seed$s" run hub tb_hub +seed=$s +rounds=12 +flips=5000; done
for s in 1 2; do step "hub8_seed$s" run hub tb_hub +seed=$s +rounds=12 +nodes=8; done
# port supervision: one node's cables cut in the middle of the traffic, then healed
for s in 1 2 3; do step "hub_cut_seed$s" run hub tb_hub +seed=$s +rounds=6 +cut; done
grep -h "^hub: PASS" "$build"/hub8_seed*.log "$build"/hub_cut_seed*.log 2> /dev/null
# negative controls, one build: the hub without port supervision (SUPERVISION=0) must FAIL the
# port cut (a barrier waits forever on the cut node, or no node-down report), and with
# multicast sent everywhere (MCAST_FILTER=0) it must FAIL on a non-member's link
hub_controls() {
  verilator $VFLAGS --Mdir "$build/hub_controls" $RTL $HUBC tb/hub/tb_hub.sv --top-module tb_hub \
    -GNN=4 -GSUPERVISION=0 -GMCAST_FILTER=0 -o tb_hub || return 1
  if "$build/hub_controls/tb_hub" +seed=1 +rounds=6 +cut +mcast=0 > "$build/hub_nosup.run.log" 2>&1; then
    echo "SUPERVISION=0 passed the port cut: the bench proves nothing"; return 1
  fi
  tail -n 2 "$build/hub_nosup.run.log"
  grep -qE "timeout waiting for barrier DONE|down not reported" "$build/hub_nosup.run.log" || return 1
  if "$build/hub_controls/tb_hub" +seed=1 +rounds=12 > "$build/hub_mcast_all.run.log" 2>&1; then
    echo "MCAST_FILTER=0 passed: the membership check proves nothing"; return 1
  fi
  tail -n 2 "$build/hub_mcast_all.run.log"
  grep -q "not a member" "$build/hub_mcast_all.run.log"
}
step hub_controls hub_controls
# rule 2 with 4 senders and 4 receivers (bid lock / IRIW); the same bench with the hub's
# broadcast synchronization off (BCAST_SYNC=0) must FAIL with "rule 2 violated"
step hub_order_build bench hub_order tb_hub_order $HUBC tb/hub_order/tb_hub_order.sv
for s in $seeds; do step "hub_order_seed$s" run hub_order tb_hub_order +seed=$s +rounds=48; done
hub_order_unsync() {
  verilator $VFLAGS --Mdir "$build/hub_order_unsync" $RTL $HUBC tb/hub_order/tb_hub_order.sv \
    --top-module tb_hub_order -GSYNC=0 -o tb_hub_order || return 1
  if "$build/hub_order_unsync/tb_hub_order" +seed=1 +rounds=48 > "$build/hub_order_unsync.run.log" 2>&1; then
    echo "BCAST_SYNC=0 passed: the ordering bench proves nothing"; return 1
  fi
  tail -n 3 "$build/hub_order_unsync.run.log"
  grep -q "rule 2 violated" "$build/hub_order_unsync.run.log"
}
step hub_order_unsync hub_order_unsync
# measurements: 8 adapters on the hub, bisection (4 disjoint pairs, each >= 90 % of the pair
# alone) and broadcast vs point-to-point, same-run ratios (docs/performance.md "Hub")
step hub_perf_build bench hub_perf tb_hub_perf $HUBC tb/hub_perf/tb_hub_perf.sv
step hub_perf run hub_perf tb_hub_perf
grep "^PERF hub" "$build/hub_perf.run.log" 2> /dev/null

# the global clock (docs/firmware.md "Global clock"): 4 adapters on a hub and 2 back to back,
# skew against the master within the stated bound through stalls, traffic and bit flips;
# the same bench without sync frames (SYNC=0) must FAIL with "clock skew"
CLOCKC="$HUBC tb/common/tb_pair.sv tb/clock/tb_clock_mon.sv tb/clock/tb_clock.sv"
step clock_build bench clock tb_clock $CLOCKC
for s in 1 2 3; do step "clock_seed$s" run clock tb_clock +seed=$s; done
clock_unsync() {
  verilator $VFLAGS --Mdir "$build/clock_unsync" $RTL $CLOCKC --top-module tb_clock -GSYNC=0 \
    -o tb_clock || return 1
  if "$build/clock_unsync/tb_clock" +seed=1 > "$build/clock_unsync.run.log" 2>&1; then
    echo "SYNC=0 passed: the clock bench proves nothing"; return 1
  fi
  tail -n 3 "$build/clock_unsync.run.log"
  grep -q "clock skew" "$build/clock_unsync.run.log"
}
step clock_unsync clock_unsync
grep -h "^CLOCK" "$build/clock.run.log" 2> /dev/null
# the clock's two ends alone (master and slave memchan_global_clock over a modelled link), in
# both simulators; without sync frames (SYNC=0) it must FAIL with "clock skew" in both
CLOCKU="rtl/memchan_pkt_pkg.sv rtl/memchan_clock_sync_tx.sv rtl/memchan_global_clock.sv"
step clock_unit_build verilator --binary --timing -O1 -Wno-fatal -Wno-WIDTH --Mdir "$build/clock_unit" $CLOCKU tb/clock_unit/tb_clock_unit.sv --top-module tb_clock_unit -o tb_clock_unit
step clock_unit run clock_unit tb_clock_unit
clock_unit_iverilog() {   # ARGS: extra iverilog options; prints the run's log
  local files
  files="$(lint/icarus_sv.sh "$build/icarus" $CLOCKU | tr '\n' ' ')"
  iverilog -g2012 "$@" -o "$build/icarus/tb_clock_unit.vvp" -s tb_clock_unit $files \
    tb/clock_unit/tb_clock_unit.sv 2> /dev/null && vvp -n "$build/icarus/tb_clock_unit.vvp"
}
clock_unit_icarus() {
  clock_unit_iverilog | tee "$build/clock_unit_iverilog.run.log" && grep -q PASS "$build/clock_unit_iverilog.run.log"
}
step clock_unit_iverilog clock_unit_icarus
clock_unit_unsync() {
  verilator --binary --timing -O1 -Wno-fatal -Wno-WIDTH --Mdir "$build/clock_unit_unsync" $CLOCKU \
    tb/clock_unit/tb_clock_unit.sv --top-module tb_clock_unit -GSYNC=0 -o tb_clock_unit || return 1
  "$build/clock_unit_unsync/tb_clock_unit" > "$build/clock_unit_unsync.run.log" 2>&1
  clock_unit_iverilog -Ptb_clock_unit.SYNC=0 > "$build/clock_unit_unsync_iverilog.run.log" 2>&1
  for log in clock_unit_unsync clock_unit_unsync_iverilog; do
    if grep -q PASS "$build/$log.run.log" || ! grep -q "clock skew" "$build/$log.run.log"; then
      echo "$log: SYNC=0 did not fail with \"clock skew\""; return 1
    fi
    grep "clock skew" "$build/$log.run.log"
  done
}
step clock_unit_unsync clock_unit_unsync
grep -h "^CLOCK" "$build/clock_unit.run.log" "$build/clock_unit_iverilog.run.log" 2> /dev/null

step remote_build bench remote tb_remote $TBC tb/common/tb_pair.sv tb/remote/tb_remote.sv
for s in $seeds; do step "remote_seed$s" run remote tb_remote +seed=$s; done

step perf_build bench perf tb_perf $TBC tb/common/tb_pair.sv tb/perf/tb_perf.sv
step perf run perf tb_perf
grep "^PERF" "$build/perf.run.log" 2> /dev/null

# ---- the co-simulated board (cosim/README.md): builds from the same RTL and cable model ----
step cosim_build cosim/build.sh

# ---- synthesis (started before the benches, collected here) ----
collect synth
grep "^resources:" "$build/synth.log" 2> /dev/null
grep "^depth:" "$build/synth.log" 2> /dev/null | head -n 3
collect synth_hub
grep "^resources:" "$build/synth_hub.log" 2> /dev/null
grep "^depth:" "$build/synth_hub.log" 2> /dev/null | head -n 3

echo "firmware: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
