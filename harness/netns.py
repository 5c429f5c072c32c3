#!/usr/bin/env python3
"""Test networks for the network backend (ucx://): nodes in separate network namespaces joined by veth.

A Net is a hub namespace and N node namespaces. Each node namespace has its loopback and one veth,
"mc0", at 10.77.S.(10+i)/24; its other end is port "n<i>" of a bridge "br0" in the hub namespace,
which has 10.77.S.1 (where a hub process listens). Every interface is made inside these namespaces,
none in the host's own, so two runs cannot meet even where their subnets S coincide (S is taken
from the PID only to tell runs apart in logs). The namespaces are named mcnet<PID>x<K>-hub and
mcnet<PID>x<K>-n<i>; making a Net first removes the namespaces of runs whose PID no longer lives.

Faults: cut(i) sets node i's port on the bridge down (its mc0 loses carrier, as when a cable is
pulled at the switch), restore(i) sets it up; loss(i, P) drops P % of node i's packets in both
directions (an nftables table "memchan_loss" in its namespace, input and output hooks, numgen
random); clear_loss(i) removes that table. There is no tc netem on a kernel without modules.

Teardown (close, the context manager's exit, atexit, SIGTERM/SIGHUP) kills every process in the
namespaces and deletes them, which removes their veths, the bridge and the nftables tables.
Needs root, a kernel with network namespaces, veth, bridge and nf_tables, and the Debian packages
iproute2, nftables, iputils-ping (and ucx-utils for the check). Each failing step says which.

    with Net(3) as net:
        server = net.run(1, ["ucx_perftest", "-p", "13337"])   # UCX_TLS=tcp UCX_NET_DEVICES=mc0
        net.loss(2, 5); net.cut(3); net.restore(3); net.clear_loss(2)

Command line (harness/README.md):
    harness/netns.py run-conformance --nodes 3 [--loss P] [--hub 'ARGV'] -- TEST ARGV...
    harness/netns.py check [--java JAVA --classes DIR --test-classes DIR --console JAR]
    harness/netns.py cut|restore NAMESPACE     harness/netns.py loss NAMESPACE P | clear-loss NAMESPACE
    harness/netns.py cleanup                   every leftover of a dead run
"""
import argparse
import atexit
import itertools
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

PREFIX = "mcnet"
NAME = re.compile(r"^%s(\d+)x(\d+)-(hub|n\d+)$" % PREFIX)
DEVICE = "mc0"            # every node namespace's interface: one UCX_NET_DEVICES for all nodes
BRIDGE = "br0"
LOSS_TABLE = "memchan_loss"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_SEQUENCE = itertools.count()
_LIVE = set()
_LOCK = threading.Lock()


class NetnsError(RuntimeError):
    pass


def _run(argv, what, needs, check=True, timeout=60):
    """runs argv; on failure raises NetnsError naming the step, what the machine lacks, and the output"""
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=timeout)
    except FileNotFoundError:
        raise NetnsError("%s failed: %s not found (%s)" % (what, argv[0], needs)) from None
    except subprocess.TimeoutExpired:
        raise NetnsError("%s failed: %s did not end within %d s" % (what, shlex.join(argv), timeout)) from None
    if check and r.returncode != 0:
        raise NetnsError("%s failed: needs %s; %s said: %s" % (what, needs, shlex.join(argv), r.stdout.strip()))
    return r


def namespaces():
    """the names in `ip netns list`"""
    r = _run(["ip", "netns", "list"], "ip netns list", "iproute2 (Debian package iproute2)")
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def _pids(ns):
    r = _run(["ip", "netns", "pids", ns], "ip netns pids " + ns, "root", check=False)
    return [int(p) for p in r.stdout.split() if p.isdigit()]


def _kill_all_in(ns):
    """SIGKILL to every process in the namespace, then waits (bounded by rounds, not time) until none is left"""
    for _ in range(200):
        pids = _pids(ns)
        if not pids:
            return
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    raise NetnsError("processes %s in namespace %s survive SIGKILL" % (_pids(ns), ns))


def _delete(ns):
    _kill_all_in(ns)
    _run(["ip", "netns", "del", ns], "ip netns del " + ns, "root")


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def cleanup_dead():
    """deletes the namespaces of this prefix whose run's PID no longer lives; returns their names"""
    gone = []
    names = namespaces()
    # the node namespaces first, then the hub (its bridge ports go with the node ends)
    for ns in sorted(names, key=lambda n: n.endswith("-hub")):
        m = NAME.match(ns)
        if m and not _alive(int(m.group(1))):
            _delete(ns)
            gone.append(ns)
    return gone


