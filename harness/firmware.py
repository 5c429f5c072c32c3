"""The firmware table's steps (tables.FIRMWARE) and the lane that runs its jobs.

A job's steps run one after the other in firmware/, each logging to firmware/build/STEP.log and
printing "PASS  STEP (N s)" or "FAIL  STEP (N s), last lines of build/STEP.log:" and those lines,
as firmware/test.sh did. The lane runs --fw-jobs jobs at once in worker threads, each command in
the idle scheduling class (chrt --idle 0) while the Java and native tests run beside it: those
keep the CPUs whenever they want them (their cluster agents have timing bounds), the benches,
which count cycles, not seconds, take what is left. Once the main tests are done the lane's
processes are moved back to the normal class (promote), so the tail of the lane does not crawl
behind other work on the machine.
"""
import glob
import os
import queue
import re
import signal
import subprocess
import threading
import time

import cpu
import tables

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FW = os.path.join(ROOT, "firmware")
BUILD = os.path.join(FW, "build")

# benches build without C++ optimization: compile time dominates, the runs take seconds. One C++
# file per model (--output-split 0): split files each parse Verilator's headers again
# (docs/performance.md, "The test command's time"); the jobs already keep both cores busy.
# -fno-case: the register block's case statement stays an if/else chain instead of a decision tree
# with a loop copied into every leaf (firmware/cosim/build.sh; the hub and remote jobs took 0.78x the
# CPU with it, 580 against 744 CPU s, the same checks passing and the same controls failing)
VFLAGS = ["--binary", "--timing", "-O1", "-fno-case", "-j", "2", "--output-split", "0", "-Wno-fatal",
          "-Wno-WIDTH",
          "-Wno-UNUSED", "-MAKEFLAGS", "OPT_FAST=-O0", "-MAKEFLAGS", "OPT_SLOW=-O0", "-MAKEFLAGS",
          "OPT_GLOBAL=-O0"]
# every model compiles Verilator's run-time library (verilated.cpp, its timing and threads) again,
# the same sources with the same flags: ccache (verilated.mk's OBJCACHE) compiles each once per run.
# Its cache is firmware/build/ccache, beside the models (in a fresh clone, the run's own).
OBJCACHE = ["-MAKEFLAGS", "OBJCACHE=ccache"]


class Aborted(Exception):
    pass


class Ctx:
    """one job's runner: its commands, its output lines, its counts"""

    def __init__(self, lane, seeds):
        self.lane = lane
        self.seeds = seeds
        self.lines = []
        self.passed = 0
        self.failed = 0

    def out(self, line):
        self.lines.append(line)

    def run(self, argv, log=None, append=False, stdout=None):
        """runs argv in firmware/ (idle class while the lane is), output to the file log (or
        returned); returns (rc, output)"""
        argv = [str(a).replace("{root}", ROOT) for a in argv]
        if self.lane.idle:
            argv = ["chrt", "--idle", "0"] + argv
        # its own process group (stop and promote reach its whole tree), not its own session: a new
        # session is a new scheduling autogroup (sched_autogroup_enabled, Debian's default), whose
        # share of the CPU is a whole group's, idle class or not, against the boots' one group
        p = subprocess.Popen(argv, cwd=FW, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, process_group=0,
                             env=dict(os.environ, CCACHE_DIR=os.path.join(BUILD, "ccache")))
        self.lane.track(p, True)
        try:
            data = p.communicate()[0].decode(errors="replace")
        finally:
            self.lane.track(p, False)
        if self.lane.stopping:
            raise Aborted("the lane was stopped")
        if log:
            with open(log, "a" if append else "w") as f:
                f.write(data)
        return p.returncode, data

    def step(self, name, fn):
        """fn(log) -> bool, writing build/name.log"""
        log = os.path.join(BUILD, name + ".log")
        open(log, "w").close()
        t0 = time.time()
        try:
            ok = fn(log)
        except Aborted:
            raise
        except Exception as e:  # a broken step is a failure, not a silent pass
            with open(log, "a") as f:
                f.write("harness: %r\n" % e)
            ok = False
        secs = int(time.time() - t0)
        if ok:
            self.passed += 1
            self.out("PASS  %s (%d s)" % (name, secs))
        else:
            self.failed += 1
            self.out("FAIL  %s (%d s), last lines of build/%s.log:" % (name, secs, name))
            with open(log, errors="replace") as f:
                for line in f.read().splitlines()[-15:]:
                    self.out("      " + line)

    def show(self, globs, regex, first=None):
        for g in globs:
            for path in sorted(glob.glob(os.path.join(BUILD, g))):
                n = 0
                with open(path, errors="replace") as f:
                    for line in f:
                        if re.search(regex, line):
                            self.out(line.rstrip("\n"))
                            n += 1
                            if first and n >= first:
                                break


