#!/usr/bin/env python3
"""grader/runs/scoring.py: an edge test earns its points only once the main tests it needs passed;
a needed test that did not run here (skipped, or left out of the batch's plan) does not gate, but
one needed test at least must have run and passed."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from runs import scoring  # noqa: E402


def test(name, status, score=1.0, needs=None):
    return {"name": name, "status": status, "score": score, "message": "", "needs": needs or []}


class Gates(unittest.TestCase):
    def test_a_failed_main_test_gates(self):
        tests = scoring.apply_gates([test("S.Main", "failed", 0), test("S.Empty", "passed", 1, ["S.Main"])])
        self.assertEqual(tests[1]["score"], 0)
        self.assertIn("S.Main", tests[1]["message"])

    def test_a_skipped_or_absent_needed_test_does_not_gate(self):
        # The lab 06 case: its real-image tests skip where no photograph is installed, and the
        # batch leaves them out of its plan; the empty-image test keeps its point.
        tests = scoring.apply_gates([test("S.Main", "passed"), test("S.Real", "skipped", 0),
                                     test("S.Empty", "passed", 1, ["S.Main", "S.Real", "S.Absent"])])
        self.assertEqual(tests[2]["score"], 1, tests[2]["message"])

    def test_no_needed_test_ran_earns_nothing(self):
        tests = scoring.apply_gates([test("S.Real", "skipped", 0),
                                     test("S.Empty", "passed", 1, ["S.Real", "S.Absent"])])
        self.assertEqual(tests[1]["score"], 0)


if __name__ == "__main__":
    unittest.main()
