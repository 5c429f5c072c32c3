"""tables.BOOTS: one test per boot (e.g. python3 -m pytest harness -k board-loop)."""
import dataclasses
import time

import pytest

import conftest
import native
import tables


@pytest.mark.parametrize("boot", tables.BOOTS, ids=[b.name for b in tables.BOOTS])
def test_boot(boot, request, out, guest_ready, record_property):
    opts = {o: request.config.getoption(o) for o in
            ("board_java_select", "board_java_steps", "board_hub_select")}
    if boot.name == "board-hub-java":
        boot = dataclasses.replace(boot, timeout=request.config.getoption("board_hub_timeout"))
    out("# %s: %s" % (boot.name, boot.doc))
    if "java" in boot.needs:
        request.getfixturevalue("java_snapshot")
    if "console" in boot.needs:
        aot = request.getfixturevalue("console")
        if not aot.ok:   # reported by the guest-jvm-aot test; the guests then start without
            out("# the guests' JVM AOT caches were not made (test guest-jvm-aot)")
    if "hub" in boot.needs:
        out("# " + request.getfixturevalue("hub_model"))
    elif boot.board:
        conftest.require(request.getfixturevalue("cosim_model"), "the 2-adapter device process (build.sh)")
    t0 = time.time()
    r = native.run_boot(guest_ready, boot, out, opts)
    record_property("checks_ok", r.passed)
    record_property("checks_not_ok", r.failed)
    conftest.REPORT.tap_passed += r.passed
    conftest.REPORT.tap_failed += r.failed
    out("# %s: %d passed, %d failed in %d s" % (boot.name, r.passed, r.failed, time.time() - t0))
    assert r.failed == 0 and r.passed > 0, "%s: %d checks failed (the not ok lines above)" % (boot.name, r.failed)
