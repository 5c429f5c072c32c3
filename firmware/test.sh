#!/usr/bin/env bash
# firmware/test.sh: everything CI runs for the FPGA adapter RTL.
#   installs verilator, iverilog, yosys if missing (Debian 12 packages),
#   regmap check, verilator lint, parameter-check test, every bench, the co-simulated board's
#   device process (cosim/build.sh), yosys synthesis
#   (no latches, no combinational loops), resource report.
# Ends with "firmware: N passed, N failed"; exit status non-zero on any failure.
# Environment: FW_SEEDS="1 2 3" seeds for the random benches (default "1 2 3 4 5 6");
#   FW_JOBS=N jobs at once (default 3; 1: one after the other): a job is one bench (its build,
#   then its runs) or one synthesis. Each job's PASS/FAIL lines are printed together, in the
#   order below, whatever order the jobs end in. FW_ONLY="hub_controls clock_unsync" runs only
#   the jobs named (the names given to `job` below), e.g. to try one bench or control alone.
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

jobs_max="${FW_JOBS:-3}"
case "$jobs_max" in
  '' | *[!0-9]* | 0) echo "firmware: FW_JOBS must be a positive number, not '$jobs_max'"; exit 2 ;;
esac
# Jobs: the machine has few cores and every job but the builds' make is single-threaded, so
# independent jobs run side by side (a bench's runs beside the next bench's build, the
# syntheses beside both). A job runs its steps in a background subshell; its output goes to
# build/job.NAME.out and its counts to build/job.NAME.count (written last: the job is done).
jobs_all=()       # every job started
jobs_started=()   # the benches' jobs in start order
jobs_shown=0      # jobs_started[0 .. jobs_shown-1] are printed and counted
jobs_late=()      # the syntheses: printed at the end, after every bench
rm -f "$build"/job.*.out "$build"/job.*.count
jobs_running() {
  local n=0 name
  for name in "${jobs_all[@]}"; do [ -f "$build/job.$name.count" ] || n=$((n + 1)); done
  echo "$n"
}
jobs_show() {   # jobs_show NAME: prints a finished job's output, adds its counts
  local p f aborted
  cat "$build/job.$1.out"
  read -r p f aborted < "$build/job.$1.count"
  [ -n "$aborted" ] && echo "FAIL  job $1 ended before its last step, see build/job.$1.out"
  passed=$((passed + p)); failed=$((failed + f))
}
jobs_show_done() {   # prints the finished jobs in start order, up to the first unfinished one
  local name
  while [ "$jobs_shown" -lt "${#jobs_started[@]}" ]; do
    name="${jobs_started[$jobs_shown]}"
    [ -f "$build/job.$name.count" ] || break
    jobs_show "$name"
    jobs_shown=$((jobs_shown + 1))
  done
}
job() {   # job NAME FUNCTION: runs FUNCTION's steps as a job, waiting for a free slot first
  local name="$1"; shift
  [ -z "${FW_ONLY:-}" ] || [[ " $FW_ONLY " == *" $name "* ]] || return 0
  while [ "$(jobs_running)" -ge "$jobs_max" ]; do sleep 1; jobs_show_done; done
  ( passed=0; failed=0; finished=0
    # a job that stops early (an unset variable, a signal) is a failure, not a silent pass
    trap '[ $finished = 1 ] || echo "$passed $((failed + 1)) aborted" > "$build/job.$name.count"' EXIT
    "$@" > "$build/job.$name.out" 2>&1
    echo "$passed $failed" > "$build/job.$name.count.tmp"
    mv "$build/job.$name.count.tmp" "$build/job.$name.count"
    finished=1 ) &
  jobs_all+=("$name")
  case " ${jobs_late[*]} " in *" $name "*) ;; *) jobs_started+=("$name") ;; esac
  jobs_show_done
}
jobs_wait() {   # waits for every job, prints the benches' in order, then the late ones
  local name
  while [ "$(jobs_running)" -gt 0 ]; do sleep 1; jobs_show_done; done
  jobs_show_done
  for name in "${jobs_late[@]}"; do
    [[ " ${jobs_all[*]} " == *" $name "* ]] && jobs_show "$name"
  done
}
trap 'kill $(jobs -p) 2> /dev/null' INT TERM

# yosys is single-threaded and reads only the RTL: the two syntheses (about 5 minutes of CPU)
# start first, the hub's (the longer) before the adapter's, and are printed at the end
synth_job() {   # synth_job NAME ARGS...: synthesis into build/NAME, resources and depth
  local name="$1"; shift
  step "$name" synth/synth.sh "$build/$name" "$@"
  grep "^resources:" "$build/$name.log"
  grep "^depth:" "$build/$name.log" | head -n 3
}
jobs_late=(synth_hub synth)
job synth_hub synth_job synth_hub memchan_hub
job synth synth_job synth

