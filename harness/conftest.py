"""memchan's test harness: options, the session's shared builds (fixtures), the firmware lane,
progress lines, the failing-lines recap. The tests are the rows of tables.py."""
import dataclasses
import glob
import os
import re
import shutil
import subprocess
import sys
import queue
import tempfile
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu  # noqa: E402
import firmware  # noqa: E402
import native  # noqa: E402
import tables  # noqa: E402

cpu.install()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "build", "test-results")

# every Debian package a test uses, installed once (scripts/need-packages is quiet when all are)
PACKAGES = ["gcc", "make", "python3", "qemu-system-x86", "linux-image-amd64", "linux-headers-amd64",
            "busybox-static", "kmod", "udev", "dkms", "verilator", "g++", "iverilog", "yosys", "sparse",
            "cpio", "util-linux", "python3-clang", "linux-source-6.1", "ccache", "libucx0", "libucx-dev",
            "ucx-utils", "tcl", "iproute2", "nftables", "iputils-ping"]

# the lines of a run that say what failed: TAP's "not ok" (the guests' indented behind their
# label), the firmware's FAIL lines, Maven's failed tests
FAILING = re.compile(r"^(# \[guest [^]]*\] )?not ok|^FAIL |^\[ERROR\] (Tests run:.*FAIL|  [A-Za-z].*:[0-9]+ )")

# the order of the main sequence; "side" rows run in the side lane beside it (their tests, which
# wait for them and report, come after the boots)
PHASES = {"early": 0, "java": 1, "native": 2, "boot": 3, "side": 3.5, "firmware": 4}


def pytest_addoption(parser):
    g = parser.getgroup("memchan")
    g.addoption("--kver", default=os.environ.get("MEMCHAN_KVER"),
                help="kernel version of the guests and the driver build (default: the newest with headers and image)")
    g.addoption("--keep", action="store_true", help="keep the work directory (consoles, logs)")
    g.addoption("--no-java-aot", action="store_true",
                help="the guests' test JVMs start without their AOT caches (to measure what they save)")
    g.addoption("--board-java-steps", default=tables.BOARD_JAVA_STEPS,
                help="board-java's steps (native/tests/board_java.sh), default %r" % tables.BOARD_JAVA_STEPS)
    g.addoption("--board-java-select", default=tables.BOARD_JAVA_SELECT,
                help="JUnit launcher selectors of board-java's conformance step, default %r" % tables.BOARD_JAVA_SELECT)
    g.addoption("--board-hub-select", default=tables.BOARD_HUB_SELECT,
                help="JUnit launcher selectors of board-hub-java (default: the whole suite)")
    g.addoption("--board-hub-timeout", type=int, default=tables.BOARD_HUB_TIMEOUT,
                help="board-hub-java's bound in seconds, default %d" % tables.BOARD_HUB_TIMEOUT)
    g.addoption("--detector-args", default="600 20",
                help="the detector boot's soak seconds and number of kills, default '600 20'")
    g.addoption("--fw-seeds", default=tables.FW_SEEDS, help="seeds of the random benches, default %r" % tables.FW_SEEDS)
    g.addoption("--fw-jobs", type=int, default=tables.FW_JOBS, help="firmware jobs at once, default %d" % tables.FW_JOBS)
    g.addoption("--fw-serial", action="store_true",
                help="run the firmware jobs first, alone, in the normal scheduling class (not beside the others)")
    g.addoption("--progress-interval", type=float, default=60.0,
                help="seconds between a long test's progress lines (default 60; 0: none)")
    g.addoption("--all-boots", action="store_true", help="also the boots that are not in the default run (board-hub)")


# ---- output ----------------------------------------------------------------------------------

