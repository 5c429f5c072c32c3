#!/usr/bin/env bash
# firmware/cosim/build.sh: build the co-simulated board (memchan-cosim) from the checked-in
# RTL, the benches' cable model and the harness, under firmware/cosim/build/ (git-ignored).
#   build.sh [--adapters N]      (default 2) prints the path of the binary
# Incremental: a stamp of every input (sources, the generated register header, flags,
# Verilator version) decides whether to rebuild, so the binary is never a stale copy.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
fw="$(cd "$here/.." && pwd)"
root="$(cd "$fw/.." && pwd)"
adapters=2
while [ $# -gt 0 ]; do
  case "$1" in
    --adapters) adapters="$2"; shift 2 ;;
    *) echo "usage: build.sh [--adapters N]" >&2; exit 2 ;;
  esac
done
pages=1024   # memchan_top's default PCT size
out="$here/build/a$adapters"
bin="$out/memchan-cosim"
"$root/scripts/need-packages" verilator g++ make || exit 3

rtl=$(sed "s|^|$fw/|" "$fw/rtl/files.f")
srcs="$rtl $fw/tb/common/tb_link_chan.sv $here/cosim_top.sv"
cflags="-O2 -I$root/native/include -DCOSIM_ADAPTERS=$adapters -DCOSIM_PAGES=$pages"
vflags="--cc --exe --build -j 2 -O3 --x-assign fast --x-initial fast -Wno-fatal -Wno-WIDTH
  -Wno-UNUSED  --top-module cosim_top -GADAPTERS=$adapters -GPAGES=$pages -MAKEFLAGS OPT_FAST=-O2"
stamp=$( (verilator --version; echo "$vflags $cflags";
          cat $srcs "$here/cosim_main.cpp" "$root/native/include/memchan_regs.h") |
        sha256sum | cut -c1-16)
if [ -x "$bin" ] && [ "$(cat "$out/stamp" 2> /dev/null)" = "$stamp" ]; then
  echo "$bin"
  exit 0
fi
rm -rf "$out"
mkdir -p "$out"
# shellcheck disable=SC2086
verilator $vflags --Mdir "$out/obj" -o "$bin" -CFLAGS "$cflags" $srcs "$here/cosim_main.cpp" \
  > "$out/build.log" 2>&1 || { tail -n 40 "$out/build.log" >&2; exit 1; }
echo "$stamp" > "$out/stamp"
echo "$bin"
