#!/bin/sh
# Runs inside the QEMU guest, chrooted into the host's file system (read-only
# 9p; /dev, /proc, /sys, /tmp, /run are the guest's). Usage: guest.sh ROOT TEST
# Prints TAP lines; the harness (harness/native.py) counts them and checks the console for oopses.
R=$1
T=$2
N=$R/native
set -u

load() {
	insmod "$N/memchan.ko" "$@" || { echo "not ok 1 insmod memchan.ko"; return 1; }
	i=0
	while [ ! -e /dev/memchan0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e /dev/memchan0 ] || { echo "not ok 1 /dev/memchan0 appeared"; return 1; }
}

# load_eight: the driver on the guest's 8 ivshmem adapters of one fabric, node IDs 0..7
load_eight() {
	load || return 1
	i=0
	while [ ! -e /dev/memchan7 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	for n in 0 1 2 3 4 5 6 7; do
		"$N/tools/memchan-setnode" /dev/memchan$n $n || { echo "not ok 1 memchan-setnode /dev/memchan$n $n"; return 1; }
	done
}

udev_check() {
	# udevadm test against the real device, with our rules and a memchan group
	mount -t tmpfs tmp /etc/udev/rules.d
	cp "$R/udev/60-memchan.rules" /etc/udev/rules.d/
	cp /etc/group /tmp/group
	grep -q '^memchan:' /tmp/group || echo 'memchan:x:4711:' >> /tmp/group
	mount --bind /tmp/group /etc/group
	gid=$(awk -F: '$1 == "memchan" { print $3 }' /etc/group)
	for d in memchan0 memchan0-ctl; do
		udevadm test --action=add "/sys/class/misc/$d" > "/tmp/udev-$d.log" 2>&1
		grep -E "60-memchan.rules|GROUP|MODE" "/tmp/udev-$d.log" | sed "s/^/# $d: /"
	done
	if grep -q "GROUP $gid" /tmp/udev-memchan0.log && grep -q "MODE 0660" /tmp/udev-memchan0.log; then
		echo "ok 1 udev: /dev/memchan0 gets group memchan mode 0660"
	else
		echo "not ok 1 udev: /dev/memchan0 gets group memchan mode 0660"
	fi
	if grep -q "MODE 0600" /tmp/udev-memchan0-ctl.log && ! grep -q "GROUP $gid" /tmp/udev-memchan0-ctl.log; then
		echo "ok 2 udev: /dev/memchan0-ctl root only (0600)"
	else
		echo "not ok 2 udev: /dev/memchan0-ctl root only (0600)"
	fi
	umount /etc/group
	umount /etc/udev/rules.d
}

case "$T" in
abi)
	load || exit 1
	ls -l /dev/memchan0 /dev/memchan0-ctl
	start=$(date +%s)
	"$N/tests/abi_test"
	rc=$?
	echo "# abi tests took $(( $(date +%s) - start )) s"
	udev_check
	"$N/tests/unbind_test" || rc=1
	# the module is gone; it loads again and the node block it released is free
	load || exit 1
	"$N/tests/mc_cluster" --role a --node 0 --peer 1 --dev /dev/memchan0 --timeout 0 > /tmp/reload.log 2>&1
	if grep -q "handshake" /tmp/reload.log; then
		echo "ok 1 reload: module loads again and node 0 can be claimed"
	else
		cat /tmp/reload.log
		echo "not ok 1 reload: module loads again and node 0 can be claimed"
		rc=1
	fi
	rmmod memchan || rc=1
	dmesg | grep -E "memchan" | sed 's/^/# dmesg: /'
	exit $rc
	;;
java-a | java-b)
	# the Java library across two kernels: a MessageChannel between nodes 0 and 1
	load || exit 1
	role=${T#java-}
	[ "$role" = a ] && node=0 || node=1
	"$N/tools/memchan-setnode" /dev/memchan0 $node || exit 1
	for j in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*25*; do
		[ -x "$j/bin/java" ] && { JAVA=$j/bin/java; break; }
	done
	cd /tmp || exit 1
	"$JAVA" -XX:TieredStopAtLevel=1 -Xshare:auto --enable-native-access=ALL-UNNAMED \
		-cp /run/work/java/classes:/run/work/java/test-classes \
		dev.memchan.internal.dev.DevGuestCluster $role dev:/dev/memchan0
	exit $?
	;;
java)
	# the Java library (dev: backend, cluster service, regions, notifier) on the
	# driver, in one plain JVM (Maven under TCG is far too slow for the budget)
	load || exit 1
	"$N/tools/memchan-setnode" /dev/memchan0 0 || exit 1
	for j in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*25*; do
		[ -x "$j/bin/java" ] && { JAVA=$j/bin/java; break; }
	done
	start=$(date +%s)
	cd /tmp || exit 1
	"$JAVA" -XX:TieredStopAtLevel=1 -Xshare:auto --enable-native-access=ALL-UNNAMED \
		-cp /run/work/java/classes:/run/work/java/test-classes \
		dev.memchan.internal.dev.DevGuestSmoke dev:/dev/memchan0
	rc=$?
	echo "# java smoke took $(( $(date +%s) - start )) s"
	# mcctl (tools/) on the adapter: native/tests/mcctl_guest.sh
	sh "$N/tests/mcctl_guest.sh" "$R" || rc=1
	rmmod memchan || rc=1
	exit $rc
	;;
