"""The harness's own negative controls: its verdicts can fail (python3 -m pytest harness -k test_self)."""
import os
import types

import firmware
import native


def verdict(tmp_path, console):
    (tmp_path / "g.log").write_text(console)
    env = types.SimpleNamespace(work=str(tmp_path))
    lines = []
    r = native.BootRun(env, None, lines.append)
    r.verdict("g", 1)
    return r, lines


def test_self_verdict_passes_a_clean_guest(tmp_path):
    r, _ = verdict(tmp_path, "ok 1 a\nok 2 b\nMEMCHAN-GUEST-EXIT 0\n")
    assert (r.passed, r.failed) == (4, 0)


def test_self_verdict_fails_not_ok_oops_exit_and_silence(tmp_path):
    r, lines = verdict(tmp_path, "ok 1 a\nnot ok 2 b\nMEMCHAN-GUEST-EXIT 0\n")
    assert r.failed == 1
    r, lines = verdict(tmp_path, "ok 1 a\n[ 1.0] WARNING: CPU: 0 PID: 1\nMEMCHAN-GUEST-EXIT 0\n")
    assert r.failed == 1 and "not ok - guest g: no oops, BUG or WARNING on the console" in lines
    r, lines = verdict(tmp_path, "ok 1 a\nMEMCHAN-GUEST-EXIT 1\n")
    assert r.failed == 1 and any("MEMCHAN-GUEST-EXIT 1" in line for line in lines if line.startswith("not ok"))
    r, _ = verdict(tmp_path, "MEMCHAN-GUEST-EXIT 0\n")   # no TAP line at all: not a pass
    assert r.failed == 1


def test_self_must_fail_needs_a_failure_with_its_reason(tmp_path):
    ctx = firmware.Ctx(firmware.Lane(), [])
    log, runlog = str(tmp_path / "step.log"), str(tmp_path / "run.log")
    open(log, "w").close()
    assert firmware.must_fail(ctx, log, runlog, "rule 2 violated", ["sh", "-c", "echo 'ERROR: rule 2 violated'; exit 1"])
    assert not firmware.must_fail(ctx, log, runlog, "rule 2 violated", ["true"])
    assert not firmware.must_fail(ctx, log, runlog, "rule 2 violated", ["sh", "-c", "echo 'timeout'; exit 1"])
    assert "passed: the bench proves nothing" in open(log).read()


def test_self_bench_run_needs_exit_0_and_pass(tmp_path, monkeypatch):
    monkeypatch.setattr(firmware, "BUILD", str(tmp_path))
    os.makedirs(tmp_path / "b")
    ctx = firmware.Ctx(firmware.Lane(), [])
    log = str(tmp_path / "s.log")
    for script, ok in (("echo PASS", True), ("echo PASS; exit 1", False), ("echo done", False)):
        (tmp_path / "b" / "tb").write_text("#!/bin/sh\n%s\n" % script)
        os.chmod(tmp_path / "b" / "tb", 0o755)
        assert firmware.do_run(ctx, firmware.tables.Run("s", "b", "tb"), log) is ok, script
