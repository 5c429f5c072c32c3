#!/bin/sh
# Four RTL adapters of one guest on the RTL hub of the co-simulated board (launch.py --hub:
# adapter k on hub port k; cable k from adapter k to the hub, cable 4 + k back). Called by
# guest.sh board-hub and board-hub-java.
#   1. node IDs assigned by the hub (MEMCHAN_NODE_AUTO): refused while adapter 0's cable from the
#      hub is cut (the ID stays), then 0..3 by port; every adapter's NODES_UP reads nodes 0..3
#   2. a broadcast reaches the 3 other nodes and is sent once: the sender's cable to the hub
#      carries it once, the hub's cables to the receivers each carry it
#   3. point to point reaches only its target, multicast only the group's members (the groups
#      set through the driver, MEMCHAN_MCAST_GROUP); with bit
#      flips on the sender's and the target's cables, link retry hides them
#   4. the global clock: each adapter's registers against the device process's view of the RTL
#      in the same cycle (the hub's master time); CLOCK_LINK_DELAY as the device process derived
#      it from the cable's stalls, again with 30 % stalls on one cable
#   5. Java conformance tests via dev:/dev/memchan* on the hub's 4 nodes; each must run, none may
#      be skipped by an assumption here, but for the 4 that need a soft fabric's file (named
#      below). "quick": the two 4-node tests that take seconds once the launcher runs: multicast
#      (the library copies the directory's groups into the registers) and BadInput's conflicting
#      routes. "java" (board-hub-java): every test that skips below 3 or 4 nodes: also the IRIW
#      ordering test (two senders, two receivers), RemoteConformanceTest's SIGKILLed requesters (a
#      home, two victims and a last requester) and its fetch-and-add from four processes,
#      Fabric.clusterTime() through the library; or the harness's selection (its default
#      BOARD_HUB_SELECT in harness/tables.py: the suite less the tests tagged
#      processes-of-one-node; an empty one: the whole suite), under 200 ppm bit flips on all
#      8 cables with link retry (rule 3 for every test; the counters show the flips were real and
#      hidden); then mcctl status with the hub's NODES_UP
# Usage: board_hub.sh ROOT [quick|java]. TAP lines; exit 0 only if all pass.
R=$1
N=$R/native
CTL="sh $R/firmware/cosim/cosimctl.sh"
export HOME=/tmp
rc=0
cd /tmp || exit 1
. "$R/native/tests/guest_lib.sh"
cable_words() {	# cable_words STATS-FILE CABLE: words the cable carried
	sed -n "s/^cable $2 .* words \([0-9]*\) .*/\1/p" "$1"
}
tap() {	# tap CMD...: a test program's TAP result lines, comments kept; its status in rc
	"$@" > /tmp/tap.out 2>&1 || rc=1
	grep -v "^TAP version\|^1\.\." /tmp/tap.out
}
i=0
while [ ! -e /dev/memchan3 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

# ---- 1. node IDs from the hub ----
echo 3000 > /sys/module/memchan/parameters/node_auto_ms
before="$(cat /sys/class/misc/memchan0/node_id) $(field /dev/memchan0 node_id)"
$CTL cut 4 1 > /dev/null
peer_unseen /dev/memchan0
check $? "the hub's cable to adapter 0 cut: its LINK_STATUS.PEER_SEEN clear within 10 s"
"$N/tools/memchan-setnode" /dev/memchan0 auto > /tmp/auto-cut.out 2>&1
st=$?
sed 's/^/# cable 4 cut: /' /tmp/auto-cut.out
after="$(cat /sys/class/misc/memchan0/node_id) $(field /dev/memchan0 node_id)"
[ $st -ne 0 ] && grep -q "timed out" /tmp/auto-cut.out && [ "$after" = "$before" ]
check $? "node auto with the hub's cable to adapter 0 cut: refused (timed out), the node ID as before ($before)"
$CTL cut 4 0 > /dev/null
echo 30000 > /sys/module/memchan/parameters/node_auto_ms
for k in 0 1 2 3; do
	"$N/tools/memchan-setnode" /dev/memchan$k auto > /tmp/auto$k.out 2>&1 &
	eval "pid$k=$!"
done
ids=0
for k in 0 1 2 3; do
	eval "wait \$pid$k" && grep -q "node $k, assigned by the link" /tmp/auto$k.out || ids=1
	sed 's/^/# node auto: /' /tmp/auto$k.out
done
check $ids "node auto on all four adapters: the hub assigns 0, 1, 2, 3 by port"
tap "$N/tests/hub_test" -t node_ids_by_port
up=""
for k in 0 1 2 3; do up="$up $(field /dev/memchan$k nodes_up)"; done
[ "$up" = " 0xf 0xf 0xf 0xf" ]
check $? "NODES_UP through the driver (MEMCHAN_REG_READ) on every adapter: nodes 0..3 up (${up# })"

# ---- 2. a broadcast, sent once and replicated by the hub ----
$CTL stats > /tmp/stats0.out
tap "$N/tests/hub_test" -t broadcast_reaches_all_others
$CTL stats > /tmp/stats1.out
sed 's/^/# cosim: /' /tmp/stats1.out
# words on the cables (frames: header, data, CRC; link control frames besides): three copies
# sent by the adapter would make its cable carry at least three times what each receiver's does;
# the hub's cable back to the sender carries its link acknowledgements (two words a frame), and
# would carry the data on top of them if the hub sent it back
words=512	# a page: hub_test's PAGE_WORDS
up=$(( $(cable_words /tmp/stats1.out 0) - $(cable_words /tmp/stats0.out 0) ))
back0=$(( $(cable_words /tmp/stats1.out 4) - $(cable_words /tmp/stats0.out 4) ))
down="" least=$up once=0
for k in 5 6 7; do
	d=$(( $(cable_words /tmp/stats1.out $k) - $(cable_words /tmp/stats0.out $k) ))
	down="$down $d"
	[ "$d" -lt "$least" ] && least=$d
done
[ "$least" -ge $words ] && [ "$up" -lt $((2 * least)) ] && [ "$back0" -lt "$up" ] || once=1
check $once "the broadcast of $words words crossed the sender's cable once ($up words) and the hub's cables to nodes 1..3 each (${down# }), not back to the sender (link control only: $back0)"

# ---- 3. point to point and multicast; bit flips with retry ----
crc=$(( $(field /dev/memchan1 crc_errors) + $(field /dev/memchan3 crc_errors) ))
$CTL flip 1 10000 > /dev/null && $CTL flip 7 10000 > /dev/null
check $? "control channel: 10000 ppm bit flips on cable 1 (node 1 to the hub) and 7 (the hub to node 3)"
tap "$N/tests/hub_test" -t point_to_point_only_its_target
$CTL flip 1 0 > /dev/null && $CTL flip 7 0 > /dev/null
$CTL stats | grep "^cable [17] " | sed 's/^/# cosim: /'
crc=$(( $(field /dev/memchan1 crc_errors) + $(field /dev/memchan3 crc_errors) - crc ))
retries=$(( $(field /dev/memchan1 link_retries) + $(field /dev/memchan3 link_retries) ))
errs=0
for k in 0 1 2 3; do errs=$((errs + $(field /dev/memchan$k error_count))); done
[ $crc -gt 0 ] && [ $retries -gt 0 ] && [ $errs = 0 ]
check $? "the flips were real and retry hid them: CRC_ERRORS +$crc at nodes 1 and 3, LINK_RETRIES $retries, ERROR_COUNT $errs"
tap "$N/tests/hub_test" -t multicast_only_its_members

# ---- 4. the global clock ----
# clock_agrees LABEL: the guest's registers (memchan-clock) and the device process's view
# of the RTL (cosimctl clock: the hub's master time and every adapter's time in one cycle):
# every adapter VALID, not the master, its error against the master within -bound..0, and the
# bound it reports the SPREAD the device process derived for its cable
clock_agrees() {
	"$N/tools/memchan-clock" > /tmp/clock-guest.out 2>&1
	st=$?
	$CTL clock > /tmp/clock-cosim.out
	sed 's/^/# guest: /' /tmp/clock-guest.out
	sed 's/^/# cosim: /' /tmp/clock-cosim.out
	[ $st = 0 ]
	check $? "$1: the adapters' times, read in turn, lie within their bounds of one clock"
	bad=0
	for k in 0 1 2 3; do
		g=$(grep "^adapter $k time" /tmp/clock-guest.out)
		c=$(grep "^adapter $k time" /tmp/clock-cosim.out)
		echo "$g" | grep -q " valid 1 master 0 " || bad=1
		bound=$(echo "$g" | sed -n 's/.* bound \([0-9]*\) .*/\1/p')
		err=$(echo "$c" | sed -n 's/.* error \(-*[0-9]*\) .*/\1/p')
		spread=$(echo "$c" | sed -n 's/.* spread \([0-9]*\) .*/\1/p')
		echo "$c" | grep -q " valid 1 " || bad=1
		[ -n "$bound" ] && [ -n "$err" ] && [ "$bound" = "$spread" ] &&
			[ "$err" -le 0 ] && [ "$err" -ge "-$bound" ] || bad=1
		echo "# clock adapter $k: error $err cycles against the hub, bound $bound, derived spread $spread"
	done
	check $bad "$1: every adapter VALID (the hub is the master), its error against the hub's time within -CLOCK_BOUND..0, CLOCK_BOUND the spread derived for its cable"
}
clock_agrees "clock, cables without stalls"
$CTL stall 6 30 > /dev/null
check $? "control channel: 30 % stalls on cable 6 (the hub to node 2)"
tap "$N/tests/hub_test" -t broadcast_reaches_all_others
clock_agrees "clock, 30 % stalls toward node 2"
$CTL stall 6 0 > /dev/null

# ---- 5. the Java conformance suite on the hub's 4 nodes ----
# java: the selectors in /run/work/board-hub.select (the harness's --board-hub-select), or the whole suite;
# quick (board-hub): the two tests that need 4 nodes and take seconds
C=dev.memchan.conformance
case "${2:-}" in
quick) sel="--select-class $C.MulticastConformanceTest
	--select-method $C.BadInputConformanceTest#conflictingRoutesAndUnreachableReceiversAreRefusedAndChangeNothing" ;;
