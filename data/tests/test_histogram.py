"""Tests for data/histogram.py.  Run: python3 -m unittest discover -s data/tests"""

import ast
import re
import struct
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    GENERATE, HISTOGRAM, ScratchFolderTestCase, fmt, run_script)

PYTHON_LIST_OF_INTS = re.compile(r"\[(\d+(, \d+)*)?\]\n")

# Measured on the 2-core development machine: generation 0.3-0.7 s,
# histogram 0.3-0.6 s, each including interpreter start-up and file I/O.
# 5 s leaves room for a slow or busy CI runner.
STANDARD_SET_SECONDS = 5.0


def count_in_pure_python(path, bins):
    """The slow, obviously correct histogram that numpy must agree with."""
    raw = Path(path).read_bytes()
    counts = [0] * bins
    for (value,) in struct.iter_unpack("<i", raw):
        counts[value] += 1
    return counts


class OutputTest(ScratchFolderTestCase):

    def histogram_stdout(self, *args):
        result = run_script(HISTOGRAM, *args)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")
        return result.stdout

    def test_prints_first_ten_bins_like_a_python_list(self):
        path = self.write_samples([0, 0, 0, 1, 3, 3, 9, 10, 1023])
        stdout = self.histogram_stdout(path)
        self.assertRegex(stdout, PYTHON_LIST_OF_INTS)
        self.assertEqual(stdout, "[3, 1, 0, 2, 0, 0, 0, 0, 0, 1]\n")

    def test_agrees_with_pure_python_count(self):
        path, _ = self.generate("--count", 5000, "--bits", 5, "--seed", 11)
        stdout = self.histogram_stdout(path, "--bits", 5, "--first", 32)
        self.assertEqual(stdout, f"{count_in_pure_python(path, 32)}\n")

    def test_first_selects_how_many_bins(self):
        path = self.write_samples([0, 1, 1, 15])
        cases = {0: "[]", 3: "[1, 2, 0]",
                 100: str([1, 2] + [0] * 13 + [1])}  # past the end: all 16
        for first, expected in cases.items():
            with self.subTest(first=first):
                stdout = self.histogram_stdout(path, "--bits", 4,
                                               "--first", first)
                self.assertEqual(stdout, expected + "\n")

    def test_empty_file_gives_empty_bins(self):
        path = self.write_samples([])
        self.assertEqual(self.histogram_stdout(path), str([0] * 10) + "\n")

    def test_largest_value_lands_in_last_bin(self):
        path, _ = self.generate("--count", 4, "--bits", 3,
                                "--distribution", "all-equal")
        stdout = self.histogram_stdout(path, "--bits", 3)
        self.assertEqual(stdout, "[0, 0, 0, 0, 0, 0, 0, 4]\n")

    def test_default_path_is_data_bin_in_working_folder(self):
        self.write_samples([2, 2], name="data.bin")
        result = run_script(HISTOGRAM, cwd=self.folder)
        self.assertEqual(result.stdout, "[0, 0, 2, 0, 0, 0, 0, 0, 0, 0]\n")


class ValidationTest(ScratchFolderTestCase):

    def test_missing_file(self):
        path = self.folder / "absent.bin"
        self.assertUsageError(run_script(HISTOGRAM, path),
                              str(path), "not found", "generate.py")

    def test_folder_instead_of_file(self):
        self.assertUsageError(run_script(HISTOGRAM, self.folder), "folder")

    def test_truncated_file(self):
        path = self.folder / "truncated.bin"
        path.write_bytes(b"\x00" * 10)
        self.assertUsageError(run_script(HISTOGRAM, path),
                              "truncated?", "10 bytes", "int32")

    def test_sample_too_large(self):
        path = self.write_samples([5, 1023, 1024, 2000])
        self.assertUsageError(run_script(HISTOGRAM, path),
                              "sample 2 is 1024", "[0, 1024)")

    def test_negative_sample(self):
        path = self.write_samples([5, 6, -1, 7])
        self.assertUsageError(run_script(HISTOGRAM, path),
                              "sample 2 is -1", "[0, 1024)")

    def test_bits_must_match_the_file(self):
        path = self.write_samples([16])
        self.assertUsageError(run_script(HISTOGRAM, path, "--bits", 4),
                              "sample 0 is 16", "[0, 16)", "--bits")

    def test_bad_options(self):
        path = self.write_samples([1])
        for args, named in ((("--bits", "0"), "--bits"),
                            (("--bits", "17"), "--bits"),
                            (("--first", "-1"), "--first"),
                            (("--first", "ten"), "--first")):
            with self.subTest(args=args):
                self.assertUsageError(run_script(HISTOGRAM, path, *args), named)


class StandardSetSpeedTest(ScratchFolderTestCase):
    """The default 2**25-sample set must stay quick to make and to check."""

    def timed(self, script):
        start = time.perf_counter()
        result = run_script(script, cwd=self.folder)
        seconds = time.perf_counter() - start
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout, seconds

    def test_generate_and_histogram_each_under_five_seconds(self):
        _, seconds = self.timed(GENERATE)
        self.assertLess(seconds, STANDARD_SET_SECONDS, "generate.py too slow")
        path = self.folder / fmt.DEFAULT_PATH
        self.assertEqual(path.stat().st_size, 4 * fmt.DEFAULT_COUNT)

        stdout, seconds = self.timed(HISTOGRAM)
        self.assertLess(seconds, STANDARD_SET_SECONDS, "histogram.py too slow")
        self.assertRegex(stdout, PYTHON_LIST_OF_INTS)
        first_bins = ast.literal_eval(stdout)
        self.assertEqual(len(first_bins), 10)
        # Uniform over 1024 bins: each holds about 2**25 / 1024 = 32768.
        for count in first_bins:
            self.assertAlmostEqual(count, 32768, delta=1000)


if __name__ == "__main__":
    unittest.main()