RTL="-f rtl/files.f"
TBC="tb/common/tb_score_pkg.sv tb/common/tb_host_mem.sv tb/common/tb_link_chan.sv tb/common/tb_adapter.sv"
# benches build without C++ optimization: compile time dominates, the runs take seconds. One
# C++ file per model (--output-split 0): split files each parse Verilator's headers again, 47
# CPU-s instead of 29 for the hub's model (docs/performance.md "Session 8: firmware suite
# time"); the jobs already keep both cores busy
VFLAGS="--binary --timing -O1 -j 2 --output-split 0 -Wno-fatal -Wno-WIDTH -Wno-UNUSED -MAKEFLAGS OPT_FAST=-O0 -MAKEFLAGS OPT_SLOW=-O0 -MAKEFLAGS OPT_GLOBAL=-O0"

bench() {   # bench NAME TOP FILES... ; build once, run with the given plusargs
  local name="$1" top="$2"; shift 2
  verilator $VFLAGS --Mdir "$build/$name" $RTL "$@" --top-module "$top" -o "$top"
}
run() {     # run NAME TOP PLUSARGS...: the bench must exit 0 and print PASS
  local name="$1" top="$2"; shift 2
  "$build/$name/$top" "$@" | tee "$build/$name.run.log" | tail -n 30
  [ "${PIPESTATUS[0]}" -eq 0 ] && grep -q "PASS" "$build/$name.run.log"
}
# Icarus Verilog 11 (second simulator). The RTL goes through lint/icarus_sv.sh (two mechanical
# rewrites, see there) into a directory of the job's own (jobs run side by side).
icarus_copy() {   # icarus_copy DIR FILE...: prints the copied files
  lint/icarus_sv.sh "$build/icarus/$1" "${@:2}" | tr '\n' ' '
}

# ---- register map, lint, parameter checks (these must FAIL to elaborate) ----
param_check() {
  if verilator --lint-only -Wall lint/verilator.vlt $RTL --top-module memchan_top -GPAGE_SIZE=5000; then
    echo "PAGE_SIZE=5000 elaborated: parameter check missing"; return 1
  fi
  echo "PAGE_SIZE=5000 rejected at elaboration, as it must be"
}
# the hub: PORTS beyond 32, and the ACK forwarding of its negative control in synthesis
hub_param_check() {
  if verilator --lint-only -Wall lint/verilator.vlt $RTL -f rtl/hub_files.f --top-module memchan_hub -GPORTS=33; then
    echo "PORTS=33 elaborated: parameter check missing"; return 1
  fi
  echo "PORTS=33 rejected at elaboration, as it must be"
  if verilator --lint-only -Wall -DSYNTHESIS lint/verilator.vlt $RTL -f rtl/hub_files.f \
       --top-module memchan_hub -GACK_MERGE=0 > "$build/hub_ack_merge_check.log" 2>&1; then
    echo "ACK_MERGE=0 elaborated for synthesis: parameter check missing"; return 1
  fi
  cat "$build/hub_ack_merge_check.log"
  grep -q "ACK_MERGE = 0" "$build/hub_ack_merge_check.log" &&
  echo "ACK_MERGE=0 rejected at elaboration for synthesis, as it must be"
}
j_checks() {
  step regmap_check python3 "$root/regmap/gen.py" --check
  step lint verilator --lint-only -Wall lint/verilator.vlt $RTL --top-module memchan_top
  step param_check param_check
  step hub_lint verilator --lint-only -Wall lint/verilator.vlt $RTL -f rtl/hub_files.f --top-module memchan_hub
  step hub_param_check hub_param_check
}
job checks j_checks

