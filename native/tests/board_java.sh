#!/bin/sh
# The Java layer on the co-simulated board: one guest, two RTL adapters (firmware/cosim) cabled
# back to back, the driver's hardware backend (polling). Called by guest.sh board-java.
#   1. node IDs assigned by the link (MEMCHAN_NODE_AUTO): refused with the cable cut (the IDs stay
#      as they were), then 0 and 1, which turns on the virtual hub (rule 2 between two adapters)
#   2. the Java conformance tests through dev:/dev/memchan* (2 nodes; tests needing more skip by
#      their own assumption; fewer repetitions, the same bounds): native/test.sh's selection
#      (MEMCHAN_BOARD_JAVA_SELECT; default the whole suite, --select-package dev.memchan.conformance)
#      "2flips": the same under step 4's flips and checks (opt-in: the whole suite runs under
#      flips on the hub's cables, native/tests/board_hub.sh step 5)
#   3. mcctl as an operator runs it (native/tests/mcctl_guest.sh, less what only the ivshmem run needs)
#   4. (opt-in: board-hub-java runs the whole suite under flips with retry) rule 3 with link retry:
#      bit flips on both cables while the ordering and lock tests run; they pass, CRC_ERRORS and
#      LINK_RETRIES show the flips were real, ERROR_COUNT stays 0
#   5. rule 3 without retry: a receiver gets a prefix of the sender's stores in order, never a
#      flag ahead of its data; Fabric.errorsSince and mcctl status report the error; after
#      CTRL.ERR_RESET delivery resumes
#   cost (opt-in; runs after step 1) where a command's time goes on the board: wall and guest CPU
#      time of a JVM start, of mcctl --version and mcctl status, and what the device process did
#      meanwhile (cycles, CPU, BAR accesses: the driver's poll among them), at two idle runs of its
#      clock, with nobody joined and with a joined process, in the same boot (comments only)
#   jvm (opt-in; runs after step 1 and cost) a node JVM's start, with and without its AOT cache in
#      turn, 3 times each (comments, and whether the cache was used)
# The steps to run come from the test harness (/run/work/board-java.steps, its default
# BOARD_JAVA_STEPS in harness/tables.py); step 1 always runs (the others need its node IDs). Each step's time is printed ("# step N took S s").
# Usage: board_java.sh ROOT. TAP lines; exit 0 only if all pass.
R=$1
N=$R/native
CTL="sh $R/firmware/cosim/cosimctl.sh"
export HOME=/tmp
rc=0
cd /tmp || exit 1
. "$R/native/tests/guest_lib.sh"
i=0
while [ ! -e /dev/memchan1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
steps=$(cat /run/work/board-java.steps 2> /dev/null)
[ -n "$steps" ] || { check 1 "the harness names board-java's steps in /run/work/board-java.steps"; exit 1; }
for s in $steps; do
	case $s in
	1 | 2 | 2flips | 3 | 4 | 5 | cost | jvm) ;;
	*) check 1 "MEMCHAN_BOARD_JAVA_STEPS names steps of board_java.sh (1 2 2flips 3 4 5 cost jvm), not '$s'"; exit 1 ;;
	esac
done
echo "# steps: $steps"
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
t_step=$(date +%s)
took() {
	echo "# step $1 took $(( $(date +%s) - t_step )) s"
	t_step=$(date +%s)
}
# the cluster's failure timeout is this deployment's configuration: its node processes share one
# TCG vCPU, where a cluster agent's 100 ms heartbeat tick was seen 340-840 ms apart with two JVMs
# (the agent reports gaps on stderr), over the default 800 ms timeout's 400 ms hand-over window
timing="-Dmemchan.test.failureTimeoutMs=15000"
# BoardLinkErrors (java-api's test classes): the retry-off step's roles, and a joined process;
# run in the background only (exec: the job's pid is the JVM's, so kill reaches it)
# (the node JVMs' class path and AOT cache: guest_lib.sh)
jrun() {
	# shellcheck disable=SC2046,SC2086
	exec "$JAVA" $TEST_JVM_OPTS $(aot_opts "$NODE_AOT") --enable-native-access=ALL-UNNAMED "$timing" \
		-cp "$NODE_CP" dev.memchan.internal.dev.BoardLinkErrors "$@"
}

