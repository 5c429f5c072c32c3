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
# (JVM OPTIONS are split on spaces, never globbed: -Dmemchan.test.backend=dev:/dev/memchan* stays.)
# The launcher and every node JVM it starts run with C1 only: under TCG, C2's compiler threads cost
# more vCPU time than they save in the tests' short-lived JVMs.
JAVA=$1
LABEL=$2
OPTS=$3
shift 3
log=/tmp/$LABEL.log
timed=/tmp/$LABEL.timed
start=$(date +%s)
: > "$timed"
set -f
# shellcheck disable=SC2086
"$JAVA" -XX:TieredStopAtLevel=1 -Dmemchan.test.nodeJvmOptions=-XX:TieredStopAtLevel=1 -Xshare:auto \
	-Dstdout.encoding=UTF-8 --enable-native-access=ALL-UNNAMED $OPTS -jar /run/work/java/console-standalone.jar execute \
	--disable-banner --disable-ansi-colors --details=testfeed \
	--class-path /run/work/java/classes:/run/work/java/test-classes "$@" \
	--exclude-classname '.*NodeProcessTest' > "$log" 2>&1 &
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
rc=$?
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
found=$(sed -n 's/^\[ *\([0-9]*\) tests found .*/\1/p' "$log")
listed=$(sed -n 's/^# reported //p' "/tmp/$LABEL.tap")
echo "# $LABEL took $(( $(date +%s) - start )) s (launcher exit $rc, $found tests found, $listed reported)"
if [ $rc -eq 0 ] && ! grep -q "^not ok" "/tmp/$LABEL.tap" && [ "${found:-0}" -gt 0 ] && [ "$listed" = "$found" ]; then
	echo "ok 1 $LABEL: launcher exit 0, all $found tests reported"
	exit 0
fi
echo "not ok 1 $LABEL: launcher exit $rc, $listed of ${found:-?} tests reported"
exit 1