# ---- small units, in both simulators ----
crc_iverilog() {
  iverilog -g2012 -o "$build/crc/tb_crc.vvp" rtl/memchan_crc32.sv tb/crc/tb_crc.sv &&
  vvp -n "$build/crc/tb_crc.vvp" | tee "$build/crc_iverilog.run.log" && grep -q PASS "$build/crc_iverilog.run.log"
}
fifo_iverilog() {
  local files
  files="$(icarus_copy fifo rtl/memchan_ram_sdp.sv rtl/memchan_fifo.sv)" &&
  iverilog -g2012 -o "$build/icarus/fifo/tb_fifo.vvp" -s tb_fifo $files tb/fifo/tb_fifo.sv &&
  vvp -n "$build/icarus/fifo/tb_fifo.vvp" | tee "$build/fifo_iverilog.run.log" && grep -q PASS "$build/fifo_iverilog.run.log"
}
skid_iverilog() {
  local files
  files="$(icarus_copy skid rtl/memchan_skid.sv)" &&
  iverilog -g2012 -o "$build/icarus/skid/tb_skid.vvp" -s tb_skid $files tb/skid/tb_skid.sv &&
  vvp -n "$build/icarus/skid/tb_skid.vvp" | tee "$build/skid_iverilog.run.log" && grep -q PASS "$build/skid_iverilog.run.log"
}
j_units() {
  step crc_build      verilator --binary --timing -O1 -Wno-fatal --Mdir "$build/crc" rtl/memchan_crc32.sv tb/crc/tb_crc.sv --top-module tb_crc -o tb_crc
  step crc_verilator  run crc tb_crc
  step crc_iverilog   crc_iverilog
  step fifo_build     verilator --binary --timing -O1 -Wno-fatal --Mdir "$build/fifo" rtl/memchan_ram_sdp.sv rtl/memchan_fifo.sv tb/fifo/tb_fifo.sv --top-module tb_fifo -o tb_fifo
  step fifo           run fifo tb_fifo
  step fifo_iverilog  fifo_iverilog
  step skid_build     verilator --binary --timing -O1 -Wno-fatal --Mdir "$build/skid" rtl/memchan_skid.sv tb/skid/tb_skid.sv --top-module tb_skid -o tb_skid
  step skid           run skid tb_skid
  step skid_iverilog  skid_iverilog
}
job units j_units

# ---- Icarus: the whole adapter and the hub elaborate, their parameter checks fire ----
# The benches that use tb/common do not compile under Icarus 11 (docs/firmware.md "Test
# benches": the constructs and its messages).
icarus_elab() {   # icarus_elab TOP BAD_PARAM=VALUE FILE_LIST...: elaborates; BAD_PARAM rejected
  local top="$1" bad="$2" files; shift 2
  files="$(icarus_copy "$top" $(cat "$@"))"
  iverilog -g2012 -o "$build/icarus/$top/$top.vvp" -s "$top" $files &&
  vvp -n "$build/icarus/$top/$top.vvp" || return 1
  # the parameter checks fire under Icarus too (at time 0)
  iverilog -g2012 -P"$top.$bad" -o "$build/icarus/$top/bad_$top.vvp" -s "$top" $files &&
  if vvp -n "$build/icarus/$top/bad_$top.vvp"; then echo "$bad accepted under Icarus"; return 1; fi
  echo "$top elaborates under Icarus; $bad rejected"
}
j_icarus() {
  step icarus_rtl icarus_elab memchan_top PAGE_SIZE=5000 rtl/files.f
  step icarus_hub icarus_elab memchan_hub PORTS=33 rtl/files.f rtl/hub_files.f
}
job icarus j_icarus

# ---- the adapter's benches: build once, then every seed ----
j_selftest() {
  step selftest_build bench selftest tb_selftest $TBC tb/selftest/tb_selftest.sv
  for s in $seeds; do step "selftest_seed$s" run selftest tb_selftest +seed=$s; done
}
job selftest j_selftest
# a bench of two adapters cabled back to back (tb/common/tb_pair.sv, tb/NAME/tb_NAME.sv): one
# build, then every seed with the run arguments given
pair_bench() {   # pair_bench NAME RUN_ARGS...
  local name="$1"; shift
  step "${name}_build" bench "$name" "tb_$name" $TBC tb/common/tb_pair.sv "tb/$name/tb_$name.sv"
  for s in $seeds; do step "${name}_seed$s" run "$name" "tb_$name" +seed=$s "$@"; done
}
job b2b pair_bench b2b +rounds=6
job link_errors pair_bench link_errors
job features pair_bench features
job vhub pair_bench vhub +rounds=64