# ---- 1. node IDs from the link ----
echo 3000 > /sys/module/memchan/parameters/node_auto_ms
before="$(cat /sys/class/misc/memchan0/node_id) $(field /dev/memchan0 node_id)"
$CTL cut 0 1 > /dev/null && $CTL cut 1 1 > /dev/null
peer_unseen /dev/memchan0 /dev/memchan1
check $? "cable cut: both adapters' LINK_STATUS.PEER_SEEN clear within 10 s"
"$N/tools/memchan-setnode" /dev/memchan0 auto > /tmp/auto-cut.out 2>&1
st=$?
sed 's/^/# cable cut: /' /tmp/auto-cut.out
after="$(cat /sys/class/misc/memchan0/node_id) $(field /dev/memchan0 node_id)"
[ $st -ne 0 ] && grep -q "timed out" /tmp/auto-cut.out && [ "$after" = "$before" ]
check $? "node auto with the cable cut: refused (timed out), the node ID as before ($before)"
$CTL cut 0 0 > /dev/null && $CTL cut 1 0 > /dev/null
echo 30000 > /sys/module/memchan/parameters/node_auto_ms
"$N/tools/memchan-setnode" /dev/memchan0 auto > /tmp/auto0.out 2>&1 &
a0=$!
"$N/tools/memchan-setnode" /dev/memchan1 auto > /tmp/auto1.out 2>&1
st1=$?
wait $a0
st0=$?
sed 's/^/# node auto: /' /tmp/auto0.out /tmp/auto1.out
[ $st0 = 0 ] && [ $st1 = 0 ] && grep -q "node 0, assigned by the link" /tmp/auto0.out &&
	grep -q "node 1, assigned by the link" /tmp/auto1.out
check $? "node auto on both adapters: the link assigns 0 (lower serial: the virtual hub) and 1"
dmesg | grep "assigned by the link" | sed 's/^/# dmesg: /'
took 1

