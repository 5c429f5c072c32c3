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
# The guests' CPU (native/test.sh's GUEST_CPU) has no AVX, and the JDK runs the adapters an AOT
# cache holds without checking them against the CPU (25.0.3: SIGILL in ~AdapterBlob when a cache
# trained on an AVX host starts a JVM on a CPU without AVX): every JVM that trains a cache for the
# guests on the host uses no AVX either (in a guest the option changes nothing)
GUEST_JVM_CPU_OPTS="-XX:UseAVX=0"
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
# ---- the Java test JVMs: the build's snapshot as jars, and their AOT caches ----
# native/test.sh snapshots java-api's jars into $MEMCHAN_WORK/java, which the guests see at its host
# path, and scripts/test-jvm-aot-cache (on the host, sourcing this file) trains two JDK 25 AOT caches
# there from them. An AOT cache holds classes of jars only (not of class directories), names them
# by path and checks each jar's size and mtime, and belongs to one JDK: hence one definition, here,
# for the host's training runs and the guests' JVMs.
JW=${MEMCHAN_WORK:-/run/work}/java
# the node JVMs' class path as NodeProcess.classPath() makes it from the launcher's (the suite's
# jar, then the library's); board_java.sh's BoardLinkErrors uses it too
NODE_CP=$JW/memchan-api-tests.jar:$JW/memchan-api.jar
LAUNCHER_CP=$JW/console-standalone.jar:$NODE_CP
NODE_AOT=$JW/node.aot
LAUNCHER_AOT=$JW/launcher.aot
# Every test JVM: C1 only (under TCG, C2's compiler threads cost more vCPU time than they save in
# short-lived JVMs) and the serial GC (what a one-vCPU guest picks anyway; the training runs on the
# 2-core host must pick the same), and no AVX (above)
TEST_JVM_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC $GUEST_JVM_CPU_OPTS"
# each JVM's log of opening its cache, by pid (read by aot_report); the line a JVM logs once it
# has mapped and validated a cache
AOT_LOG=/tmp/aot-log
AOT_USED="Using AOT-linked classes: true"
# aot_opts CACHE: the JVM options that start from CACHE and log to $AOT_LOG whether it could be
# used (not to stdout, where a node's lines are its protocol). The JDK (25.0.3) checks the module
# options and the JDK's image against a cache, but not the jars of the class path: one changed
# since the training run is served from the cache as it was (seen on the host: a rebuilt jar's old
# class ran). So the jars' SHA-256 sums, recorded beside the cache by scripts/test-jvm-aot-cache,
# are checked first; a cache they do not match is not used, and aot_report says so.
aot_opts() {
	mkdir -p "$AOT_LOG" && chmod 1777 "$AOT_LOG"
	[ -f "$1" ] || return 0
	if ! sha256sum -c --status "$1.sha256" 2> /dev/null; then
		echo "[error][aot] the jars differ from those $1 was trained with ($1.sha256): not used" > "$AOT_LOG/stale-${1##*/}.log"
		return 0
	fi
	echo "-XX:AOTCache=$1 -Xlog:aot=off,cds=off -Xlog:aot=info,cds=info:file=$AOT_LOG/%p.log"
}
# aot_report LABEL CACHE...: how the JVMs since the last report started: a comment when a cache
# was never made (native/test.sh reports why), else a TAP line: every JVM started from its cache
# (one that could not use it is named with the JVM's reason). A JVM without
# --enable-native-access (BadInput's missingNativeAccessIsExplained) cannot use a cache trained
# with it (the JDK refuses other module options): counted apart, by that reason.
aot_report() {
	label=$1
	shift
	for c in "$@"; do
		[ -f "$c" ] || echo "# $label: no AOT cache $c: its JVMs started without one"
	done
	n=$(ls "$AOT_LOG" 2> /dev/null | wc -l)
	if [ "$n" -gt 0 ]; then
		no_native=$(grep -l "property jdk.module.enable.native.access: ALL-UNNAMED specified during dump time but not during runtime" \
			"$AOT_LOG"/*.log | wc -l)
		bad=$(grep -L -e "$AOT_USED" -e "jdk.module.enable.native.access: ALL-UNNAMED specified during dump" "$AOT_LOG"/*.log)
		for f in $bad; do
			grep -h "error\|warning" "$f" | head -3 | sed "s|^|# $label: JVM ${f##*/}: |"
		done
		nbad=$(echo "$bad" | grep -c .)
		[ "$nbad" = 0 ]
		check $? "$label: $((n - nbad - no_native)) of $n JVMs started from their AOT cache ($no_native without native access cannot)"
	fi
	rm -rf "$AOT_LOG"
}

# field DEVICE NAME: one value of memchan-info
field() {
	MEMCHAN_DEV=$1 "$R/native/tools/memchan-info" | sed -n "s/^$2=//p"
}
# peer_unseen DEV...: waits, at most 10 s, until no DEV's LINK_STATUS.PEER_SEEN is set; 1 if one
# still is. After a cable cut the adapter counts its peer as seen for 4 heartbeat periods after the
# last heartbeat it heard, and a NODE_ID.AUTO written within them takes the ID that heartbeat
# announced: a check that needs the cut noticed waits for this first
peer_unseen() {
	i=0
	for d in "$@"; do
		while [ "$(field "$d" peer_seen)" != 0 ]; do
			[ $i -ge 100 ] && return 1
			sleep 0.1
			i=$((i + 1))
		done
	done
}
