"""tables.HOST: the host-side steps (e.g. python3 -m pytest harness -k sparse)."""
import glob
import os
import subprocess
import tempfile

import pytest

import conftest
import native
import netns
import netns_check
import tables
from conftest import ROOT, require, sh

N = native.N


def regmap(request, out):
    """gen.py --check (generated files up to date, no layout typed by hand), then the scans' negative
    controls (regmap/tests: a copy with a planted offset must fail them)"""
    check = sh(["python3", "regmap/gen.py", "--check"])
    controls = sh(["python3", "-m", "unittest", "regmap.tests.test_lint"])
    return conftest.Step(check.ok and controls.ok, check.log + controls.log, check.secs + controls.secs)


def uapi(request, out):
    return sh(["python3", "regmap/gen.py", "uapi", "--check"])


def ucx_bindings(request, out):
    return sh(["python3", "java-api/gen/ucp_gen.py", "--check"])


def cosim_model(request, out):
    # the 2-adapter board model, which the firmware lane and the board boots share, built first
    # and outside the idle class: a board boot waiting on the build lock of an idle-class build
    # would wait on a build that gets no CPU while the guests run
    return request.getfixturevalue("cosim_model")


def java_build(request, out):
    return request.getfixturevalue("java_snapshot")


def c_reference(request, out):
    with tempfile.TemporaryDirectory() as d:
        return sh(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", os.path.join(d, "memchan_reference"),
                   "tools/src/main/c/memchan_reference.c"])


def netns(request, out):
    """harness/netns_check.py on the Java snapshot: its TAP lines, the latencies across veth and on loopback"""
    env = request.getfixturevalue("env")
    request.getfixturevalue("java_snapshot")
    j = os.path.join(env.work, "java")
    try:
        ok = netns_check.check(out, env.java, os.path.join(j, "classes"), os.path.join(j, "test-classes"),
                               os.path.join(j, "console-standalone.jar"))
    except netns.NetnsError as e:
        return conftest.Step(False, "harness/netns.py: %s" % e)
    return conftest.Step(ok)


def driver_build(request, out):
    r = request.getfixturevalue("driver")
    out("# kernel " + request.getfixturevalue("kernel"))
    return r


def sparse(request, out):
    """make C=1 in a copy of native/ (the guests load native/memchan.ko meanwhile: its build is
    left alone), every source checked"""
    kver = request.getfixturevalue("kernel")
    require(request.getfixturevalue("driver"), "module build")
    d = os.path.join(request.getfixturevalue("env").work, "sparse")
    r = sh(["bash", "-c", 'rm -rf "$D" && cp -a native "$D" && touch "$D"/memchan_*.c'], env=dict(os.environ, D=d))
    if not r.ok:
        return r
    r = sh(["make", "-C", d, "KVER=" + kver, "C=1", "-j2"])
    r.ok = r.ok and "CHECK" in r.log and not any(("warning:" in line or "error:" in line)
                                                 for line in r.log.splitlines())
    return r


def checkpatch(request, out):
    """checkpatch.pl --strict of every driver source and header: the script from the kernel tree
    in Debian's linux-source-6.1, extracted once into a cache outside the checkout. Ignored, per
    file, with why:
      memchan.h      LINUX_VERSION_CODE: an out-of-tree module (DKMS) built for 6.1 and for >= 6.3,
                     where vm_flags became read-only; there is no symbol to test instead
      uapi memchan.h BIT_MACRO: BIT()/BIT_ULL() are kernel-internal, not part of the user ABI
      memchan_regs.h generated from regmap/memchan.toml (regmap/gen.py): each definition on one
                     line with the register map's description (LONG_LINE, LONG_LINE_COMMENT,
                     TYPO_SPELLING of its British "acknowledgement"), formulas parenthesized alike
                     for every language (UNNECESSARY_PARENTHESES)"""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    cpdir = os.path.join(cache, "memchan", "checkpatch-6.1")
    cp = os.path.join(cpdir, "checkpatch.pl")
    if not os.path.isfile(cp):
        # into a fresh directory renamed into place: a concurrent run never sees half a tree
        sh(["bash", "-c", """mkdir -p "${D%/*}" && t=$(mktemp -d "$D.XXXXXX") &&
  tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$t" --strip-components=2 linux-source-6.1/scripts/checkpatch.pl \
    linux-source-6.1/scripts/spelling.txt linux-source-6.1/scripts/const_structs.checkpatch &&
  mv -T "$t" "$D" 2> /dev/null; rm -rf "$t" """], env=dict(os.environ, D=cpdir))
    if not os.path.isfile(cp):
        return conftest.Step(False, "checkpatch.pl from linux-source-6.1 (scripts/need-packages linux-source-6.1)")
    base = ["perl", cp, "--strict", "--no-tree", "--terse", "--show-types", "--no-summary", "-f"]
    files = [[f] for f in sorted(glob.glob(os.path.join(N, "memchan_*.c")))] + [
        [os.path.join(N, "memchan.h"), "--ignore", "LINUX_VERSION_CODE"],
        [os.path.join(N, "include/uapi/linux/memchan.h"), "--ignore", "BIT_MACRO"],
        [os.path.join(N, "include/memchan_regs.h"), "--ignore",
         "LONG_LINE,LONG_LINE_COMMENT,TYPO_SPELLING,UNNECESSARY_PARENTHESES"]]
    log = "".join(sh(base + f).log for f in files)
    return conftest.Step(log == "", log)