# the hub: 4 (+nodes=8: 8) adapters on an 8-port memchan_hub (docs/firmware.md "The hub"),
# one build for all of its runs (rtl/hub_files.f: the hub's own modules, after rtl/files.f)
HUBC="-f rtl/hub_files.f $TBC tb/common/tb_hub_net.sv"
j_hub() {
  step hub_build bench hub tb_hub $HUBC tb/hub/tb_hub.sv
  for s in $seeds; do step "hub_seed$s" run hub tb_hub +seed=$s +rounds=12; done
  step hub_backpressure run hub tb_hub +seed=7 +rounds=12 +bp=60
  # 5000 ppm on every cable: frames, LNAKs and LACKs are lost on both hops of every path
  for s in 8 9 10; do step "hub_bitflips_seed$s" run hub tb_hub +seed=$s +rounds=12 +flips=5000; done
  for s in 1 2; do step "hub8_seed$s" run hub tb_hub +seed=$s +rounds=12 +nodes=8; done
  # port supervision: one node's cables cut in the middle of the traffic, then healed
  for s in 1 2 3; do step "hub_cut_seed$s" run hub tb_hub +seed=$s +rounds=6 +cut; done
  grep -h "^hub: PASS" "$build"/hub8_seed*.log "$build"/hub_cut_seed*.log 2> /dev/null
}
job hub j_hub
# must_fail LOG PATTERN COMMAND...: a negative control's run must fail, and for the reason its
# bench names: the log (LOG) must hold a line matching PATTERN (grep -E), printed (at most 3)
must_fail() {
  local log="$1" pattern="$2"; shift 2
  if "$@" > "$log" 2>&1; then echo "$* passed: the bench proves nothing"; return 1; fi
  grep -m 3 -E "$pattern" "$log" || { echo "$* failed, but not with \"$pattern\":"; tail -n 3 "$log"; return 1; }
}
# negative controls, one build: the hub without port supervision (SUPERVISION=0) must FAIL the
# port cut (a barrier waits forever on the cut node, or no node-down report), and with
# multicast sent everywhere (MCAST_FILTER=0) it must FAIL on a non-member's link
hub_controls() {
  verilator $VFLAGS --Mdir "$build/hub_controls" $RTL $HUBC tb/hub/tb_hub.sv --top-module tb_hub \
    -GNN=4 -GSUPERVISION=0 -GMCAST_FILTER=0 -o tb_hub || return 1
  must_fail "$build/hub_nosup.run.log" "timeout waiting for barrier DONE|down not reported" \
    "$build/hub_controls/tb_hub" +seed=1 +rounds=6 +cut +mcast=0 || return 1
  must_fail "$build/hub_mcast_all.run.log" "not a member" "$build/hub_controls/tb_hub" +seed=1 +rounds=12
}
job hub_controls step hub_controls hub_controls
# the hub forwarding every receiver's ACK to the sender instead of merging them (ACK_MERGE=0)
# must FAIL the barrier check: DONE at the first receiver's answer, before the others have
# the sender's earlier words (hub_seed1, the same run with ACK_MERGE=1, passes it)
hub_ack_forward() {
  verilator $VFLAGS --Mdir "$build/hub_ack_forward" $RTL $HUBC tb/hub/tb_hub.sv --top-module tb_hub \
    -GNN=4 -GACK_MERGE=0 -o tb_hub || return 1
  must_fail "$build/hub_ack_forward.run.log" "barrier DONE while node" \
    "$build/hub_ack_forward/tb_hub" +seed=1 +rounds=12
}
job hub_ack_forward step hub_ack_forward hub_ack_forward
# a hub port whose link discards while the port stays up (its retry ran out; docs/firmware.md
# "The hub"): the port announces it, its adapter's local-copy frames all leave and every lost
# copy is counted, the others' barriers complete, the hub ends the state itself. Without the
# announcement (DISC_ANNOUNCE=0) it must FAIL: the adapter's stores stall after its echo
# credits ("15 of node N's 40 local-copy frames reached node M"; without the barriers during
# the discarding, +bar=0, which would wait for the port until it went down)
j_hub_disc() {
  step hub_disc_build bench hub_disc tb_hub_disc $HUBC tb/hub_disc/tb_hub_disc.sv
  for s in $seeds; do step "hub_disc_seed$s" run hub_disc tb_hub_disc +seed=$s; done
  grep -h "^hub_disc: PASS" "$build"/hub_disc_seed*.log 2> /dev/null
}
job hub_disc j_hub_disc
hub_disc_silent() {
  verilator $VFLAGS --Mdir "$build/hub_disc_silent" $RTL $HUBC tb/hub_disc/tb_hub_disc.sv \
    --top-module tb_hub_disc -GDISC_ANNOUNCE=0 -o tb_hub_disc || return 1
  must_fail "$build/hub_disc_silent.run.log" "local-copy frames reached node" \
    "$build/hub_disc_silent/tb_hub_disc" +seed=1 +bar=0
}
job hub_disc_silent step hub_disc_silent hub_disc_silent
# rule 2 with 4 senders and 4 receivers (bid lock / IRIW); the same bench with the hub's
# broadcast synchronization off (BCAST_SYNC=0) must FAIL with "rule 2 violated"
j_hub_order() {
  step hub_order_build bench hub_order tb_hub_order $HUBC tb/hub_order/tb_hub_order.sv
  for s in $seeds; do step "hub_order_seed$s" run hub_order tb_hub_order +seed=$s +rounds=48; done
}
job hub_order j_hub_order
hub_order_unsync() {
  verilator $VFLAGS --Mdir "$build/hub_order_unsync" $RTL $HUBC tb/hub_order/tb_hub_order.sv \
    --top-module tb_hub_order -GSYNC=0 -o tb_hub_order || return 1
  must_fail "$build/hub_order_unsync.run.log" "rule 2 violated" \
    "$build/hub_order_unsync/tb_hub_order" +seed=1 +rounds=48
}
job hub_order_unsync step hub_order_unsync hub_order_unsync
# measurements: 8 adapters on the hub, bisection (4 disjoint pairs, each >= 90 % of the pair
# alone) and broadcast vs point-to-point, same-run ratios (docs/performance.md "Hub")
j_hub_perf() {
  step hub_perf_build bench hub_perf tb_hub_perf $HUBC tb/hub_perf/tb_hub_perf.sv
  step hub_perf run hub_perf tb_hub_perf
  grep "^PERF hub" "$build/hub_perf.run.log" 2> /dev/null
}
job hub_perf j_hub_perf