java) sel=$(cat /run/work/board-hub.select 2> /dev/null)
	[ -n "$sel" ] || sel="--select-package $C" ;;
*) exit $rc ;;
esac
props="-Dmemchan.test.backend=dev:/dev/memchan* -Dmemchan.test.nodes=4 -Dmemchan.test.timeScale=8 -Dmemchan.test.countScale=0.05 -Dmemchan.test.failureTimeoutMs=15000"
# java: the suite runs under 200 ppm bit flips on all 8 cables with link retry on (rule 3 for every
# test on the hub); afterwards the counters must show that the flips were real and that retry hid
# them (board-java's opt-in step 4 runs the ordering and lock subset under flips on two cabled
# adapters with the same check).
ppm=0
[ "$2" = java ] && ppm=200
crc0=0
retry0=0
for k in 0 1 2 3; do
	crc0=$((crc0 + $(field /dev/memchan$k crc_errors)))
	retry0=$((retry0 + $(field /dev/memchan$k link_retries)))
done
if [ $ppm -gt 0 ]; then
	st=0
	for c in 0 1 2 3 4 5 6 7; do $CTL flip $c $ppm > /dev/null || st=1; done
	check $st "control channel: $ppm ppm bit flips on all 8 cables while the conformance suite runs"
fi
set -f
# shellcheck disable=SC2086
sh "$N/tests/conformance_guest.sh" "$JAVA" board-hub-conformance "$props" $sel || rc=1
set +f
if [ $ppm -gt 0 ]; then
	for c in 0 1 2 3 4 5 6 7; do $CTL flip $c 0 > /dev/null; done
	$CTL stats > /tmp/stats-hub-flips.out
	sed 's/^/# cosim: /' /tmp/stats-hub-flips.out
	crc=0
	retries=0
	errs=0
	for k in 0 1 2 3; do
		crc=$((crc + $(field /dev/memchan$k crc_errors)))
		retries=$((retries + $(field /dev/memchan$k link_retries)))
		errs=$((errs + $(field /dev/memchan$k error_count)))
	done
	flips=$(sed -n 's/^cable .* flips \([0-9]*\) .*/\1/p' /tmp/stats-hub-flips.out | awk '{ n += $1 } END { print n + 0 }')
	[ $((crc - crc0)) -gt 0 ] && [ $((retries - retry0)) -gt 0 ] && [ $errs = 0 ]
	check $? "the suite's flips were real and retry hid them: $flips bits flipped on the cables (the hub's CRC errors are its own), CRC_ERRORS +$((crc - crc0)) and LINK_RETRIES +$((retries - retry0)) at the adapters, ERROR_COUNT $errs"