def _owned(ns):
    m = NAME.match(ns)
    if not m:
        raise NetnsError("%s is not a namespace of harness/netns.py (names %s<PID>x<K>-hub|n<i>)" % (ns, PREFIX))
    if ns not in namespaces():
        raise NetnsError("there is no namespace %s (ip netns list)" % ns)
    return ns


def cut_ns(ns):
    """node namespace ns's port on its hub's bridge down: its mc0 loses carrier"""
    hub, port = _hub_port(ns)
    _run(["ip", "-n", hub, "link", "set", port, "down"], "cut of " + ns, "root and iproute2")


def restore_ns(ns):
    hub, port = _hub_port(ns)
    _run(["ip", "-n", hub, "link", "set", port, "up"], "restore of " + ns, "root and iproute2")


def _hub_port(ns):
    m = NAME.match(_owned(ns))
    if m.group(3) == "hub":
        raise NetnsError("%s is the hub namespace: cut a node's link instead" % ns)
    return ns[:ns.rindex("-")] + "-hub", m.group(3)


def loss_ns(ns, percent):
    """drops percent % of the packets into and out of namespace ns (nftables, numgen random)"""
    _owned(ns)
    if not (isinstance(percent, int) and 0 <= percent <= 100):
        raise NetnsError("loss %r %%: a whole number from 0 to 100" % (percent,))
    clear_loss_ns(ns)
    rules = "table inet %s {\n" % LOSS_TABLE + "".join(
        "  chain %s { type filter hook %s priority 0; policy accept; numgen random mod 100 < %d counter drop; }\n"
        % (hook, hook, percent) for hook in ("input", "output")) + "}\n"
    r = subprocess.run(["ip", "netns", "exec", ns, "nft", "-f", "-"], input=rules, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise NetnsError("loss %d %% in %s failed: needs nftables (Debian package nftables) and a kernel with "
                         "nf_tables and its numgen expression; nft said: %s" % (percent, ns, r.stdout.strip()))


def clear_loss_ns(ns):
    _owned(ns)
    tables = _run(["ip", "netns", "exec", ns, "nft", "list", "tables"], "nft list tables in " + ns,
                  "nftables (Debian package nftables)").stdout
    if "inet %s" % LOSS_TABLE in tables:
        _run(["ip", "netns", "exec", ns, "nft", "delete", "table", "inet", LOSS_TABLE],
             "clear of the loss in " + ns, "nftables")


def dropped_ns(ns):
    """packets the loss rules of namespace ns dropped so far (both directions)"""
    r = _run(["ip", "netns", "exec", ns, "nft", "list", "table", "inet", LOSS_TABLE], "nft list table in " + ns,
             "nftables")
    return sum(int(n) for n in re.findall(r"counter packets (\d+)", r.stdout))


class Net:
    """a hub namespace and nodes node namespaces (1..nodes) on its bridge; a context manager"""

    def __init__(self, nodes):
        if not (isinstance(nodes, int) and 1 <= nodes <= 200):
            raise NetnsError("nodes %r: a whole number from 1 to 200" % (nodes,))
        self.nodes = nodes
        self.run_id = "%s%dx%d" % (PREFIX, os.getpid(), next(_SEQUENCE))
        self.subnet = 1 + (os.getpid() + int(self.run_id.rsplit("x", 1)[1])) % 254
        self.hub = self.run_id + "-hub"
        self.made = []
        self.procs = []
        self.host_init = {}
        self.closed = False
        cleanup_dead()
        with _LOCK:
            _LIVE.add(self)
        _handle_signals()
        try:
            self._make()
        except BaseException:
            self.close()
            raise

    def ns(self, i):
        """node i's namespace (1..nodes), or the hub's for 0"""
        if i == 0:
            return self.hub
        if not 1 <= i <= self.nodes:
            raise NetnsError("node %r: this network has nodes 1..%d (0: the hub)" % (i, self.nodes))
        return "%s-n%d" % (self.run_id, i)

    def address(self, i):
        """node i's address, or the hub's for 0"""
        self.ns(i)   # checks i
        return "10.77.%d.%d" % (self.subnet, 1 if i == 0 else 10 + i)

    def device(self, i):
        """the interface of node i (or the hub's bridge for 0): its UCX_NET_DEVICES"""
        return BRIDGE if i == 0 else DEVICE

    def _make(self):
        root = "root and a kernel with network namespaces (CONFIG_NET_NS)"
        for ns in [self.hub] + [self.ns(i) for i in range(1, self.nodes + 1)]:
            _run(["ip", "netns", "add", ns], "ip netns add " + ns, root)
            self.made.append(ns)
            _run(["ip", "-n", ns, "link", "set", "lo", "up"], "loopback up in " + ns, root)
        _run(["ip", "-n", self.hub, "link", "add", BRIDGE, "type", "bridge"], "bridge in " + self.hub,
             "a kernel with the bridge driver (CONFIG_BRIDGE)")
        _run(["ip", "-n", self.hub, "addr", "add", self.address(0) + "/24", "dev", BRIDGE], "hub address", "root")
        _run(["ip", "-n", self.hub, "link", "set", BRIDGE, "up"], "bridge up", "root")
        for i in range(1, self.nodes + 1):
            ns = self.ns(i)
            _run(["ip", "link", "add", "n%d" % i, "netns", self.hub, "type", "veth", "peer", "name", DEVICE,
                  "netns", ns], "veth of " + ns, "a kernel with veth (CONFIG_VETH)")
            _run(["ip", "-n", self.hub, "link", "set", "n%d" % i, "master", BRIDGE, "up"], "bridge port of " + ns, "root")
            _run(["ip", "-n", ns, "addr", "add", self.address(i) + "/24", "dev", DEVICE], "address of " + ns, "root")
            _run(["ip", "-n", ns, "link", "set", DEVICE, "up"], "mc0 up in " + ns, "root")

    def env(self, i, extra=None):
        """the environment of a process in node i (0: the hub): UCX over TCP on its interface"""
        e = dict(os.environ, UCX_TLS="tcp", UCX_NET_DEVICES=self.device(i))
        e.update(extra or {})
        return e

    def run(self, i, argv, env=None, **popen):
        """starts argv in node i's namespace (0: the hub's), in a process group of its own; a Popen"""
        p = subprocess.Popen(["ip", "netns", "exec", self.ns(i)] + list(argv), env=self.env(i, env),
                             process_group=0, **popen)
        self.procs.append(p)
        return p

    def cut(self, i):
        cut_ns(self.ns(i))

    def restore(self, i):
        restore_ns(self.ns(i))

    def loss(self, i, percent):
        loss_ns(self.ns(i), percent)

    def clear_loss(self, i):
        clear_loss_ns(self.ns(i))

    def dropped(self, i):
        return dropped_ns(self.ns(i))

    def rto_min(self, ms):
        """TCP's minimum retransmission timeout on the subnet's route in every namespace (the hub's and the
        nodes'): ms milliseconds instead of the kernel's 200 (a datacenter's setting; lost segments stay lost)"""
        if not (isinstance(ms, int) and 1 <= ms <= 200):
            raise NetnsError("rto_min %r ms: a whole number from 1 to 200" % (ms,))
        subnet = "10.77.%d.0/24" % self.subnet
        for i in range(0, self.nodes + 1):
            _run(["ip", "-n", self.ns(i), "route", "replace", subnet, "dev", self.device(i), "proto", "kernel", "scope",
                  "link", "src", self.address(i), "rto_min", "%dms" % ms], "rto_min of the route in " + self.ns(i),
                 "root and iproute2")

    def launchers(self, nodes, hosts=False):
        """memchan.test.nodeLaunchers for node JVMs in the given nodes, in turn (NodeProcess); with hosts, each node's
        JVMs run in that node's PID namespace (make_hosts): a host of its own, as a separate machine is"""
        return ";".join("ip netns exec " + self.ns(i) + (" nsenter --target %d --pid --mount" % self.host_init[i]
                                                          if hosts else "") for i in nodes)

    def make_hosts(self, nodes):
        """a PID namespace (with its own /proc) for each of the given nodes, held by a process in the node's
        namespace: processes entering it (launchers(hosts=True)) share one host identity to the soft fabric and
        the ucx:// backend (the kernel's boot ID and PID namespace), and a process of another node is not one
        the kernel lets them see, so a node cut off is judged by its heartbeat alone"""
        for i in nodes:
            holder = self.run(i, ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "sleep", "infinity"],
                              stdin=subprocess.DEVNULL)
            for _ in range(600):   # unshare forks the namespace's first process at once; a loaded machine lags
                try:
                    with open("/proc/%d/task/%d/children" % (holder.pid, holder.pid)) as f:
                        children = f.read().split()
                except FileNotFoundError:
                    children = []
                if children or holder.poll() is not None:
                    break
                time.sleep(0.05)
            if not children:
                raise NetnsError("the PID namespace of %s: unshare --pid --fork (util-linux) made no process (exit %s); "
                                 "needs root and a kernel with PID namespaces" % (self.ns(i), holder.poll()))
            self.host_init[i] = int(children[0])

    def close(self):
        """kills every process in the namespaces and deletes them (and with them the veths, the bridge and
        the nftables tables); raises when something is left"""
        if self.closed:
            return
        self.closed = True
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        errors = []
        # the nodes first, then the hub
        for ns in sorted(self.made, key=lambda n: n.endswith("-hub")):
            try:
                _delete(ns)
            except NetnsError as e:
                errors.append(str(e))
        for p in self.procs:
            p.wait()
        with _LOCK:
            _LIVE.discard(self)
            if not _LIVE:
                _release_signals()
        left = [ns for ns in namespaces() if ns.startswith(self.run_id + "-")]
        if errors or left:
            raise NetnsError("teardown of %s: %s" % (self.run_id, "; ".join(errors + ["left: %s" % left] * bool(left))))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _close_all():
    with _LOCK:
        live = list(_LIVE)
    for net in live:
        try:
            net.close()
        except NetnsError as e:
            print("harness/netns.py: " + str(e), file=sys.stderr)