def write(log, text):
    with open(log, "a") as f:
        f.write(text if text.endswith("\n") or not text else text + "\n")


# ---- the step kinds -----------------------------------------------------------------------

def do_build(ctx, s, log):
    mdir = os.path.join(BUILD, s.bench)
    if s.flags is None:
        argv = ["verilator", *VFLAGS, *OBJCACHE, "--Mdir", mdir, *tables.RTL, *s.files]
    else:
        argv = ["verilator", *s.flags, *OBJCACHE, "--Mdir", mdir, *s.files]
    rc, _ = ctx.run(argv + ["--top-module", s.top, "-o", s.top], log)
    return rc == 0


def do_run(ctx, s, log, fmt=None):
    plus = [a.format(**fmt) if fmt else a for a in s.plusargs]
    runlog = os.path.join(BUILD, s.bench + ".run.log")
    rc, out = ctx.run([os.path.join(BUILD, s.bench, s.top), *plus], runlog)
    write(log, "\n".join(out.splitlines()[-30:]))
    return rc == 0 and "PASS" in out


def must_fail(ctx, log, runlog, pattern, argv):
    """a negative control's run must fail, and for the reason its bench names: its log must
    hold a line matching pattern (at most 3 are printed)"""
    rc, out = ctx.run(argv, runlog)
    if rc == 0:
        write(log, "%s passed: the bench proves nothing" % " ".join(argv))
        return False
    hits = [line for line in out.splitlines() if re.search(pattern, line)][:3]
    if not hits:
        write(log, '%s failed, but not with "%s":' % (" ".join(argv), pattern))
        write(log, "\n".join(out.splitlines()[-3:]))
        return False
    write(log, "\n".join(hits))
    return True


def do_must_fail(ctx, s, log):
    mdir = os.path.join(BUILD, s.bench)
    rc, _ = ctx.run(["verilator", *VFLAGS, *OBJCACHE, "--Mdir", mdir, *tables.RTL, *s.files, "--top-module", s.top,
                     *s.params, "-o", s.top], log)
    if rc != 0:
        return False
    for runlog, plus, reason in s.runs:
        if not must_fail(ctx, log, os.path.join(BUILD, runlog + ".run.log"), reason,
                         [os.path.join(mdir, s.top), *plus]):
            return False
    return True


def do_synth(ctx, s, log):
    # in the idle class like every job of the lane: the boots, whose guests have one or two vCPUs and
    # whose device processes idle between deliveries, leave it a core for most of the run; in the
    # normal class the two syntheses would take the CPU from the first boots
    rc, _ = ctx.run(["synth/synth.sh", os.path.join(BUILD, s.name), *s.args], log)
    return rc == 0


# ---- the odd checks (tables.Func) ----------------------------------------------------------

LINT = tables.LINT


def param_check(ctx, log):
    rc, _ = ctx.run(LINT + ["--top-module", "memchan_top", "-GPAGE_SIZE=5000"], log)
    if rc == 0:
        write(log, "PAGE_SIZE=5000 elaborated: parameter check missing")
        return False
    write(log, "PAGE_SIZE=5000 rejected at elaboration, as it must be")
    return True


def hub_param_check(ctx, log):
    """the hub: PORTS beyond 32, and the ACK forwarding of its negative control in synthesis"""
    rc, _ = ctx.run(LINT + ["-f", "rtl/hub_files.f", "--top-module", "memchan_hub", "-GPORTS=33"], log)
    if rc == 0:
        write(log, "PORTS=33 elaborated: parameter check missing")
        return False
    write(log, "PORTS=33 rejected at elaboration, as it must be")
    rc, out = ctx.run(["verilator", "--lint-only", "-Wall", "-DSYNTHESIS", "lint/verilator.vlt", *tables.RTL,
                       "-f", "rtl/hub_files.f", "--top-module", "memchan_hub", "-GACK_MERGE=0"],
                      os.path.join(BUILD, "hub_ack_merge_check.log"))
    if rc == 0:
        write(log, "ACK_MERGE=0 elaborated for synthesis: parameter check missing")
        return False
    write(log, out)
    if "ACK_MERGE = 0" not in out:
        return False
    write(log, "ACK_MERGE=0 rejected at elaboration for synthesis, as it must be")
    return True


def icarus_copy(ctx, d, files, log):
    """the RTL through lint/icarus_sv.sh (two mechanical rewrites) into a directory of the
    job's own; returns the copied files"""
    rc, out = ctx.run(["lint/icarus_sv.sh", os.path.join(BUILD, "icarus", d), *files])
    if rc != 0:
        write(log, out)
        raise RuntimeError("lint/icarus_sv.sh failed")
    return out.split()