# ---- cost (opt-in): where a command's time goes on the board ----
if want cost; then
	MC="env $MCCTL_ENV $R/scripts/mcctl"
	# cycles, CPU seconds, wall seconds, seconds the clock ran, BAR0 reads, BAR0 writes and
	# transmit-window writes of both adapters: the device process's statistics
	devstat() {
		$CTL stats | awk '/^cycles /{ c = $2; cpu = $4; w = $6 } /^running /{ r = $3 }
			/^adapter /{ rd += $4; wr += $6; ww += $8 } END { print c, cpu, w, r, rd, wr, ww }'
	}
	# cost LABEL CMD...: CMD's wall time and guest CPU time, and the device process's work meanwhile
	cost() {
		label=$1
		shift
		a=$(devstat)
		/usr/bin/time -f "%e %U %S" -o /tmp/cost.time "$@" > /tmp/cost.out 2>&1
		st=$?
		b=$(devstat)
		echo "$a $b $(tail -n 1 /tmp/cost.time) $st" | awk -v l="$label" 'NF == 18 {
			printf "# cost %s: exit %d, wall %.1f s (guest user %.1f s, sys %.1f s); device process: %d cycles, CPU %.1f s, clock running %.1f of %.1f s; BAR0 reads %d, writes %d, window writes %d\n",
				l, $18, $15, $16, $17, $8 - $1, $9 - $2, $11 - $4, $10 - $3, $12 - $5, $13 - $6, $14 - $7 }
			NF != 18 { print "# cost " l ": no measurement (" $0 ")" }'
	}
	# no process joined: the guest's own commands only; the clock's idle run alternating between
	# the default and a quarter of it
	for idle in 65536 16384; do
		$CTL idle-cycles $idle > /dev/null
		cost "idle $idle, nobody joined: sleep 5" sleep 5
		cost "idle $idle, nobody joined: java -version" "$JAVA" -XX:TieredStopAtLevel=1 -Xshare:auto -version
		# shellcheck disable=SC2086
		cost "idle $idle, nobody joined: mcctl --version" $MC --version
		# shellcheck disable=SC2086
		cost "idle $idle, nobody joined: mcctl status" $MC status --fabric dev:/dev/memchan0
	done
	# a joined process that sleeps (its cluster agent stores a heartbeat every 100 ms), as while
	# the conformance and mcctl steps run
	mkdir -p /tmp/cost-bg
	jrun recv dev:/dev/memchan1 0x434f5354 10 /tmp/cost-bg > /tmp/cost-bg.out 2>&1 &
	bg=$!
	t0=$(date +%s)
	until grep -q READY /tmp/cost-bg.out || [ $(( $(date +%s) - t0 )) -gt 300 ]; do sleep 0.5; done
	echo "# cost: a joined process (BoardLinkErrors recv) ready after $(( $(date +%s) - t0 )) s"
	for idle in 65536 16384 65536 16384; do
		$CTL idle-cycles $idle > /dev/null
		cost "idle $idle, one process joined: sleep 5" sleep 5
		# shellcheck disable=SC2086
		cost "idle $idle, one process joined: mcctl status" $MC status --fabric dev:/dev/memchan0
	done
	$CTL idle-cycles 65536 > /dev/null
	kill $bg 2> /dev/null
	wait $bg
	took cost
fi
# ---- jvm (opt-in): a node JVM's start with and without its AOT cache ----
# as the conformance suite's nodes start (NodeProcess's options), in turn: NodeMain joins node 0
# (JOINED), reads QUIT and exits; wall and guest CPU time (comments), and whether the cache was used
if want jvm; then
	for aot in with without with without with without; do
		o=""
		[ $aot = with ] && o=$(aot_opts "$NODE_AOT")
		/usr/bin/time -f "%e %U %S" -o /tmp/jvm.time sh -c "printf 'QUIT\n' |
			$JAVA --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xmx128m $TEST_JVM_OPTS $o \
			-cp $NODE_CP dev.memchan.conformance.NodeMain claim dev:/dev/memchan0 0" > /tmp/jvm.out 2>&1
		st=$?
		read -r w u sy < /tmp/jvm.time
		echo "# jvm: a node JVM $aot its AOT cache: exit $st, wall $w s (guest user $u s, sys $sy s): $(grep JOINED /tmp/jvm.out)"
	done
	aot_report jvm "$NODE_AOT"
	took jvm
fi