atexit.register(_close_all)


def _on_signal(n, _):
    sys.exit(128 + n)


def _handle_signals():
    """while a network lives, SIGTERM and SIGHUP end the process through SystemExit, so that atexit tears
    it down (where no one else handles them; only the main thread can install handlers)"""
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(s) == signal.SIG_DFL:
                signal.signal(s, _on_signal)


def _release_signals():
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(s) is _on_signal:
                signal.signal(s, signal.SIG_DFL)


# ---- the backend's conformance run across namespaces ------------------------------------------

# a hub's JVM says it listens once it does (UcxHubMain: "hub listening at ...", mcctl hub: "... listening ...");
# a JVM's start on a loaded machine can take a minute
HUB_START_SECONDS = 300


def _await_listening(hub):
    """reads the hub's output until it says it listens (then copies the rest to stderr); raises when it ends
    first or says nothing of the kind within HUB_START_SECONDS"""
    import select
    deadline = time.monotonic() + HUB_START_SECONDS
    said = []
    while True:
        ready, _, _ = select.select([hub.stdout], [], [], max(0.0, deadline - time.monotonic()))
        line = hub.stdout.readline() if ready else None
        if line is None:
            raise NetnsError("the hub did not say it listens within %d s: %s" % (HUB_START_SECONDS, "".join(said)))
        if not line:
            raise NetnsError("the hub ended (exit %s) before it listened: %s" % (hub.wait(), "".join(said)))
        said.append(line)
        sys.stderr.write("hub: " + line)
        if "listening" in line:
            break

    def copy():
        for rest in hub.stdout:
            sys.stderr.write("hub: " + rest)
    threading.Thread(target=copy, daemon=True).start()


