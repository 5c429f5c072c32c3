#!/bin/sh
# Two machines on the co-simulated board: each guest has one RTL adapter (firmware/cosim), the two
# adapters cabled back to back. Node IDs from the link (guest a's adapter has the lower serial: node
# 0, the virtual hub), the two-process demo across the guests (scripts/demo's PingPongDemo on
# dev:/dev/memchan0).
# Called by guest.sh board-duo-a / board-duo-b. Usage: board_duo.sh ROOT a|b. TAP lines.
R=$1
ROLE=$2
N=$R/native
export HOME=/tmp
rc=0
cd /tmp || exit 1
. "$R/native/tests/guest_lib.sh"
demo() {	# the two-process demo of scripts/demo (tools module), on the guests' snapshot of the build
	"$JAVA" --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 \
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

# mcctl bench serve / pingpong --peer across the guests is not run here: it passed in three runs
# and failed in one full run (the two sides' hellos never met; firmware/cosim/README.md, "Known
# problems"); run it by hand as docs/mcctl.md shows until that is found.
exit $rc