# ---- 2. the conformance tests (2flips: under bit flips with link retry, rule 3) ----
props="-Dmemchan.test.backend=dev:/dev/memchan* -Dmemchan.test.nodes=2 -Dmemchan.test.timeScale=8 -Dmemchan.test.countScale=0.05 $timing"
# conformance LABEL FLIP-PPM SELECTOR...: the conformance tests SELECTOR... with FLIP-PPM random bit
# flips on both cables and link retry on; with flips, the retry counters must show that they were
# real and that retry hid them (CRC_ERRORS and LINK_RETRIES up, ERROR_COUNT 0)
conformance() {
	label=$1
	ppm=$2
	shift 2
	crc0=$(field /dev/memchan0 crc_errors)
	crc1=$(field /dev/memchan1 crc_errors)
	retry0=$(( $(field /dev/memchan0 link_retries) + $(field /dev/memchan1 link_retries) ))
	if [ "$ppm" -gt 0 ]; then
		$CTL flip 0 "$ppm" > /dev/null && $CTL flip 1 "$ppm" > /dev/null
		check $? "control channel: $ppm ppm bit flips on both cables"
	fi
	sh "$N/tests/conformance_guest.sh" "$JAVA" "$label" "$props" "$@" || rc=1
	[ "$ppm" -gt 0 ] || return
	$CTL flip 0 0 > /dev/null && $CTL flip 1 0 > /dev/null
	$CTL stats > /tmp/stats-flips.out
	sed 's/^/# cosim: /' /tmp/stats-flips.out
	for d in 0 1; do
		MEMCHAN_DEV=/dev/memchan$d "$N/tools/memchan-info" | tr '\n' ' ' | sed "s/^/# memchan$d: /"
		echo
	done
	d0=$(( $(field /dev/memchan0 crc_errors) - crc0 ))
	d1=$(( $(field /dev/memchan1 crc_errors) - crc1 ))
	retries=$(( $(field /dev/memchan0 link_retries) + $(field /dev/memchan1 link_retries) - retry0 ))
	errs=$(( $(field /dev/memchan0 error_count) + $(field /dev/memchan1 error_count) ))
	flips=$(sed -n 's/^cable .* flips \([0-9]*\) .*/\1/p' /tmp/stats-flips.out | awk '{ n += $1 } END { print n + 0 }')
	[ $((d0 + d1)) -gt 0 ] && [ $retries -gt 0 ] && [ $errs = 0 ]
	check $? "$label: the flips were real and retry hid them: $flips bits flipped on the cables, CRC_ERRORS +$d0/+$d1 (memchan0/1), LINK_RETRIES +$retries, ERROR_COUNT $errs"
}
# the launcher's selectors from native/test.sh (MEMCHAN_BOARD_JAVA_SELECT), split on spaces
sel=$(cat /run/work/board-java.select 2> /dev/null)
[ -n "$sel" ] || sel="--select-package dev.memchan.conformance"
set -f	# the selectors are split on spaces, never globbed
if want 2; then
	# shellcheck disable=SC2086
	conformance board-conformance 0 $sel
	took 2
fi
if want 2flips; then
	# shellcheck disable=SC2086
	conformance board-conformance-flips 200 $sel
	took 2flips
fi
set +f

# ---- 3. mcctl ----
if want 3; then
	sh "$N/tests/mcctl_guest.sh" "$R" || rc=1
	took 3
fi

# ---- 4. rule 3 with retry: flips on both cables while the ordering and lock tests run ----
if want 4; then
	conformance board-flips 200 \
		--select-method dev.memchan.conformance.OrderingConformanceTest#singleSenderOrderIsKeptAtEveryReceiver \
		--select-method 'dev.memchan.conformance.SynchronizationConformanceTest#clusterLockGivesMutualExclusionToFourProcesses(dev.memchan.LockKind)'
	took 4
fi

