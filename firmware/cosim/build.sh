#!/usr/bin/env bash
# firmware/cosim/build.sh: build the co-simulated board (memchan-cosim) from the checked-in
# RTL, the benches' cable model and the harness, under firmware/cosim/build/ (git-ignored).
#   build.sh [--adapters N] [--hub]   (default 2, no hub) prints the path of the binary
# --hub: the adapters' links go to an RTL memchan_hub in the same model (cosim_top HUB = 1)
# Incremental: a stamp of every input decides whether to rebuild, so the binary is never a stale
# copy: each source's content under its path in the repository (the RTL, the cable model, the
# harness, the generated register header), the options, and the Verilator and g++ versions. No
# absolute path goes in, so one stamp names one binary in every clone.
# MEMCHAN_COSIM_CACHE=DIR (opt-in): a finished binary is also kept as DIR/<model>-<stamp>, and a
# clone whose stamp matches takes it from there instead of building (fresh clones on one machine).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
fw="$(cd "$here/.." && pwd)"
root="$(cd "$fw/.." && pwd)"
adapters=2
hub=0
while [ $# -gt 0 ]; do
  case "$1" in
    --adapters) adapters="$2"; shift 2 ;;
    --hub) hub=1; shift ;;
    *) echo "usage: build.sh [--adapters N] [--hub]" >&2; exit 2 ;;
  esac
done
# the board's geometry (PCT size) from the register map: regmap/memchan.toml [board], generated
regs_h="$fw/include/memchan_regs.h"
pages=$(( $(sed -n 's/^#define MC_BOARD_PAGES \(0x[0-9A-F]*\)U.*/\1/p' "$regs_h") + 0 ))
[ "$pages" -gt 0 ] || { echo "build.sh: no MC_BOARD_PAGES in $regs_h" >&2; exit 1; }
out="$here/build/a$adapters"
[ $hub = 1 ] && out="$out-hub"
bin="$out/memchan-cosim"
"$root/scripts/need-packages" verilator g++ make || exit 3
# one build of a directory at a time: the firmware suite and the native suite's board boots may
# ask for the same model at once (scripts/test-all runs them side by side)
mkdir -p "$here/build"
exec 9> "$out.lock"
flock 9

# the hub's sources in every build: cosim_top names the hub even where HUB = 0 leaves it out
rtl=$(sed "s|^|$fw/|" "$fw/rtl/files.f" "$fw/rtl/hub_files.f")
srcs="$rtl $fw/tb/common/tb_link_chan.sv $here/cosim_top.sv"
# the device process's C++ (README.md): every source and header here goes in the stamp
cpps=$(echo "$here"/*.cpp)
hdrs=$(echo "$here"/*.h)
cflags="-O2 -I$fw/include -DCOSIM_ADAPTERS=$adapters -DCOSIM_PAGES=$pages -DCOSIM_HUB=$hub"
# Build time against simulation speed (docs/performance.md, "Co-simulation speed"):
# no Verilator -O3, whose only effect is --inline-mult -1: inlining every adapter into the top
# made four copies of its code and cost 2.6x the g++ time for no speed; the model's code at
# g++ -O1 and its run-once code (__Slow) at -O0 halved the g++ time again for 8 % of the speed.
# -fno-case (docs/performance.md, "Co-simulation speed"): Verilator's case optimization turns a
# case on a register offset into a decision tree on its bits and copies the default branch
# (a register decoder's loop over the 16 MCAST_GROUP registers) into every leaf: 849 delayed
# assignments checked per adapter per cycle. As if/else chains the hub model is 36 % less code,
# 19 % fewer instructions per cycle, 1.8x the cycles per CPU second, and builds in less time
vflags="--cc --exe --build -j 2 --x-assign fast --x-initial fast -fno-case -Wno-fatal -Wno-WIDTH
  -Wno-UNUSED  --top-module cosim_top -GADAPTERS=$adapters -GPAGES=$pages -GHUB=$hub
  -MAKEFLAGS OPT_FAST=-O1 -MAKEFLAGS OPT_SLOW=-O0"
options="$vflags $cflags"
stamp=$( (verilator --version; g++ --version | head -n 1; echo "${options//$root/.}"
          for f in $srcs $cpps $hdrs "$regs_h"; do
            echo "${f#"$root"/} $(sha256sum < "$f")"
          done) | sha256sum | cut -c1-16)
if [ -x "$bin" ] && [ "$(cat "$out/stamp" 2> /dev/null)" = "$stamp" ]; then
  echo "$bin"
  exit 0
fi
cached="${MEMCHAN_COSIM_CACHE:+$MEMCHAN_COSIM_CACHE/$(basename "$out")-$stamp}"
if [ -n "$cached" ] && [ -x "$cached" ]; then
  mkdir -p "$out"
  rm -f "$out/stamp"
  cp "$cached" "$bin.tmp" && mv "$bin.tmp" "$bin" && echo "$stamp" > "$out/stamp" && echo "$bin" &&
    exit 0
fi
# make tracks the sources, not the flags: a change of flags or Verilator starts from scratch
flags=$( (verilator --version; echo "$vflags $cflags") | sha256sum | cut -c1-16)
[ "$(cat "$out/flags" 2> /dev/null)" = "$flags" ] || rm -rf "$out"
rm -f "$out/stamp"
mkdir -p "$out"
echo "$flags" > "$out/flags"
# shellcheck disable=SC2086
verilator $vflags --Mdir "$out/obj" -o "$bin" -CFLAGS "$cflags" $srcs $cpps \
  > "$out/build.log" 2>&1 || { tail -n 40 "$out/build.log" >&2; exit 1; }
echo "$stamp" > "$out/stamp"
# into the cache under a temporary name first: a reader never sees half a binary
if [ -n "$cached" ]; then
  mkdir -p "$MEMCHAN_COSIM_CACHE" && cp "$bin" "$cached.$$" && mv "$cached.$$" "$cached"
fi
echo "$bin"