def iverilog_run(ctx, log, vvp, sources, top=None, runlog=None, extra=()):
    os.makedirs(os.path.dirname(vvp), exist_ok=True)
    argv = ["iverilog", "-g2012", *extra, "-o", vvp] + (["-s", top] if top else []) + sources
    rc, out = ctx.run(argv)
    write(log, out)
    if rc != 0:
        return False, out
    rc, out = ctx.run(["vvp", "-n", vvp], runlog)
    write(log, out)
    return rc == 0, out


def crc_iverilog(ctx, log):
    ok, out = iverilog_run(ctx, log, os.path.join(BUILD, "crc", "tb_crc.vvp"),
                           ["rtl/memchan_crc32.sv", "tb/crc/tb_crc.sv"],
                           runlog=os.path.join(BUILD, "crc_iverilog.run.log"))
    return ok and "PASS" in out


def _unit_iverilog(name, rtl):
    def f(ctx, log):
        files = icarus_copy(ctx, name, rtl, log)
        ok, out = iverilog_run(ctx, log, os.path.join(BUILD, "icarus", name, "tb_%s.vvp" % name),
                               files + ["tb/%s/tb_%s.sv" % (name, name)], top="tb_" + name,
                               runlog=os.path.join(BUILD, "%s_iverilog.run.log" % name))
        return ok and "PASS" in out
    return f


fifo_iverilog = _unit_iverilog("fifo", ["rtl/memchan_ram_sdp.sv", "rtl/memchan_fifo.sv"])
skid_iverilog = _unit_iverilog("skid", ["rtl/memchan_skid.sv"])


def icarus_elab(ctx, log, top, bad, lists):
    """elaborates TOP under Icarus; BAD_PARAM=VALUE must be rejected (at time 0)"""
    files = []
    for lst in lists:
        with open(os.path.join(FW, lst)) as f:
            files += f.read().split()
    files = icarus_copy(ctx, top, files, log)
    d = os.path.join(BUILD, "icarus", top)
    ok, _ = iverilog_run(ctx, log, os.path.join(d, top + ".vvp"), files, top=top)
    if not ok:
        return False
    rc, out = ctx.run(["iverilog", "-g2012", "-P%s.%s" % (top, bad), "-o", os.path.join(d, "bad_%s.vvp" % top),
                       "-s", top, *files])
    write(log, out)
    if rc != 0:
        return False
    rc, out = ctx.run(["vvp", "-n", os.path.join(d, "bad_%s.vvp" % top)])
    write(log, out)
    if rc == 0:
        write(log, "%s accepted under Icarus" % bad)
        return False
    write(log, "%s elaborates under Icarus; %s rejected" % (top, bad))
    return True


def icarus_rtl(ctx, log):
    return icarus_elab(ctx, log, "memchan_top", "PAGE_SIZE=5000", ["rtl/files.f"])


def icarus_hub(ctx, log):
    return icarus_elab(ctx, log, "memchan_hub", "PORTS=33", ["rtl/files.f", "rtl/hub_files.f"])


def _clock_unit_iverilog(ctx, log, extra=(), runlog=None):
    files = icarus_copy(ctx, "clock_unit", tables.CLOCKU, log)
    vvp = os.path.join(BUILD, "icarus", "clock_unit", "tb_clock_unit.vvp")
    rc, out = ctx.run(["iverilog", "-g2012", *extra, "-o", vvp, "-s", "tb_clock_unit", *files,
                       "tb/clock_unit/tb_clock_unit.sv"])
    if rc != 0:
        write(log, out)
        return rc, out
    return ctx.run(["vvp", "-n", vvp], runlog)


def clock_unit_icarus(ctx, log):
    rc, out = _clock_unit_iverilog(ctx, log, runlog=os.path.join(BUILD, "clock_unit_iverilog.run.log"))
    write(log, out)
    return rc == 0 and "PASS" in out


def clock_unit_unsync(ctx, log):
    """without sync frames (SYNC=0) the clock's two ends must FAIL with "clock skew", in both"""
    rc, _ = ctx.run(["verilator", "--binary", "--timing", "-O1", "-Wno-fatal", "-Wno-WIDTH", *OBJCACHE, "--Mdir",
                     os.path.join(BUILD, "clock_unit_unsync"), *tables.CLOCKU, "tb/clock_unit/tb_clock_unit.sv",
                     "--top-module", "tb_clock_unit", "-GSYNC=0", "-o", "tb_clock_unit"], log)
    if rc != 0:
        return False
    ctx.run([os.path.join(BUILD, "clock_unit_unsync", "tb_clock_unit")],
            os.path.join(BUILD, "clock_unit_unsync.run.log"))
    _clock_unit_iverilog(ctx, log, extra=["-Ptb_clock_unit.SYNC=0"],
                         runlog=os.path.join(BUILD, "clock_unit_unsync_iverilog.run.log"))
    for name in ("clock_unit_unsync", "clock_unit_unsync_iverilog"):
        with open(os.path.join(BUILD, name + ".run.log"), errors="replace") as f:
            text = f.read()
        if "PASS" in text or "clock skew" not in text:
            write(log, '%s: SYNC=0 did not fail with "clock skew"' % name)
            return False
        write(log, "\n".join(line for line in text.splitlines() if "clock skew" in line))
    return True


