#!/usr/bin/env python3
"""Write a samples file (raw little-endian int32, no header) for the labs.

With no options it writes the standard data set: 2**25 uniform samples in
[0, 1024) from a fixed seed, to data.bin.  See data/README.md.
"""

import argparse
import math
import sys

import numpy as np

import keyed
import samples_format as fmt

DEFAULT_ZIPF_EXPONENT = 1.2
# The zipf rank -> value permutation draws from its own stream, derived from
# the seed, so that it is independent of the samples themselves.
ZIPF_PERMUTATION_STREAM = 1

# Options that only make sense for one distribution; giving one with another
# distribution is almost certainly a mistake, so it is rejected.
DISTRIBUTION_OF_OPTION = {
    "mean": "normal",
    "stddev": "normal",
    "value": "all-equal",
    "zipf_exponent": "zipf",
}
DISTRIBUTIONS = ("uniform", "normal", "all-equal", "zipf")

EXAMPLES = """\
examples:
  %(prog)s                                     the standard set: data.bin
  %(prog)s --distribution normal --mean 500 --stddev 30 --output normal.bin
  %(prog)s --distribution all-equal --output equal.bin   every sample = 1023
  %(prog)s --distribution zipf --zipf-exponent 1.5 --output zipf.bin
  %(prog)s --count 1000 --bits 4 --seed 7 --output small.bin
"""


def parse_arguments(argv=None):
    # @FILE reads options from FILE, one a line: a hidden seed stays off the process list.
    parser = argparse.ArgumentParser(
        description=__doc__, epilog=EXAMPLES, fromfile_prefix_chars="@",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--count", type=fmt.non_negative_option, default=fmt.DEFAULT_COUNT,
        metavar="N",
        help=f"number of samples, 0 allowed (default 2**25 = "
             f"{fmt.DEFAULT_COUNT})")
    fmt.add_bits_option(parser)
    parser.add_argument(
        "--distribution", choices=DISTRIBUTIONS, default="uniform",
        help="shape of the histogram (default uniform)")
    parser.add_argument(
        "--seed", type=fmt.non_negative_option, default=fmt.DEFAULT_SEED,
        metavar="S",
        help=f"random seed; the same seed gives the same file "
             f"(default {fmt.DEFAULT_SEED})")
    parser.add_argument(
        "--keyed", action="store_true",
        help="draw from SHAKE-256 keyed by the seed instead of numpy's PCG64: "
             "the samples do not give the seed back (the batch grader's hidden "
             "data seeds); same distributions, other bytes")
    parser.add_argument(
        "--output", default=fmt.DEFAULT_PATH, metavar="PATH",
        help=f"file to write, replaced atomically (default "
             f"{fmt.DEFAULT_PATH})")
    normal = parser.add_argument_group("normal distribution")
    normal.add_argument(
        "--mean", type=float, metavar="M",
        help="centre, in [0, 2**B - 1] (default 2**B / 2, the middle)")
    normal.add_argument(
        "--stddev", type=float, metavar="SD",
        help="spread, > 0 (default 2**B / 32); samples are rounded to the "
             "nearest integer and clipped into [0, 2**B - 1]")
    all_equal = parser.add_argument_group("all-equal distribution")
    all_equal.add_argument(
        "--value", type=fmt.integer_option, metavar="V",
        help="the one value every sample takes, in [0, 2**B - 1] (default "
             "2**B - 1: the largest value catches off-by-one bin bugs)")
    zipf = parser.add_argument_group("zipf distribution")
    zipf.add_argument(
        "--zipf-exponent", type=float, metavar="X",
        help=f"rank r (0-based) has probability proportional to "
             f"1/(r+1)**X, X > 0 (default {DEFAULT_ZIPF_EXPONENT}); ranks are "
             f"mapped to values by a permutation derived from the seed, so "
             f"the heavy bins are scattered rather than all near 0")
    return parser.parse_args(argv)


def resolve_distribution_options(args):
    """Fill in defaults that depend on --bits and reject nonsense values."""
    for option, distribution in DISTRIBUTION_OF_OPTION.items():
        if getattr(args, option) is not None and args.distribution != distribution:
            raise fmt.UsageError(
                f"--{option.replace('_', '-')} only applies to "
                f"--distribution {distribution}, not {args.distribution}")
    bins = fmt.bin_count(args.bits)
    largest = bins - 1
    if args.distribution == "normal":
        if args.mean is None:
            args.mean = bins / 2
        if args.stddev is None:
            args.stddev = bins / 32
        if not (math.isfinite(args.mean) and 0 <= args.mean <= largest):
            raise fmt.UsageError(
                f"--mean {args.mean} is outside [0, {largest}] for --bits "
                f"{args.bits}; pick a centre inside the range")
        if not (math.isfinite(args.stddev) and args.stddev > 0):
            raise fmt.UsageError(
                f"--stddev {args.stddev} must be a positive number "
                f"(for a single value use --distribution all-equal)")
    elif args.distribution == "all-equal":
        if args.value is None:
            args.value = largest
        if not 0 <= args.value <= largest:
            raise fmt.UsageError(
                f"--value {args.value} is outside [0, {largest}] for --bits "
                f"{args.bits}; choose a smaller value or more --bits")
    elif args.distribution == "zipf":
        if args.zipf_exponent is None:
            args.zipf_exponent = DEFAULT_ZIPF_EXPONENT
        if not (math.isfinite(args.zipf_exponent) and args.zipf_exponent > 0):
            raise fmt.UsageError(
                f"--zipf-exponent {args.zipf_exponent} must be a positive "
                f"number (larger means more skewed)")


