#!/usr/bin/env python3
"""grader/runs/progress.py and its use by grader/runs/harness.py: a line of progress once 10 s
passed without one (never a line per test), and at once when a test is stopped for time, with its
reason, on a fake lab program that speaks the results channel (no build needed)."""
import os
import sys
import tempfile
import time
import unittest

from runs import harness, progress
from runs.harness import TestOutcome

HERE = os.path.dirname(os.path.abspath(__file__))


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def lines_of(lab_progress):
    lines = []
    lab_progress.write = lines.append
    return lines


class LabProgressTest(unittest.TestCase):
    def test_a_line_only_after_ten_silent_seconds(self):
        clock = Clock()
        watch = progress.LabProgress("lab01", 20, limit_s=30, clock=clock)
        lines = lines_of(watch)
        for step in range(38):  # 9.5 s of ticks, tests coming and going
            clock.now += 0.25
            watch.tick(step // 4, f"Suite.Test{step // 4}")
        self.assertEqual(lines, [])
        clock.now += 0.5
        watch.tick(9, "Suite.Test9")
        self.assertEqual(lines, ["  lab01: 9/20 tests, 10 s, running Suite.Test9"])
        for _ in range(39):  # 9.75 s more: still the one line
            clock.now += 0.25
            watch.tick(9, "Suite.Test9")
        self.assertEqual(len(lines), 1)
        clock.now += 0.25
        watch.tick(9, "Suite.Test9")
        self.assertEqual(lines[-1], "  lab01: 9/20 tests, 20 s, running Suite.Test9 (for 11 s of 30 s allowed)")

    def test_a_later_phase_counts_on_and_starts_its_clock_anew(self):
        clock = Clock()
        watch = progress.LabProgress("lab01", 20, clock=clock)
        lines = lines_of(watch)
        clock.now += 30  # the lab waited while other labs graded
        watch.start_phase(18)
        watch.tick(0, "Lab01Speed.Slices")
        self.assertEqual(lines, [])
        clock.now += 10
        watch.tick(1, "Lab01Speed.GridStride")
        self.assertEqual(lines, ["  lab01: 19/20 tests, 10 s, running Lab01Speed.GridStride"])

    def test_a_test_stopped_for_time_is_said_at_once_without_googletest_words(self):
        clock = Clock()
        watch = progress.LabProgress("lab01", 20, clock=clock)
        lines = lines_of(watch)
        message = ('C++ exception with description "lab01::f: the process running your code did not '
                   'finish within 30 s: an endless loop?" thrown in the test body.\nmore')
        watch.timed_out(TestOutcome("Suite.Hangs", "failed", message, fault="timeout"))
        self.assertEqual(lines, ["  lab01: Suite.Hangs failed: lab01::f: the process running your code "
                                 "did not finish within 30 s: an endless loop?"])
        clock.now += 9.9
        watch.tick(1, "Suite.Next")
        self.assertEqual(len(lines), 1)  # the line just said counts as output


GRADER = os.path.dirname(HERE)
FAKE = [sys.executable, os.path.join(GRADER, "batch", "tests", "fake_lab_program.py")]

# A checker that stops a hanging call itself (as one given GRADER_TEST_TIMEOUT does): its verdict
# carries the checker's words, and the harness tells it as a timeout at once. It imports the fake
# lab program from grader/, its import root on PYTHONPATH (run_with_progress).
CHECKER_STOPS_A_CALL = """
import json, os, time
from batch.tests.fake_lab_program import channel
key, out = channel()
def send(event):
    os.write(out, (key + " " + json.dumps(event) + "\\n").encode())
send({"event": "hello", "backend": "fake", "device": "fake"})
send({"event": "start", "test": "Fake.Hangs"})
time.sleep(0.5)
send({"event": "end", "test": "Fake.Hangs", "status": "failed",
       "message": "lab01::f: the process running your code did not finish within 0.5 s: ..."})
send({"event": "start", "test": "Fake.Passes"})
send({"event": "end", "test": "Fake.Passes", "status": "passed"})
"""


class RunnerReportsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="progress-test-")

    def run_with_progress(self, command, tests, timeout, every_s):
        said = []
        watch = progress.LabProgress("lab01", len(tests), limit_s=timeout, every_s=every_s,
                                     write=lambda line: said.append((time.monotonic(), line)))
        started = time.monotonic()
        result = harness.run_tests(command, tests, dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=GRADER),
                                  self.tmp, timeout, progress=watch)
        return result, [(at - started, line) for at, line in said]

    def test_a_hang_is_said_while_waiting_and_when_it_is_stopped(self):
        result, said = self.run_with_progress(FAKE, ["Fake.Pass1", "Fake.Hang", "Fake.Pass2"],
                                              timeout=3.0, every_s=1.0)
        self.assertEqual(result.outcomes["Fake.Hang"].fault, "timeout")
        self.assertEqual(result.outcomes["Fake.Pass2"].status, "passed")
        waiting = [line for _, line in said if "running Fake.Hang" in line]
        self.assertGreaterEqual(len(waiting), 1, said)
        self.assertLessEqual(len(said), 8, said)  # about one a second, not one per tick
        stopped = [(at, line) for at, line in said if "Fake.Hang failed: timed out" in line]
        self.assertEqual(len(stopped), 1, said)
        self.assertLess(stopped[0][0], 3.0 + 10, said)  # said when stopped, not at the end

    def test_a_call_the_checker_stopped_is_a_timeout(self):
        script = os.path.join(self.tmp, "checker.py")
        with open(script, "w") as f:
            f.write(CHECKER_STOPS_A_CALL)
        result, said = self.run_with_progress([sys.executable, script], ["Fake.Hangs", "Fake.Passes"],
                                              timeout=60.0, every_s=30.0)
        self.assertEqual(result.outcomes["Fake.Hangs"].fault, "timeout")
        self.assertEqual(result.outcomes["Fake.Passes"].status, "passed")
        self.assertEqual(len(result.attempts), 1)  # the checker went on: no new process
        self.assertEqual([line for _, line in said],
                         ["  lab01: Fake.Hangs failed: lab01::f: the process running your code did "
                          "not finish within 0.5 s: ..."])


if __name__ == "__main__":
    unittest.main(verbosity=2)