def modinfo(request, out):
    require(request.getfixturevalue("driver"), "module build")
    ko = os.path.join(N, "memchan.ko")
    f = lambda field: sh(["modinfo", "-F", field, ko]).log
    ok = (f("name").strip() == "memchan"
          and sum(1 for line in f("parm").splitlines() if len(line.split(":", 1)[-1]) >= 20 and ":" in line) >= 3
          and "v000010EEd00004D43" in f("alias") and "v00001AF4d00001110" in f("alias"))
    return conftest.Step(ok, sh(["modinfo", ko]).log)


def tools_build(request, out):
    return request.getfixturevalue("tools")


def dkms(request, out):
    """dkms add + build from a copy of native/, in private trees (the system's DKMS is left alone)"""
    env = request.getfixturevalue("env")
    kver = request.getfixturevalue("kernel")
    d = os.path.join(env.work, "dkms")
    return sh(["bash", "-c", """set -e
rm -rf "$D"; mkdir -p "$D/tree" "$D/src"
cp -a native "$D/src/memchan-1.0"
make -C "$D/src/memchan-1.0" clean KVER="$K" > /dev/null 2>&1
dkms add --dkmstree "$D/tree" --sourcetree "$D/src" memchan/1.0
dkms build --dkmstree "$D/tree" --sourcetree "$D/src" memchan/1.0 -k "$K"
[ -n "$(find "$D/tree/memchan/1.0/$K" -name 'memchan.ko*' 2>/dev/null)" ]"""], env=dict(os.environ, D=d, K=kver))


def layout(request, out):
    """the soft-fabric layout: files made by the Java library (mcctl's build) and by
    mcfab-create agree (every geometry class, host only, in java-api's SoftFabricCrossCheckTest)"""
    env = request.getfixturevalue("env")
    require(request.getfixturevalue("tools"), "user-space tools build")
    request.getfixturevalue("java_snapshot")
    ok = True
    for size, page, nodes in tables.LAYOUT_GEOMETRIES:
        name = "memchan-test-%d-x%d" % (os.getpid(), page)
        j, c = "/dev/shm/memchan-" + name, "/dev/shm/memchan-%s-c" % name
        what = "layout: Java's and mcfab-create's files agree (%d bytes, %d-byte pages, %d nodes)" % (size, page, nodes)
        log = []

        def step(r):
            log.append(r.stdout)
            return r.returncode == 0
        mcf = os.path.join(N, "tools/mcfab-create")
        try:
            good = (step(env.mcctl(["node", "create", "--fabric", "shm:" + name, "--size", str(size),
                                    "--page-size", str(page), "--nodes", str(nodes)]))
                    and step(subprocess.run([mcf, "--check", j], capture_output=True, text=True))
                    and step(subprocess.run([mcf, c, "-s", str(size), "-p", str(page), "-n", str(nodes)],
                                            capture_output=True, text=True)))
            if good:
                with open(j, "rb") as a, open(c, "rb") as b:
                    good = a.read(64) == b.read(64) and (a.seek(4096), b.seek(4096)) and a.read(32) == b.read(32)
            good = good and step(env.mcctl(["status", "--fabric", "shm:%s-c" % name]))
        finally:
            for f in (j, c):
                if os.path.exists(f):
                    os.unlink(f)
        if good:
            out("ok - " + what)
        else:
            out("\n".join("# " + line for line in "".join(x or "" for x in log).splitlines()))
            out("not ok - " + what)
            ok = False
    return conftest.Step(ok)


def guest_jvm_aot(request, out):
    if request.config.getoption("no_java_aot"):
        pytest.skip("--no-java-aot: the guests' test JVMs start without their AOT caches")
    return request.getfixturevalue("console")


def side(request, out, step):
    """a side-lane step: started beside the main sequence (conftest.submit_side); its lines and
    result here"""
    for n in step.needs:
        request.getfixturevalue(n)   # made here when nothing before this test made it
    conftest.submit_side(request.config, force=True)
    it = conftest.SIDE.wait(step.name)
    for line in it["out"].lines:
        print(line)
    request.node.user_properties.append(("cpu_seconds", round(it["cpu"])))
    request.node.user_properties.append(("side_lane_seconds", round(it["secs"])))
    print("# %s: ran %d s in the side lane, %d CPU s" % (step.name, it["secs"], it["cpu"]))
    if "error" in it:
        return conftest.Step(False, "harness: " + it["error"])
    r = it["result"]
    return conftest.Step(r.ok, "\n".join(it["out"].lines), r.secs)   # shown above; kept for require


STEPS = {h.name: globals()[h.name.replace("-", "_")] for h in tables.HOST if h.argv is None}
conftest.SIDE_FUNCTIONS.update({h.name: STEPS[h.name] for h in tables.HOST if h.lane == "side" and h.argv is None})


@pytest.mark.parametrize("step", tables.HOST, ids=[h.name for h in tables.HOST])
def test_host(step, request, out, packages):
    if step.lane == "side":
        r = side(request, out, step)   # its lines shown there
    else:
        out("# %s: %s" % (step.name, step.doc))
        r = STEPS[step.name](request, out)
        if r.log:
            out(r.log)
    if not r.ok:
        out("not ok - " + step.doc)
    require(r, step.name)
