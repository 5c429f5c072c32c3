#!/usr/bin/env bash
# Copy the RTL for Icarus Verilog 11 (Debian 12), with two mechanical rewrites and nothing else:
#   * `parameter/localparam int unsigned` -> `int` (Icarus 11 has no `int unsigned` parameter
#     type; every value here is far below 2^31);
#   * elaboration-time `$error(...)` in generate-if parameter checks -> `initial $fatal(1, ...)`
#     (Icarus 11 has no elaboration system tasks; the check then fires at time 0 instead).
# Usage: lint/icarus_sv.sh OUTDIR FILE...   prints the copied file names in order
set -euo pipefail
out="$1"; shift
mkdir -p "$out"
for f in "$@"; do
  sed -E -e 's/(parameter|localparam) int unsigned/\1 int/' \
         -e 's/^(\s*)\$error\((.*)\);/\1initial $fatal(1, \2);/' "$f" > "$out/$(basename "$f")"
  echo "$out/$(basename "$f")"
done
