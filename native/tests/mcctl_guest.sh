#!/bin/sh
# mcctl (tools/) against the adapters in the guest, as an operator runs it (docs/mcctl.md): status,
# the loopback self-test, node set, pct set/show/clear with the directory's static carve-outs,
# apply, monitor, and the benchmarks (two adapters of this guest in one process, and bench serve
# with --peer across two processes, last). Every refused command must leave the adapter as it was.
# Called by guest.sh's java test after the library smoke test, and by board_java.sh step 3 on two
# RTL adapters, where the checks that the hardware backend cannot change are left out (marked);
# /dev/memchan0 is node 0.
# Usage: mcctl_guest.sh ROOT. Prints TAP lines; exit 0 only if all pass.
R=$1
. "$R/native/tests/guest_lib.sh"
D0=dev:/dev/memchan0
export HOME=/tmp
rc=0
cd /tmp || exit 1
hw=0
[ "$(cat /sys/class/misc/memchan0/backend)" = hw ] && hw=1

pass() { echo "ok 1 mcctl $*"; }
fail() { echo "not ok 1 mcctl $*"; rc=1; }

# run NAME EXPECTED_EXIT ARGS...: runs mcctl; stdout and stderr in /tmp/mcctl-NAME.{out,err},
# quoted as comments
run() {
	name=$1 want=$2
	shift 2
	start=$(date +%s)
	mcctl "$@" > "/tmp/mcctl-$name.out" 2> "/tmp/mcctl-$name.err" < /dev/null
	st=$?
	sed "s/^/# mcctl $name: /" "/tmp/mcctl-$name.out" "/tmp/mcctl-$name.err" | cut -c1-400
	if [ $st -eq "$want" ]; then
		pass "$* -> exit $st ($(( $(date +%s) - start )) s)"
		return 0
	fi
	fail "$* -> exit $st, expected $want"
	return 1
}

# state: what a refused command must not change (this adapter's node ID and PCT, the directory),
# from the status JSON without what moves on its own (heartbeats, counters, generations, pids, the
# global clock's time and offsets)
state() {
	mcctl status --fabric "$D0" --pct --json 2> /dev/null | sed -e 's/"heartbeat":[0-9]*//g' \
		-e 's/"counters":{[^}]*}//g' -e 's/"[a-z_]*generation":[0-9]*//g' -e 's/"pid":[0-9]*//g' \
		-e 's/"incarnation":[0-9]*//g' -e 's/"link":"[a-z]*"//g' -e 's/"time":[0-9]*//g' \
		-e 's/"offset":[-0-9]*//g'
}

# refused NAME EXIT ARGS...: must exit EXIT with a "mcctl: " line on stderr and leave $BASELINE as it was
refused() {
	name=$1 want=$2
	shift 2
	run "$name" "$want" "$@" || return 1
	grep -q "^mcctl: " "/tmp/mcctl-$name.err" || fail "$name: no 'mcctl: ' error line on stderr"
	now=$(state)
	if [ -z "$now" ] || [ "$now" != "$BASELINE" ]; then
		fail "$name: the refused command changed the adapter or the directory"
		echo "$BASELINE" | sed 's/^/# before: /'
		echo "$now" | sed 's/^/# after:  /'
	fi
}

# node IDs: the second adapter becomes node 1
[ -e /dev/memchan1 ] || fail "a second adapter /dev/memchan1 for the two-node checks"
run node-set 0 node set 1 --fabric dev:/dev/memchan1
grep -q "node ID 1" /tmp/mcctl-node-set.out || fail "node set 1: the adapter reports node ID 1"

# benchmarks (on the ivshmem adapters: board-duo runs bench pingpong between two guests on board
# adapters): the two adapters of this guest in one process; remote read and atomics through the
# driver (MEMCHAN_REMOTE), next to the one-way write of the same run; then bench serve on node 1,
# which waits for node 0's --peer run at the end
if [ "$hw" != 1 ]; then
	run bench-pingpong 0 bench pingpong --fabric 'dev:/dev/memchan*' --rounds 500 --batches 1 --json
	grep -q '"p50"' /tmp/mcctl-bench-pingpong.out || fail "bench pingpong prints percentiles"
	run bench-remote 0 bench remote --fabric 'dev:/dev/memchan*' --iterations 20000 --json
	grep -q '"read_over_write"' /tmp/mcctl-bench-remote.out || fail "bench remote prints the ratios"
fi
if [ "$hw" = 1 ]; then
	# a board cabled to a live peer: the self-test's internal loopback would cut into the peer's
	# traffic (both ends discard after error); it is refused and changes nothing
	BASELINE=$(state)
	refused selftest-live-link 2 selftest --fabric "$D0"
	grep -q "link is up with node 1" /tmp/mcctl-selftest-live-link.err || fail "selftest: the refusal names the peer"
else
	run selftest 0 selftest --fabric "$D0"