# ---- 5. rule 3 without retry ----
if want 5; then
	mkdir -p /tmp/lossy
	key=0x4c4f535359
	MEMCHAN_DEV=/dev/memchan0 "$N/tools/memchan-ctrl" retry=0 | sed 's/^/# memchan0 /'
	MEMCHAN_DEV=/dev/memchan1 "$N/tools/memchan-ctrl" retry=0 | sed 's/^/# memchan1 /'
	jrun recv dev:/dev/memchan1 $key 20000 /tmp/lossy > /tmp/lossy-recv.out 2>&1 &
	recv=$!
	jrun send dev:/dev/memchan0 $key 20000 /tmp/lossy > /tmp/lossy-send.out 2>&1 &
	send=$!
	# bounds in wall-clock seconds (a loop count stretches with the load of the one vCPU)
	t0=$(date +%s)
	until grep -q READY /tmp/lossy-recv.out && grep -q READY /tmp/lossy-send.out; do
		[ $(( $(date +%s) - t0 )) -gt 300 ] && break; sleep 0.5
	done
	if ! grep -q READY /tmp/lossy-recv.out || ! grep -q READY /tmp/lossy-send.out; then
		# no point in flipping bits under processes that never attached: fail now, with their output
		check 1 "the retry-off step's sender and receiver attached within 300 s"
		kill $recv $send 2> /dev/null
		sed 's/^/# lossy recv: /' /tmp/lossy-recv.out
		sed 's/^/# lossy send: /' /tmp/lossy-send.out
		for d in 0 1; do MEMCHAN_DEV=/dev/memchan$d "$N/tools/memchan-ctrl" retry=1 > /dev/null; done
		exit 1
	fi
	echo "# retry-off step: sender and receiver attached after $(( $(date +%s) - t0 )) s"
	# the first 1000 stores on a clean cable (BoardLinkErrors.PREFIX): the flips start once the
	# receiver has them, so the prefix it keeps is not empty
	touch /tmp/lossy/go
	t0=$(date +%s)
	until grep -q "^PREFIX" /tmp/lossy-recv.out; do [ $(( $(date +%s) - t0 )) -gt 300 ] && break; sleep 0.5; done
	$CTL flip 0 3000 > /dev/null	# the sender's cable: adapter 0 -> 1
	touch /tmp/lossy/flips
	t0=$(date +%s)
	until [ -e /tmp/lossy/result ]; do [ $(( $(date +%s) - t0 )) -gt 600 ] && break; sleep 0.5; done
	mcctl status --fabric dev:/dev/memchan1 --json > /tmp/lossy-status.out 2>&1
	$CTL flip 0 0 > /dev/null
	# Recovery: ERR_RESET on both adapters first, the discarding receiver (memchan1) first, and
	# only then retry back on. The other order freezes the guest: memchan0 got RETRY_EN while memchan1 still discarded and sent no
	# acknowledgement, so memchan0's sender exhausted its retries and discarded in turn, dropping
	# the echoes node 1 (the virtual hub's spoke) waits for; node 1's echo credits ran out, its
	# transmit window filled and the one vCPU blocked in a store (firmware/cosim/README.md,
	# "What a board relies on").
	for d in 1 0; do
		MEMCHAN_DEV=/dev/memchan$d "$N/tools/memchan-ctrl" err-reset | sed "s/^/# memchan$d /"
	done
	for d in 1 0; do
		MEMCHAN_DEV=/dev/memchan$d "$N/tools/memchan-ctrl" retry=1 | sed "s/^/# memchan$d /"
	done
	touch /tmp/lossy/again
	wait $recv
	wait $send
	sed 's/^/# lossy recv: /' /tmp/lossy-recv.out
	sed 's/^/# lossy send: /' /tmp/lossy-send.out
	sed 's/^/# mcctl status: /' /tmp/lossy-status.out | cut -c1-600
	result=$(grep "^RESULT" /tmp/lossy-recv.out)
	last=$(echo "$result" | sed -n 's/.* last=\([0-9]*\).*/\1/p')
	echo "$result" | grep -q " violations=0 " && echo "$result" | grep -q " errors_since=true " &&
		[ -n "$last" ] && [ "$last" -ge 1000 ] && [ "$last" -lt 20000 ]
	check $? "without retry the receiver got a prefix in order (last flag ${last:-?} of 20000, at least the 1000 sent before the flips, no flag ahead of its data) and Fabric.errorsSince saw the error"
	status_errors=$(grep -o '"error_count":[0-9]*' /tmp/lossy-status.out | cut -d: -f2 | sort -n | tail -1)
	[ "${status_errors:-0}" -gt 0 ]
	check $? "mcctl status on the receiving adapter shows the errors (error_count ${status_errors:-?})"
	grep -q "^RECOVERED" /tmp/lossy-recv.out
	check $? "after CTRL.ERR_RESET the receiver gets the sender's next store"
	$CTL stats | sed 's/^/# cosim: /'
	aot_report "retry-off step" "$NODE_AOT"
	took 5
fi

exit $rc
