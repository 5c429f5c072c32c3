#!/bin/sh
# Two machines on the co-simulated board: each guest has one RTL adapter (firmware/cosim), the two
# adapters cabled back to back. Node IDs from the link (guest a's adapter has the lower serial: node
# 0, the virtual hub), the two-process demo across the guests (scripts/demo's PingPongDemo on
# dev:/dev/memchan0), then mcctl bench serve (guest b, node 1) and mcctl bench pingpong --peer 1
# (guest a), with the device process's RTL cycles per hop for the same rounds (control channel).
# Called by guest.sh board-duo-a / board-duo-b. Usage: board_duo.sh ROOT a|b. TAP lines.
R=$1
ROLE=$2
N=$R/native
export HOME=/tmp
rc=0
cd /tmp || exit 1
. "$R/native/tests/guest_lib.sh"
# the two-process demo of scripts/demo (tools module), on the guests' snapshot of the build; the
# failure timeout as board-java's: a one-vCPU guest under load starves the cluster agent for
# seconds (7.7 s seen), and the default 800 ms then judges the other node dead and takes it out of
# the channels' regions: each side then waits 30 s for the other's receiver; the demo prints a
# LEAVE it sees
demo() {
	"$JAVA" --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -Dmemchan.demo.failureTimeoutMs=15000 \
		-cp "/run/work/mcctl/memchan-tools.jar:/run/work/mcctl/lib/*" dev.memchan.tools.demo.PingPongDemo "$@"
}
[ "$ROLE" = a ] && want=0 || want=1
"$N/tools/memchan-setnode" /dev/memchan0 auto > /tmp/auto.out 2>&1
sed 's/^/# /' /tmp/auto.out
grep -q "node $want, assigned by the link" /tmp/auto.out
check $? "node auto across the guests: this guest's adapter is node $want"

start=$(date +%s)
if [ "$ROLE" = a ]; then
	demo initiator dev:/dev/memchan0 200 > /tmp/demo.out 2>&1
	st=$?
	sed 's/^/# demo: /' /tmp/demo.out
	[ $st = 0 ] && grep -q "got 'pong 199'" /tmp/demo.out
	check $? "demo across two guests: 200 ping-pong rounds through the RTL ($(( $(date +%s) - start )) s)"
else
	demo responder dev:/dev/memchan0 > /tmp/demo.out 2>&1
	st=$?
	sed 's/^/# demo: /' /tmp/demo.out
	[ $st = 0 ] && grep -q "initiator said bye" /tmp/demo.out
	check $? "demo responder: answered the other guest until it said bye ($(( $(date +%s) - start )) s)"
fi

# mcctl bench across the guests: 50 rounds x (3 warm-up + 2) batches, each round two 8-byte stores,
# one per direction. The server serves one benchmark and ends by itself when its client never comes
# or goes silent (--idle-timeout: the client's JVM start on its one vCPU is inside the bound). A
# failure shows both adapters' state (mcctl status, the PCT of the pages the bench uses). The
# failure timeout is the demo's, for the same reason (mcctl reads it from the environment): with
# the default 800 ms, a client whose guest was starved under load (its agent's heartbeats 630-700 ms
# apart) was declared dead by the other guest and its bench refused.
export MEMCHAN_FAILURE_TIMEOUT_MS=15000
trace() {
	mcctl status --fabric dev:/dev/memchan0 2>&1 | sed 's/^/# status: /'
	mcctl pct show --fabric dev:/dev/memchan0 2>&1 | sed 's/^/# pct: /'
}
start=$(date +%s)
if [ "$ROLE" = a ]; then
	sh "$R/firmware/cosim/cosimctl.sh" latency-reset > /dev/null
	mcctl --verbose bench pingpong --fabric dev:/dev/memchan0 --peer 1 --rounds 50 --batches 2 --peer-timeout 240 \
		> /tmp/pp.out 2>&1
	st=$?
	sed 's/^/# bench: /' /tmp/pp.out
	sh "$R/firmware/cosim/cosimctl.sh" stats > /tmp/pp-stats.out 2>&1
	p50=$(sed -n 's/^  p50 \([0-9,]*\) ns .*/\1/p' /tmp/pp.out)
	p99=$(sed -n 's/^  p50 .* p99 \([0-9,]*\) ns .*/\1/p' /tmp/pp.out)
	[ $st = 0 ] && [ -n "$p50" ] && [ -n "$p99" ]
	st=$?
	if [ $st = 0 ]; then
		sed -n 's/^\(latency .*\)/# cosim: \1/p' /tmp/pp-stats.out
	else
		sed 's/^/# cosim: /' /tmp/pp-stats.out
		trace
	fi
	check $st "mcctl bench pingpong --peer 1 across two guests: one-way p50 $p50 ns, p99 $p99 ns ($(( $(date +%s) - start )) s)"
else
	mcctl --verbose bench serve --fabric dev:/dev/memchan0 --count 1 --idle-timeout 300 > /tmp/serve.out 2>&1
	st=$?
	sed 's/^/# serve: /' /tmp/serve.out
	[ $st = 0 ] && grep -q "^served pingpong for node 0$" /tmp/serve.out
	st=$?
	[ $st = 0 ] || trace
	check $st "mcctl bench serve on node 1 served the other guest's pingpong and ended ($(( $(date +%s) - start )) s)"
fi
exit $rc