fi
# A test that needs more nodes than it found is reported as skipped, which the step above counts
# as reported: here every one must have run, but for those that cannot run on any adapter, by
# their own assumptions: BadInput's soft-fabric file cases (a file's mode, magic and size, and
# creating over it: there is no file) and its other-uid case (a soft fabric's file mode); Failure's
# eviction (a node staged in its own PID namespace: unshare --user --pid, which the guest lacks);
# notifications that carry data (the board's adapter has no notification queue yet: dev: refuses
# them there with UNSUPPORTED, docs/architecture.md, "Notifications that carry data")
cannot="BadInputConformanceTest.fabricFilesAreCreatedGroupReadWriteOnly()
BadInputConformanceTest.wrongMagicVersionOrSizeIsRefusedAndNeverWritten()
BadInputConformanceTest.creatingOverAnExistingFileIsRefused()
BadInputConformanceTest.regionModesAndFileModesKeepOtherUsersOut()
FailureConformanceTest.aNodeDeclaredDeadWhileAliveLearnsItAndRejoinsAsANewIncarnation()
DataNotificationConformanceTest.payloadAndSenderArriveInOrderPerSenderAfterTheSendersStores()
DataNotificationConformanceTest.noneIsLostWhileTheReceiverSleepsAndAFullQueueCountsExactlyWhatItRefused()
DataNotificationConformanceTest.badInputIsRefusedAndChangesNothing()"
skipped=$(sed -n 's/^# skipped: board-hub-conformance: \([^ ]*\) .*/\1/p' /tmp/board-hub-conformance.tap)
echo "$skipped" | sed '/^$/d; s/^/# skipped on the hub: /'
unexpected=$(echo "$skipped" | grep -vxF "$cannot" | grep .)
[ -z "$unexpected" ] && [ -s /tmp/board-hub-conformance.tap ]
check $? "every selected conformance test ran on the hub's 4 nodes (none skipped by an assumption${unexpected:+; skipped: $(echo $unexpected)}) but the $(echo "$cannot" | grep -c .) that cannot run on an adapter"
[ "$2" = java ] || exit $rc
mcctl status --fabric dev:/dev/memchan2 > /tmp/hub-status.out 2>&1
st=$?
sed 's/^/# mcctl status: /' /tmp/hub-status.out
[ $st = 0 ] && grep -q "^clock *time [0-9]* link_cycles, bound 0 " /tmp/hub-status.out
check $? "mcctl status on node 2 shows its global time with the bound of its cable (0)"
grep -q "^node 2 hub: nodes up 0,1,2,3$" /tmp/hub-status.out
check $? "mcctl status on node 2 shows the hub's NODES_UP: nodes 0..3"
exit $rc
