#!/bin/bash
# native/test.sh: build the memchan driver against the installed Debian kernel,
# check it (-Werror, sparse, checkpatch.pl --strict, modinfo, udev rules), boot that kernel under QEMU
# (TCG) with a busybox initramfs and the host file system over 9p, and run the
# guest tests on the ivshmem backend:
#   abi      kselftest-style ABI tests, ioctl fuzz, unprivileged uid, udevadm,
#            unbind with live mappings (SIGBUS), module unload and reload
#   cluster  two guests sharing one ivshmem file form a 2-node cluster
#   host     a host process on the same soft-fabric file talks to a guest
#   java     the Java library on the driver (smoke test, mcctl, two guests, a host JVM)
#   conformance  the Java conformance suite, unchanged, on 8 adapters of one guest
#   board-loop   the RTL adapter (firmware/cosim) as the PCI device: hardware backend, polling
#   board-bad    adapters with a wrong ID / VERSION major are refused
#   board-java   one guest, two RTL adapters cabled: node IDs from the link, the conformance
#                tests a link can fail, mcctl, ordering under bit flips with and without retry
#                (in the default run since session 8: its retry-off step passed, and the guests'
#                cached 9p mount and one JVM per mcctl call made it affordable)
#   board-duo    two guests, one RTL adapter each: node IDs from the link, the demo, mcctl bench
#   board-pair   two guests, one RTL adapter each, cabled: mc_cluster across them
#   board-hub    one guest, four RTL adapters on the RTL hub: node IDs from the hub, broadcast,
#                point to point, multicast, the global clock, the two quick Java conformance tests
#                that need 4 nodes; board-hub-java (the default) the same checks, then the whole
#                Java conformance suite on the hub's 4 nodes
# A guest oops, BUG or WARNING on the console fails its boot. Closing line:
# "native: N passed, N failed"; exit status 1 on any failure.
#
# Environment: MEMCHAN_KVER (kernel version to use), MEMCHAN_KEEP=1 (keep the
# work directory), MEMCHAN_ONLY="abi cluster host java conformance board-loop board-bad board-java
# board-duo board-pair board-hub board-hub-java" (subset of the boots;
# default: all), MEMCHAN_BOARD_JAVA_SELECT (JUnit launcher selectors for board-java's conformance
# step; default the whole suite, "--select-package dev.memchan.conformance"),
# MEMCHAN_BOARD_JAVA_STEPS (board-java's steps, e.g. "1 5"; default "1 4 3 5";
# native/tests/board_java.sh), MEMCHAN_BOARD_HUB_SELECT (the same for
# board-hub-java; default the whole suite), MEMCHAN_BOARD_HUB_TIMEOUT (that boot's bound in
# seconds, default 2400; the whole suite took 792 s on an idle 2-core machine), MEMCHAN_JAVA_AOT=0 (the guests'
# test JVMs start without their AOT caches: scripts/test-jvm-aot-cache).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=$ROOT/native
PASS=0
FAIL=0
T_START=$(date +%s)

ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
notok() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
finish() {
	echo "# total $(( $(date +%s) - T_START )) s"
	echo "native: $PASS passed, $FAIL failed"
	[ "${MEMCHAN_KEEP:-0}" = 1 ] || rm -rf "$WORK"
	rm -f /dev/shm/memchan-test-$$-*
	[ $FAIL -eq 0 ] && [ $PASS -gt 0 ]
	exit $?
}

# ---- packages ---------------------------------------------------------------
# (verilator: the co-simulated board's device process; python3-clang: the uapi bindings check)
"$ROOT/scripts/need-packages" qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static sparse \
	kmod udev gcc make cpio dkms verilator python3-clang ||
	{ notok "packages installed"; WORK=$(mktemp -d); finish; }

