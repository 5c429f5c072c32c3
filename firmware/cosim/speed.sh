#!/usr/bin/env bash
# firmware/cosim/speed.sh: the simulation speed of a co-simulated board's model, without QEMU
# (README.md, "Simulation speed").
#   speed.sh [--adapters N] [--hub] [--cycles N] [--instructions] [--bin PATH]
# Builds the model with build.sh (unless --bin names a binary built for that model), enables
# every adapter (manual node ID, retry on; 2 adapters cabled 0:1, or each on its hub port) and
# runs it idle: heartbeats and clock syncs on the links, the common case of a board boot.
# Prints cycles per CPU second (memchan-cosim --speed). --instructions also counts the model's
# instructions per simulated cycle under valgrind's callgrind: the difference of a 2,000- and
# a 12,000-cycle run, so start-up and reset drop out. Instructions do not depend on the load of
# the machine; CPU seconds do (caches, frequency), wall time even more.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
adapters=2 hub=0 cycles=200000 instr=0 bin=
while [ $# -gt 0 ]; do
  case "$1" in
    --adapters) adapters="$2"; shift 2 ;;
    --hub) hub=1; shift ;;
    --cycles) cycles="$2"; shift 2 ;;
    --instructions) instr=1; shift ;;
    --bin) bin="$2"; shift 2 ;;
    *) echo "usage: speed.sh [--adapters N] [--hub] [--cycles N] [--instructions] [--bin PATH]" >&2
       exit 2 ;;
  esac
done
if [ -z "$bin" ]; then
  if [ $hub = 1 ]; then bin=$("$here/build.sh" --adapters "$adapters" --hub)
  else bin=$("$here/build.sh" --adapters "$adapters"); fi
fi
args=()
for ((k = 0; k < adapters; k++)); do args+=(--fd -1); done
[ $hub = 1 ] || [ "$adapters" -lt 2 ] || args+=(--cable 0:1)
"$bin" "${args[@]}" --speed "$cycles" | head -n 1
if [ $instr = 1 ]; then
  "$here/../../scripts/need-packages" valgrind > /dev/null || exit 3
  refs=()
  for n in 2000 12000; do
    refs+=("$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "${args[@]}" \
               --speed $n 2>&1 | awk '/I +refs:/ { gsub(",", "", $NF); print $NF }')")
  done
  echo "$(( (refs[1] - refs[0]) / 10000 )) instructions per cycle (callgrind)"
fi
