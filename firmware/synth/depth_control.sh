#!/usr/bin/env bash
# Negative control of the depth check (synth/depth.py): on the netlist synth/synth.sh left in
# outdir, the limit one below the deepest path it measured must fail, naming that path's
# instance; a check that passes there would prove nothing.
# Usage: firmware/synth/depth_control.sh outdir
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: depth_control.sh outdir (of synth/synth.sh)}"
[ -f "$out/depth.txt" ] && [ -f "$out/netlist.json" ] || { echo "depth control: no synthesis in $out"; exit 1; }
read -r _ inst levels _ < <(grep -m1 '^depth: ' "$out/depth.txt") || { echo "depth control: no depth line in $out/depth.txt"; exit 1; }
limit=$((levels - 1))
if python3 "$here/synth/depth.py" --limit "$limit" "$out/netlist.json" > "$out/depth_control.txt"; then
  echo "depth control: the limit $limit passed a $levels-level path: the check proves nothing"; exit 1
fi
grep -qxF "depth over the limit: $inst $levels LUT levels > $limit" "$out/depth_control.txt" || {
  echo "depth control: the limit $limit failed, but not on $inst ($levels levels):"; tail -3 "$out/depth_control.txt"; exit 1; }
echo "depth control: the limit $limit fails on $inst ($levels LUT levels), as it must"