# ---- kernel: newest version with both headers and an image ------------------
KVER=${MEMCHAN_KVER:-}
if [ -z "$KVER" ]; then
	for b in $(ls -d /lib/modules/*/build 2>/dev/null | sort -V); do
		v=${b#/lib/modules/}; v=${v%/build}
		[ -f "/boot/vmlinuz-$v" ] && KVER=$v
	done
fi
WORK=$(mktemp -d /tmp/memchan-test.XXXXXX)
if [ -z "$KVER" ] || [ ! -f "/boot/vmlinuz-$KVER" ]; then
	notok "a kernel image with headers is installed"; finish
fi
echo "# kernel $KVER"

# ---- build ------------------------------------------------------------------
t0=$(date +%s)
make -C "$N" clean KVER="$KVER" > /dev/null 2>&1
if make -C "$N" KVER="$KVER" -j2 > "$WORK/build.log" 2>&1; then
	ok "module builds with -Werror against $KVER ($(( $(date +%s) - t0 )) s)"
else
	sed 's/^/# /' "$WORK/build.log"; notok "module builds with -Werror"; finish
fi
touch "$N"/memchan_*.c
make -C "$N" KVER="$KVER" C=1 -j2 > "$WORK/sparse.log" 2>&1
if [ $? -eq 0 ] && grep -q CHECK "$WORK/sparse.log" && ! grep -E "warning:|error:" "$WORK/sparse.log"; then
	ok "sparse (make C=1) is clean"
else
	sed 's/^/# /' "$WORK/sparse.log"; notok "sparse (make C=1) is clean"
fi
# checkpatch.pl --strict of every driver source and header: the script (with spelling.txt and
# const_structs.checkpatch beside it, where it looks for them) from the kernel tree in Debian's
# linux-source-6.1, extracted once into a cache outside the checkout. Ignored, per file, with why:
#   memchan.h      LINUX_VERSION_CODE: an out-of-tree module (DKMS) built for 6.1 and for >= 6.3,
#                  where vm_flags became read-only; there is no symbol to test instead
#   uapi memchan.h BIT_MACRO: BIT()/BIT_ULL() are kernel-internal, not part of the user ABI
#   memchan_regs.h generated from regmap/memchan.toml (regmap/gen.py): each definition on one
#                  line with the register map's description (the text the SV, Java and docs carry:
#                  LONG_LINE, LONG_LINE_COMMENT, TYPO_SPELLING of its British "acknowledgement"),
#                  formulas parenthesized alike for every language (UNNECESSARY_PARENTHESES)
CPDIR=${XDG_CACHE_HOME:-$HOME/.cache}/memchan/checkpatch-6.1
if [ ! -f "$CPDIR/checkpatch.pl" ] && "$ROOT/scripts/need-packages" linux-source-6.1; then
	# into a fresh directory renamed into place: a concurrent run never sees half a tree
	mkdir -p "${CPDIR%/*}" && cptmp=$(mktemp -d "$CPDIR.XXXXXX") &&
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cptmp" --strip-components=2 \
			linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch &&
		mv -T "$cptmp" "$CPDIR" 2> /dev/null
	rm -rf "${cptmp:-}"
fi
checkpatch() {	# checkpatch FILE [--ignore TYPES]
	perl "$CPDIR/checkpatch.pl" --strict --no-tree --terse --show-types --no-summary -f "$@"
}
if [ -f "$CPDIR/checkpatch.pl" ]; then
	{
		for f in "$N"/memchan_*.c; do checkpatch "$f"; done
		checkpatch "$N/memchan.h" --ignore LINUX_VERSION_CODE
		checkpatch "$N/include/uapi/linux/memchan.h" --ignore BIT_MACRO
		checkpatch "$N/include/memchan_regs.h" \
			--ignore LONG_LINE,LONG_LINE_COMMENT,TYPO_SPELLING,UNNECESSARY_PARENTHESES
	} > "$WORK/checkpatch.log" 2>&1
	if [ -s "$WORK/checkpatch.log" ]; then
		sed 's/^/# /' "$WORK/checkpatch.log"; notok "checkpatch.pl --strict is clean"
	else
		ok "checkpatch.pl --strict is clean (driver sources, memchan.h, uapi and register headers)"
	fi
else
	notok "checkpatch.pl from linux-source-6.1 (scripts/need-packages linux-source-6.1)"
fi
if [ "$(modinfo -F name "$N/memchan.ko")" = memchan ] &&
   [ "$(modinfo -F parm "$N/memchan.ko" | grep -c ':.\{20,\}')" -ge 3 ] &&
   modinfo -F alias "$N/memchan.ko" | grep -q "v000010EEd00004D43" &&
   modinfo -F alias "$N/memchan.ko" | grep -q "v00001AF4d00001110"; then
	ok "modinfo: name, documented parameters, PCI aliases (board and ivshmem)"
else
	modinfo "$N/memchan.ko" | sed 's/^/# /'; notok "modinfo: name, documented parameters, PCI aliases"
fi
if make -C "$N" tools > "$WORK/tools.log" 2>&1; then
	ok "user-space tools and tests build with -Werror"
else
	sed 's/^/# /' "$WORK/tools.log"; notok "user-space tools and tests build"; finish
fi
# dkms add + build from a copy of native/, in private trees (the system's DKMS is left alone)
mkdir -p "$WORK/dkms/tree" "$WORK/dkms/src"
cp -a "$N" "$WORK/dkms/src/memchan-1.0"
make -C "$WORK/dkms/src/memchan-1.0" clean KVER="$KVER" > /dev/null 2>&1
if dkms add --dkmstree "$WORK/dkms/tree" --sourcetree "$WORK/dkms/src" memchan/1.0 > "$WORK/dkms.log" 2>&1 &&
   dkms build --dkmstree "$WORK/dkms/tree" --sourcetree "$WORK/dkms/src" memchan/1.0 -k "$KVER" >> "$WORK/dkms.log" 2>&1 &&
   [ -n "$(find "$WORK/dkms/tree/memchan/1.0/$KVER" -name 'memchan.ko*' 2>/dev/null)" ]; then
	ok "dkms add/build of native/dkms.conf for $KVER"
else
	sed 's/^/# /' "$WORK/dkms.log"; notok "dkms add/build of native/dkms.conf for $KVER"
fi

# ---- initramfs --------------------------------------------------------------
mkdir -p "$WORK/initrd/bin" "$WORK/initrd/lib/modules" "$WORK/initrd/proc" "$WORK/initrd/sys" \
	"$WORK/initrd/dev" "$WORK/initrd/host"
cp /bin/busybox "$WORK/initrd/bin/busybox"
MODS="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci 9pnet 9pnet_virtio netfs fscache 9p"
for m in $MODS; do
	f=$(find "/lib/modules/$KVER/kernel" -name "$m.ko*" | head -1)
	[ -n "$f" ] || continue	# built in
	case "$f" in
	*.xz) xz -dc "$f" > "$WORK/initrd/lib/modules/$m.ko" ;;
	*.zst) zstd -qdc "$f" > "$WORK/initrd/lib/modules/$m.ko" ;;
	*) cp "$f" "$WORK/initrd/lib/modules/$m.ko" ;;
	esac
done
# The host's file system is read-only to the guest and nothing the guest reads from it changes
# during a boot (the work directory's inputs are written before it; the device process's control
# channel is its own mount, cache=none): cache=loose keeps what a JVM reads (the JDK's image, the
# jars, the AOT cache) in the guest's page cache, so the next JVM does not read it over 9p again
# (session 8, the java guest: 211 -> 126 s, an mcctl command 10-20 -> 6-10 s).
cat > "$WORK/initrd/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $MODS; do [ -f /lib/modules/\$m.ko ] && insmod /lib/modules/\$m.ko; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host /host || echo "MEMCHAN-GUEST-9P-FAILED"
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
for x in \$(cat /proc/cmdline); do
	case \$x in mctest=*) T=\${x#mctest=} ;; mcroot=*) R=\${x#mcroot=} ;; esac
done
mount -t tmpfs run /host/run
mkdir -p /host/run/work /host/run/src
mount -o bind /host$WORK /host/run/work
# The checkout may itself live under /tmp (a CI clone): bind it before the guest's /tmp covers it.
mount -o bind /host\$R /host/run/src
R=/run/src
mount -t tmpfs tmp /host/tmp
# ... and the work directory at its host path as well: an AOT cache made on the host (mcctl's)
# names its jars by that path
mkdir -p /host$WORK && mount -o bind /host/run/work /host$WORK
export MEMCHAN_WORK=$WORK
echo "MEMCHAN-GUEST-START \$T"
chroot /host /bin/sh \$R/native/tests/guest.sh \$R \$T
echo "MEMCHAN-GUEST-EXIT \$?"
poweroff -f
EOF
chmod +x "$WORK/initrd/init"
(cd "$WORK/initrd" && find . | cpio -o -H newc 2> /dev/null | gzip -1) > "$WORK/initrd.gz"

# The guests' CPU under TCG: x86-64 with SSE4.2, no AVX. A JVM's start costs about 0.7-0.8x the
# vCPU time of -cpu max's (docs/performance.md, "Session 11"); the AOT caches the guests' JVMs
# start from are trained without AVX to match (guest_lib.sh, GUEST_JVM_CPU_OPTS)
GUEST_CPU=qemu64,+ssse3,+sse4.1,+sse4.2,+popcnt

# boot NAME TEST SHMFILE: one guest; console in $WORK/NAME.log
# (BOOT_MEM, BOOT_SMP, BOOT_TIMEOUT override the defaults for one call; BOOT_DEVS ivshmem
# devices, default 1, all on SHMFILE: one machine with several adapters of one fabric)
boot() {
	local devs=() i
	for ((i = 0; i < ${BOOT_DEVS:-1}; i++)); do
		devs+=(-object "memory-backend-file,id=hm$i,mem-path=$3,size=16M,share=on" -device "ivshmem-plain,memdev=hm$i")
	done
	timeout "${BOOT_TIMEOUT:-300}" qemu-system-x86_64 -accel tcg -cpu "$GUEST_CPU" -smp "${BOOT_SMP:-1}" \
		-m "${BOOT_MEM:-512}" -no-reboot \
		-display none -monitor none -serial "file:$WORK/$1.log" \
		-kernel "/boot/vmlinuz-$KVER" -initrd "$WORK/initrd.gz" \
		-append "console=ttyS0 loglevel=5 panic=-1 oops=panic mctest=$2 mcroot=$ROOT" \
		-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
		"${devs[@]}" > "$WORK/$1.qemu" 2>&1
}

# verdict NAME SECONDS: count the guest's TAP lines, check for oopses
verdict() {
	local log=$WORK/$1.log
	sed 's/^/# [guest '"$1"'] /' "$log" | grep -v "^# \[guest $1\] *$"
	grep -E "^(not )?ok [0-9]+ " "$log" > "$WORK/$1.tap"
	local p f
	p=$(grep -c "^ok " "$WORK/$1.tap")
	f=$(grep -c "^not ok " "$WORK/$1.tap")
	PASS=$((PASS + p)); FAIL=$((FAIL + f))
	echo "# guest $1: $p passed, $f failed in $2 s"
	if grep -qE "Oops|BUG:|WARNING:|Kernel panic|general protection fault|Call Trace:|UBSAN|KASAN" "$log"; then
		notok "guest $1: no oops, BUG or WARNING on the console"
	else
		ok "guest $1: no oops, BUG or WARNING on the console"
	fi
	if grep -q "MEMCHAN-GUEST-EXIT 0" "$log" && [ "$p" -gt 0 ]; then
		ok "guest $1: test command exited 0"
	else
		notok "guest $1: test command exited 0 ($(grep -a MEMCHAN-GUEST-EXIT "$log" || echo 'no exit marker'))"
	fi
}

# boot_board LABEL "NAME:TEST:ADAPTERS ..." [launch.py options...]: guests whose PCI devices are
# the co-simulated RTL adapters (firmware/cosim/launch.py; ADAPTERS e.g. 0 or 0,1); each guest's
# console in $WORK/NAME.log, the device process's log in $WORK/LABEL.cosim.log. The control
# directory $WORK/ctl-LABEL is the guest's writable 9p export "cosimctl" (firmware/cosim/README.md).
# BOOT_MEM, BOOT_TIMEOUT as for boot. One vCPU per guest, always: QEMU 7.2's re-entrancy guard
# refuses a second vCPU's access to a proxy device while the first waits for the device process
# ("Blocked re-entrant IO on MemoryRegion: bar-region-0"), so with -smp 2 stores to the transmit
# window were lost (a receiver saw flags ahead of their data).
boot_board() {
	local label=$1 spec=$2 g name test ads args=()
	shift 2
	mkdir -p "$WORK/ctl-$label"
	for g in $spec; do
		IFS=: read -r name test ads <<< "$g"
		args+=(--guest "$ads" -- qemu-system-x86_64 -accel tcg -cpu "$GUEST_CPU" -smp 1 -m "${BOOT_MEM:-512}" \
			-no-reboot -display none -monitor none -serial "file:$WORK/$name.log" \
			-kernel "/boot/vmlinuz-$KVER" -initrd "$WORK/initrd.gz" \
			-append "console=ttyS0 loglevel=5 panic=-1 oops=panic mctest=$test mcroot=$ROOT" \
			-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
			-virtfs "local,path=$WORK/ctl-$label,mount_tag=cosimctl,security_model=none")
	done
	timeout $(( ${BOOT_TIMEOUT:-300} + 60 )) python3 "$ROOT/firmware/cosim/launch.py" \
		--timeout "${BOOT_TIMEOUT:-300}" --ctl "$WORK/ctl-$label" \
		--cosim-log "$WORK/$label.cosim.log" "$@" "${args[@]}" > "$WORK/$label.qemu" 2>&1
	local rc=$?
	sed "s/^/# [cosim $label] /" "$WORK/$label.cosim.log" "$WORK/$label.qemu" 2> /dev/null
	return $rc
}

# host_with_guest GUEST TEST FILE LABEL CMD...: a host process (CMD) and a guest on one fabric file
host_with_guest() {
	local guest=$1 test=$2 file=$3 label=$4 t0 pg rc p f log
	shift 4
	log=$WORK/${label// /-}.host.log
	t0=$(date +%s)
	boot "$guest" "$test" "$file" &
	pg=$!
	timeout 300 "$@" > "$log" 2>&1
	rc=$?
	wait $pg
	sed "s/^/# [$label] /" "$log"
	p=$(grep -c "^ok " "$log"); f=$(grep -c "^not ok " "$log")
	PASS=$((PASS + p)); FAIL=$((FAIL + f))
	if [ $rc -eq 0 ] && [ "$p" -gt 0 ]; then ok "$label exited 0"; else notok "$label exited 0 (rc $rc)"; fi
	verdict "$guest" $(( $(date +%s) - t0 ))
}

# newfab NAME [mcfab-create options]
newfab() {
	local f=/dev/shm/memchan-test-$$-$1
	rm -f "$f"
	"$N/tools/mcfab-create" "$f" "${@:2}" > /dev/null || { notok "mcfab-create $f"; return 1; }
	echo "$f"
}

ONLY=${MEMCHAN_ONLY:-abi cluster host java conformance board-loop board-bad board-java board-duo board-pair board-hub-java}

# ---- board-hub's device process (firmware/cosim/build.sh --hub), built in the background from here
# on, beside the boots before board-hub (most of them keep one core busy); hub_build collects it
if [[ " $ONLY " == *" board-hub"* ]]; then
	( t0=$(date +%s)
	  nice -n 5 "$ROOT/firmware/cosim/build.sh" --adapters 4 --hub > "$WORK/cosim-hub-build.log" 2>&1
	  echo "$? $(( $(date +%s) - t0 ))" > "$WORK/cosim-hub-build.status" ) &
fi

if [[ " $ONLY " == *" abi "* ]]; then
	fab=$(newfab abi) && {
		t0=$(date +%s)
		boot abi abi "$fab"
		verdict abi $(( $(date +%s) - t0 ))
		# the driver released its node block when it went
		if "$N/tools/mcfab-create" --check "$fab" > /dev/null &&
		   [ "$(od -An -tx8 -j $((4096 + 0x800)) -N8 "$fab" | tr -d ' ')" = 0000000000000000 ]; then
			ok "abi: the fabric file is still valid and node 0 was released"
		else
			notok "abi: the fabric file is still valid and node 0 was released"
		fi
	}
fi

if [[ " $ONLY " == *" cluster "* ]]; then
	fab=$(newfab cluster) && {
		t0=$(date +%s)
		boot cluster-a cluster-a "$fab" &
		pa=$!
		boot cluster-b cluster-b "$fab" &
		pb=$!
		wait $pa $pb
		t=$(( $(date +%s) - t0 ))
		verdict cluster-a $t
		verdict cluster-b $t
	}
fi

if [[ " $ONLY " == *" host "* ]]; then
	fab=$(newfab host) &&
		host_with_guest host-guest cluster-a "$fab" "host peer" \
			"$N/tests/mc_cluster" --role b --node 1 --peer 0 --fabric "$fab" --timeout 240
fi

# java-api classes and test classes, and mcctl (tools/target), built once and snapshotted for the
# guests (they see $WORK as /run/work), so that a build running in the same checkout meanwhile
# cannot change the classes under them; jok=1 when that worked
jok=
java_build() {
	[ -n "$jok" ] && return
	jok=1
	(cd "$ROOT" && scripts/mvn -q -pl java-api,tools package -DskipTests) > "$WORK/mvn-build.log" 2>&1 ||
		{ sed 's/^/# /' "$WORK/mvn-build.log" | tail -30; notok "java-api and mcctl build"; jok=0; }
	mkdir -p "$WORK/java" "$WORK/mcctl"
	cp -a "$ROOT/java-api/target/classes" "$ROOT/java-api/target/test-classes" "$WORK/java/" &&
	# the same build as jars: the test JVMs' AOT caches need them (test_jvm_aot)
	cp "$(ls "$ROOT"/java-api/target/memchan-api-*.jar | grep -v -e -sources -e -tests -e -javadoc | head -1)" \
		"$WORK/java/memchan-api.jar" &&
	cp "$(ls "$ROOT"/java-api/target/memchan-api-*-tests.jar | head -1)" "$WORK/java/memchan-api-tests.jar" &&
	cp "$(ls "$ROOT"/tools/target/memchan-tools-*.jar | grep -v -e -sources -e -tests | head -1)" \
		"$WORK/mcctl/memchan-tools.jar" && cp -a "$ROOT/tools/target/lib" "$WORK/mcctl/lib" ||
		{ notok "snapshot of the java-api and mcctl builds"; jok=0; }
	# mcctl's AOT cache for this snapshot, at the path the guests see it too (init binds $WORK there)
	# (trained without AVX, which the guests' CPU lacks: guest_lib.sh's GUEST_JVM_CPU_OPTS)
	[ $jok = 1 ] && { MCCTL_HOME=$WORK/mcctl MCCTL_JAVA_OPTS=$(R=$ROOT; . "$N/tests/guest_lib.sh" &&
		echo "$GUEST_JVM_CPU_OPTS") "$ROOT/scripts/mcctl-aot-cache" 2>&1 | sed 's/^/# /'; }
}

# the JUnit console launcher beside the snapshot of the Java build ($WORK/java), for the guests that
# run the conformance suite; 0 when both are there
console_jar() {
	local cs=junit-platform-console-standalone-1.13.4.jar
	local csd=$HOME/.m2/repository/org/junit/platform/junit-platform-console-standalone/1.13.4
	java_build
	[ -f "$WORK/java/console-standalone.jar" ] && return 0
	[ -f "$csd/$cs" ] || (cd "$ROOT" && scripts/mvn -q dependency:get \
		-Dartifact=org.junit.platform:junit-platform-console-standalone:1.13.4) > "$WORK/cs.log" 2>&1
	[ $jok = 1 ] && cp "$csd/$cs" "$WORK/java/console-standalone.jar" || return 1
	test_jvm_aot
	return 0
}
# the AOT caches the guests' test JVMs start from (scripts/test-jvm-aot-cache, from the snapshot
# above, at the path the guests see it); MEMCHAN_JAVA_AOT=0 leaves them out, to measure what they
# save (the guests then say that their JVMs start without)
test_jvm_aot() {
	local t0
	t0=$(date +%s)
	if [ "${MEMCHAN_JAVA_AOT:-1}" = 0 ]; then
		echo "# MEMCHAN_JAVA_AOT=0: no AOT caches for the guests' test JVMs"
	elif MEMCHAN_WORK=$WORK "$ROOT/scripts/test-jvm-aot-cache" > "$WORK/aot.log" 2>&1; then
		sed 's/^/# /' "$WORK/aot.log"
		ok "AOT caches of the guests' test JVMs made ($(( $(date +%s) - t0 )) s)"
	else
		sed 's/^/# /' "$WORK/aot.log"
		notok "AOT caches of the guests' test JVMs made"
	fi
}

if [[ " $ONLY " == *" java "* ]]; then
	# the Java library on dev:/dev/memchan0 (DevGuestSmoke) needs its classes built
	java_build
	if [ $jok = 1 ]; then
		fab=$(newfab java) && {
			t0=$(date +%s)
			BOOT_DEVS=2 BOOT_MEM=1024 BOOT_SMP=2 BOOT_TIMEOUT=900 boot java java "$fab"
			verdict java $(( $(date +%s) - t0 ))
		}
		# the soft-fabric layout: files made by the Java library and by mcfab-create agree
		J=$(source "$ROOT/scripts/env.sh" && echo "$JAVA_HOME/bin/java")
		mcctl() {
			MCCTL_HOME=$WORK/mcctl MCCTL_JAVA_OPTS=-XX:TieredStopAtLevel=1 "$ROOT/scripts/mcctl" "$@"
		}
		# (every geometry class, host only, in java-api's SoftFabricCrossCheckTest; here mcctl's build)
		for geo in "16777216 4096 16" "67108864 8192 32" "4194304 8192 5" "1048576 4096 2"; do
			set -- $geo
			name=memchan-test-$$-x$2
			xok=0
			# Java creates, C validates and compares; C creates, Java opens
			if mcctl node create --fabric "shm:$name" --size "$1" --page-size "$2" --nodes "$3" > "$WORK/xchk.log" 2>&1 &&
			   "$N/tools/mcfab-create" --check "/dev/shm/memchan-$name" >> "$WORK/xchk.log" 2>&1 &&
			   "$N/tools/mcfab-create" "/dev/shm/memchan-$name-c" -s "$1" -p "$2" -n "$3" >> "$WORK/xchk.log" 2>&1 &&
			   cmp <(od -An -tx1 -N 64 "/dev/shm/memchan-$name") <(od -An -tx1 -N 64 "/dev/shm/memchan-$name-c") &&
			   cmp <(od -An -tx1 -j 4096 -N 32 "/dev/shm/memchan-$name") \
			       <(od -An -tx1 -j 4096 -N 32 "/dev/shm/memchan-$name-c") &&
			   mcctl status --fabric "shm:$name-c" >> "$WORK/xchk.log" 2>&1 < /dev/null; then
				xok=1
			fi
			rm -f "/dev/shm/memchan-$name" "/dev/shm/memchan-$name-c"
			if [ $xok = 1 ]; then
				ok "layout: Java's and mcfab-create's files agree ($1 bytes, $2-byte pages, $3 nodes)"
			else
				sed 's/^/# /' "$WORK/xchk.log"
				notok "layout: Java's and mcfab-create's files agree ($1 bytes, $2-byte pages, $3 nodes)"
			fi
		done
		fab=$(newfab java2) && {
			t0=$(date +%s)
			BOOT_MEM=1024 BOOT_TIMEOUT=400 boot java-a java-a "$fab" &
			pa=$!
			BOOT_MEM=1024 BOOT_TIMEOUT=400 boot java-b java-b "$fab" &
			pb=$!
			wait $pa $pb
			t=$(( $(date +%s) - t0 ))
			verdict java-a $t
			verdict java-b $t
		}
		# a host JVM on the soft fabric (file made by the Java library) talks to a JVM in a guest
		name=memchan-test-$$-hostjava
		if mcctl node create --fabric "shm:$name" --size 16M --nodes 16 > "$WORK/hostjava-create.log" 2>&1; then
			BOOT_MEM=1024 host_with_guest host-java java-a "/dev/shm/memchan-$name" "host jvm" \
				"$J" -XX:TieredStopAtLevel=1 --enable-native-access=ALL-UNNAMED \
				-cp "$WORK/java/classes:$WORK/java/test-classes" \
				dev.memchan.internal.dev.DevGuestCluster b "shm:$name" 1
			rm -f "/dev/shm/memchan-$name"
		else
			sed 's/^/# /' "$WORK/hostjava-create.log"; notok "mcctl node create for the host JVM test"
		fi
	fi
fi

if [[ " $ONLY " == *" conformance "* ]]; then
	# the Java conformance suite (java-api/src/test/java/dev/memchan/conformance), unchanged, on the
	# driver: one guest with 8 ivshmem devices on one 8-node fabric file, node IDs 0..7, so that each
	# of the suite's node processes joins its own adapter through dev:/dev/memchan*; the JUnit console
	# launcher instead of Maven (far too slow under TCG). About 4 minutes on an idle 2-core machine;
	# the 2400 s bound only stops a hung guest (a loaded host has needed 1,100 s for a passing boot
	# before the remote-read and CAS-lock tests ran on dev:, which took another 700 s at load 10).
	if console_jar; then
		fab=$(newfab conformance -n 8) && {
			t0=$(date +%s)
			BOOT_DEVS=8 BOOT_MEM=2048 BOOT_SMP=2 BOOT_TIMEOUT=2400 boot conformance conformance "$fab"
			verdict conformance $(( $(date +%s) - t0 ))
		}
	else
		sed 's/^/# /' "$WORK/cs.log" 2> /dev/null; notok "JUnit console launcher for the conformance guest"
	fi
fi

# ---- the co-simulated board: the RTL adapter (firmware/cosim) as the guests' PCI device ----
board() {	# board LABEL "NAME:TEST:ADAPTERS ..." [launch.py options]: boot, then every guest's verdict
	local label=$1 spec=$2 t0 rc g
	shift 2
	t0=$(date +%s)
	boot_board "$label" "$spec" "$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$label: launcher exit 0 (every guest powered off, the device process ran to the end)"
	else
		notok "$label: launcher exit $rc"
	fi
	for g in $spec; do
		verdict "${g%%:*}" $(( $(date +%s) - t0 ))
	done
}
if [[ " $ONLY " == *" board-loop "* ]]; then
	java_build	# mcctl for the guest
	# a loopback plug in the adapter's cage (a lone board's link has no partner otherwise)
	# bound 600 s: it took 288-343 s on the loaded 2-core machine (the default 300 s ran out once)
	BOOT_TIMEOUT=600 board board-loop "board-loop:board-loop:0" --cable 0:0
fi
if [[ " $ONLY " == *" board-bad "* ]]; then
	java_build	# mcctl for the guest
	board board-bad "board-bad:board-bad:0,1" --bad-id 0 --bad-version 1
fi
if [[ " $ONLY " == *" board-java "* ]]; then
	# one guest, two RTL adapters cabled back to back: node IDs from the link, conformance tests,
	# mcctl, ordering under bit flips with and without retry (native/tests/board_java.sh).
	# MEMCHAN_BOARD_JAVA_SELECT: the JUnit launcher's selectors for its conformance steps (2,
	# 2flips; opt-in), which the guest reads from the work directory. By default the board runs
	# step 4: the ordering and lock tests under bit flips with link retry (rule 3, the retry
	# counters checked); the whole suite runs under flips on the hub (board-hub-java).
	printf '%s\n' "${MEMCHAN_BOARD_JAVA_SELECT:---select-package dev.memchan.conformance}" > "$WORK/board-java.select"
	# MEMCHAN_BOARD_JAVA_STEPS: which of board_java.sh's steps run (default 1 4 3 5; step 1,
	# the node IDs, always runs; "2", "2flips", "cost" and "jvm" are opt-in)
	printf '%s\n' "${MEMCHAN_BOARD_JAVA_STEPS:-1 4 3 5}" > "$WORK/board-java.steps"
	if console_jar; then
		BOOT_MEM=2048 BOOT_TIMEOUT=2400 board board-java "board-java:board-java:0,1" --cable 0:1
	else
		notok "JUnit console launcher for the board-java guest"
	fi
fi
if [[ " $ONLY " == *" board-duo "* ]]; then
	# two guests, one RTL adapter each: node IDs from the link, the two-process demo, mcctl bench
	# serve / pingpong --peer across them
	java_build
	BOOT_MEM=1024 BOOT_TIMEOUT=900 board board-duo "board-duo-a:board-duo-a:0 board-duo-b:board-duo-b:1" --cable 0:1
fi
if [[ " $ONLY " == *" board-pair "* ]]; then
	BOOT_TIMEOUT=600 board board-pair "board-pair-a:board-pair-a:0 board-pair-b:board-pair-b:1" --cable 0:1
fi

# ---- board-hub: one guest, four RTL adapters on the RTL hub (native/tests/board_hub.sh) ----
# The device process with the hub is its own Verilator build (firmware/cosim/build.sh --hub),
# started in the background before the first boot and collected here, outside the boot's bound.
# board-hub: the C checks and the two conformance tests that need 4 nodes and take seconds
# (multicast, conflicting routes). board-hub-java (in the default run since session 8): the same,
# then the whole conformance suite (since session 12: the boot 792 s on an idle machine,
# docs/performance.md "Session 12"), and mcctl status.
hub_build() {	# once: the background build's verdict, after waiting for it if it still runs
	local t0=$(date +%s) rc secs
	if [ -z "${hub_built:-}" ]; then
		while [ ! -f "$WORK/cosim-hub-build.status" ]; do sleep 1; done
		read -r rc secs < "$WORK/cosim-hub-build.status"
		if [ "$rc" = 0 ]; then
			ok "device process with the hub built (4 adapters) in $secs s, beside the boots (waited $(( $(date +%s) - t0 )) s for it here)"
			hub_built=1
		else
			sed 's/^/# /' "$WORK/cosim-hub-build.log" | tail -30; notok "device process with the hub built"
			hub_built=0
		fi
	fi
	[ "$hub_built" = 1 ]
}
if [[ " $ONLY " == *" board-hub "* ]] && hub_build; then
	if console_jar; then
		BOOT_MEM=1024 BOOT_TIMEOUT=900 board board-hub "board-hub:board-hub:0,1,2,3" --hub
	else
		notok "JUnit console launcher for the board-hub guest"
	fi
fi
if [[ " $ONLY " == *" board-hub-java "* ]] && hub_build; then
	# board-hub's checks, then the whole Java conformance suite, or the selectors of
	# MEMCHAN_BOARD_HUB_SELECT (JUnit console launcher selectors)
	printf '%s\n' "${MEMCHAN_BOARD_HUB_SELECT:-}" > "$WORK/board-hub.select"
	if console_jar; then
		BOOT_MEM=2048 BOOT_TIMEOUT=${MEMCHAN_BOARD_HUB_TIMEOUT:-2400} board board-hub-java "board-hub-java:board-hub-java:0,1,2,3" --hub
	else
		notok "JUnit console launcher for the board-hub-java guest"
	fi
fi

finish