class Report:
    """the run's log (every test's lines, build/test-results/run.log), per-test logs, and a
    stream to the real terminal for progress lines (pytest captures the tests' own output)"""

    def __init__(self):
        os.makedirs(RESULTS, exist_ok=True)
        self.lock = threading.Lock()
        self.run_log = open(os.path.join(RESULTS, "run.log"), "w")
        self.tty = os.fdopen(os.dup(sys.__stdout__.fileno()), "w", buffering=1)
        self.tap_passed = 0
        self.tap_failed = 0

    def progress(self, line):
        with self.lock:
            self.tty.write("\n[%s] %s\n" % (time.strftime("%H:%M:%S"), line))
            self.tty.flush()

    def lines_for(self, name, echo=True):
        """out(text): a test's lines, to its log and the run's log, and printed (to pytest's
        capture of the running test) when echo; a side-lane item's are kept in out.lines for the
        test that reports it"""
        log = open(os.path.join(RESULTS, name + ".log"), "w")

        def out(text):
            for line in str(text).splitlines() or [""]:
                if echo:
                    print(line)
                else:
                    out.lines.append(line)
                log.write(line + "\n")
                log.flush()
                with self.lock:
                    self.run_log.write(line + "\n")
                    self.run_log.flush()
        out.lines = []
        return out


REPORT = None
LANE = firmware.Lane()
HUB_BUILD = {}
MACHINE = cpu.Machine()
# the session fixtures' values once made, for the side lane's items (made in the main thread)
MADE = {}


class SideLane:
    """the side lane: one thread beside the main sequence that runs the rows marked lane="side"
    (tables.py), in table order, each submitted once what it needs is made (submit_side). Their
    pytest tests come after the boots: each waits for its item and reports its lines. A boot may
    be a side row too (the lane runs it with the session's fixtures), but two boots at once on 2
    cores took about twice their time alone and more CPU; the firmware lane takes what the two
    lanes leave."""

    def __init__(self):
        self.q = queue.Queue()
        self.items = {}
        self.thread = None

    def submit(self, name, fn):
        """fn(out) -> result, run on the lane's thread; out: its lines (REPORT.lines_for, not echoed)"""
        if name in self.items:
            return
        it = self.items[name] = {"done": threading.Event(), "out": REPORT.lines_for(name, echo=False)}
        self.q.put((name, fn))
        REPORT.progress("side lane: %s queued" % name)
        if not self.thread:
            self.thread = threading.Thread(target=self.worker, name="side-lane", daemon=True)
            self.thread.start()

    def worker(self):
        while True:
            name, fn = self.q.get()
            it = self.items[name]
            acc = cpu.begin()
            t0 = time.time()
            REPORT.progress("side lane: %s started" % name)
            try:
                it["result"] = fn(it["out"])
            except Exception as e:   # an item that breaks is a failure, not a silent pass
                it["error"] = repr(e)
            it["secs"], it["cpu"] = time.time() - t0, acc.cpu
            REPORT.progress("side lane: %s done in %d s, %d CPU s" % (name, it["secs"], it["cpu"]))
            it["done"].set()

    def wait(self, name):
        it = self.items[name]
        it["done"].wait()
        return it


SIDE = SideLane()


def side_rows(config):
    return [r for r in config._memchan_rows if getattr(r, "lane", "main") == "side"]


def submit_side(config, force=False):
    """queues every selected side row whose needs are made (called before and after each test of
    the main sequence, and by the side rows' own tests, which force it: they wait for it)"""
    selected = {getattr(r, "name", None) for r in config._memchan_rows}
    for r in side_rows(config):
        if r.name in SIDE.items:
            continue
        beside = getattr(r, "beside", None)
        if not force and beside in selected and beside not in config._memchan_reached:
            continue
        if isinstance(r, tables.Host) and r.argv is None:
            # a step of test_host.py: once the session fixtures it names are made
            if all(n in MADE for n in r.needs):
                SIDE.submit(r.name, lambda out, r=r: side_function(out, r))
        elif isinstance(r, tables.Host):
            # mvn verify builds in the checkout's target/ directories: not while the Java
            # snapshot's package build runs there, when this session makes one
            if config._memchan_snapshot and "java_snapshot" not in MADE:
                continue
            SIDE.submit(r.name, lambda out, argv=r.argv: side_step(out, argv))
        elif isinstance(r, tables.Boot):
            need = ["guest_ready"] + (["java_snapshot"] if "java" in r.needs else []) + \
                (["console"] if "console" in r.needs else [])
            if all(n in MADE for n in need):
                SIDE.submit(r.name, side_boot(config, r))


def side_step(out, argv):
    """a side-lane host step: its command, its output into its log and the run's (the failing
    lines' recap reads the run's log)"""
    r = sh(argv)
    out(r.log)
    r.log = ""   # written: the test that reports it shows out.lines
    return r


