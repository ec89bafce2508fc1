"""Tests for data/generate.py.  Run: python3 -m unittest discover -s data/tests"""

import math
import os
import struct
import sys
import unittest
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    GENERATE, ScratchFolderTestCase, fmt, generate, generated_samples,
    run_script)


class FileFormatTest(ScratchFolderTestCase):

    def test_size_is_four_bytes_per_sample(self):
        for count in (0, 1, 7, 1000):
            with self.subTest(count=count):
                path, samples = self.generate("--count", count, "--bits", 4)
                self.assertEqual(path.stat().st_size, 4 * count)
                self.assertEqual(samples.size, count)

    def test_raw_bytes_are_little_endian_int32(self):
        # 258 = 0x0102: little-endian puts the low byte 0x02 first.
        path, _ = self.generate("--count", 3, "--bits", 16,
                                "--distribution", "all-equal", "--value", 258)
        self.assertEqual(path.read_bytes(), b"\x02\x01\x00\x00" * 3)

    def test_bytes_decode_as_int32_without_numpy(self):
        path, samples = self.generate("--count", 50, "--bits", 16)
        decoded = struct.unpack("<50i", path.read_bytes())
        self.assertEqual(list(decoded), samples.tolist())

    def test_values_in_range_for_several_bits(self):
        for bits in (1, 4, 10, 16):
            for distribution in generate.DISTRIBUTIONS:
                with self.subTest(bits=bits, distribution=distribution):
                    samples = generated_samples(
                        "--count", 20000, "--bits", bits,
                        "--distribution", distribution)
                    self.assertGreaterEqual(samples.min(), 0)
                    self.assertLess(samples.max(), 2 ** bits)

    def test_uniform_reaches_both_ends_of_the_range(self):
        for bits in (1, 4, 8):
            with self.subTest(bits=bits):
                samples = generated_samples("--count", 20000, "--bits", bits)
                self.assertEqual(samples.min(), 0)
                self.assertEqual(samples.max(), 2 ** bits - 1)

    def test_count_zero_and_one(self):
        path, samples = self.generate("--count", 0)
        self.assertEqual(path.read_bytes(), b"")
        _, samples = self.generate("--count", 1, "--bits", 3)
        self.assertEqual(samples.size, 1)
        self.assertIn(samples[0], range(8))

    def test_default_output_is_data_bin_in_working_folder(self):
        result = run_script(GENERATE, "--count", 5, cwd=self.folder)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual((self.folder / "data.bin").stat().st_size, 20)


class DeterminismTest(ScratchFolderTestCase):
    """Same seed, same bytes: the data set is reproducible, not random."""

    def test_same_seed_same_bytes(self):
        for distribution in generate.DISTRIBUTIONS:
            with self.subTest(distribution=distribution):
                options = ("--count", 1000, "--seed", 42,
                           "--distribution", distribution)
                self.assertEqual(generated_samples(*options).tobytes(),
                                 generated_samples(*options).tobytes())

    def test_default_seed_is_fixed(self):
        first, _ = self.generate("--count", 1000, name="first.bin")
        second, _ = self.generate("--count", 1000, name="second.bin")
        self.assertEqual(first.read_bytes(), second.read_bytes())

    def test_different_seeds_differ(self):
        for distribution in ("uniform", "normal", "zipf"):
            with self.subTest(distribution=distribution):
                options = ("--count", 1000, "--distribution", distribution)
                first = generated_samples(*options, "--seed", 1)
                second = generated_samples(*options, "--seed", 2)
                self.assertNotEqual(first.tobytes(), second.tobytes())