def generate_samples(args):
    """The samples as a '<i4' array, from already resolved options."""
    if args.keyed:
        return keyed_samples(args)
    rng = np.random.default_rng(args.seed)
    bins = fmt.bin_count(args.bits)
    if args.distribution == "uniform":
        samples = rng.integers(0, bins, size=args.count, dtype=np.int32)
    elif args.distribution == "normal":
        # float32 halves the memory of the 2**25 case and is exact for
        # every integer up to 2**24, far beyond the largest 2**16 bins.
        spread = rng.standard_normal(args.count, dtype=np.float32)
        spread *= args.stddev
        spread += args.mean
        np.rint(spread, out=spread)
        np.clip(spread, 0, bins - 1, out=spread)
        samples = spread
    elif args.distribution == "all-equal":
        samples = np.full(args.count, args.value, dtype=fmt.SAMPLE_DTYPE)
    else:
        samples = zipf_samples(rng, args.count, args.bits, args.zipf_exponent,
                               args.seed)
    return samples.astype(fmt.SAMPLE_DTYPE, copy=False)


def zipf_samples(rng, count, bits, exponent, seed):
    bins = fmt.bin_count(bits)
    cumulative = zipf_cumulative(bins, exponent)
    # Inverse-CDF sampling: the rank is the first one whose cumulative
    # probability exceeds a uniform draw in [0, 1).  The minimum guards the
    # last bin against rounding in the cumulative sum.
    ranks = np.searchsorted(cumulative, rng.random(count), side="right")
    np.minimum(ranks, bins - 1, out=ranks)
    return zipf_value_of_rank(bits, seed)[ranks]


def zipf_value_of_rank(bits, seed):
    """The permutation that maps zipf rank r (r = 0 most frequent) to the
    sample value written to the file."""
    stream = np.random.default_rng([ZIPF_PERMUTATION_STREAM, seed])
    return stream.permutation(fmt.bin_count(bits)).astype(fmt.SAMPLE_DTYPE)


def keyed_samples(args):
    """generate_samples with --keyed: each distribution drawn from data/keyed.py's bits."""
    bins = fmt.bin_count(args.bits)
    if args.distribution == "uniform":
        return keyed.uniform(args.seed, args.count, bins)
    if args.distribution == "normal":
        return keyed.normal(args.seed, args.count, bins, args.mean, args.stddev)
    if args.distribution == "all-equal":
        return np.full(args.count, args.value, dtype=fmt.SAMPLE_DTYPE)
    ranks = np.searchsorted(zipf_cumulative(bins, args.zipf_exponent),
                            keyed.uniform_unit(args.seed, args.count), side="right")
    np.minimum(ranks, bins - 1, out=ranks)
    return keyed.permutation(args.seed, bins).astype(fmt.SAMPLE_DTYPE)[ranks]


def zipf_cumulative(bins, exponent):
    weights = 1.0 / np.arange(1, bins + 1, dtype=np.float64) ** exponent
    cumulative = np.cumsum(weights)
    cumulative /= cumulative[-1]
    return cumulative


def describe(args):
    parameters = ""
    if args.distribution == "normal":
        parameters = f"(mean={args.mean:g}, stddev={args.stddev:g})"
    elif args.distribution == "all-equal":
        parameters = f"(value={args.value})"
    elif args.distribution == "zipf":
        parameters = f"(exponent={args.zipf_exponent:g})"
    return (f"wrote {args.output}: {args.count} samples, {args.bits} bits "
            f"(values in [0, {fmt.bin_count(args.bits)})), "
            f"{args.distribution}{parameters}, "
            + ("keyed seed (not shown)" if args.keyed else f"seed {args.seed}"))


def main(argv=None):
    args = parse_arguments(argv)
    resolve_distribution_options(args)
    try:
        samples = generate_samples(args)
    except MemoryError:
        raise fmt.UsageError(
            f"not enough memory for {args.count} samples "
            f"({args.count * fmt.SAMPLE_BYTES / 2**30:.1f} GiB); use a "
            f"smaller --count") from None
    fmt.write_samples_atomically(args.output, samples)
    print(describe(args))


if __name__ == "__main__":
    fmt.run_command_line(main)
