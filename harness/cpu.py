"""CPU seconds per test. Every subprocess the harness waits for adds its rusage (user + system
time of it and of every descendant it waited for: QEMU under `timeout`, the device process under
launch.py, Maven's forked JVMs) to the account of the thread that waited for it. A test, a side-lane
item and a firmware job each open an account in their own thread (begin) and read it at the end.

Popen is replaced (install) by a subclass whose wait uses wait4 instead of waitpid. Not counted: a
child reaped by poll() (the harness only waits), and processes that outlive their parent."""
import os
import subprocess
import threading
import time

_local = threading.local()


class Account:
    def __init__(self):
        self.cpu = 0.0

    def add(self, rusage):
        self.cpu += rusage.ru_utime + rusage.ru_stime


def begin():
    """a new account for this thread's subprocesses from now on"""
    a = Account()
    _local.account = a
    return a


class _AccountingPopen(subprocess.Popen):
    def _try_wait(self, wait_flags):
        # CPython's _try_wait with wait4 for waitpid (the caller holds _waitpid_lock)
        try:
            pid, sts, rusage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return self.pid, 0
        if pid == self.pid:
            a = getattr(_local, "account", None)
            if a is not None:
                a.add(rusage)
        return pid, sts


def install():
    subprocess.Popen = _AccountingPopen


class Machine:
    """the whole machine's busy CPU seconds (/proc/stat: all but idle and iowait) and its cores"""

    def __init__(self):
        self.t0 = time.time()
        self.busy0 = self.busy()

    @staticmethod
    def busy():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")

    def since(self):
        """(wall seconds, busy CPU seconds, cores) since this was made"""
        return time.time() - self.t0, self.busy() - self.busy0, os.cpu_count()