conformance)
	# the Java conformance suite, unchanged, with the JUnit console launcher: 8 adapters of one
	# fabric, node IDs 0..7, one per node process (dev:/dev/memchan*, docs/java-api.md)
	load_eight || exit 1
	for j in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*25*; do
		[ -x "$j/bin/java" ] && { JAVA=$j/bin/java; break; }
	done
	cd /tmp || exit 1
	# memchan.test.timeScale: the suite's allowances for starting node JVMs and for their progress
	# (not the bounds it asserts) times 4, as a JVM starts and runs several times slower under TCG.
	# memchan.test.countScale: the repetition counts at half (the host runs them whole on the soft
	# fabric, mvn-verify); every check and bound stays, and the driver's paths are the same at half.
	sh "$N/tests/conformance_guest.sh" "$JAVA" conformance \
		"-Dmemchan.test.backend=dev:/dev/memchan* -Dmemchan.test.nodes=8 -Dmemchan.test.timeScale=4 -Dmemchan.test.countScale=0.5" \
		--select-package dev.memchan.conformance
	rc=$?
	rmmod memchan || rc=1
	exit $rc
	;;
detector)
	# the failure detector's figures on the driver (docs/performance.md, "Failure detection under
	# load"): 8 adapters of one fabric as in the conformance guest, the suite's time scale. The soak
	# (4 nodes x 2 processes and an observer; every 20 s a node's named process SIGKILLed, its
	# survivor takes the slot over) with two CPU hogs in the guest beside it: no live node may be
	# declared dead. Then the SIGKILL-to-declared-dead latency of 20 kills, the guest otherwise idle.
	# Seconds and count: /run/work/detector.args ("SOAK_SECONDS KILLS", default "600 20"; 0 leaves
	# that part out).
	load_eight || exit 1
	. "$N/tests/guest_lib.sh"
	set -- $(cat /run/work/detector.args 2> /dev/null) 600 20
	soak=$1 kills=$2
	cd /tmp || exit 1
	opts="-Dmemchan.test.backend=dev:/dev/memchan* -Dmemchan.test.nodes=8 -Dmemchan.test.timeScale=4"
	node_opts="$TEST_JVM_OPTS $(aot_opts "$NODE_AOT")"
	detector() {
		set -f
		# shellcheck disable=SC2086
		"$JAVA" $TEST_JVM_OPTS "-Dmemchan.test.nodeJvmOptions=$node_opts" --enable-native-access=ALL-UNNAMED \
			$opts -cp "$NODE_CP" dev.memchan.conformance.DetectorLoadMain "$@"
		st=$?
		set +f
		return $st
	}
	rc=0
	if [ "$soak" -gt 0 ]; then
		sh -c 'while :; do :; done' & h1=$!
		sh -c 'while :; do :; done' & h2=$!
		# (a SIGKILL every 20 s: the host's 5 s times the suite's time scale, as a node JVM's
		# start takes that much longer here)
		detector soak "$soak" 4 2 20 > /tmp/soak.out 2>&1
		st=$?
		kill $h1 $h2
		sed 's/^/# /' /tmp/soak.out
		check $st "detector soak, $soak s, two CPU hogs in the guest: no live node declared dead ($(grep -c "^FALSE DEATH\|^EVICTED pid" /tmp/soak.out) false deaths or evictions)"
	fi
	if [ "$kills" -gt 0 ]; then
		detector kills "$kills" > /tmp/kills.out 2>&1
		st=$?
		sed 's/^/# /' /tmp/kills.out
		check $st "detector kills: $kills SIGKILLed nodes declared dead ($(grep "^kills result" /tmp/kills.out))"
	fi
	rmmod memchan || rc=1
	exit $rc
	;;