# ---- a job ---------------------------------------------------------------------------------

def run_job(ctx, job):
    for s in job.steps:
        if isinstance(s, tables.Cmd):
            ctx.step(s.name, lambda log, s=s: ctx.run(s.argv, log)[0] == 0)
        elif isinstance(s, tables.Build):
            ctx.step(s.name, lambda log, s=s: do_build(ctx, s, log))
        elif isinstance(s, tables.Run):
            ctx.step(s.name, lambda log, s=s: do_run(ctx, s, log))
        elif isinstance(s, tables.Seeds):
            for seed in (s.seeds or ctx.seeds):
                ctx.step(s.run.name.format(seed=seed), lambda log, s=s, seed=seed: do_run(ctx, s.run, log, {"seed": seed}))
        elif isinstance(s, tables.MustFail):
            ctx.step(s.name, lambda log, s=s: do_must_fail(ctx, s, log))
            # the reason lines each control failed with, as evidence
            ctx.show([s.name + ".log"], "|".join("(%s)" % reason for _, _, reason in s.runs))
        elif isinstance(s, tables.Synth):
            ctx.step(s.name, lambda log, s=s: do_synth(ctx, s, log))
            ctx.show([s.name + ".log"], r"^resources:")
            ctx.show([s.name + ".log"], r"^depth:", first=3)
        elif isinstance(s, tables.Func):
            fn = globals()[s.func]
            ctx.step(s.name, lambda log, fn=fn: fn(ctx, log))
        elif isinstance(s, tables.Show):
            ctx.show(s.globs, s.regex, s.first)
        else:
            raise TypeError(s)


class Result:
    def __init__(self, name):
        self.name = name
        self.done = threading.Event()
        self.lines = []
        self.passed = 0
        self.failed = 0
        self.secs = 0
        self.cpu = 0.0
        self.started = None
        self.aborted = None


class Lane:
    def __init__(self):
        self.results = {}
        self.started = False
        self.idle = False
        self.stopping = False
        self._procs = set()
        self._lock = threading.Lock()
        self.on_done = None   # callback(Result): a progress line

    def track(self, p, add):
        with self._lock:
            (self._procs.add if add else self._procs.discard)(p)

    def start(self, jobs, n, seeds, idle):
        """starts the jobs (tables.FwJob, in that order) on n workers"""
        if self.started:
            return
        self.started = True
        self.idle = idle
        os.makedirs(BUILD, exist_ok=True)
        q = queue.Queue()
        for job in jobs:
            self.results[job.name] = Result(job.name)
            q.put(job)

        def worker():
            while not self.stopping:
                try:
                    job = q.get_nowait()
                except queue.Empty:
                    return
                r = self.results[job.name]
                r.started = time.time()
                acc = cpu.begin()
                ctx = Ctx(self, seeds)
                try:
                    run_job(ctx, job)
                except Exception as e:   # a job that stops early is a failure, not a silent pass
                    r.aborted = repr(e)
                    ctx.out("FAIL  job %s ended before its last step: %r" % (job.name, e))
                    ctx.failed += 1
                r.lines, r.passed, r.failed = ctx.lines, ctx.passed, ctx.failed
                r.secs = int(time.time() - r.started)
                r.cpu = acc.cpu
                with open(os.path.join(BUILD, "job.%s.out" % job.name), "w") as f:
                    f.write("\n".join(r.lines) + "\n")
                r.done.set()
                if self.on_done:
                    self.on_done(r)

        for i in range(max(1, n)):
            threading.Thread(target=worker, name="fw-lane-%d" % i, daemon=True).start()

    def promote(self):
        """the main tests are done: the lane's processes leave the idle class"""
        if not self.idle:
            return
        self.idle = False
        with self._lock:
            groups = {p.pid for p in self._procs}
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % pid) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[2]) not in groups:   # process group
                    continue
                for tid in os.listdir("/proc/%s/task" % pid):
                    os.sched_setscheduler(int(tid), os.SCHED_OTHER, os.sched_param(0))
            except (OSError, IndexError, ValueError):
                pass

    def stop(self):
        self.stopping = True
        with self._lock:
            procs = list(self._procs)
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except OSError:
                pass
