"""tables.BOOTS: one test per boot (e.g. python3 -m pytest harness -k board-loop)."""
import dataclasses
import time

import pytest

import conftest
import native
import tables


@pytest.mark.parametrize("boot", tables.BOOTS, ids=[b.name for b in tables.BOOTS])
def test_boot(boot, request, out, guest_ready, record_property):
    opts = conftest.boot_options(request.config)
    if boot.name == "board-hub-java":
        boot = dataclasses.replace(boot, timeout=request.config.getoption("board_hub_timeout"))
    if boot.lane == "main":
        out("# %s: %s" % (boot.name, boot.doc))
    if "java" in boot.needs:
        request.getfixturevalue("java_snapshot")
    if "console" in boot.needs:
        aot = request.getfixturevalue("console")
        if not aot.ok:   # reported by the guest-jvm-aot test; the guests then start without
            out("# the guests' JVM AOT caches were not made (test guest-jvm-aot)")
    if boot.board and "hub" not in boot.needs:
        conftest.require(request.getfixturevalue("cosim_model"), "the 2-adapter device process (build.sh)")
    t0 = time.time()
    if boot.lane == "side":
        # run beside the main sequence (conftest.SideLane): its lines and counts here
        conftest.submit_side(request.config, force=True)
        it = conftest.SIDE.wait(boot.name)
        for line in it["out"].lines:
            print(line)
        record_property("cpu_seconds", round(it["cpu"]))
        record_property("side_lane_seconds", round(it["secs"]))
        assert "error" not in it, "%s: the harness failed: %s" % (boot.name, it.get("error"))
        r, t0 = it["result"], time.time() - it["secs"]
    else:
        if "hub" in boot.needs:
            try:
                out("# " + conftest.hub_model_wait())
            except RuntimeError as e:
                pytest.fail(str(e), pytrace=False)
        r = native.run_boot(guest_ready, boot, out, opts)
    record_property("checks_ok", r.passed)
    record_property("checks_not_ok", r.failed)
    conftest.REPORT.tap_passed += r.passed
    conftest.REPORT.tap_failed += r.failed
    out("# %s: %d passed, %d failed in %d s" % (boot.name, r.passed, r.failed, time.time() - t0))
    assert r.failed == 0 and r.passed > 0, "%s: %d checks failed (the not ok lines above)" % (boot.name, r.failed)