fi

# PCT: set (the entries are read back in the JSON), the static carve-out in the directory (status)
run pct-set 0 pct set --fabric "$D0" 700-703 --tx node:1 --ack --json
[ "$(grep -o '"destination":"node:1","local_copy":false,"ack_request":true' /tmp/mcctl-pct-set.out | wc -l)" = 4 ] ||
	fail "pct set: pages 700-703 read back as routed to node:1 with ack"
BASELINE=$(state)
echo "$BASELINE" | grep -q '"first_page":700,"pages":4[^}]*"kind":"static"' ||
	fail "status: pages 700..703 are a static carve-out in the directory"

# bad input: exit 2, a line on stderr, the adapter and the directory as they were
# (on the ivshmem adapters only: the library refuses these before it writes to any adapter, so a
# board's hardware backend adds nothing to them; each costs a board two mcctl JVMs)
if [ "$hw" != 1 ]; then
	refused pct-system 2 pct set --fabric "$D0" 5 --tx node:1
	printf 'version: 1\nnodes: [0, 1]\npct:\n  - {node: 0, pages: 730, tx: node:1}\n  - {node: 0, pages: 3, tx: node:1}\n' > /tmp/bad.yaml
	refused apply-bad 2 apply --fabric "$D0" /tmp/bad.yaml
	grep -q "bad.yaml:5:" /tmp/mcctl-apply-bad.err || fail "apply: the problem is reported with its line (bad.yaml:5)"
fi

# apply a valid file (a multicast group too); then clear everything: the carve-outs are freed
groups_before=$(field /dev/memchan0 mcast_groups | tr -d '"')
printf 'version: 1\nnodes: [0, 1]\ngroups:\n  3: [0, 1]\npct:\n  - {node: 0, pages: 720+2, tx: node:1, rx: true}\n' > /tmp/cluster.yaml
run apply 0 apply --fabric "$D0" /tmp/cluster.yaml
state > /tmp/state-applied
grep -q '"group":3,"nodes":"0,1"' /tmp/state-applied || fail "apply: multicast group 3 is {0, 1} in the directory"
if [ "$hw" = 1 ]; then
	# on a board the library copies the directory's groups into the adapter's MCAST_GROUP registers
	groups_after=$(field /dev/memchan0 mcast_groups | tr -d '"')
	[ -z "$groups_before" ] && [ "$groups_after" = 3:0x3 ] ||
		fail "apply: the adapter's MCAST_GROUP registers read ${groups_after:-none} (before: ${groups_before:-none}), not 3:0x3"
fi
grep -q '"first_page":720,"pages":2[^}]*"kind":"static"' /tmp/state-applied ||
	fail "apply: pages 720..721 are a static carve-out"
[ "$(grep -o '"page":72[01],"tx":"0x00000101"' /tmp/state-applied | wc -l)" = 2 ] ||
	fail "apply: pages 720-721 of node 0 route to node 1 (tx entry 0x00000101)"
run pct-clear 0 pct clear --fabric "$D0" 700-721
cleared=$(state)
if [ -z "$cleared" ] || echo "$cleared" | grep -q '"kind":"static"'; then
	fail "pct clear: the carve-outs of pages 700..703 and 720..721 are freed (status read back)"
fi

# live counters, two samples
run monitor 0 monitor --fabric "$D0" --count 2 --interval 300 --json
[ "$(grep -c . /tmp/mcctl-monitor.out)" = 2 ] || fail "monitor --count 2 prints two samples"

# bench serve on node 1 and a client with --peer across two processes (on the ivshmem adapters:
# board-duo runs the same between two guests on board adapters). It joins only now: a joined
# process keeps its agent's heartbeat running, which on a board keeps the device process's clock
# running and shares the guest's vCPU with every command above (each took about twice as long)
if [ "$hw" != 1 ]; then
	mcctl bench serve --fabric dev:/dev/memchan1 --count 1 --json > /tmp/mcctl-serve.out 2>&1 &
	serve=$!
	t0=$(date +%s)
	until grep -q '"serving":true' /tmp/mcctl-serve.out || [ $(( $(date +%s) - t0 )) -gt 300 ]; do sleep 1; done
	grep -q '"serving":true' /tmp/mcctl-serve.out || fail "bench serve on node 1 joined within 300 s"
	run bench-peer 0 bench pingpong --fabric "$D0" --peer 1 --peer-timeout 300 --rounds 500 --batches 1 --json
	wait $serve
	st=$?
	sed "s/^/# mcctl bench serve: /" /tmp/mcctl-serve.out
	if [ $st -eq 0 ] && grep -q '"served":1,"kind":"pingpong","client":0,"ok":true' /tmp/mcctl-serve.out; then
		pass "bench serve --count 1 on node 1 served node 0's run and exited 0"
	else
		fail "bench serve --count 1 on node 1 (exit $st)"
	fi
fi
exit $rc
