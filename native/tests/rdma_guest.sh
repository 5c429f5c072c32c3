#!/bin/sh
# The ucx:// backend on UCX's rc transport over soft-RoCE (the ucx-rdma boot, docs/ucx.md "RDMA"):
# two guests joined by one virtio-net link (QEMU's stream netdev between the two QEMU processes), an
# rxe device on it in each. UCX_TLS=rc_v: rc_verbs carries the data, ud_verbs the wire-up and the
# keepalive (an rc endpoint made from a worker address needs an auxiliary transport for its QP).
#   a (10.77.0.1): ucx_perftest's client, the hub, the JUnit console launcher, the nodes of even slots
#   b (10.77.0.2): ucx_perftest's server, the nodes of odd slots (node_relay.py serves them)
# Each conformance test runs against a hub of its own: UCX 1.13.1 aborts a hub about 30 s after a
# process of the fabric closed its UCX worker (the hub's close of that endpoint waits for the UD
# lane's peer timeout, whose failure path ends in a UCX assertion), so only tests that no process
# leaves before their end run here (docs/ucx.md). Each guest then reads the UCX log of every
# process it ran: every data lane of every endpoint on rc_verbs, else the boot fails. Timings under
# TCG prove nothing but that it runs. Usage: rdma_guest.sh ROOT a|b
R=$1
ROLE=$2
N=$R/native
set -u
. "$R/native/tests/guest_lib.sh"
rc=0
HUB=10.77.0.1
NODES_GUEST=10.77.0.2
HUB_PORT=7300
RELAY_PORT=7301
PERF_PORT=13337
CONFORMANCE=dev.memchan.conformance
SECRET=${MEMCHAN_WORK:-/run/work}/ucx-rdma.secret
if [ "$ROLE" = a ]; then me=$HUB; else me=$NODES_GUEST; fi

# ---- the link and soft-RoCE ----
mkdir -p /dev/shm && mount -t tmpfs shm /dev/shm   # UCX's posix transport and the host's soft fabric
# busybox's modprobe cannot load crc32_generic by its alias (rdma_rxe's crc32 need): named first
for m in virtio_net crc32_generic rdma_rxe; do
	modprobe "$m" || { echo "not ok 1 modprobe $m"; exit 1; }
done
ip link set lo up && ip addr add "$me/24" dev eth0 && ip link set eth0 up ||
	{ echo "not ok 1 eth0 up at $me"; exit 1; }
rdma link add rxe0 type rxe netdev eth0
i=0
until rdma link show rxe0/1 2> /dev/null | grep -q "state ACTIVE" && [ -s /sys/class/infiniband/rxe0/ports/1/gids/0 ]; do
	[ $i -ge 100 ] && break
	sleep 0.1
	i=$((i + 1))
done
rdma link show | sed 's/^/# /'
gid0=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0 2> /dev/null)
rdma link show rxe0/1 | grep -q "state ACTIVE"
check $? "soft-RoCE rxe0 on eth0 ($me) is ACTIVE, GID 0 $gid0 ($(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/0 2> /dev/null))"
# GID 0 (the link-local IPv6 one, RoCE v2) reaches the other guest and loops back within this one;
# the IPv4-mapped GID 1 does not loop back, and the hub's guest has nodes beside the hub
export UCX_TLS=rc_v UCX_NET_DEVICES=rxe0:1 UCX_IB_GID_INDEX=0
export UCX_LOG_LEVEL=info UCX_LOG_FILE=/tmp/ucx-log/%p.log
mkdir -p /tmp/ucx-log
export MEMCHAN_UCX_SECRET=$SECRET

# ucx_used LABEL: the UCX logs of this guest's processes since the last call. Every endpoint
# configuration (UCX's "ep_cfg[N]: rma(rc_verbs/rxe0:1) am(rc_verbs/rxe0:1) ka(ud_verbs/rxe0:1)" at
# info level) lists its lanes as purpose(transport/device ...): every data lane (am, rma, amo, amo_am,
# tag, stream, ...) must be rc_verbs/rxe0:1; the keepalive (ka) and wire-up lanes may be ud_verbs/rxe0:1, rc_v's
# auxiliary transport; anything else (tcp above all) fails. Some process must have opened an endpoint.
ucx_used() {
	cfgs=$(grep -h "ep_cfg\[" /tmp/ucx-log/*.log 2> /dev/null | sed 's/.*ep_cfg/ep_cfg/')
	procs=$(grep -l "ep_cfg\[" /tmp/ucx-log/*.log 2> /dev/null | wc -l)
	# one "purpose transport/device" line per lane
	lanes=$(echo "$cfgs" | sed 's/^ep_cfg\[[0-9]*\]://' | grep -o "[a-z_]*([^)]*)" |
		sed 's/^\([a-z_]*\)(\(.*\))$/\1 \2/' | awk '{ for (i = 2; i <= NF; i++) print $1, $i }')
	nlanes=$(echo "$lanes" | grep -c .)
	foreign=$(echo "$lanes" | grep -v -e " rc_verbs/rxe0:1$" -e "^ka ud_verbs/rxe0:1$" -e "^wireup ud_verbs/rxe0:1$" | sort -u | tr '\n' ',')
	echo "$cfgs" | sort | uniq -c | sed "s/^/# $1: UCX endpoint configurations: /"
	grep -h "UCX  \(WARN\|ERROR\)" /tmp/ucx-log/*.log 2> /dev/null | sed 's/^[^]]*] [^]]*] *//' | sort | uniq -c |
		head -20 | sed "s/^/# $1: UCX: /"
	[ "$procs" -gt 0 ] && [ "$nlanes" -gt 0 ] && [ -z "$foreign" ]
	check $? "$1: $procs processes opened UCX endpoints ($nlanes lanes), every data lane on rc_verbs/rxe0:1${foreign:+ (not: $foreign)}"
	rm -f /tmp/ucx-log/*.log
}
# hs_errs: the head of every JVM fatal-error report in this guest's /tmp (a node's is there, where it ran)
hs_errs() {
	for f in /tmp/*hs_err*.log; do
		[ -f "$f" ] || continue
		grep -m 40 -v "^$" "$f" | sed "s|^|# ${f##*/}: |"
		sed -n '/^Native frames/,/^$/p' "$f" | head -30 | sed "s|^|# ${f##*/}: |"
	done
}