# the side lane's steps that are functions of test_host.py (registered there, by row name)
SIDE_FUNCTIONS = {}


class MadeFixtures:
    """what a side-lane function step gets for pytest's request: the session fixtures' values the
    main thread made (MADE), by name; the row's needs say which, so all are made when it runs"""

    def __init__(self, row):
        self.row = row

    def getfixturevalue(self, name):
        if name not in MADE:
            raise RuntimeError("side-lane step %s uses fixture %s, not in its row's needs" % (self.row.name, name))
        return MADE[name]


def side_function(out, row):
    """a side-lane step of test_host.py: its lines into its log (shown by its test)"""
    r = SIDE_FUNCTIONS[row.name](MadeFixtures(row), out)
    if r.log:
        out(r.log)
    r.log = ""
    return r


def boot_options(config):
    return {o: config.getoption(o) for o in ("board_java_select", "board_java_steps", "board_hub_select",
                                             "detector_args")}


def side_boot(config, boot):
    if boot.name == "board-hub-java":
        boot = dataclasses.replace(boot, timeout=config.getoption("board_hub_timeout"))
    env, opts = MADE["guest_ready"], boot_options(config)

    def run(out):
        out("# %s: %s" % (boot.name, boot.doc))
        if "hub" in boot.needs:
            out("# " + hub_model_wait())
        return native.run_boot(env, boot, out, opts)
    return run


def test_name(item):
    return item.callspec.id if hasattr(item, "callspec") else item.name


def row(item):
    p = getattr(item, "callspec", None)
    if not p:
        return None
    for k in ("step", "boot", "job"):
        if k in p.params:
            return p.params[k]
    return None


def phase(item):
    r = row(item)
    if getattr(r, "lane", "main") == "side":
        return PHASES["side"]
    if isinstance(r, tables.Host):
        return PHASES[r.phase]
    if isinstance(r, tables.Boot):
        return PHASES["boot"]
    if isinstance(r, tables.FwJob):
        # the syntheses (late: started first, the longest) reported after the other jobs
        return (-1 if item.config.getoption("fw_serial") else PHASES["firmware"]) + (0.5 if r.late else 0)
    if item.nodeid.split("::")[0].endswith("test_self.py"):
        return -2   # the harness's own checks: seconds, first
    return PHASES["native"]


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    global REPORT
    REPORT = Report()
    # the JUnit report in a known place, unless one was asked for elsewhere
    if not getattr(config.option, "xmlpath", None) and not config.getoption("collectonly"):
        config.option.xmlpath = os.path.join(RESULTS, "junit.xml")


def pytest_collection_modifyitems(session, config, items):
    explicit = config.getoption("keyword") or config.getoption("markexpr") or config.getoption("all_boots") \
        or any("::" in a or "[" in a for a in config.args)
    if not explicit:
        keep, drop = [], []
        for it in items:
            r = row(it)
            (drop if isinstance(r, (tables.Boot, tables.Host)) and not r.default else keep).append(it)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    items.sort(key=phase)   # stable: the tables' order within a phase


def pytest_collection_finish(session):
    rows = [row(it) for it in session.items]
    session.config._memchan_rows = [r for r in rows if r is not None]
    session.config._memchan_reached = set()   # the main sequence's rows started so far
    # whether this session makes the Java snapshot (a package build in the checkout)
    session.config._memchan_snapshot = any(
        (isinstance(r, tables.Boot) and "java" in r.needs) or (isinstance(r, tables.Host) and r.snapshot)
        for r in rows)
    session.config._memchan_fw_jobs = [row(it) for it in session.items if isinstance(row(it), tables.FwJob)]
    session.config._memchan_others = any(not isinstance(row(it), tables.FwJob) and phase(it) >= PHASES["java"]
                                         for it in session.items)
    session.config._memchan_hub = any(isinstance(row(it), tables.Boot) and "hub" in row(it).needs
                                      for it in session.items)


