"""Tests for grader/bench/profile_references.py without ncu or a GPU: the pairing of the benchmark's
rows with the profiled kernels, and the tables.
Run: PYTHONPATH=grader python3 grader/bench/tests/test_profile_references.py"""
import csv
import tempfile
import unittest
from pathlib import Path

from bench import profile_references as pr

# The benchmark's --profile output merged with ncu's progress lines, as the script reads it.
LOG = """GPU: Test GPU
==BENCH== 4096-bin histogram | lab03 v4 wide + saturate_v4 | uniform
==PROF== Profiling "v1_wide" - 0: 0%....50%....100% - 9 passes
==PROF== Profiling "v1_saturate" - 1: 0%....50%....100% - 9 passes
lab03 v4 wide + saturate_v4    uniform
==BENCH== 4096-bin histogram | 4096 v3 saturated, rotated merge | uniform
==PROF== Profiling "v3_rotated" - 2: 0%....50%....100% - 9 passes
==PROF== Profiling "finish_kernel" - 3: 0%....50%....100% - 9 passes
==BENCH== scan (int32) | lab05 v6 single pass | uniform
==PROF== Profiling "v6_single_pass" - 4: 0%....50%....100% - 9 passes
"""


def figure(kernel, dram):
    return {"kernel": kernel, "dram": dram, "occupancy": 98.0, "l2_hit": 3.8, "us": 48.7,
            "stall": "long_scoreboard (122.3)"}


FIGURES = [figure("void bench::reference::<unnamed>::v1_wide", 82.8),
           figure("bench::reference::<unnamed>::v1_saturate", 0.2),
           figure("bench::reference::<unnamed>::v3_rotated", 83.8),
           figure("void bench::reference::finish::<unnamed>::finish_kernel<1>", 0.2),
           figure("void bench::reference::<unnamed>::v6_single_pass", 63.9)]


class ProfileReferencesTest(unittest.TestCase):
    def test_each_row_takes_the_kernels_profiled_after_its_line(self):
        rows = pr.rows_in_order(LOG)
        self.assertEqual([count for _, count in rows], [2, 2, 1])
        markdown, csv_rows = pr.table(rows, FIGURES)
        self.assertEqual(csv_rows[0], pr.HEADER)
        self.assertEqual(csv_rows[3][0], "4096-bin histogram | 4096 v3 saturated, rotated merge | uniform")
        self.assertEqual(csv_rows[3][3], "83.8")
        self.assertIn("| 4096-bin histogram | 4096 v3 saturated, rotated merge | uniform | v3_rotated | 48.7 | "
                      "83.8 | 98.0 | 3.8 | long_scoreboard (122.3) |", markdown)
        self.assertIn("| finish_kernel |", markdown)  # namespaces and template arguments dropped

    def test_a_report_that_does_not_match_the_log_is_an_error(self):
        with self.assertRaises(SystemExit) as raised:
            pr.table(pr.rows_in_order(LOG), FIGURES[:4])
        self.assertIn("5 profiled kernels", str(raised.exception))

    def test_a_saved_csv_prints_again_filtered(self):
        _, csv_rows = pr.table(pr.rows_in_order(LOG), FIGURES)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "profile.csv"
            with open(path, "w", newline="") as f:
                csv.writer(f).writerows(csv_rows)
            text = pr.saved_table(path, "scan")
            self.assertIn("v6_single_pass", text)
            self.assertNotIn("v3_rotated", text)
            path.write_text("kernel,time\nx,1\n")
            with self.assertRaises(SystemExit):
                pr.saved_table(path, "")

    def test_numbers_with_thousands_separators(self):
        self.assertEqual(pr.number("1,234.5"), 1234.5)
        self.assertIsNone(pr.number("n/a"))


if __name__ == "__main__":
    unittest.main()
