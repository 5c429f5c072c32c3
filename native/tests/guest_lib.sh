# Sourced by the guest test scripts (guest.sh runs them chrooted into the host's file system):
# R must be set to the checkout. Defines JAVA (the JDK 25 the scripts use) and mcctl, which runs
# scripts/mcctl (the one mcctl command line) on the snapshot of the build native/test.sh gives the
# guests, with the JIT limited to C1: JVM start-up dominates under QEMU TCG. The snapshot is at its
# host path (MEMCHAN_WORK, bound by the guest's init), where native/test.sh made mcctl's AOT cache
# (scripts/mcctl-aot-cache; unlike a dynamic class-data archive it covers the module path);
# mcctl_within is the same with a time bound.
for j in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*25*; do
	[ -x "$j/bin/java" ] && { JAVA=$j/bin/java; break; }
done
export JAVA_HOME=${JAVA%/bin/java}
# check STATUS DESCRIPTION: a TAP line, ok when STATUS is 0 (else rc=1)
check() {
	if [ "$1" = 0 ]; then echo "ok 1 $2"; else echo "not ok 1 $2"; rc=1; fi
}
MCCTL_ENV="MCCTL_HOME=${MEMCHAN_WORK:-/run/work}/mcctl MCCTL_JAVA_OPTS=-XX:TieredStopAtLevel=1"
mcctl() {
	# shellcheck disable=SC2086
	env $MCCTL_ENV "$R/scripts/mcctl" "$@"
}
# mcctl_within SECONDS ARGS...: mcctl, stopped after SECONDS (exit 124): a server whose client failed
mcctl_within() {
	secs=$1
	shift
	# shellcheck disable=SC2086
	timeout "$secs" env $MCCTL_ENV "$R/scripts/mcctl" "$@"
}
# field DEVICE NAME: one value of memchan_test info
field() {
	MEMCHAN_DEV=$1 "$R/native/tests/memchan_test" info | sed -n "s/^$2=//p"
}