def start_lane(config):
    jobs = config._memchan_fw_jobs
    if LANE.started or not jobs:
        return
    # the syntheses (late) first: single-threaded yosys reads only the RTL, the longest job
    order = [j for j in jobs if j.late] + [j for j in jobs if not j.late]
    idle = config._memchan_others and not config.getoption("fw_serial")
    n = config.getoption("fw_jobs")
    REPORT.progress("firmware lane: %d jobs, %d at once%s" % (len(order), n, ", idle class (chrt --idle 0), beside "
                                                             "the other tests" if idle else ""))
    LANE.on_done = lambda r: REPORT.progress("firmware lane: %s %s (%d passed, %d failed) in %d s, %d CPU s (usual %d s)" % (
        r.name, "PASS" if not r.failed else "FAIL", r.passed, r.failed, r.secs, r.cpu,
        next(j.usual for j in jobs if j.name == r.name)))
    LANE.start(order, n, config.getoption("fw_seeds").split(), idle)


def start_hub_build():
    """the device process with the hub (build.sh --hub), built in the background beside the
    boots before the hub boots (most of which keep one core busy)"""
    if HUB_BUILD:
        return
    HUB_BUILD["done"] = threading.Event()

    def build():
        t0 = time.time()
        r = subprocess.run(["nice", "-n", "5", os.path.join(ROOT, "firmware/cosim/build.sh"), "--adapters", "4", "--hub"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        HUB_BUILD.update(rc=r.returncode, log=r.stdout, secs=int(time.time() - t0))
        HUB_BUILD["done"].set()
    threading.Thread(target=build, daemon=True).start()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.config._memchan_reached.add(getattr(row(item), "name", None))
    submit_side(item.config)
    p = phase(item)
    if p >= PHASES["java"] or -1 <= p < 0:
        start_lane(item.config)
    if p >= PHASES["native"] and item.config._memchan_hub:
        start_hub_build()
    if p >= PHASES["firmware"]:
        LANE.promote()   # the Java and native tests are done


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    r = row(item)
    usual = getattr(r, "usual", 0)
    name = test_name(item)
    t0 = time.time()
    stop = threading.Event()
    interval = item.config.getoption("progress_interval")

    def ticker():
        while interval > 0 and not stop.wait(interval):
            REPORT.progress("%s: %d s so far (usually %d s)" % (name, time.time() - t0, usual))
    REPORT.progress("%s: started (usually %d s)" % (name, usual))
    threading.Thread(target=ticker, daemon=True).start()
    item.memchan_cpu = cpu.begin()
    try:
        yield
    finally:
        stop.set()
        cpu_s = dict(item.user_properties).get("cpu_seconds", item.memchan_cpu.cpu)
        REPORT.progress("%s: %s in %d s, %d CPU s (usually %d s)" % (
            name, getattr(item, "memchan_outcome", "done"), time.time() - t0, cpu_s, usual))
        submit_side(item.config)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """the test's outcome for its closing progress line: FAILED if any phase failed"""
    if call.when == "call" and "cpu_seconds" not in dict(item.user_properties):
        # the CPU of what this test ran (a side-lane or firmware test records its item's own)
        item.user_properties.append(("cpu_seconds", round(item.memchan_cpu.cpu)))
    report = (yield).get_result()
    if report.failed:
        item.memchan_outcome = "FAILED"
    elif report.skipped and getattr(item, "memchan_outcome", None) != "FAILED":
        item.memchan_outcome = "skipped"
    elif report.when == "call" and getattr(item, "memchan_outcome", None) is None:
        item.memchan_outcome = "passed"


def pytest_terminal_summary(terminalreporter):
    tr = terminalreporter
    failed = [r for r in tr.stats.get("failed", []) + tr.stats.get("error", [])]
    REPORT.run_log.flush()
    with open(os.path.join(RESULTS, "run.log"), errors="replace") as f:
        lines = [line.rstrip("\n") for line in f if FAILING.search(line)]
    tr.write_sep("=", "memchan summary")
    if failed or lines:
        tr.write_line("failing lines:")
        for line in lines[:40]:
            tr.write_line("  " + line)
        names = sorted({r.nodeid.split("[", 1)[-1].rstrip("]") for r in failed})
        tr.write_line("failed tests: " + " ".join(names))
    tr.write_line("the boots' checks (the guests' TAP lines and the harness's): %d ok, %d not ok" % (
        REPORT.tap_passed, REPORT.tap_failed))
    wall, busy, cores = MACHINE.since()
    if not tr.config.getoption("collectonly"):
        tr.write_line("the run: %d s, the machine busy %d CPU s of %d cores (%d %%); each test's CPU s: the "
                      "cpu_seconds properties of the JUnit report" % (wall, busy, cores, 100 * busy / (wall * cores)))
    tr.write_line("JUnit report %s; logs %s" % (tr.config.option.xmlpath or "(none)", RESULTS))


def pytest_unconfigure(config):
    LANE.stop()


# ---- fixtures: what the tests share ------------------------------------------------------------

@pytest.fixture
def out(request):
    if getattr(row(request.node), "lane", "main") == "side":
        # the side lane writes this test's log (SideLane.submit); here its lines are only shown
        def show(text):
            for line in str(text).splitlines() or [""]:
                print(line)
        return show
    return REPORT.lines_for(test_name(request.node))


@dataclasses.dataclass
class Step:
    ok: bool
    log: str = ""
    secs: int = 0


def sh(argv, cwd=ROOT, env=None, shell=False):
    t0 = time.time()
    r = subprocess.run(argv, cwd=cwd, env=env, shell=shell, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, text=True, errors="replace")
    return Step(r.returncode == 0, r.stdout, int(time.time() - t0))


def require(step, what):
    """fails the test when step failed: with its failing lines (Maven's failed tests, FAIL, not
    ok) when it has any, else its last lines"""
    if not step.ok:
        lines = step.log.splitlines()
        why = [line for line in lines if FAILING.search(line)][:20] or lines[-40:]
        pytest.fail("%s failed:\n%s" % (what, "\n".join(why)), pytrace=False)


@pytest.fixture(scope="session")
def packages():
    r = sh([os.path.join(ROOT, "scripts/need-packages"), *PACKAGES])
    require(r, "scripts/need-packages")


class Env:
    def __init__(self, config):
        self.config = config
        self.keep = config.getoption("keep")
        self.work = tempfile.mkdtemp(prefix="memchan-test.", dir="/tmp")
        self.kver = native.find_kernel(config.getoption("kver"))
        self.shm_files = []
        self.initrd = None
        self.java = sh(["bash", "-c", 'source scripts/env.sh && echo "$JAVA_HOME/bin/java"']).log.strip()

    def mcctl(self, args):
        env = dict(os.environ, MCCTL_HOME=os.path.join(self.work, "mcctl"), MCCTL_JAVA_OPTS="-XX:TieredStopAtLevel=1")
        return subprocess.run([os.path.join(ROOT, "scripts/mcctl"), *args], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, errors="replace")

    def close(self):
        for f in self.shm_files:
            # a soft fabric's file, and the node-local tables its host processes made beside it
            # (NodeLocal.pathOf: /dev/shm/memchan-local-shm_NAME-nodeN)
            name = os.path.basename(f)[len("memchan-"):]
            tables = glob.glob(os.path.join(os.path.dirname(f), "memchan-local-shm_%s-node*"
                                            % re.sub(r"[^A-Za-z0-9._-]", "_", name)))
            for g in [f] + tables:
                try:
                    os.unlink(g)
                except OSError:
                    pass
        if self.keep:
            REPORT.progress("work directory kept: " + self.work)
        else:
            shutil.rmtree(self.work, ignore_errors=True)


@pytest.fixture(scope="session")
def env(request, packages):
    e = Env(request.config)
    MADE["env"] = e
    yield e
    e.close()


@pytest.fixture(scope="session")
def kernel(env):
    if not env.kver:
        pytest.fail("a kernel image with headers is installed (none found; --kver)", pytrace=False)
    MADE["kernel"] = env.kver
    return env.kver


@pytest.fixture(scope="session")
def driver(kernel):
    """the module, built with -Werror against the kernel's headers"""
    sh(["make", "-C", native.N, "clean", "KVER=" + kernel])
    r = MADE["driver"] = sh(["make", "-C", native.N, "KVER=" + kernel, "-j2"])
    return r


@pytest.fixture(scope="session")
def tools(driver):
    r = MADE["tools"] = sh(["make", "-C", native.N, "tools"])
    return r


@pytest.fixture(scope="session")
def guest_ready(env, kernel, driver, tools):
    """what every boot needs: the driver, the tools, the initramfs"""
    require(driver, "module build")
    require(tools, "user-space tools build")
    if not env.initrd:
        env.initrd = native.make_initramfs(env.work, kernel)
    MADE["guest_ready"] = env
    return env


@pytest.fixture(scope="session")
def java_snapshot(env):
    """java-api's classes and test classes, and mcctl (tools/target), built once and copied into
    the work directory (the guests see it as /run/work), so that a build in the same checkout
    meanwhile cannot change the classes under them; then mcctl's AOT cache for that copy, at the
    path the guests see it too (trained without AVX, which the guests' CPU lacks); and the JUnit
    console launcher beside them"""
    w = env.work
    r = sh([os.path.join(ROOT, "scripts/mvn"), "-q", "-pl", "java-api,tools", "package", "-DskipTests"])
    require(r, "java-api and mcctl build")
    snap = sh(["bash", "-c", """set -e
mkdir -p "$W/java" "$W/mcctl"
cp -a java-api/target/classes java-api/target/test-classes "$W/java/"
cp "$(ls java-api/target/memchan-api-*.jar | grep -v -e -sources -e -tests -e -javadoc | head -1)" "$W/java/memchan-api.jar"
cp "$(ls java-api/target/memchan-api-*-tests.jar | head -1)" "$W/java/memchan-api-tests.jar"
cp "$(ls tools/target/memchan-tools-*.jar | grep -v -e -sources -e -tests | head -1)" "$W/mcctl/memchan-tools.jar"
cp -a tools/target/lib "$W/mcctl/lib"
opts=$(R=$PWD; . native/tests/guest_lib.sh && echo "$GUEST_JVM_CPU_OPTS")
MCCTL_HOME=$W/mcctl MCCTL_JAVA_OPTS=$opts scripts/mcctl-aot-cache 2>&1 | sed 's/^/# /'
"""], env=dict(os.environ, W=w))
    require(snap, "snapshot of the java-api and mcctl builds")
    # the JUnit console launcher beside it, for the guests that run the conformance suite (fetched
    # here, before a side lane's mvn verify uses the same local Maven repository)
    cs = "junit-platform-console-standalone-1.13.4.jar"
    csd = os.path.expanduser("~/.m2/repository/org/junit/platform/junit-platform-console-standalone/1.13.4")
    if not os.path.isfile(os.path.join(csd, cs)):
        r = sh([os.path.join(ROOT, "scripts/mvn"), "-q", "dependency:get",
                "-Dartifact=org.junit.platform:junit-platform-console-standalone:1.13.4"])
        require(r, "JUnit console launcher (mvn dependency:get)")
    shutil.copy(os.path.join(csd, cs), os.path.join(w, "java", "console-standalone.jar"))
    snap.log += "\n# the JUnit console launcher: %s" % cs
    MADE["java_snapshot"] = snap
    return snap


@pytest.fixture(scope="session")
def console(env, java_snapshot, request):
    """the AOT caches the guests' test JVMs start from (scripts/test-jvm-aot-cache), for the
    snapshot and the console launcher beside it"""
    if request.config.getoption("no_java_aot"):
        r = Step(True, "# --no-java-aot: no AOT caches for the guests' test JVMs")
    else:
        r = sh([os.path.join(ROOT, "scripts/test-jvm-aot-cache")], env=dict(os.environ, MEMCHAN_WORK=env.work))
        r.log = "\n".join("# " + line for line in r.log.splitlines())
    MADE["console"] = r
    return r


@pytest.fixture(scope="session")
def cosim_model(packages):
    """the co-simulated board's 2-adapter device process (firmware/cosim/build.sh skips the build
    when its stamp matches); launch.py would build it too, but here its time is not the boot's"""
    return sh([os.path.join(ROOT, "firmware/cosim/build.sh"), "--adapters", "2"])


def hub_model_wait():
    """waits for the hub's device process build; raises when it failed"""
    start_hub_build()
    t0 = time.time()
    HUB_BUILD["done"].wait()
    if HUB_BUILD["rc"] != 0:
        raise RuntimeError("device process with the hub (build.sh --adapters 4 --hub) failed:\n" +
                           "\n".join(HUB_BUILD["log"].splitlines()[-30:]))
    return "device process with the hub built (4 adapters) in %d s, beside the boots (waited %d s for it here)" % (
        HUB_BUILD["secs"], time.time() - t0)