board-loop)
	# the co-simulated RTL adapter: hardware backend, identity checked, polling (no interrupt)
	load || exit 1
	dmesg | grep memchan | sed 's/^/# dmesg: /'
	if dmesg | grep -q "memchan0: hw backend, [0-9]* pages of [0-9]* bytes, [0-9]* nodes, irq poll"; then
		echo "ok 1 board: the driver binds to the RTL adapter with the hardware backend, irq poll"
	else
		echo "not ok 1 board: the driver binds to the RTL adapter with the hardware backend, irq poll"
	fi
	rc=0
	[ "$(cat /sys/class/misc/memchan0/irq_mode)" = poll ] &&
		echo "ok 2 sysfs irq_mode reads poll" || { echo "not ok 2 sysfs irq_mode reads poll"; rc=1; }
	start=$(date +%s)
	"$N/tests/hw_test" || rc=1
	echo "# hw tests took $(( $(date +%s) - start )) s"
	sh "$N/tests/board_mcctl.sh" "$R" || rc=1
	# clock policy: while the guest idles (the driver still polls IRQ_STATUS every poll_ms) the
	# device process must not burn a core (cpu_seconds / wall_seconds of its statistics)
	ctl="$R/firmware/cosim/cosimctl.sh"
	s1=$(sh "$ctl" stats | sed -n 's/^cycles \([0-9]*\) cpu_seconds \([0-9.]*\) wall_seconds \([0-9.]*\)/\1 \2 \3/p')
	sleep 5
	s2=$(sh "$ctl" stats | sed -n 's/^cycles \([0-9]*\) cpu_seconds \([0-9.]*\) wall_seconds \([0-9.]*\)/\1 \2 \3/p')
	idle=$(echo "$s1 $s2" | awk 'NF == 6 { printf "%.1f %d", 100 * ($5 - $2) / ($6 - $3), $4 - $1 }')
	if [ -n "$idle" ] && [ "${idle%%.*}" -lt 20 ]; then
		echo "ok 3 the device process idles: ${idle% *} % of a CPU, ${idle#* } cycles in 5 s of guest idle"
	else
		echo "not ok 3 the device process idles (${idle:-no statistics} % of a CPU, cycles)"; rc=1
	fi
	# device removal with live mappings (the receive area mapped with dma_mmap_coherent among
	# them): SIGBUS, ENODEV, no warning; the module then unloads
	"$N/tests/unbind_test" || rc=1
	exit $rc
	;;
board-java | board-duo-a | board-duo-b)
	# board-java: the Java library, mcctl and the conformance suite on two RTL adapters cabled back
	# to back; board-duo: two guests, one RTL adapter each, the demo and mcctl bench across them
	load || exit 1
	case "$T" in
	board-java) sh "$N/tests/board_java.sh" "$R" ;;
	*) sh "$N/tests/board_duo.sh" "$R" "${T#board-duo-}" ;;
	esac
	rc=$?
	rmmod memchan || rc=1
	exit $rc
	;;
board-hub | board-hub-java)
	# four RTL adapters on the RTL hub of the co-simulated board (native/tests/board_hub.sh);
	# with the Java conformance tests that need three or more nodes: board-hub the two quick
	# ones, board-hub-java all of them
	load || exit 1
	if [ "$T" = board-hub-java ]; then sh "$N/tests/board_hub.sh" "$R" java
	else sh "$N/tests/board_hub.sh" "$R" quick; fi
	rc=$?
	rmmod memchan || rc=1
	exit $rc
	;;
board-bad)
	# adapters whose ID register / VERSION major differ (launch.py --bad-id / --bad-version)
	insmod "$N/memchan.ko" || { echo "not ok 1 insmod memchan.ko"; exit 1; }
	sleep 1
	dmesg | grep memchan | sed 's/^/# dmesg: /'
	rc=0
	if dmesg | grep -q "memchan .*ID register reads 0x4d444d43, expected 0x4d454d43"; then
		echo "ok 1 the adapter with a wrong ID is refused, the log names the ID"
	else
		echo "not ok 1 the adapter with a wrong ID is refused, the log names the ID"; rc=1
	fi
	if dmesg | grep -qE "memchan .*VERSION register reads 0x2[0-9a-f]{4}: register-map major 2, this driver supports 1"; then
		echo "ok 2 the adapter with VERSION major 2 is refused, the log names the version"
	else
		echo "not ok 2 the adapter with VERSION major 2 is refused, the log names the version"; rc=1
	fi
	if ls /dev/memchan* > /dev/null 2>&1; then
		echo "not ok 3 no /dev/memchanN appeared ($(ls /dev/memchan*))"; rc=1
	else
		echo "ok 3 no /dev/memchanN appeared"
	fi
	# mcctl has no adapter to talk to: exit 3 (NO_DEVICE) with its one-line message
	. "$N/tests/guest_lib.sh"
	cd /tmp || exit 1
	HOME=/tmp mcctl status --fabric 'dev:/dev/memchan*' > /tmp/bad-mcctl.out 2> /tmp/bad-mcctl.err
	st=$?
	sed 's/^/# mcctl status: /' /tmp/bad-mcctl.out /tmp/bad-mcctl.err
	if [ $st = 3 ] && grep -q "^mcctl: no device /dev/memchan[*]: load the memchan driver" /tmp/bad-mcctl.err; then
		echo "ok 4 mcctl status exits 3: no adapter"
	else
		echo "not ok 4 mcctl status exits 3: no adapter (exit $st)"; rc=1
	fi
	rmmod memchan || rc=1
	exit $rc
	;;