def substitute(argv, values):
    """{hub}, {launchers}, {nodes}, {device} replaced in each argument (other braces left as they are)"""
    out = []
    for a in argv:
        for k, v in values.items():
            a = a.replace("{%s}" % k, v)
        out.append(a)
    return out


def run_conformance(net, test_argv, hub_argv=None, capture=False, timeout=None, hosts=False):
    """the conformance run on net: the hub process (hub_argv, when given) in the hub namespace, the test
    command in node 1 (its JVM is a node too) and the node JVMs it starts in nodes 2..N in turn
    (NodeProcess, -Dmemchan.test.nodeLaunchers={launchers}). In both argvs {hub} is the hub's address,
    {launchers} the launchers, {nodes} the node namespaces, {device} mc0; both get UCX_TLS=tcp and
    UCX_NET_DEVICES of their namespace and MEMCHAN_NETNS_HUB, MEMCHAN_NETNS_LAUNCHERS, MEMCHAN_NETNS_NODES
    (for `harness/netns.py cut NAMESPACE` and the like). The test command starts once the hub says it
    listens. With hosts, the node JVMs of nodes 2..N run in their node's PID namespace (Net.make_hosts): each
    node namespace is a host of its own (node 1's test JVM in the machine's PID namespace). Returns (exit status of the test command,
    its output when captured)."""
    others = list(range(2, net.nodes + 1)) or [1]
    if hosts:
        net.make_hosts(others)
    values = {"hub": net.address(0), "launchers": net.launchers(others, hosts), "device": DEVICE,
              "nodes": " ".join(net.ns(i) for i in range(1, net.nodes + 1))}
    env = {"MEMCHAN_NETNS_HUB": values["hub"], "MEMCHAN_NETNS_LAUNCHERS": values["launchers"],
           "MEMCHAN_NETNS_NODES": values["nodes"]}
    hub = None
    if hub_argv:
        hub = net.run(0, substitute(hub_argv, values), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                      stderr=subprocess.STDOUT, text=True, errors="replace")
    try:
        if hub is not None:
            _await_listening(hub)
        test = net.run(1, substitute(test_argv, values), env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.STDOUT if capture else None, text=True, errors="replace")
        output, _ = test.communicate(timeout=timeout)
        return test.returncode, output
    finally:
        if hub is not None and hub.poll() is None:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait()


