#!/bin/sh
# cosimctl.sh REQUEST...: a guest's request to the co-simulated board's device process
# (memchan-cosim --ctl DIR, exported to the guest as the writable 9p tag "cosimctl").
# Mounts the export at $COSIMCTL_DIR (default /run/cosimctl) if it is not mounted, writes the
# request, waits up to 20 s for the answer, prints it and exits 0 if it starts with "ok".
#   cosimctl.sh flip CABLE PPM | stall CABLE PERCENT | cut CABLE 0|1 | idle-cycles N | stats | clock
# One requester at a time per device process (the files have fixed names).
d=${COSIMCTL_DIR:-/run/cosimctl}
if ! grep -q " $d 9p " /proc/mounts; then
	mkdir -p "$d" && mount -t 9p -o trans=virtio,version=9p2000.L,cache=none cosimctl "$d" ||
		{ echo "cosimctl: cannot mount the cosimctl export at $d" >&2; exit 2; }
fi
rm -f "$d/ack"
echo "$*" > "$d/request.tmp" && mv "$d/request.tmp" "$d/request" || exit 2
i=0
while [ ! -e "$d/ack" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$d/ack" ] || { echo "cosimctl: no answer to '$*' within 20 s" >&2; exit 2; }
cat "$d/ack"
head -n 1 "$d/ack" | grep -q "^ok" || { rm -f "$d/ack"; exit 1; }
rm -f "$d/ack"