board-pair-a | board-pair-b)
	# two guests, one RTL adapter each, cabled; guest a injects bit flips on both cable directions
	# (control channel of the device process) and link retry, on by default, must hide them
	load || exit 1
	rc=0
	# the ordering rounds (both guests must agree): 50,000 instead of mc_cluster's 200,000, each
	# a BAR2 store through the proxy (200,000 take most of the boot); the flips still meet them
	# (about 130 bits flipped and retried in a run)
	PAIR_ROUNDS=50000
	if [ "$T" = board-pair-a ]; then
		if sh "$R/firmware/cosim/cosimctl.sh" flip 0 200 > /dev/null &&
		   sh "$R/firmware/cosim/cosimctl.sh" flip 1 200 > /dev/null; then
			echo "ok 1 control channel: 200 ppm bit flips on both cable directions"
		else
			echo "not ok 1 control channel: 200 ppm bit flips on both cable directions"; rc=1
		fi
		"$N/tests/mc_cluster" --role a --node 0 --peer 1 --dev /dev/memchan0 --timeout 400 \
			--rounds "$PAIR_ROUNDS" || rc=1
		# remote read and atomics at the other guest's home (issue 11)
		"$N/tests/remote_pair_test" -t requester || rc=1
		sh "$R/firmware/cosim/cosimctl.sh" stats | sed 's/^/# cosim: /'
		# remote requests to node 1 in RTL cycles, without the flips (a retransmission is not
		# the request's latency): memchan-remote-cycles, the device process's statistics
		t0=$(date +%s)
		sh "$R/firmware/cosim/cosimctl.sh" flip 0 0 > /dev/null &&
			sh "$R/firmware/cosim/cosimctl.sh" flip 1 0 > /dev/null &&
			"$N/tools/memchan-remote-cycles" requester 1 "sh $R/firmware/cosim/cosimctl.sh" > /tmp/pair.out
		st=$?
		cat /tmp/pair.out
		what="remote write, read and fetch-and-add to node 1 timed in RTL cycles ($(( $(date +%s) - t0 )) s)"
		if [ $st = 0 ]; then echo "ok 1 $what"; else echo "not ok 1 $what"; rc=1; fi
	else
		"$N/tests/mc_cluster" --role b --node 1 --peer 0 --dev /dev/memchan0 --timeout 400 \
			--rounds "$PAIR_ROUNDS" || rc=1
		"$N/tests/remote_pair_test" -t home || rc=1
		if "$N/tools/memchan-remote-cycles" home 0; then
			echo "ok 1 home of node 0's remote requests: every write landed, the word is exact"
		else
			echo "not ok 1 home of node 0's remote requests"; rc=1
		fi
	fi
	"$N/tools/memchan-info" > /tmp/info
	sed 's/^/# /' /tmp/info
	. /tmp/info
	if [ "${crc_errors:-0}" -gt 0 ] && [ "${error_count:-1}" = 0 ]; then
		echo "ok 1 the flips were real (crc_errors $crc_errors, link_retries $link_retries) and retry recovered them (error_count 0)"
	else
		echo "not ok 1 flips seen and recovered: crc_errors ${crc_errors:-?}, link_retries ${link_retries:-?}, error_count ${error_count:-?}"; rc=1
	fi
	rmmod memchan || rc=1
	exit $rc
	;;
rdma-a | rdma-b)
	sh "$N/tests/rdma_guest.sh" "$R" "${T#rdma-}"
	exit $?
	;;
cluster-a)
	load || exit 1
	exec "$N/tests/mc_cluster" --role a --node 0 --peer 1 --dev /dev/memchan0 --timeout 150
	;;
cluster-b)
	load || exit 1
	exec "$N/tests/mc_cluster" --role b --node 1 --peer 0 --dev /dev/memchan0 --timeout 150
	;;
*)
	echo "not ok 1 unknown guest test $T"
	exit 1
	;;
esac
