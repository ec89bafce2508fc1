#!/usr/bin/env python3
"""grader/runs/harness.py, as the batch uses it, on a fake lab program speaking the results channel
(fake_lab_program.py): verdicts from the channel only, crashes, hangs and exits as failures with
their cause, budgets. Fast, nothing built."""
import os
import shutil
import sys
import tempfile
import unittest

from runs import harness

HERE = os.path.dirname(os.path.abspath(__file__))

FAKE = [sys.executable, os.path.join(HERE, "fake_lab_program.py")]


def runner_all():
    from batch.tests import fake_lab_program
    return fake_lab_program.ALL


class Temp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="batch-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)


class RunnerTest(Temp):
    def run_fake(self, tests, timeout=5.0, budget=None):
        return harness.run_tests(FAKE, tests, dict(os.environ, PYTHONUNBUFFERED="1"), self.tmp,
                                timeout, budget_s=budget)

    def test_verdicts_come_from_the_channel(self):
        result = self.run_fake(["Fake.Pass1", "Fake.Fail", "Fake.Skip", "Fake.Stretch"])
        status = {n: o.status for n, o in result.outcomes.items()}
        self.assertEqual(status, {"Fake.Pass1": "passed", "Fake.Fail": "failed",
                                  "Fake.Skip": "skipped", "Fake.Stretch": "passed"})
        self.assertEqual(len(result.attempts), 1)
        self.assertEqual(result.hello["device"], "a fake device")
        self.assertEqual(result.outcomes["Fake.Pass1"].metrics, {"time_ms": 1.5})

    def test_each_fault_costs_one_test(self):
        tests = ["Fake.Pass1", "Fake.Crash", "Fake.Pass2", "Fake.Hang", "Fake.Exit0", "Fake.Sticky",
                 "Fake.Pass3"]
        result = self.run_fake(tests, timeout=2.0)
        o = result.outcomes
        for name in ("Fake.Pass1", "Fake.Pass2", "Fake.Pass3"):
            self.assertEqual(o[name].status, "passed", name)
        self.assertEqual(o["Fake.Crash"].fault, "crash")
        self.assertIn("SIGSEGV", o["Fake.Crash"].message)
        self.assertEqual(o["Fake.Hang"].fault, "timeout")
        self.assertIn("timed out", o["Fake.Hang"].message)
        self.assertEqual(o["Fake.Exit0"].fault, "exit")
        self.assertIn("exiting early earns nothing", o["Fake.Exit0"].message)
        self.assertEqual(o["Fake.Sticky"].status, "failed")
        self.assertIn("cudaErrorIllegalAddress", o["Fake.Sticky"].message)
        # crash, hang, exit and the sticky error each end a process; the rest run on
        self.assertEqual(len(result.attempts), 5)

    def test_forged_lines_and_printed_passes_earn_nothing(self):
        result = self.run_fake(["Fake.Forge", "Fake.Fail", "Fake.Exit0"])
        self.assertEqual(result.outcomes["Fake.Fail"].status, "failed")
        self.assertEqual(result.outcomes["Fake.Exit0"].status, "failed")
        self.assertGreaterEqual(result.forged_lines, 1)
        self.assertIn('"passed"', result.forged_samples[0])

    def test_output_is_capped(self):
        result = self.run_fake(["Fake.Flood", "Fake.Pass1"])
        self.assertEqual(result.outcomes["Fake.Pass1"].status, "passed")
        attempt = result.attempts[0]
        self.assertGreater(attempt.dropped_bytes, 4 * 1024 * 1024)
        self.assertLess(len(attempt.output), harness.OUTPUT_HEAD_BYTES + harness.OUTPUT_TAIL_BYTES + 200)

    def test_the_budget_stops_a_submission_of_hangs(self):
        result = self.run_fake(["Fake.Hang", "Fake.Pass3"], timeout=30, budget=1.5)
        self.assertEqual(result.outcomes["Fake.Hang"].fault, "budget")
        self.assertEqual(result.outcomes["Fake.Pass3"].fault, "budget")

    def test_a_speed_test_timed_on_a_throttled_gpu_runs_again(self):
        result = self.run_fake(["Fake.Pass1", "Fake.Throttled"])
        again = result.outcomes["Fake.Throttled"]
        self.assertEqual(again.status, "passed")
        self.assertIn("timed again", again.message)
        self.assertIn("hardware thermal slowdown", again.message)
        self.assertEqual(again.metrics["retried_for_unfair_timing"], 1)
        self.assertEqual(result.outcomes["Fake.Pass1"].metrics, {"time_ms": 1.5})
        self.assertEqual(len(result.attempts), 2)

    def test_a_runner_that_never_starts_fails_the_rest_at_once(self):
        result = self.run_fake(["Fake.NoStart", "Fake.Pass1", "Fake.Hang"], timeout=30)
        self.assertEqual(len(result.attempts), 1)
        self.assertEqual({o.status for o in result.outcomes.values()}, {"failed"})
        self.assertEqual(result.outcomes["Fake.Hang"].fault, "no-start")
        self.assertIn("never started", result.outcomes["Fake.Pass1"].message)

    def test_list_tests(self):
        self.assertEqual(harness.list_tests(FAKE, dict(os.environ), self.tmp, 30), runner_all())


if __name__ == "__main__":
    unittest.main()