if [ "$ROLE" = b ]; then
	# ---- ucx_perftest's server for a's two tests, then the nodes' server until a stops it ----
	for t in put fadd; do
		UCX_LOG_FILE= timeout 120 ucx_perftest -p $PERF_PORT > /tmp/perf-$t.out 2>&1
		st=$?
		cp /tmp/perf-$t.out /tmp/ucx-log/perftest-$t.log
		sed "s/^/# ucx_perftest server ($t): /" /tmp/perf-$t.out
		check $st "ucx_perftest server, test $t from the other guest"
	done
	ucx_used "ucx_perftest server"
	cd /tmp || exit 1
	# JVMs of the other guest's suite run here: its node launcher connects to this server
	mkdir -p "$AOT_LOG" && chmod 1777 "$AOT_LOG"   # the node JVMs' AOT logs (aot_opts, in a)
	timeout 1300 python3 "$R/native/tests/node_relay.py" serve $RELAY_PORT
	check $? "node relay served the other guest's nodes until it was told to stop"
	ls /tmp/ucx-log | wc -l | sed 's/^/# node JVMs that ran here: /'
	hs_errs
	ucx_used "nodes in guest b"
	exit $rc
fi

# ---- a: ucx_perftest over rc between the guests (the transport alone, before the library) ----
perf() {
	i=0
	# the server in the other guest listens once its guest is up: tried until it answers
	# (its UCX log on stdout, where the connection's refusal is seen)
	until UCX_LOG_FILE= timeout 120 ucx_perftest $NODES_GUEST -p $PERF_PORT -t "$1" -n 200 -w 20 > /tmp/perf.out 2>&1; do
		grep -q "connect() failed" /tmp/perf.out && [ $i -lt 120 ] || break
		sleep 1
		i=$((i + 1))
	done
	grep -q "^Final:" /tmp/perf.out
	st=$?
	cp /tmp/perf.out "/tmp/ucx-log/perftest-$1.log"
	grep -v "UCX  \(INFO\|DIAG\)" /tmp/perf.out | sed "s/^/# ucx_perftest $1: /"
	check $st "ucx_perftest $1 to the other guest over rc_v: $(awk '/^Final:/ { print "median " $3 " us (TCG: function only)" }' /tmp/perf.out)"
}
perf ucp_put_lat
perf ucp_fadd
ucx_used "ucx_perftest client"

# ---- the suite: node slots alternate between this guest (env: no prefix) and the other ----
export MEMCHAN_NODE_RELAY=$NODES_GUEST:$RELAY_PORT
relay=$R/native/tests/node_relay.py
i=0
until "$relay" true 2> /dev/null; do
	[ $i -ge 120 ] && break
	sleep 1
	i=$((i + 1))
done
"$relay" true
check $? "the other guest runs this guest's commands (node_relay.py at $MEMCHAN_NODE_RELAY)"
cd /tmp || exit 1
# session LABEL SELECTOR: one test against a hub of its own (the hub's abort described above)
session() {
	label=$1
	shift
	"$JAVA" $TEST_JVM_OPTS --enable-native-access=ALL-UNNAMED -cp "$NODE_CP" dev.memchan.internal.ucx.UcxHubMain \
		"$HUB:$HUB_PORT" rdma --secret "$SECRET" > /tmp/hub.out 2>&1 &
	hub=$!
	i=0
	until grep -q "^hub listening at " /tmp/hub.out; do
		kill -0 $hub 2> /dev/null && [ $i -lt 1200 ] || break
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "^hub listening at " /tmp/hub.out
	check $? "$label: $(head -1 /tmp/hub.out)"
	sh "$N/tests/conformance_guest.sh" "$JAVA" "$label" \
		"-Dmemchan.test.backend=ucx://$HUB:$HUB_PORT/rdma -Dmemchan.test.countScale=0.25 -Dmemchan.test.timeScale=4 -Dmemchan.test.nodeLaunchers=env;$relay" \
		"$@" || rc=1
	kill $hub
	wait $hub
	grep -v "^hub listening" /tmp/hub.out | tail -20 | sed "s/^/# $label hub: /"
}
session rdma-region --select-method "$CONFORMANCE.RegionConformanceTest#aRegionOverFreedPagesStartsZeroedAtEveryNode"
session rdma-notify --select-method "$CONFORMANCE.SynchronizationConformanceTest#notificationWakesABlockedReceiver"
"$relay" stop
hs_errs
ucx_used "hubs and nodes in guest a"
exit $rc
