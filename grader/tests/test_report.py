"""Tests for grader/report.py's score table. Run: python3 grader/tests/test_report.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import report  # noqa: E402


def test(name, status, kind, metrics=None, tiers=None):
    return {"name": name, "status": status, "kind": kind, "score": 0, "max_score": 1,
            "message": "", "metrics": metrics or {}, "tiers": tiers or []}


LAB03 = {"lab": "lab03", "score": 50, "max_score": 55,
         "headline": {"test": "Lab03Speed.GridStride", "kernel": "v2 shared grid-stride"},
         "tests": [
             test("Lab03Speed.Slices", "passed", "speed", {"time_ms": 0.3, "speedup_vs_baseline": 9.0}),
             test("Lab03Speed.GridStride", "passed", "speed",
                  {"time_ms": 0.0523, "gbps": 2566.4, "percent_of_read_bw": 97.24,
                   "percent_of_peak_bw": 76.5, "speedup_vs_baseline": 54.2},
                  [{"name": "pass", "met": True, "detail": "54x faster; needs 4x"},
                   {"name": "stretch", "met": False, "detail": "58 % of read; needs 60 %"}]),
             test("Lab03SharedSlices.MatchesCpu", "failed", "main")]}
LAB05 = {"lab": "lab05", "score": 3, "max_score": 68,
         "headline": {"test": "Lab05Speed.WholeArray", "kernel": "whole-array scan"},
         "tests": [test("Lab05Speed.WholeArray", "failed", "speed",
                        {"time_ms": 0.2, "percent_of_copy_bw": 40.0})]}


class ScoreTable(unittest.TestCase):
    def test_each_row_shows_the_headline_kernel_not_the_first_timed_test(self):
        table = report.table([LAB03, LAB05], not_run=["lab06"])
        row = next(line for line in table.splitlines() if line.startswith("lab03"))
        for cell in ("v2 shared grid-stride", "0.052", "2566", "97.2 read", "76.5", "54.20x"):
            self.assertIn(cell, row)
        self.assertNotIn("9.00x", row)
        lab05 = next(line for line in table.splitlines() if line.startswith("lab05"))
        self.assertIn("40.0 copy", lab05)
        self.assertIn("lab06  not run this time", table)

    def test_every_speed_test_that_ran_shows_each_tier(self):
        lines = report.tier_lines([LAB03, LAB05])
        self.assertEqual(lines, [
            "  lab03 Slices: pass met",
            "  lab03 GridStride: pass met (54x faster; needs 4x); stretch not met (58 % of read; needs 60 %)",
            "  lab05 WholeArray: pass not met"])

    def test_each_hint_is_shown_once(self):
        message = ("uniform: bin 3 wrong\n  hint: exactly the last 7 samples were not counted\n"
                   "Actual: false (normal: bin 3 wrong\n  hint: exactly the last 7 samples were not counted)")
        self.assertEqual(report.hint_lines(message), ["hint: exactly the last 7 samples were not counted"])

    def test_results_without_a_headline_fall_back_to_the_first_timed_pass(self):
        old = dict(LAB03, headline=None)
        kernel, metrics = report.headline(old)
        self.assertEqual((kernel, metrics["time_ms"]), ("Slices", 0.3))


if __name__ == "__main__":
    unittest.main()