class DistributionShapeTest(unittest.TestCase):

    def test_uniform_is_flat(self):
        bits, per_bin = 6, 1000
        bins = 2 ** bits
        for seed in (1, 2, 3):
            with self.subTest(seed=seed):
                samples = generated_samples("--count", bins * per_bin,
                                           "--bits", bits, "--seed", seed)
                counts = np.bincount(samples, minlength=bins)
                chi_square = float(((counts - per_bin) ** 2 / per_bin).sum())
                # chi-square has mean df and stddev sqrt(2 df): allow 6 sigma.
                degrees = bins - 1
                self.assertLess(chi_square, degrees + 6 * math.sqrt(2 * degrees))

    def test_normal_has_requested_centre_and_spread(self):
        samples = generated_samples("--count", 100000, "--distribution",
                                   "normal", "--mean", 500, "--stddev", 30)
        # Standard error of the mean is 30 / sqrt(1e5) ~ 0.1.
        self.assertAlmostEqual(samples.mean(), 500, delta=0.5)
        self.assertAlmostEqual(samples.std(), 30, delta=0.6)
        self.assertTrue(np.array_equal(samples, np.rint(samples)))

    def test_normal_defaults_to_middle_and_range_over_32(self):
        samples = generated_samples("--count", 100000, "--bits", 12,
                                   "--distribution", "normal")
        self.assertAlmostEqual(samples.mean(), 2048, delta=1.5)
        self.assertAlmostEqual(samples.std(), 128, delta=2.5)

    def test_normal_is_clipped_into_range(self):
        samples = generated_samples("--count", 10000, "--bits", 4,
                                   "--distribution", "normal",
                                   "--mean", 0, "--stddev", 100)
        self.assertEqual(samples.min(), 0)
        self.assertEqual(samples.max(), 15)

    def test_all_equal_defaults_to_largest_value(self):
        samples = generated_samples("--count", 100, "--bits", 10,
                                   "--distribution", "all-equal")
        self.assertEqual(set(samples.tolist()), {1023})

    def test_all_equal_fills_one_bin(self):
        samples = generated_samples("--count", 100, "--distribution",
                                   "all-equal", "--value", 7)
        counts = np.bincount(samples, minlength=1024)
        self.assertEqual(np.count_nonzero(counts), 1)
        self.assertEqual(counts[7], 100)

    def test_zipf_decreases_over_ranks(self):
        bits, count, exponent, seed = 6, 200000, 1.2, 9
        samples = generated_samples("--count", count, "--bits", bits,
                                   "--distribution", "zipf", "--seed", seed)
        value_of_rank = generate.zipf_value_of_rank(bits, seed)
        by_rank = np.bincount(samples, minlength=2 ** bits)[value_of_rank]
        # The first ranks are far apart, so they must come out in order.
        self.assertTrue(np.all(np.diff(by_rank[:8]) < 0), by_rank[:8])
        expected = 1 / np.arange(1, 2 ** bits + 1) ** exponent
        expected *= count / expected.sum()
        np.testing.assert_allclose(by_rank[:4], expected[:4], rtol=0.03)

    def test_zipf_heavy_bins_are_scattered(self):
        value_of_rank = generate.zipf_value_of_rank(10, fmt.DEFAULT_SEED)
        self.assertEqual(sorted(value_of_rank.tolist()), list(range(1024)))
        self.assertFalse(np.array_equal(value_of_rank, np.arange(1024)))
        samples = generated_samples("--count", 10000, "--distribution", "zipf")
        heaviest = np.argmax(np.bincount(samples, minlength=1024))
        self.assertEqual(heaviest, value_of_rank[0])


class CommandLineTest(ScratchFolderTestCase):

    def test_summary_line_names_the_settings(self):
        path = self.folder / "s.bin"
        result = run_script(GENERATE, "--count", 12, "--bits", 5, "--seed", 3,
                            "--distribution", "zipf", "--output", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(len(lines), 1)
        for fragment in (str(path), "12 samples", "5 bits", "zipf", "seed 3"):
            self.assertIn(fragment, lines[0])

    def test_help_lists_every_option(self):
        result = run_script(GENERATE, "--help")
        self.assertEqual(result.returncode, 0)
        for option in ("--count", "--bits", "--distribution", "--seed",
                       "--output", "--mean", "--stddev", "--value",
                       "--zipf-exponent", "--keyed"):
            self.assertIn(option, result.stdout)

    def test_bad_arguments_exit_2_naming_the_problem(self):
        cases = [
            (("--count", "-1"), "--count"),
            (("--count", "lots"), "--count"),
            (("--bits", "0"), "--bits"),
            (("--bits", "17"), "--bits"),
            (("--seed", "-5"), "--seed"),
            (("--distribution", "poisson"), "--distribution"),
            (("--distribution", "all-equal", "--value", "1024"), "--value"),
            (("--distribution", "all-equal", "--value", "-1"), "--value"),
            (("--distribution", "normal", "--mean", "nan"), "--mean"),
            (("--distribution", "normal", "--mean", "2000"), "--mean"),
            (("--distribution", "normal", "--stddev", "0"), "--stddev"),
            (("--distribution", "normal", "--stddev", "-3"), "--stddev"),
            (("--distribution", "normal", "--stddev", "inf"), "--stddev"),
            (("--distribution", "zipf", "--zipf-exponent", "0"),
             "--zipf-exponent"),
            (("--mean", "500"), "--mean"),  # normal option, uniform set
            (("--distribution", "zipf", "--value", "3"), "--value"),
        ]
        output = self.folder / "never.bin"
        for args, named in cases:
            with self.subTest(args=args):
                result = run_script(GENERATE, "--count", 10, *args,
                                    "--output", output)
                self.assertUsageError(result, named)
                self.assertFalse(output.exists())

    def test_unwritable_output_exits_2(self):
        for output in (self.folder / "missing" / "x.bin", self.folder):
            with self.subTest(output=output):
                result = run_script(GENERATE, "--count", 10, "--output", output)
                self.assertUsageError(result, "cannot write", str(output))
        self.assertEqual(os.listdir(self.folder), [])  # no temp files left


class AtomicWriteTest(ScratchFolderTestCase):

    def test_failed_write_keeps_old_file_and_leaves_no_temp(self):
        path = self.write_samples([1, 2, 3], name="data.bin")

        class ExplodingSamples:
            def __array__(self, *args, **kwargs):
                raise RuntimeError("interrupted mid-write")

        with self.assertRaises(RuntimeError):
            fmt.write_samples_atomically(path, ExplodingSamples())
        self.assertEqual(os.listdir(self.folder), ["data.bin"])
        self.assertEqual(np.fromfile(path, dtype=fmt.SAMPLE_DTYPE).tolist(),
                         [1, 2, 3])

    def test_written_file_is_not_private(self):
        path, _ = self.generate("--count", 1)
        umask = os.umask(0o022)
        os.umask(umask)
        self.assertEqual(path.stat().st_mode & 0o777, 0o666 & ~umask)


if __name__ == "__main__":
    unittest.main()
