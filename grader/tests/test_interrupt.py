#!/usr/bin/env python3
"""grader/runs/processes.py: Ctrl-C (SIGINT) to a grading run stops it at once with one line and
no traceback, and leaves none of the programs it started: a checker-like process group, and ninja
with the "compilers" it runs in process groups of their own. Only processes this test started are
looked for (a random token in their command lines), never the machine's others."""
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GRADER = os.path.dirname(HERE)

DRIVER = textwrap.dedent("""
    import subprocess
    from runs.processes import REGISTRY, interrupt_stops_everything, run_grouped
    interrupt_stops_everything("driver")
    checker = subprocess.Popen(["sh", "-c", "sleep {token} & sleep {token}; wait"],
                               start_new_session=True)
    REGISTRY.add(checker.pid)  # as runs/harness.py registers a checker
    print("started", flush=True)
    if {ninja!r}:
        run_grouped([{ninja!r}, "-C", {build!r}, "-j", "2"], stdout=subprocess.DEVNULL)
    else:
        checker.wait()
""")

NINJA_FILE = textwrap.dedent("""
    rule slow
      command = sleep {token} && touch $out
    build a: slow
    build b: slow
""")


def processes_with(token):
    """PIDs of live processes whose command line holds `token`."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if token.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def wait_for(predicate, limit_s):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


class InterruptTest(unittest.TestCase):
    def test_ctrl_c_stops_everything_with_one_line(self):
        tmp = tempfile.mkdtemp(prefix="interrupt-test-")
        self.addCleanup(shutil.rmtree, tmp, True)
        token = f"300.{random.randrange(10**8, 10**9)}"
        ninja = shutil.which("ninja") or ""
        with open(os.path.join(tmp, "build.ninja"), "w") as f:
            f.write(NINJA_FILE.format(token=token))
        driver = os.path.join(tmp, "driver.py")
        with open(driver, "w") as f:
            f.write(DRIVER.format(token=token, ninja=ninja, build=tmp))
        process = subprocess.Popen([sys.executable, driver], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True,
                                   env=dict(os.environ, PYTHONPATH=GRADER))  # its import root
        self.addCleanup(lambda: [os.kill(pid, signal.SIGKILL) for pid in processes_with(token)])
        self.assertEqual(process.stdout.readline().strip(), "started")
        expected = 2 + (2 if ninja else 0)  # the checker's two sleeps, ninja's two
        self.assertTrue(wait_for(lambda: len(processes_with(token)) >= expected, 60),
                        processes_with(token))
        started = time.monotonic()
        os.kill(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        took = time.monotonic() - started
        self.assertEqual(process.returncode, 130)
        self.assertNotIn("Traceback", stderr)
        self.assertEqual([line for line in stderr.splitlines() if line.strip()],
                         ["driver stopped (Ctrl-C); every program it had started is stopped too."])
        self.assertLess(took, 15)  # at once: a grace of 2 s, then SIGKILL (bounded for a busy machine)
        # Nothing left: orphans are reaped by init, which may take a moment on a busy machine.
        self.assertTrue(wait_for(lambda: not processes_with(token), 10), processes_with(token))


if __name__ == "__main__":
    unittest.main(verbosity=2)
