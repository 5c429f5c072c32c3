#!/usr/bin/env python3
"""Run QEMU guests whose PCI devices are the co-simulated memchan adapters.

    launch.py [options] --guest ADAPTERS [-- QEMU ARGV...] [--guest ADAPTERS [-- QEMU ARGV...]]...

Each --guest starts one QEMU (its ARGV from qemu-system-x86_64 on, with -m SIZE and without
-machine) whose x-pci-proxy-dev devices are the listed adapters (e.g. "0,1"); ADAPTERS may be
"-" for a guest without adapters. The launcher builds the device process (build.sh), makes
one socketpair per adapter, starts memchan-cosim and the guests, waits for every guest to
power off, stops the device process (it prints its statistics) and exits:
  0   every guest exited 0 and the device process ran to the end
  1   a guest exited non-zero
  3   the device process died or failed to build
  124 the time bound (--timeout) ran out: every process was stopped

Options:
  --cable A:B        cable adapters A and B (repeatable); A:A is a loopback plug
  --hub              cable every adapter k to port k of an RTL hub in the device process
                     (build.sh --hub; the hub has as many ports as there are adapters)
  --bad-id A         adapter A reads a wrong ID register (harness option)
  --bad-version A    adapter A reads the next VERSION major (harness option)
  --ctl DIR          control directory of the device process (README.md), created if missing
  --seed N           random seed of the cables (stalls, bit flips)
  --idle-cycles N    cycles the clock runs on after a BAR0 write or a control request
  --link-tail N      cycles it runs on after a BAR2 write, a DMA beat or a frame in flight
  --timeout S        bound for the whole run (default 600)
  --cosim-log FILE   the device process's messages and statistics (default: stderr)
  --pin CPU          pin the device process and every QEMU to one CPU
"""
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def usage(msg):
    sys.stderr.write("launch.py: %s\n" % msg)
    sys.exit(2)


def parse(argv):
    opts = {"cable": [], "bad-id": [], "bad-version": [], "ctl": None, "seed": None,
            "idle-cycles": None, "link-tail": None, "timeout": 600.0, "cosim-log": None, "pin": None,
            "hub": False}
    guests = []
    i = 0
    while i < len(argv) and argv[i] != "--guest":
        o = argv[i]
        if o == "--hub":
            opts["hub"] = True
            i += 1
            continue
        if not o.startswith("--") or o[2:] not in opts or i + 1 >= len(argv):
            usage("bad option %s" % o)
        v = argv[i + 1]
        if isinstance(opts[o[2:]], list):
            opts[o[2:]].append(v)
        else:
            opts[o[2:]] = v
        i += 2
    while i < len(argv):
        if i + 1 >= len(argv):
            usage("--guest needs an adapter list")
        spec = argv[i + 1]
        i += 2
        qargs = []
        if i < len(argv) and argv[i] == "--":
            i += 1
            while i < len(argv) and argv[i] != "--guest":
                qargs.append(argv[i])
                i += 1
        ads = [] if spec == "-" else [int(x) for x in spec.split(",")]
        if not qargs:
            usage("guest %s: no QEMU command" % spec)
        check_qemu_args(qargs)
        guests.append((ads, qargs))
    if not guests:
        usage("no --guest")
    if opts["hub"] and opts["cable"]:
        usage("--hub cables every adapter to the hub: no --cable")
    opts["timeout"] = float(opts["timeout"])
    return opts, guests


def check_qemu_args(qargs):
    """Refuse, before anything starts, QEMU arguments the launcher cannot serve."""
    if "-m" not in qargs:
        usage("QEMU arguments need -m SIZE (the shared RAM is made that size)")
    if "-machine" in qargs or "-M" in qargs:
        usage("QEMU arguments must not choose -machine (q35 with shared RAM is added)")
    # QEMU 7.2's re-entrancy guard refuses a second vCPU's access to a proxy device while the
    # first waits for the device process: stores to the transmit window would be lost
    if "-smp" in qargs and qargs[qargs.index("-smp") + 1].split(",")[0] not in ("1", "cpus=1"):
        usage("QEMU arguments must give the guest one vCPU (-smp 1): with more, QEMU drops "
              "concurrent accesses to the proxy device (Blocked re-entrant IO)")