# the global clock (docs/firmware.md "Global clock"): 4 adapters on a hub and 2 back to back,
# skew against the master within the stated bound through stalls, traffic and bit flips;
# the same bench without sync frames (SYNC=0) must FAIL with "clock skew"
CLOCKC="$HUBC tb/common/tb_pair.sv tb/clock/tb_clock_mon.sv tb/clock/tb_clock.sv"
j_clock() {
  step clock_build bench clock tb_clock $CLOCKC
  for s in 1 2 3; do step "clock_seed$s" run clock tb_clock +seed=$s; done
  grep -h "^CLOCK" "$build/clock.run.log" 2> /dev/null
}
job clock j_clock
clock_unsync() {
  verilator $VFLAGS --Mdir "$build/clock_unsync" $RTL $CLOCKC --top-module tb_clock -GSYNC=0 \
    -o tb_clock || return 1
  must_fail "$build/clock_unsync.run.log" "clock skew" "$build/clock_unsync/tb_clock" +seed=1
}
job clock_unsync step clock_unsync clock_unsync
# the clock's two ends alone (master and slave memchan_global_clock over a modelled link), in
# both simulators; without sync frames (SYNC=0) it must FAIL with "clock skew" in both
CLOCKU="rtl/memchan_pkt_pkg.sv rtl/memchan_clock_sync_tx.sv rtl/memchan_global_clock.sv"
clock_unit_iverilog() {   # ARGS: extra iverilog options; prints the run's log
  local files
  files="$(icarus_copy clock_unit $CLOCKU)"
  iverilog -g2012 "$@" -o "$build/icarus/clock_unit/tb_clock_unit.vvp" -s tb_clock_unit $files \
    tb/clock_unit/tb_clock_unit.sv 2> /dev/null && vvp -n "$build/icarus/clock_unit/tb_clock_unit.vvp"
}
clock_unit_icarus() {
  clock_unit_iverilog | tee "$build/clock_unit_iverilog.run.log" && grep -q PASS "$build/clock_unit_iverilog.run.log"
}
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
j_clock_unit() {
  step clock_unit_build verilator --binary --timing -O1 -Wno-fatal -Wno-WIDTH --Mdir "$build/clock_unit" $CLOCKU tb/clock_unit/tb_clock_unit.sv --top-module tb_clock_unit -o tb_clock_unit
  step clock_unit run clock_unit tb_clock_unit
  step clock_unit_iverilog clock_unit_icarus
  step clock_unit_unsync clock_unit_unsync
  grep -h "^CLOCK" "$build/clock_unit.run.log" "$build/clock_unit_iverilog.run.log" 2> /dev/null
}
job clock_unit j_clock_unit

j_remote() {
  step remote_build bench remote tb_remote $TBC tb/common/tb_pair.sv tb/remote/tb_remote.sv
  for s in $seeds; do step "remote_seed$s" run remote tb_remote +seed=$s; done
}
job remote j_remote
j_perf() {
  step perf_build bench perf tb_perf $TBC tb/common/tb_pair.sv tb/perf/tb_perf.sv
  step perf run perf tb_perf
  grep "^PERF" "$build/perf.run.log" 2> /dev/null
}
job perf j_perf

# ---- the co-simulated board (cosim/README.md): builds from the same RTL and cable model ----
job cosim_build step cosim_build cosim/build.sh

# ---- every job's steps, then the syntheses (started first) ----
jobs_wait
echo "firmware: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
