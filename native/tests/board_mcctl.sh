#!/bin/sh
# mcctl (tools/) on one co-simulated RTL adapter (firmware/cosim), /dev/memchan0 as node 0:
# status (with its NODES_UP line), the loopback self-test through the RTL's internal loopback (10/10, with the remote stages), and the self-test
# with its stores lost on the way to the adapter (control channel, cosimctl.sh): it exits 1
# naming the failing stage and leaves the test pages' PCT entries and LOOPBACK.MODE as they were.
# Called by guest.sh board-loop. Usage: board_mcctl.sh ROOT. TAP lines; exit 0 only if all pass.
R=$1
N=$R/native
D0=dev:/dev/memchan0
export HOME=/tmp
rc=0
cd /tmp || exit 1
. "$R/native/tests/guest_lib.sh"
quote() { sed "s/^/# $1: /" "/tmp/$1.out" | cut -c1-300; }
# what the self-test must leave as it was: LOOPBACK.MODE and the PCT entries of its pages
# (the last 4 of the window)
adapter_state() {
	"$N/tools/memchan-info" | grep "^loopback="
	mcctl pct show --fabric "$D0" 1020-1023 --json 2> /dev/null
}

"$N/tools/memchan-setnode" /dev/memchan0 0 || { echo "not ok 1 memchan-setnode /dev/memchan0 0"; exit 1; }
t0=$(date +%s)
mcctl status --fabric "$D0" > /tmp/status.out 2>&1
st=$?
quote status
[ $st = 0 ]
check $? "mcctl status on the RTL adapter exits 0 ($(( $(date +%s) - t0 )) s)"
grep -q "^node 0 hub: no report (cabled back to back, or its link is down)" /tmp/status.out
check $? "mcctl status shows NODES_UP: no hub report here (the adapter is in loopback, not on a hub)"

t0=$(date +%s)
mcctl selftest --fabric "$D0" > /tmp/selftest.out 2>&1
st=$?
quote selftest
[ $st = 0 ] && [ "$(grep -c ' PASS$' /tmp/selftest.out)" = 10 ]
check $? "mcctl selftest through the RTL's internal loopback: exit 0, 10/10 stages PASS ($(( $(date +%s) - t0 )) s)"

# a fault: the host's posted writes into the self-test's pages (the last 4 of the transmit window)
# are lost on the way to the adapter (device process control channel: window-drop), so the stores
# never become packets; the join and the cluster directory (system pages) are not touched. Cable
# faults cannot reach the self-test: it runs in internal loopback, which never leaves the adapter.
before=$(adapter_state)
sh "$R/firmware/cosim/cosimctl.sh" window-drop 0 1020 4 > /tmp/ctl.out 2>&1
check $? "control channel: window-drop 0 1020 4 accepted ($(head -n 1 /tmp/ctl.out))"
mcctl selftest --fabric "$D0" > /tmp/selftest-fault.out 2>&1
st=$?
quote selftest-fault
sh "$R/firmware/cosim/cosimctl.sh" window-drop 0 0 0 > /dev/null 2>&1
sh "$R/firmware/cosim/cosimctl.sh" stats > /tmp/stats.out 2>&1
quote stats
failed=$(grep -o '[0-9] [a-z-]* *FAIL' /tmp/selftest-fault.out | head -n 1 | awk '{ print $2 }')
[ $st = 1 ] && [ -n "$failed" ]
check $? "mcctl selftest with the test pages' stores lost exits 1 ($st) naming the failing stage (${failed:-none})"
grep -q "adapter 0 .*window_dropped [1-9]" /tmp/stats.out
check $? "the device process dropped the stores (window_dropped > 0 in its statistics)"
after=$(adapter_state)
echo "$before" | sed 's/^/# before: /' | cut -c1-300
[ -n "$before" ] && [ "$before" = "$after" ]
check $? "after the failed self-test LOOPBACK.MODE and the test pages' PCT entries read back as before"
exit $rc
