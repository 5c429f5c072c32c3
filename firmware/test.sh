#!/usr/bin/env bash
# firmware/test.sh: every firmware job (lint, parameter checks, benches in Verilator and Icarus,
# negative controls, the co-simulated board's build, yosys synthesis), a thin wrapper over the
# harness (harness/, README.md "Tests"; the jobs are harness/tables.py's FIRMWARE). Arguments go
# to pytest. Prefer the harness directly: scripts/test-all -k hub_controls
# Environment variables, translated to the harness's selection and options:
#   FW_ONLY="hub_controls clock_unsync"  those jobs only
#   FW_JOBS=N   --fw-jobs N (jobs at once, default 3)    FW_SEEDS="1 2 3"   --fw-seeds
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sel=()
if [ -n "${FW_ONLY:-}" ]; then
  for j in $FW_ONLY; do sel+=("harness/test_firmware.py::test_firmware[$j]"); done
else
  sel+=(harness/test_firmware.py)
fi
opts=()
[ -n "${FW_JOBS:-}" ] && opts+=("--fw-jobs=$FW_JOBS")
[ -n "${FW_SEEDS:-}" ] && opts+=("--fw-seeds=$FW_SEEDS")
exec "$root/scripts/test-all" "${sel[@]}" "${opts[@]}" "$@"
