#!/usr/bin/env bash
# native/test.sh: the driver's checks and QEMU boots, a thin wrapper over the harness (harness/,
# README.md "Tests"): the host steps driver-build, sparse, checkpatch, modinfo, tools-build, dkms,
# layout, guest-jvm-aot, then the boots of harness/tables.py (BOOTS). Arguments go to pytest.
# Prefer the harness directly: scripts/test-all -k board-loop
# Environment variables, translated to the harness's selection and options:
#   MEMCHAN_ONLY="abi board-loop"  those boots only     MEMCHAN_KVER   --kver
#   MEMCHAN_KEEP=1   --keep                              MEMCHAN_JAVA_AOT=0   --no-java-aot
#   MEMCHAN_BOARD_JAVA_SELECT / _STEPS   --board-java-select / --board-java-steps
#   MEMCHAN_BOARD_HUB_SELECT / _TIMEOUT  --board-hub-select / --board-hub-timeout
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sel=()
for s in driver-build sparse checkpatch modinfo tools-build dkms layout guest-jvm-aot; do
  sel+=("harness/test_host.py::test_host[$s]")
done
if [ -n "${MEMCHAN_ONLY:-}" ]; then
  for b in $MEMCHAN_ONLY; do sel+=("harness/test_boots.py::test_boot[$b]"); done
else
  sel+=(harness/test_boots.py)
fi
opts=()
[ -n "${MEMCHAN_KVER:-}" ] && opts+=("--kver=$MEMCHAN_KVER")
[ "${MEMCHAN_KEEP:-0}" = 1 ] && opts+=(--keep)
[ "${MEMCHAN_JAVA_AOT:-1}" = 0 ] && opts+=(--no-java-aot)
[ -n "${MEMCHAN_BOARD_JAVA_SELECT:-}" ] && opts+=("--board-java-select=$MEMCHAN_BOARD_JAVA_SELECT")
[ -n "${MEMCHAN_BOARD_JAVA_STEPS:-}" ] && opts+=("--board-java-steps=$MEMCHAN_BOARD_JAVA_STEPS")
[ -n "${MEMCHAN_BOARD_HUB_SELECT:-}" ] && opts+=("--board-hub-select=$MEMCHAN_BOARD_HUB_SELECT")
[ -n "${MEMCHAN_BOARD_HUB_TIMEOUT:-}" ] && opts+=("--board-hub-timeout=$MEMCHAN_BOARD_HUB_TIMEOUT")
exec "$root/scripts/test-all" "${sel[@]}" "${opts[@]}" "$@"
