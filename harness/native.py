"""The driver's QEMU boots: the guests' initramfs, QEMU and launch.py command lines, the verdicts.

A guest prints TAP lines (native/tests/guest.sh); a boot passes when every guest printed at least
one "ok", no "not ok", its test command exited 0 (MEMCHAN-GUEST-EXIT 0) and its console shows no
oops, BUG or WARNING; a board boot's launcher must exit 0 as well (every guest powered off, the
device process ran to the end).
"""
import os
import re
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = os.path.join(ROOT, "native")

# the modules the guest needs for its 9p root, loaded in this order (those built in are skipped)
MODS = ["virtio_ring", "virtio", "virtio_pci_modern_dev", "virtio_pci_legacy_dev", "virtio_pci", "9pnet",
        "9pnet_virtio", "netfs", "fscache", "9p"]

# The guests' CPU under TCG: x86-64 with SSE4.2, no AVX. A JVM's start costs about 0.7-0.8x the
# vCPU time of -cpu max's (docs/performance.md, "JVM start-up in the guests"); the AOT caches the guests' JVMs
# start from are trained without AVX to match (guest_lib.sh, GUEST_JVM_CPU_OPTS)
GUEST_CPU = "qemu64,+ssse3,+sse4.1,+sse4.2,+popcnt"

# what the linked guests use from the host's file system: soft-RoCE's user-space provider (rxe in
# ibverbs-providers), UCX and ucx_perftest
LINK_PACKAGES = ["libibverbs1", "ibverbs-providers", "libucx0", "ucx-utils"]

OOPS = re.compile(r"Oops|BUG:|WARNING:|Kernel panic|general protection fault|Call Trace:|UBSAN|KASAN")
TAP = re.compile(r"^(not )?ok [0-9]+ ")


def find_kernel(kver=None):
    """the newest version with both headers and an image"""
    if kver:
        return kver if os.path.isfile("/boot/vmlinuz-" + kver) else None
    found = None
    vers = [d for d in os.listdir("/lib/modules") if os.path.exists("/lib/modules/%s/build" % d)] \
        if os.path.isdir("/lib/modules") else []
    key = lambda v: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", v)]
    for v in sorted(vers, key=key):
        if os.path.isfile("/boot/vmlinuz-" + v):
            found = v
    return found


