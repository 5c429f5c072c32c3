"""The netns row's proof of harness/netns.py's networks (tables.HOST "netns"; alone: harness/netns.py check):
three node namespaces on a hub's bridge carry pings, ucx_perftest (put and active-message latency,
beside loopback in one namespace) and the UCX transport's own test peers (UcxPeerMain: fetch-adds and a
compare-and-swap lock across namespaces); under 5 % loss TCP still carries a UCX transfer and the
fetch-adds stay exact; a cut link fails a UCX client with an error and a restored one carries again; node
JVMs started by NodeProcess behind netns launchers (the backend's conformance run) land in their
namespaces; and teardown leaves no namespace, interface or nftables table behind."""
import os
import queue
import re
import subprocess
import tempfile
import threading
import time

import netns

# generous bounds on a loaded 2-core machine: a JVM's start, a UCX transfer under 5 % loss (each lost
# segment of a ping-pong waits for a retransmission timeout of 200 ms or more)
ANSWER = 300
PERFTEST = 180
LISTEN_POLLS = 600     # ss polls, 50 ms apart, for a ucx_perftest server's port
PEER = "dev.memchan.internal.ucx.UcxPeerMain"
LAUNCHER_TEST = "dev.memchan.conformance.NodeProcessTest#eachNodeRunsInTheNetworkNamespaceOfItsLauncher"


class Tap:
    """TAP lines, each with the seconds its step took; a failing step's detail above it"""

    def __init__(self, out):
        self.out = out
        self.ok = True
        self.t = time.monotonic()

    def __call__(self, ok, what, detail=""):
        if detail and not ok:
            self.out("\n".join("# " + line for line in str(detail).splitlines()))
        now = time.monotonic()
        self.out("%s - %s (%.1f s)" % ("ok" if ok else "not ok", what, now - self.t))
        self.t = now
        self.ok = self.ok and bool(ok)
        return ok


def ping(net, i, address, count=1, wait=5):
    r = subprocess.run(["ip", "netns", "exec", net.ns(i), "ping", "-n", "-q", "-c", str(count), "-W", str(wait),
                        address], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=count * wait + 30)
    return r.returncode == 0, r.stdout