def main(argv):
    ap = argparse.ArgumentParser(prog="harness/netns.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rc = sub.add_parser("run-conformance", help="a test command across namespaces (node JVMs in nodes 2..N)")
    rc.add_argument("--nodes", type=int, default=3, help="node namespaces (default 3)")
    rc.add_argument("--loss", type=int, default=0, help="percent of packets dropped at every node, both ways")
    rc.add_argument("--hub", default="", help="the hub process's command (one string, shell words)")
    rc.add_argument("--rto-min", type=int, default=0, help="TCP's minimum retransmission timeout on the "
                    "network's routes, ms (default: the kernel's, 200)")
    rc.add_argument("--hosts", action="store_true", help="each node namespace's JVMs in a PID namespace of "
                    "its own (a host of its own to the soft fabric and ucx://)")
    rc.add_argument("test", nargs=argparse.REMAINDER, help="-- the test command")
    ck = sub.add_parser("check", help="the network's proof (the harness row netns)")
    ck.add_argument("--java", default=None)
    ck.add_argument("--classes", default=os.path.join(ROOT, "java-api/target/classes"))
    ck.add_argument("--test-classes", default=os.path.join(ROOT, "java-api/target/test-classes"))
    ck.add_argument("--console", default=None, help="the JUnit console launcher jar (the launcher check)")
    for name in ("cut", "restore", "clear-loss"):
        sub.add_parser(name).add_argument("namespace")
    lo = sub.add_parser("loss")
    lo.add_argument("namespace")
    lo.add_argument("percent", type=int)
    sub.add_parser("cleanup", help="removes every namespace of a dead run")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "run-conformance":
            test = a.test[1:] if a.test[:1] == ["--"] else a.test
            if not test:
                ap.error("run-conformance needs a test command after --")
            with Net(a.nodes) as net:
                if a.rto_min:
                    net.rto_min(a.rto_min)
                for i in range(1, net.nodes + 1) if a.loss else ():
                    net.loss(i, a.loss)
                status, _ = run_conformance(net, test, shlex.split(a.hub), hosts=a.hosts)
                if a.loss:
                    # the loss was real: the rules of every node dropped packets
                    dropped = {i: net.dropped(i) for i in range(1, net.nodes + 1)}
                    print("harness/netns.py: %d %% loss: packets dropped at %s" % (a.loss, ", ".join(
                        "node %d %d" % kv for kv in dropped.items())), file=sys.stderr)
                    if not all(dropped.values()):
                        print("harness/netns.py: the loss rules of a node dropped nothing: the run was not lossy",
                              file=sys.stderr)
                        return status or 1
            return status
        if a.cmd == "check":
            import netns_check
            java = a.java or os.path.join(os.environ.get("JAVA_HOME", "/usr"), "bin", "java")
            ok = netns_check.check(print, java, a.classes, a.test_classes, a.console)
            return 0 if ok else 1
        if a.cmd == "cleanup":
            for ns in cleanup_dead():
                print("removed " + ns)
            return 0
        if a.cmd == "loss":
            loss_ns(a.namespace, a.percent)
        else:
            {"cut": cut_ns, "restore": restore_ns, "clear-loss": clear_loss_ns}[a.cmd](a.namespace)
        return 0
    except NetnsError as e:
        print("harness/netns.py: " + str(e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