def init_script(work):
    """the initramfs's /init: the host's file system over 9p (read-only, cache=loose: nothing the
    guest reads from it changes during a boot, and a JVM's reads stay in the guest's page cache:
    the java guest takes 0.6x the time of cache=none), then guest.sh ROOT TEST chrooted into it"""
    mods = " ".join(MODS)
    return f"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in {mods}; do [ -f /lib/modules/$m.ko ] && insmod /lib/modules/$m.ko; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host /host || echo "MEMCHAN-GUEST-9P-FAILED"
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
for x in $(cat /proc/cmdline); do
	case $x in mctest=*) T=${{x#mctest=}} ;; mcroot=*) R=${{x#mcroot=}} ;; esac
done
mount -t tmpfs run /host/run
mkdir -p /host/run/work /host/run/src
mount -o bind /host{work} /host/run/work
# The checkout may itself live under /tmp (a CI clone): bind it before the guest's /tmp covers it.
mount -o bind /host$R /host/run/src
R=/run/src
mount -t tmpfs tmp /host/tmp
# ... and the work directory at its host path as well: an AOT cache made on the host (mcctl's)
# names its jars by that path
mkdir -p /host{work} && mount -o bind /host/run/work /host{work}
export MEMCHAN_WORK={work}
echo "MEMCHAN-GUEST-START $T"
chroot /host /bin/sh $R/native/tests/guest.sh $R $T
echo "MEMCHAN-GUEST-EXIT $?"
poweroff -f
"""


def make_initramfs(work, kver):
    d = os.path.join(work, "initrd")
    for sub in ("bin", "lib/modules", "proc", "sys", "dev", "host"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    subprocess.run(["cp", "/bin/busybox", os.path.join(d, "bin/busybox")], check=True)
    for m in MODS:
        out = subprocess.run(["find", "/lib/modules/%s/kernel" % kver, "-name", m + ".ko*"],
                             capture_output=True, text=True).stdout.split()
        if not out:
            continue   # built in
        f, dst = out[0], os.path.join(d, "lib/modules", m + ".ko")
        if f.endswith(".xz"):
            subprocess.run("xz -dc '%s' > '%s'" % (f, dst), shell=True, check=True)
        elif f.endswith(".zst"):
            subprocess.run("zstd -qdc '%s' > '%s'" % (f, dst), shell=True, check=True)
        else:
            subprocess.run(["cp", f, dst], check=True)
    with open(os.path.join(d, "init"), "w") as f:
        f.write(init_script(work))
    os.chmod(os.path.join(d, "init"), 0o755)
    img = os.path.join(work, "initrd.gz")
    subprocess.run("cd '%s' && find . | cpio -o -H newc 2> /dev/null | gzip -1 > '%s'" % (d, img),
                   shell=True, check=True)
    return img


def guest_argv(env, console, test, mem, smp):
    return ["qemu-system-x86_64", "-accel", "tcg", "-cpu", GUEST_CPU, "-smp", str(smp), "-m", str(mem),
            "-no-reboot", "-display", "none", "-monitor", "none",
            "-serial", "file:%s/%s.log" % (env.work, console),
            "-kernel", "/boot/vmlinuz-" + env.kver, "-initrd", env.initrd,
            "-append", "console=ttyS0 loglevel=5 panic=-1 oops=panic mctest=%s mcroot=%s" % (test, ROOT),
            "-virtfs", "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap"]


class BootRun:
    """one boot's run: its log lines and its TAP counts"""

    def __init__(self, env, boot, out):
        self.env, self.boot, self.out = env, boot, out
        self.passed = 0
        self.failed = 0

    def ok(self, what):
        self.passed += 1
        self.out("ok - " + what)

    def notok(self, what):
        self.failed += 1
        self.out("not ok - " + what)

    def check(self, cond, what):
        (self.ok if cond else self.notok)(what)
        return cond

    def sh(self, argv, **kw):
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", **kw)

    def prefixed(self, path, prefix):
        try:
            with open(path, errors="replace") as f:
                for line in f.read().splitlines():
                    self.out(prefix + line)
        except OSError:
            pass

    def newfab(self, name, *opts):
        f = "/dev/shm/memchan-test-%d-%s" % (os.getpid(), name)
        if os.path.exists(f):
            os.unlink(f)
        r = self.sh([os.path.join(N, "tools/mcfab-create"), f, *opts])
        if r.returncode != 0:
            self.out(r.stdout)
            self.notok("mcfab-create " + f)
            return None
        self.env.shm_files.append(f)
        return f

    # ---- ivshmem guests -----------------------------------------------------------------
    def qemu(self, g, fab):
        b = self.boot
        argv = ["timeout", str(b.timeout)] + guest_argv(self.env, g.console, g.test, b.mem, b.smp)
        for i in range(b.ivshmem):
            argv += ["-object", "memory-backend-file,id=hm%d,mem-path=%s,size=16M,share=on" % (i, fab),
                     "-device", "ivshmem-plain,memdev=hm%d" % i]
        with open(os.path.join(self.env.work, g.console + ".qemu"), "w") as f:
            return subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def verdict(self, console, secs):
        """the guest's TAP lines counted, its console checked for oopses"""
        log = os.path.join(self.env.work, console + ".log")
        try:
            with open(log, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        for line in text.splitlines():
            if line.strip():
                self.out("# [guest %s] %s" % (console, line))
        tap = [line for line in text.splitlines() if TAP.match(line)]
        p = sum(1 for line in tap if line.startswith("ok "))
        f = sum(1 for line in tap if line.startswith("not ok "))
        self.passed += p
        self.failed += f
        self.out("# guest %s: %d passed, %d failed in %d s" % (console, p, f, secs))
        self.check(not OOPS.search(text), "guest %s: no oops, BUG or WARNING on the console" % console)
        exits = [line for line in text.splitlines() if "MEMCHAN-GUEST-EXIT" in line]
        if "MEMCHAN-GUEST-EXIT 0" in text and p > 0:
            self.ok("guest %s: test command exited 0" % console)
        else:
            self.notok("guest %s: test command exited 0 (%s)" % (console, " ".join(exits) or "no exit marker"))

    def ivshmem(self, fab):
        t0 = time.time()
        procs = [self.qemu(g, fab) for g in self.boot.guests]
        for p in procs:
            p.wait()
        for g in self.boot.guests:
            self.verdict(g.console, int(time.time() - t0))

    def with_host_peer(self, fab, label, argv, env=None):
        """a host process (argv) and the boot's one guest on one fabric file"""
        g = self.boot.guests[0]
        log = os.path.join(self.env.work, label.replace(" ", "-") + ".host.log")
        t0 = time.time()
        pg = self.qemu(g, fab)
        with open(log, "w") as f:
            rc = subprocess.run(["timeout", "300", *argv], stdout=f, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env).returncode
        pg.wait()
        self.prefixed(log, "# [%s] " % label)
        with open(log, errors="replace") as f:
            lines = f.read().splitlines()
        p = sum(1 for line in lines if line.startswith("ok "))
        self.passed += p
        self.failed += sum(1 for line in lines if line.startswith("not ok "))
        self.check(rc == 0 and p > 0, "%s exited 0%s" % (label, "" if rc == 0 else " (rc %d)" % rc))
        self.verdict(g.console, int(time.time() - t0))

    # ---- two guests on a network link ------------------------------------------------------
    def linked(self):
        """the boot's two guests joined by one virtio-net link: QEMU's stream netdev, the first
        guest's QEMU listening on a Unix socket of the work directory, the second's connecting to
        it (no ivshmem device); the secret of a ucx:// fabric in the work directory (mode 0600)"""
        b, w = self.boot, self.env.work
        pk = self.sh([os.path.join(ROOT, "scripts/need-packages"), *LINK_PACKAGES])
        if not self.check(pk.returncode == 0, "%s: Debian packages %s" % (b.name, " ".join(LINK_PACKAGES))):
            self.out(pk.stdout)
            return
        with open(os.open(os.path.join(w, b.name + ".secret"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            f.write(os.urandom(32))
        sock = os.path.join(w, b.name + ".net")
        if os.path.exists(sock):
            os.unlink(sock)
        t0 = time.time()
        procs = []
        for i, g in enumerate(b.guests):
            if i == 1:
                # the client's QEMU fails when nothing listens yet: the listener's socket first
                deadline = time.time() + 60
                while not os.path.exists(sock) and procs[0].poll() is None and time.time() < deadline:
                    time.sleep(0.1)
            netdev = "stream,id=link,server=%s,addr.type=unix,addr.path=%s" % ("on" if i == 0 else "off", sock)
            argv = ["timeout", str(b.timeout)] + guest_argv(self.env, g.console, g.test, b.mem, b.smp) + \
                ["-netdev", netdev, "-device", "virtio-net-pci,netdev=link,mac=52:54:00:77:00:%02x" % (i + 1)]
            with open(os.path.join(w, g.console + ".qemu"), "w") as f:
                procs.append(subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        for p in procs:
            p.wait()
        for g in b.guests:
            self.prefixed(os.path.join(w, g.console + ".qemu"), "# [qemu %s] " % g.console)
            self.verdict(g.console, int(time.time() - t0))

    # ---- co-simulated boards ------------------------------------------------------------
    def board(self):
        """guests whose PCI devices are the co-simulated RTL adapters (firmware/cosim/launch.py).
        One vCPU per guest, always: QEMU 7.2's re-entrancy guard refuses a second vCPU's access
        to a proxy device while the first waits for the device process ("Blocked re-entrant IO on
        MemoryRegion: bar-region-0"): with -smp 2 stores to the transmit window were lost."""
        b, w = self.boot, self.env.work
        ctl = os.path.join(w, "ctl-" + b.name)
        os.makedirs(ctl, exist_ok=True)
        args = []
        for g in b.guests:
            args += ["--guest", g.adapters, "--"] + guest_argv(self.env, g.console, g.test, b.mem, 1) + \
                ["-virtfs", "local,path=%s,mount_tag=cosimctl,security_model=none" % ctl]
        cosim_log = os.path.join(w, b.name + ".cosim.log")
        qlog = os.path.join(w, b.name + ".qemu")
        t0 = time.time()
        with open(qlog, "w") as f:
            rc = subprocess.run(["timeout", str(b.timeout + 60), "python3", os.path.join(ROOT, "firmware/cosim/launch.py"),
                                 "--timeout", str(b.timeout), "--ctl", ctl, "--cosim-log", cosim_log, *b.launch, *args],
                                stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
        self.prefixed(cosim_log, "# [cosim %s] " % b.name)
        self.prefixed(qlog, "# [cosim %s] " % b.name)
        if rc == 0:
            self.ok("%s: launcher exit 0 (every guest powered off, the device process ran to the end)" % b.name)
        else:
            self.notok("%s: launcher exit %d" % (b.name, rc))
        for g in b.guests:
            self.verdict(g.console, int(time.time() - t0))


def run_boot(env, boot, out, options):
    """runs one row of tables.BOOTS; returns its BootRun (counts)"""
    r = BootRun(env, boot, out)
    for fname, opt in boot.files.items():
        with open(os.path.join(env.work, fname), "w") as f:
            f.write(options[opt] + "\n")
    if boot.board:
        r.board()
        return r
    if boot.link:
        r.linked()
        return r
    opts = ["-n", str(boot.fabric_nodes)] if boot.fabric_nodes else []
    if boot.host_peer == "jvm":
        # a host JVM on the soft fabric, its file made by the Java library (mcctl)
        name = "memchan-test-%d-hostjava" % os.getpid()
        c = env.mcctl(["node", "create", "--fabric", "shm:" + name, "--size", "16M", "--nodes", "16"])
        if c.returncode != 0:
            out(c.stdout)
            r.notok("mcctl node create for the host JVM test")
            return r
        fab = "/dev/shm/memchan-" + name
        env.shm_files.append(fab)
        r.with_host_peer(fab, "host jvm", [env.java, "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED",
                                           "-cp", "%s/java/classes:%s/java/test-classes" % (env.work, env.work),
                                           "dev.memchan.internal.dev.DevGuestCluster", "b", "shm:" + name, "1"])
        return r
    fab = r.newfab(boot.name, *opts)
    if not fab:
        return r
    if boot.host_peer == "mc_cluster":
        r.with_host_peer(fab, "host peer", [os.path.join(N, "tests/mc_cluster"), "--role", "b", "--node", "1",
                                            "--peer", "0", "--fabric", fab, "--timeout", "240"])
        return r
    r.ivshmem(fab)
    if boot.name == "abi":
        # the driver released its node block when it went
        c = r.sh([os.path.join(N, "tools/mcfab-create"), "--check", fab])
        with open(fab, "rb") as f:
            f.seek(4096 + 0x800)
            word = f.read(8)
        r.check(c.returncode == 0 and word == b"\0" * 8,
                "abi: the fabric file is still valid and node 0 was released")
    return r
