#!/bin/sh
# The Java conformance suite (java-api/src/test/java/dev/memchan/conformance) in a guest, with the
# JUnit console launcher (Maven is far too slow under TCG) in its test-feed mode, which prints and
# flushes each test's start and result as they happen ("JUnit Jupiter > Class > name() :: STARTED",
# ":: SUCCESSFUL", ":: FAILED|ABORTED|SKIPPED" with the reason on the next line): the console shows
# which test runs while it runs, with the guest's uptime. Then one TAP line per test with its
# seconds (ABORTED by an assumption and SKIPPED become comments with the reason), the slowest
# tests, and one line for the whole run: the launcher passed and every test it found reported.
# Used by guest.sh (ivshmem) and board_java.sh (the co-simulated RTL adapters).
# Usage: conformance_guest.sh JAVA LABEL "JVM OPTIONS" LAUNCHER-SELECTOR...
# (NodeProcessTest, the harness's own test, crashes JVMs on purpose: it runs on the host only.)
# (The test classes run in the order of their names, on every machine: java-api's
# junit-platform.properties.)
# (JVM OPTIONS are split on spaces, never globbed: -Dmemchan.test.backend=dev:/dev/memchan* stays.)
# The launcher and every node JVM it starts run with guest_lib.sh's TEST_JVM_OPTS (C1 only, serial
# GC) and start from the AOT caches native/test.sh made on the host (guest_lib.sh): the launcher
# with the suite's jars on its class path (an AOT cache holds only classes of the JVM's own class
# path, not of a class loader the launcher makes for --class-path), the nodes with theirs. The last
# TAP line before the summary says whether every JVM could use its cache.
. "$(dirname "$0")/guest_lib.sh"
JAVA=$1
LABEL=$2
OPTS=$3
shift 3
log=/tmp/$LABEL.log
timed=/tmp/$LABEL.timed
start=$(date +%s)
: > "$timed"
rm -rf "$AOT_LOG"
# (before the launcher starts, and its log made: the follower below must find it; a background
# job's expansions run in the job, after the follower may have started)
node_opts="$TEST_JVM_OPTS $(aot_opts "$NODE_AOT")"
launcher_opts="$TEST_JVM_OPTS $(aot_opts "$LAUNCHER_AOT")"
: > "$log"
set -f
# shellcheck disable=SC2086
"$JAVA" $launcher_opts "-Dmemchan.test.nodeJvmOptions=$node_opts" \
	-Dstdout.encoding=UTF-8 --enable-native-access=ALL-UNNAMED $OPTS -cp "$LAUNCHER_CP" \
	org.junit.platform.console.ConsoleLauncher execute --disable-banner --disable-ansi-colors \
	--details=testfeed "$@" --exclude-classname '.*NodeProcessTest' > "$log" 2>&1 &
launcher=$!
set +f
# the launcher's output on the console as it comes, with the guest's uptime; the same lines with
# their uptime in $timed for the per-test seconds
tail -n +1 --pid=$launcher -f "$log" | while IFS= read -r line; do
	up=$(cut -d' ' -f1 /proc/uptime)
	echo "# $LABEL $up: $line"
	printf '%s %s\n' "$up" "$line" >> "$timed"
done &
follower=$!
wait $launcher
lrc=$?
rc=0	# aot_report's check sets it
wait $follower	# tail --pid ends with the launcher
# what the kernel saw of the node processes (OOM kills, fatal signals), and the memory left
dmesg | grep -iE "out of memory|oom|killed process|segfault|traps:|memchan.*(error|fail)" |
	grep -v "module verification failed" | sed 's/^/# dmesg: /'
free -m | sed 's/^/# /'
# a result's name is "Class > name()" without the engine; a test's last part has parentheses,
# a class's has none (a class reports only a failure or an abort of its own)
awk -v label="$LABEL" -v times="/tmp/$LABEL.times" '
	function name(s) { sub(/^JUnit Jupiter > /, "", s); sub(/ :: [A-Z]+$/, "", s); gsub(/ > /, ".", s); return s }
	{ t = $1; line = substr($0, length($1) + 2) }
	pending != "" {
		why = line; sub(/^\t+/, "", why); sub(/^Reason: /, "", why)
		print pending " " why; pending = ""; next
	}
	line ~ /^JUnit Jupiter > .* :: STARTED$/ { started[name(line)] = t; next }
	line ~ /^JUnit Jupiter > .* :: (SUCCESSFUL|FAILED|ABORTED|SKIPPED)$/ {
		n = name(line); status = line; sub(/.* :: /, "", status)
		test = n ~ /\(/
		secs = ""
		if (n in started) { secs = sprintf("(%.1f s)", t - started[n]); printf "%.1f %s\n", t - started[n], n > times }
		if (test) tests++
		if (status == "SUCCESSFUL") print "ok 1 " label ": " n " " secs
		else if (status == "FAILED") pending = "not ok 1 " label ": " n (test ? "" : " (the class)") " " secs
		else pending = "# skipped: " label ": " n (test ? "" : " (the class)")
	}
	END { print "# reported " tests + 0 }' "$timed" > "/tmp/$LABEL.tap"
grep -v "^# reported " "/tmp/$LABEL.tap"
echo "# $LABEL slowest tests (s):"
sort -rn "/tmp/$LABEL.times" 2> /dev/null | head -12 | sed 's/^/#   /'
aot_report "$LABEL" "$LAUNCHER_AOT" "$NODE_AOT"
found=$(sed -n 's/^\[ *\([0-9]*\) tests found .*/\1/p' "$log")
listed=$(sed -n 's/^# reported //p' "/tmp/$LABEL.tap")
echo "# $LABEL took $(( $(date +%s) - start )) s (launcher exit $lrc, $found tests found, $listed reported)"
if [ $lrc -eq 0 ] && ! grep -q "^not ok" "/tmp/$LABEL.tap" && [ "${found:-0}" -gt 0 ] && [ "$listed" = "$found" ]; then
	echo "ok 1 $LABEL: launcher exit 0, all $found tests reported"
	exit $rc
fi
echo "not ok 1 $LABEL: launcher exit $lrc, $listed of ${found:-?} tests reported"
exit 1