def qemu_argv(qargs, fds):
    """Add shared (memfd) guest RAM and one proxy device per adapter socket."""
    out = list(qargs)
    size = out[out.index("-m") + 1]
    if size.isdigit():
        size += "M"
    out += ["-machine", "q35,memory-backend=mcram",
            "-object", "memory-backend-memfd,id=mcram,size=%s,share=on" % size]
    for n, fd in enumerate(fds):
        out += ["-device", "x-pci-proxy-dev,id=mc%d,fd=%d" % (n, fd)]
    return out


def stop(procs, grace):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    end = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.1, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main():
    opts, guests = parse(sys.argv[1:])
    used = [a for ads, _ in guests for a in ads]
    if len(set(used)) != len(used):
        usage("an adapter belongs to one guest only")
    nad = max(used) + 1 if used else 1
    if sorted(used) != list(range(nad)):
        usage("adapters must be numbered 0..N-1 without gaps")
    build = subprocess.run([os.path.join(HERE, "build.sh"), "--adapters", str(max(nad, 2))] +
                           (["--hub"] if opts["hub"] else []),
                           stdout=subprocess.PIPE, universal_newlines=True)
    if build.returncode != 0:
        sys.stderr.write("launch.py: build.sh failed\n")
        return 3
    binary = build.stdout.strip().splitlines()[-1]

    pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(nad)]
    ours = [p[0].fileno() for p in pairs]
    theirs = [p[1].fileno() for p in pairs]
    cmd = [binary]
    for fd in ours:
        cmd += ["--fd", str(fd)]
    for c in opts["cable"]:
        cmd += ["--cable", c]
    for a in opts["bad-id"]:
        cmd += ["--bad-id", a]
    for a in opts["bad-version"]:
        cmd += ["--bad-version", a]
    if opts["ctl"]:
        os.makedirs(opts["ctl"], exist_ok=True)
        for f in ("request", "ack", "ack.tmp"):
            if os.path.exists(os.path.join(opts["ctl"], f)):
                os.unlink(os.path.join(opts["ctl"], f))
        cmd += ["--ctl", opts["ctl"]]
    for o in ("seed", "idle-cycles", "link-tail"):
        if opts[o] is not None:
            cmd += ["--" + o, opts[o]]

    def pin():
        if opts["pin"] is not None:
            os.sched_setaffinity(0, {int(opts["pin"])})

    log = open(opts["cosim-log"], "w") if opts["cosim-log"] else None
    cosim = subprocess.Popen(cmd, pass_fds=ours, stderr=log, preexec_fn=pin)
    for p in pairs:
        p[0].close()
    qemus = []
    for ads, qargs in guests:
        fds = [theirs[a] for a in ads]
        qemus.append(subprocess.Popen(qemu_argv(qargs, fds), pass_fds=fds, preexec_fn=pin))
    for p in pairs:
        p[1].close()

    # stopped from outside (e.g. an outer timeout): take the guests and the device process along
    def on_term(signum, frame):
        stop(qemus, 5)
        stop([cosim], 10)
        sys.exit(124)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)

    deadline = time.monotonic() + opts["timeout"]
    rc = 0
    while any(q.poll() is None for q in qemus):
        if cosim.poll() is not None:
            sys.stderr.write("launch.py: the device process exited (%d) under running guests\n"
                             % cosim.returncode)
            stop(qemus, 5)
            rc = 3
            break
        if time.monotonic() > deadline:
            sys.stderr.write("launch.py: %.0f s bound ran out, stopping the guests\n"
                             % opts["timeout"])
            stop(qemus, 5)
            rc = 124
            break
        time.sleep(0.2)
    stop([cosim], 10)
    if rc == 0 and cosim.returncode != 0:
        rc = 3
    if rc == 0 and any(q.returncode != 0 for q in qemus):
        rc = 1
    if log:
        log.close()
    return rc


if __name__ == "__main__":
    sys.exit(main())
