#!/bin/sh
# mcctl (tools/) against the adapter in the guest, as an operator runs it: status, the loopback
# self-test (docs/selftest.md). Called by guest.sh's java test after the library smoke test.
# Usage: mcctl_guest.sh ROOT JAVA. Prints TAP lines; exit 0 only if all pass.
R=$1
JAVA=$2
export HOME=/tmp
rc=0

# as scripts/mcctl runs it, from the snapshot of tools/target
mcctl() {
	"$JAVA" --enable-native-access=dev.memchan -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
		-Xshare:auto --module-path /run/work/mcctl/memchan-tools.jar:/run/work/mcctl/lib \
		--module dev.memchan.tools/dev.memchan.tools.mcctl.Mcctl "$@"
}

for cmd in status selftest; do
	start=$(date +%s)
	mcctl $cmd --fabric dev:/dev/memchan0 > /tmp/mcctl-$cmd.log 2>&1
	st=$?
	sed "s/^/# mcctl $cmd: /" /tmp/mcctl-$cmd.log
	if [ $st -eq 0 ]; then
		echo "ok 1 mcctl $cmd --fabric dev:/dev/memchan0 ($(( $(date +%s) - start )) s)"
	else
		echo "not ok 1 mcctl $cmd --fabric dev:/dev/memchan0 (exit $st)"
		rc=1
	fi
done
exit $rc
