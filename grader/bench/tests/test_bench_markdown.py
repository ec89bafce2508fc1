"""Tests for grader/bench/bench_markdown.py.
Run: PYTHONPATH=grader python3 grader/bench/tests/test_bench_markdown.py"""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from bench import bench_markdown as bm

SCRIPT = Path(__file__).resolve().parent.parent / "bench_markdown.py"


def row(group, kernel, distribution, ms, **ratios):
    base = {"group": group, "kernel": kernel, "launch": "", "distribution": distribution,
            "result": "correct", "median_ms": ms, "spread_percent": 1.0, "gbps": 100.0,
            "read_percent": None, "copy_percent": None, "speedup_vs_baseline": None,
            "speedup_vs_cub": None}
    base.update(ratios)
    return base


REPORT = {
    "machine": {"gpu": "Test GPU (sm_90, 1 SMs)", "driver": "1.0", "cuda_runtime": "13.0",
                "date": "2026-01-01 00:00 UTC", "timed_runs": 20},
    "rows": [
        row("1024-bin histogram", "read", "uniform", 0.04, read_percent=100.0),
        row("1024-bin histogram", "read", "all equal", 0.05, read_percent=100.0),
        row("1024-bin histogram", "v2", "uniform", 0.05, read_percent=80.0, speedup_vs_baseline=60.0,
            speedup_vs_cub=9.5),
        dict(row("1024-bin histogram", "v3", "all equal", 0.05), result="wrong"),
        row("scan (int32)", "v6", "uniform", 0.1, copy_percent=67.0, speedup_vs_cub=0.93),
    ],
    "targets": [
        {"target": "scan: % of CUB", "kernel": "v6", "goal": 100, "measured": 93.0, "met": False},
        {"target": "1024: % of read (uniform)", "kernel": "v2", "goal": 90, "measured": 91.25, "met": True},
    ],
}


class BenchMarkdownTest(unittest.TestCase):
    def test_one_column_per_distribution_and_the_ratios_that_apply(self):
        text = bm.render(REPORT)
        self.assertIn("| kernel | uniform | all equal |", text)
        self.assertIn("| v2 | 0.0500 ms (80.0 % read, 60.0× base, 9.50× CUB) |  |", text)
        self.assertIn("Test GPU (sm_90, 1 SMs), driver 1.0, CUDA runtime 13.0, 2026-01-01 00:00 UTC", text)

    def test_the_header_says_how_the_ratios_were_timed(self):
        self.assertIn("L2 flushed before each.", bm.render(REPORT))  # a report from before "in turn"
        in_turn = dict(REPORT, machine=dict(REPORT["machine"], ratios="in turn"))
        self.assertIn("L2 flushed before each; ratios to the read, the copy and CUB are the medians "
                      "of the runs' ratios", bm.render(in_turn))

    def test_the_header_gives_the_clock_and_power_limit_where_the_run_read_them(self):
        self.assertIn("2026-01-01 00:00 UTC; medians", bm.render(REPORT))  # a report without them
        clocked = dict(REPORT, machine=dict(REPORT["machine"], sm_clock_max_mhz=1980.0, power_limit_w=700.0))
        self.assertIn("2026-01-01 00:00 UTC, SM clock up to 1980 MHz, power limit 700 W; medians",
                      bm.render(clocked))
        unknown = dict(REPORT, machine=dict(REPORT["machine"], sm_clock_max_mhz=None, power_limit_w=None))
        self.assertIn("2026-01-01 00:00 UTC; medians", bm.render(unknown))

    def test_targets_say_met_or_missed(self):
        text = bm.render(REPORT)
        self.assertIn("| scan: % of CUB | 100 | 93.00: **missed** | v6 |", text)
        self.assertIn("| 1024: % of read (uniform) | 90 | 91.25: met | v2 |", text)

    def test_a_wrong_result_is_shown_not_timed(self):
        self.assertIn("| v3 |  | WRONG |", bm.render(REPORT))

    def test_the_scan_keeps_the_benchmark_columns(self):
        self.assertIn("| v6 |  | 0.1000 | 1.0 % | 100 | 67.0 | 0.93 |", bm.render(REPORT))

    def test_a_file_that_is_not_a_report_gets_a_clear_error(self):
        with tempfile.TemporaryDirectory() as folder:
            bad = Path(folder) / "benchmark.json"
            bad.write_text(json.dumps({"rows": []}))
            result = subprocess.run([sys.executable, str(SCRIPT), str(bad)], capture_output=True, text=True)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("not a benchmark report", result.stderr)
            missing = subprocess.run([sys.executable, str(SCRIPT), str(Path(folder) / "none.json")],
                                     capture_output=True, text=True)
            self.assertIn("not found", missing.stderr)


if __name__ == "__main__":
    unittest.main()
