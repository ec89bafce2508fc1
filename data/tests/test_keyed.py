"""generate.py --keyed: samples drawn from SHAKE-256 keyed by the seed (the batch's hidden data
seeds). The same seed gives the same samples, another seed others, none of them numpy's for that
seed, and every distribution keeps the shape generate.py documents."""

import math
import unittest

import numpy as np

from harness import ScratchFolderTestCase, generated_samples

import keyed  # noqa: E402  (harness puts data/ on the path)


def keyed_samples(*args):
    return generated_samples("--keyed", *args)


class KeyedDeterminismTest(ScratchFolderTestCase):

    def test_same_seed_same_bytes_other_seed_other_bytes(self):
        _, first = self.generate("--keyed", "--count", 5000, "--seed", 77, name="a.bin")
        _, again = self.generate("--keyed", "--count", 5000, "--seed", 77, name="b.bin")
        _, other = self.generate("--keyed", "--count", 5000, "--seed", 78, name="c.bin")
        self.assertEqual(first.tobytes(), again.tobytes())
        # Two independent uniform files agree in about 1 sample of 1024.
        self.assertLess(np.count_nonzero(first == other), 50)

    def test_not_numpys_samples_for_the_seed(self):
        plain = generated_samples("--count", 5000, "--seed", 77)
        self.assertLess(np.count_nonzero(keyed_samples("--count", 5000, "--seed", 77) == plain), 50)

    def test_a_longer_file_starts_with_the_shorter_one_across_chunks(self):
        count = keyed.CHUNK + 1000
        longer = keyed.uniform(5, count, 1024)
        self.assertTrue(np.array_equal(longer[:1000], keyed.uniform(5, 1000, 1024)))
        self.assertFalse(np.array_equal(longer[keyed.CHUNK:], longer[:1000]))

    def test_summary_line_does_not_show_the_seed(self):
        from harness import GENERATE, run_script
        result = run_script(GENERATE, "--keyed", "--count", 10, "--seed", 987654321,
                            "--output", self.folder / "s.bin")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("987654321", result.stdout + result.stderr)


class KeyedShapeTest(unittest.TestCase):

    def test_uniform_is_flat_and_in_range(self):
        bits, per_bin = 10, 1000
        bins = 2 ** bits
        for seed in (1, 2, 3):
            with self.subTest(seed=seed):
                samples = keyed_samples("--count", bins * per_bin, "--seed", seed)
                self.assertTrue(samples.min() >= 0 and samples.max() < bins)
                counts = np.bincount(samples, minlength=bins)
                chi_square = float(((counts - per_bin) ** 2 / per_bin).sum())
                degrees = bins - 1
                self.assertLess(abs(chi_square - degrees), 6 * math.sqrt(2 * degrees))

    def test_normal_has_requested_centre_and_spread(self):
        samples = keyed_samples("--count", 100001, "--distribution", "normal", "--mean", 500,
                                "--stddev", 30)
        self.assertEqual(len(samples), 100001)
        self.assertAlmostEqual(samples.mean(), 500, delta=0.5)
        self.assertAlmostEqual(samples.std(), 30, delta=0.6)

    def test_normal_is_clipped_into_range(self):
        samples = keyed_samples("--count", 10000, "--bits", 4, "--distribution", "normal",
                                "--mean", 0, "--stddev", 100)
        self.assertEqual((samples.min(), samples.max()), (0, 15))

    def test_all_equal_is_one_value(self):
        samples = keyed_samples("--count", 100, "--distribution", "all-equal", "--value", 7)
        self.assertEqual(set(samples.tolist()), {7})

    def test_zipf_decreases_over_its_keyed_ranks(self):
        bits, count, exponent, seed = 6, 200000, 1.2, 9
        samples = keyed_samples("--count", count, "--bits", bits, "--distribution", "zipf",
                                "--seed", seed)
        value_of_rank = keyed.permutation(seed, 2 ** bits)
        self.assertEqual(sorted(value_of_rank.tolist()), list(range(2 ** bits)))
        by_rank = np.bincount(samples, minlength=2 ** bits)[value_of_rank]
        self.assertTrue(np.all(np.diff(by_rank[:8]) < 0), by_rank[:8])
        expected = 1 / np.arange(1, 2 ** bits + 1) ** exponent
        expected *= count / expected.sum()
        np.testing.assert_allclose(by_rank[:4], expected[:4], rtol=0.03)


if __name__ == "__main__":
    unittest.main()
