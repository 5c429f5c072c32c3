#!/bin/sh
# The Java conformance suite (java-api/src/test/java/dev/memchan/conformance) in a guest, with the
# JUnit console launcher (Maven is far too slow under TCG): one TAP line per test of the launcher's
# tree ("├─ name() [N ms] ✔"; ✘ failed; ↷ skipped and ■ aborted by an assumption become comments
# with the reason), then one line for the whole run: the launcher passed and every test it found
# is in the tree. Used by guest.sh (ivshmem) and board_java.sh (the co-simulated RTL adapters).
# Usage: conformance_guest.sh JAVA LABEL "JVM OPTIONS" LAUNCHER-SELECTOR...
# (NodeProcessTest, the harness's own test, crashes JVMs on purpose: it runs on the host only.)
# (JVM OPTIONS are split on spaces, never globbed: -Dmemchan.test.backend=dev:/dev/memchan* stays.)
JAVA=$1
LABEL=$2
OPTS=$3
shift 3
log=/tmp/$LABEL.log
start=$(date +%s)
set -f
# shellcheck disable=SC2086
"$JAVA" -XX:TieredStopAtLevel=1 -Xshare:auto -Dstdout.encoding=UTF-8 --enable-native-access=ALL-UNNAMED \
	$OPTS -jar /run/work/java/console-standalone.jar execute \
	--disable-banner --disable-ansi-colors --details=tree \
	--class-path /run/work/java/classes:/run/work/java/test-classes "$@" \
	--exclude-classname '.*NodeProcessTest' > "$log" 2>&1 &
launcher=$!
set +f
# the launcher's output on the console as it comes (test tree, failures with stack traces,
# summary), with the guest's uptime: a slow test shows which it is while it runs
tail -n +1 --pid=$launcher -f "$log" | while IFS= read -r line; do
	echo "# $LABEL $(cut -d' ' -f1 /proc/uptime): $line"
done &
follower=$!
wait $launcher
rc=$?
wait $follower	# tail --pid ends with the launcher
# what the kernel saw of the node processes (OOM kills, fatal signals), and the memory left
dmesg | grep -iE "out of memory|oom|killed process|segfault|traps:|memchan.*(error|fail)" |
	grep -v "module verification failed" | sed 's/^/# dmesg: /'
free -m | sed 's/^/# /'
awk -v label="$LABEL" '
	/─ [A-Za-z0-9_]+Test / { cls = $0; sub(/.*─ /, "", cls); sub(/ .*/, "", cls) }
	/─ [^ ]+\(.*\) ([0-9]+ ms )?(✔|✘|↷|■)/ {
		line = $0; sub(/.*─ /, "", line); name = line; sub(/\) .*/, ")", name)
		if (line ~ /\) ([0-9]+ ms )?✔/) print "ok 1 " label ": " cls "." name
		else if (line ~ /\) ([0-9]+ ms )?(↷|■)/) { why = line; sub(/.*(↷|■) */, "", why); print "# skipped: " label ": " cls "." name " " why }
		else { why = line; sub(/.*✘ */, "", why); print "not ok 1 " label ": " cls "." name " " why }
	}' "$log" > "/tmp/$LABEL.tap"
cat "/tmp/$LABEL.tap"
found=$(sed -n 's/^\[ *\([0-9]*\) tests found .*/\1/p' "$log")
listed=$(grep -cE "^(ok|not ok|# skipped:) " "/tmp/$LABEL.tap")
echo "# $LABEL took $(( $(date +%s) - start )) s (launcher exit $rc, $found tests found, $listed in the tree)"
if [ $rc -eq 0 ] && ! grep -q "^not ok" "/tmp/$LABEL.tap" && [ "${found:-0}" -gt 0 ] && [ "$listed" = "$found" ]; then
	echo "ok 1 $LABEL: launcher exit 0, all $found tests reported"
	exit 0
fi
echo "not ok 1 $LABEL: launcher exit $rc, $listed of ${found:-?} tests reported"
exit 1
