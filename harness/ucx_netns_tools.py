#!/usr/bin/env python3
"""mcctl and the demo on ucx:// across network namespaces (the ucx-netns-tools row).

A hub namespace and two node namespaces (harness/netns.py), each node namespace a host of its own at the hub
(memchan.ucx.host n1, n2): `mcctl hub` in the hub namespace; `mcctl bench serve` in node 1, `mcctl status`
there (it lists the server's node), `mcctl bench pingpong --peer` from node 2; the demo's responder in node 1 and
its initiator in node 2; the hub's counts at SIGTERM (every join admitted, none refused). Needs root (network
namespaces) and tools/target built (scripts/mvn -pl java-api,tools package). Exit 0 when every step passes; the
first failing step's output otherwise."""
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MCCTL = os.path.join(ROOT, "scripts/mcctl")
DEMO = os.path.join(ROOT, "scripts/demo")
PORT = 7300
# a step's bound: a JVM's start and a short run on a loaded machine
STEP_SECONDS = 300
FAILURE_MS = 5000


class Failed(Exception):
    pass


def first_line(proc, what):
    """proc's first line of output, waiting for at most STEP_SECONDS (its JVM's start)"""
    ready, _, _ = select.select([proc.stdout], [], [], STEP_SECONDS)
    line = proc.stdout.readline() if ready else ""
    if not line:
        raise Failed("%s printed nothing (exit %s)" % (what, proc.poll()))
    return line.rstrip("\n")


def finish(proc, what, ok=(0,)):
    """proc's remaining output once it exits with a status of ok"""
    out, _ = proc.communicate(timeout=STEP_SECONDS)
    if proc.returncode not in ok:
        raise Failed("%s exited %d:\n%s" % (what, proc.returncode, out))
    return out


def main():
    work = tempfile.mkdtemp(prefix="ucx-netns-tools-")
    secret = os.path.join(work, "fabric.secret")
    name = "tools%d" % os.getpid()
    hub = None
    try:
        r = subprocess.run([MCCTL, "secret", "create", secret], capture_output=True, text=True)
        if r.returncode != 0:
            raise Failed("mcctl secret create: " + r.stderr)
        with netns.Net(2) as net:
            fabric = "ucx://%s:%d/%s" % (net.address(0), PORT, name)

            def node(i, argv):
                # a failure timeout of seconds: this row checks the tools, not the failure detector, and a node
                # on a loaded machine may miss 800 ms of heartbeats
                env = {"MEMCHAN_UCX_SECRET": secret, "MEMCHAN_DEMO_NO_BUILD": "1",
                       "JAVA_TOOL_OPTIONS": "-Dmemchan.ucx.host=n%d -Dmemchan.demo.failureTimeoutMs=%d" % (i, FAILURE_MS),
                       "MEMCHAN_FAILURE_TIMEOUT_MS": str(FAILURE_MS)}
                return net.run(i, argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace")

            hub = net.run(0, [MCCTL, "hub", fabric, "--secret", secret], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
            line = first_line(hub, "mcctl hub")
            while line.startswith("Picked up") or "listening" not in line:
                line = first_line(hub, "mcctl hub")
            print("ok 1 - " + line, flush=True)

            serve = node(1, [MCCTL, "--fabric", fabric, "bench", "serve", "--count", "1"])
            line = first_line(serve, "bench serve in node 1")
            while line.startswith("Picked up"):
                line = first_line(serve, "bench serve in node 1")
            m = re.match(r"serving benchmarks on node (\d+)", line)
            if not m:
                raise Failed("bench serve: " + line)
            served = int(m.group(1))
            # the server's node is in node 1's copy once its join is applied there: a bounded number of looks
            for look in range(1, 6):
                status = node(1, [MCCTL, "--fabric", fabric, "status", "--json"])
                out = finish(status, "mcctl status in node 1")
                doc = json.loads(out[out.index("{"):])
                nodes = [n["node"] for n in doc["nodes"] if n["state"] == "joined"]
                if doc["kind"] == "ucx" and served in nodes:
                    break
                print("# look %d: mcctl status in node 1 does not list node %d yet: %s" % (look, served, out), flush=True)
            else:
                raise Failed("mcctl status in node 1 does not list the server's node %d after 5 looks" % served)
            print("ok 2 - mcctl status in node 1: kind ucx, hub %s, nodes %s joined" % (doc["hub"], nodes), flush=True)

            ping = node(2, [MCCTL, "--fabric", fabric, "bench", "pingpong", "--peer", str(served), "--rounds", "500",
                            "--batches", "1", "--json"])
            out = finish(ping, "bench pingpong in node 2")
            finish(serve, "bench serve in node 1")
            result = json.loads(out[out.index("{"):])
            print("ok 3 - bench pingpong from node 2 to node 1 across veth: %s" % json.dumps(result)[:300], flush=True)

            responder = node(1, [DEMO, fabric, "--secret", secret, "responder"])
            line = first_line(responder, "the demo's responder in node 1")
            while "waiting for an initiator" not in line:
                line = first_line(responder, "the demo's responder in node 1")
            initiator = node(2, [DEMO, fabric, "--secret", secret, "initiator", "200"])
            out = finish(initiator, "the demo's initiator in node 2")
            responded = finish(responder, "the demo's responder in node 1")
            summary = [l for l in out.splitlines() if "round trips" in l]
            if not summary or not summary[0].startswith("initiator: 200 round trips"):
                raise Failed("the demo's initiator did not report 200 round trips:\n%s\nthe responder:\n%s" % (out, responded))
            print("ok 4 - the demo across namespaces: " + summary[0], flush=True)

            os.killpg(hub.pid, signal.SIGTERM)
            out = finish(hub, "mcctl hub", ok=(0, 128 + signal.SIGTERM))   # a JVM ended by SIGTERM exits 143
            m = re.search(r"hub stopped: (\d+) joins admitted, (\d+) refused", out)
            # admitted: bench serve, bench pingpong, the demo's two nodes (status joins none)
            if not m or m.group(1) != "4" or m.group(2) != "0":
                raise Failed("the hub's counts at SIGTERM are not 4 admitted and 0 refused:\n" + out)
            print("ok 5 - " + m.group(0), flush=True)
            hub = None
        print("1..5")
        return 0
    except (Failed, netns.NetnsError, subprocess.TimeoutExpired) as e:
        print("not ok - %s" % e, flush=True)
        return 1
    finally:
        if hub is not None and hub.poll() is None:
            os.killpg(hub.pid, signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)
        for f in os.listdir("/dev/shm"):
            if re.match(r"memchan-.*ucx-%s-" % name, f):
                os.unlink(os.path.join("/dev/shm", f))


if __name__ == "__main__":
    sys.exit(main())
