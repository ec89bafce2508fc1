#!/usr/bin/env python3
"""Proves that check_quoted_figures.py fails, naming file and line, on a figure a handout attributes
to benchmark.md that its table does not hold, in the row the text names and on the GPU it names,
and passes on figures the table holds, on computed figures ('≈') and on figures waiting for a GPU
run (in an HTML comment). Each case is a tiny handout folder made in a temporary directory."""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "check_quoted_figures.py"
BENCHMARK = """# Benchmark

### NVIDIA H100 80GB HBM3

| kernel | uniform | normal(500, 30) | all equal |
|---|---|---|---|
| lab03 v2 shared grid-stride | 0.0489 ms (95.5 % read, 9.75× CUB) | 0.0479 ms (96.5 % read) | 0.0481 ms (96.5 % read) |
| letters v2 register counters | 0.0483 ms (96.7 % read) | 0.0484 ms (95.9 % read) | 0.0484 ms (96.4 % read) |
| lab05 v6 single pass | 0.1169 ms (74.0 % copy, 0.94× CUB) | | |

### NVIDIA H200

| kernel | uniform | normal(500, 30) | all equal |
|---|---|---|---|
| lab03 v2 shared grid-stride | 0.0362 ms (91.7 % read, 12.24× CUB) | | |
| lab05 v6 single pass | 0.0956 ms (65.8 % copy, 0.92× CUB) | | |

## Across sizes

| size | scan v11 | v11 ÷ CUB (speed) |
|---|---:|---:|
| 2^17 | 0.0098 | 0.95× |
"""
PROFILE = "row,kernel,us,dram_pct,occupancy_pct,l2_hit_pct,top_stall\n"


def run(handout_name, text):
    """check_quoted_figures.py's exit status and output on a folder holding one handout."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "figures" / "bench").mkdir(parents=True)
        (root / "benchmark.md").write_text(BENCHMARK, encoding="utf-8")
        for gpu in ("h100", "h200"):
            (root / "figures" / "bench" / f"{gpu}_profile.csv").write_text(PROFILE, encoding="utf-8")
        (root / handout_name).write_text(text, encoding="utf-8")
        done = subprocess.run([sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True)
        return done.returncode, done.stdout


class CheckQuotedFigures(unittest.TestCase):
    def assert_passes(self, name, text):
        status, output = run(name, text)
        self.assertEqual(status, 0, output)

    def assert_fails(self, name, text, where):
        status, output = run(name, text)
        self.assertEqual(status, 1, output)
        self.assertIn(where, output)

    def test_figures_the_table_holds_pass(self):
        self.assert_passes("05-scan-warps.md", "Intro.\n\nThe workbook benchmark (`handouts/benchmark.md`) "
                           "has v6 at 0.94× CUB on the H100 and 0.92× on the H200.\n")

    def test_a_stale_figure_fails_with_its_line(self):
        # The issue's example: 0.95x is in the sizes table (2^17), not in v6's rows.
        self.assert_fails("05-scan-warps.md", "Intro.\n\nThe workbook benchmark (`handouts/benchmark.md`) "
                          "agrees: v6 at 0.95× CUB on both.\n", "05-scan-warps.md:3: 0.95")

    def test_a_figure_of_another_row_fails(self):
        # 95.9 % is letters v2's, not lab 03's v2.
        self.assert_fails("03-shared-privatization-answers.md", "`handouts/benchmark.md` has the reference "
                          "v2 at 95.9 % of the read on the H100.\n", "03-shared-privatization-answers.md:1: 95.9")

    def test_a_figure_of_the_other_gpu_fails(self):
        self.assert_fails("03-shared-privatization-answers.md", "`handouts/benchmark.md` has the reference "
                          "v2 at 12.24× CUB on the H100.\n", "12.24 on the H100")

    def test_a_table_under_a_caption_that_names_the_benchmark_is_checked(self):
        table = ("The benchmark's scans (`handouts/benchmark.md`):\n\n| version | H100 | H200 |\n|---|---|---|\n"
                 "| v6 | 0.94×, 74.0 % | 0.92×, 65.9 % |\n")
        self.assert_fails("05-scan-warps-answers.md", table, "05-scan-warps-answers.md:5: 65.9 on the H200")

    def test_computed_hidden_and_unattributed_figures_pass(self):
        self.assert_passes("03-shared-privatization.md",
                           "`handouts/benchmark.md` gives v2 0.0489 ms, ≈ 58× the baseline.\n\n"
                           "The sweep gave 0.0490 ms.\n\n"
                           "<!-- GPU: `handouts/benchmark.md` v2 0.0500 ms --> Spread ~~1.12×~~.\n")


if __name__ == "__main__":
    unittest.main()
