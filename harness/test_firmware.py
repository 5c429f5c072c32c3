"""tables.FIRMWARE: one test per firmware job (e.g. python3 -m pytest harness -k hub_controls).
The jobs run in the firmware lane (firmware.Lane, started by conftest.py before the Java and
native tests, beside them in the idle class); each test waits for its job and reports it."""
import pytest

import conftest
import tables


@pytest.mark.parametrize("job", tables.FIRMWARE, ids=[j.name for j in tables.FIRMWARE])
def test_firmware(job, request, out, packages, record_property):
    conftest.start_lane(request.config)   # when it runs alone
    r = conftest.LANE.results[job.name]
    r.done.wait()
    for line in r.lines:
        out(line)
    out("# firmware %s: %d passed, %d failed in %d s, %d CPU s" % (job.name, r.passed, r.failed, r.secs, r.cpu))
    # the test's own time is its wait for the lane; the job's is here (JUnit properties)
    record_property("job_seconds", r.secs)
    record_property("cpu_seconds", round(r.cpu))
    record_property("steps_passed", r.passed)
    record_property("steps_failed", r.failed)
    assert r.failed == 0 and r.passed > 0, "firmware job %s: %d steps failed" % (job.name, r.failed)