def listening(net, i, port):
    """waits (a bounded number of polls) until something listens on TCP port in node i"""
    for _ in range(LISTEN_POLLS):
        r = subprocess.run(["ip", "netns", "exec", net.ns(i), "ss", "-Hltn", "sport = :%d" % port],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.stdout.strip():
            return True
        time.sleep(0.05)
    return False


class Perftest:
    """one ucx_perftest server (node server) and client (node client, to address) run; port: a new one each"""
    port = 13400

    def __init__(self, net, server, client, address, argv, device=None, timeout=PERFTEST):
        Perftest.port += 1
        env = {"UCX_NET_DEVICES": device} if device else None
        srv = net.run(server, ["ucx_perftest", "-p", str(Perftest.port)], env=env, stdin=subprocess.DEVNULL,
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if not listening(net, server, Perftest.port):
                self.rc, self.output = None, "the ucx_perftest server in %s never listened on %d" % (
                    net.ns(server), Perftest.port)
                return
            cli = net.run(client, ["ucx_perftest", address, "-p", str(Perftest.port)] + argv, env=env,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace")
            try:
                self.output, _ = cli.communicate(timeout=timeout)
                self.rc = cli.returncode
            except subprocess.TimeoutExpired:
                os.killpg(cli.pid, 9)
                self.output, _ = cli.communicate()
                self.rc = None   # still running at the bound: hung
        finally:
            if srv.poll() is None:
                os.killpg(srv.pid, 9)
            srv.wait()

    def typical(self):
        """the final report's typical (median) latency, us, or None"""
        for line in self.output.splitlines():
            if line.startswith("Final:"):
                return float(line.split()[2])
        return None

    def tail(self):
        return "\n".join(self.output.splitlines()[-4:])


class Peer:
    """a UcxPeerMain JVM in node i, driven by stdin lines (UcxPeerMain's commands)"""

    def __init__(self, net, i, java, classpath, name):
        self.name = name
        self.log = tempfile.NamedTemporaryFile(prefix="memchan-netns-%s-" % name, suffix=".log", delete=False)
        self.p = net.run(i, [java, "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx128m", "-cp",
                             classpath, PEER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                         text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.answer("ready")

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put("<EOF>")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def answer(self, prefix):
        try:
            line = self.lines.get(timeout=ANSWER)
        except queue.Empty:
            line = None
        if line is None or not line.startswith(prefix):
            with open(self.log.name, errors="replace") as f:
                err = f.read()[-3000:]
            raise AssertionError("%s: expected '%s', got %s\n%s" % (
                self.name, prefix, "nothing within %d s" % ANSWER if line is None else repr(line), err))
        return line[len(prefix) + 1:]

    def request(self, line, prefix):
        self.send(line)
        return self.answer(prefix)

    def close(self):
        if self.p.poll() is None:
            try:
                self.send("exit")
                self.p.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                os.killpg(self.p.pid, 9)
                self.p.wait()
        os.unlink(self.log.name)


def fadds(tap, a, contenders, n, first, what):
    """each contender does n fetch-adds of 1 on a's word 16 at once: the old values are first..first+n*k-1
    exactly once, and the word ends at first + n*k"""
    for c in contenders:
        c.send("fadd 16 %d" % n)
    olds = sorted(int(v) for c in contenders for v in c.answer("olds").split(","))
    word = int.from_bytes(bytes.fromhex(a.request("read 16 8", "data")), "little")
    total = first + n * len(contenders)
    return tap(olds == list(range(first, total)) and word == total,
               "%s: %d fetch-adds from %d namespaces, each old value once, the word %d" % (what, n * len(contenders),
                                                                                         len(contenders), total),
               "" if word == total else "the word is %d, the old values %s..." % (word, olds[:10]))


def host_state():
    """the host namespace's links and nftables tables"""
    links = subprocess.run(["ip", "-o", "link"], stdout=subprocess.PIPE, text=True).stdout
    tables = subprocess.run(["nft", "list", "tables"], stdout=subprocess.PIPE, text=True).stdout
    return set(re.findall(r"^\d+: ([^:@]+)", links, re.M)), set(tables.splitlines())


def left_on_host(before):
    """links and tables of the kind a network makes that the host namespace has now and had not before
    (other processes may change the host's own meanwhile: only these names count)"""
    links, tables = host_state()
    ours = re.compile(r"^(%s|%s|n\d+)$" % (netns.DEVICE, netns.BRIDGE))
    return sorted(n for n in links - before[0] if ours.match(n)) + sorted(
        t for t in tables - before[1] if netns.LOSS_TABLE in t)


def check(out, java, classes, test_classes, console=None):
    tap = Tap(out)
    before = host_state()
    classpath = test_classes + os.pathsep + classes
    with netns.Net(3) as net:
        tap(True, "network %s: hub %s (%s on %s), nodes %s (%s on %s)" % (
            net.run_id, net.hub, net.address(0), netns.BRIDGE, ", ".join(net.ns(i) for i in (1, 2, 3)),
            ", ".join(net.address(i) for i in (1, 2, 3)), netns.DEVICE))
        pings = [(i, t, ping(net, i, net.address(t))) for i in (1, 2, 3) for t in (0, 1, 2, 3) if t != i]
        tap(all(ok for _, _, (ok, _) in pings), "ping: every node reaches the hub and every other node",
            "\n".join("node %d -> %s: %s" % (i, net.address(t), o.strip().splitlines()[-1] if o.strip() else "")
                      for i, t, (ok, o) in pings if not ok))

        figures = []
        for test in ("ucp_put_lat", "ucp_am_lat"):
            # few rounds: on a loaded machine a busy-polling pair can take a millisecond a round
            argv = ["-t", test, "-s", "8", "-n", "3000", "-w", "300"]
            veth = Perftest(net, 1, 2, net.address(1), argv)
            lo = Perftest(net, 1, 1, "127.0.0.1", argv, device="lo")
            ok = veth.rc == 0 and lo.rc == 0 and veth.typical() and lo.typical()
            tap(ok, "ucx_perftest %s, 8 B, node 2 to node 1 across veth and within node 1 on loopback" % test,
                "" if ok else veth.tail() + "\n" + lo.tail())
            if ok:
                figures.append("%s typical one-way: %.1f us across veth, %.1f us on loopback" % (
                    test, veth.typical(), lo.typical()))
        out("\n".join("# " + f for f in figures))

        peers = []
        try:
            a = Peer(net, 1, java, classpath, "n1")
            peers.append(a)
            port, descriptor = a.request("listen " + net.address(1), "listening").split()
            for i in (2, 3):
                peers.append(Peer(net, i, java, classpath, "n%d" % i))
                peers[-1].request("connect %s %s %s" % (net.address(1), port, descriptor), "connected")
            contenders = peers[1:]
            fadds(tap, a, contenders, 200, 0, "UcxPeerMain across namespaces")
            for c, me in zip(contenders, (1, 2)):
                c.send("lock 20 cas %d" % me)
            violations = [int(c.answer("violations")) for c in contenders]
            tap(violations == [0, 0], "UcxPeerMain's compare-and-swap lock from nodes 2 and 3 on node 1's word: no "
                "entry while the other was inside (%s)" % violations)

            for i in (1, 2):
                net.loss(i, 5)
            lossy = Perftest(net, 1, 2, net.address(1), ["-t", "ucp_put_bw", "-s", "65536", "-n", "300", "-w", "10"])
            tap(lossy.rc == 0, "5 % loss at nodes 1 and 2, both ways: ucx_perftest ucp_put_bw (300 x 64 KiB) "
                "completes over TCP", lossy.tail())
            fadds(tap, a, contenders, 50, 400, "5 % loss")
            dropped = {i: net.dropped(i) for i in (1, 2)}
            tap(all(dropped.values()), "the loss rules dropped packets: %s" % ", ".join(
                "node %d %d" % kv for kv in dropped.items()))
            for i in (1, 2):
                net.clear_loss(i)
        finally:
            for p in peers:
                p.close()

        net.cut(2)
        cut_ping, _ = ping(net, 2, net.address(1), wait=2)
        cut = Perftest(net, 1, 2, net.address(1), ["-t", "ucp_am_lat", "-s", "8", "-n", "1000"], timeout=120)
        tap(not cut_ping and cut.rc not in (0, None) and "failed" in cut.output,
            "node 2's link cut: ping fails, and a ucx_perftest client fails with an error (exit %s), not hanging"
            % cut.rc, cut.tail())
        net.restore(2)
        restored, o = ping(net, 2, net.address(1))
        again = Perftest(net, 1, 2, net.address(1), ["-t", "ucp_am_lat", "-s", "8", "-n", "1000", "-w", "10"])
        tap(restored and again.rc == 0, "node 2's link restored: ping and ucx_perftest pass again", o + again.tail())

        if console:
            rc, output = netns.run_conformance(net, [
                java, "-Dmemchan.test.nodeLaunchers={launchers}", "--enable-native-access=ALL-UNNAMED", "-cp",
                console + os.pathsep + classpath, "org.junit.platform.console.ConsoleLauncher", "execute",
                "--disable-banner", "--disable-ansi-colors", "--select-method", LAUNCHER_TEST], capture=True, timeout=ANSWER)
            seen = dict(re.findall(r"^# node (\d+): (net:\[\d+\])", output, re.M))
            expect = {}
            for n, i in enumerate((2, 3)):
                r = subprocess.run(["ip", "netns", "exec", net.ns(i), "readlink", "/proc/self/ns/net"],
                                   stdout=subprocess.PIPE, text=True)
                expect[str(n)] = r.stdout.strip()
            tap(rc == 0 and seen == expect and len(set(expect.values())) == 2,
                "run_conformance: a test JVM in node 1 starts NodeProcess nodes behind netns launchers, node 0 in "
                "node 2's namespace and node 1 in node 3's (%s)" % seen,
                "" if rc == 0 and seen == expect else "expected %s\n%s" % (expect, output[-3000:]))
        else:
            out("# no JUnit console launcher given: the NodeProcess launcher check is left out")
        name = net.run_id
    left = [ns for ns in netns.namespaces() if ns.startswith(name + "-")] + left_on_host(before)
    tap(not left, "teardown: no namespace of %s left, no interface or nftables table of its kind new in the host's "
        "namespace" % name, "left: %s" % left if left else "")
    return tap.ok
