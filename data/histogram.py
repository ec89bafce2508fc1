#!/usr/bin/env python3
"""CPU reference histogram of a samples file (question 1 of the lab).

Prints the first K bins as a Python list on one line, e.g. [32768, 32641, ...],
and nothing else on stdout, so GPU results can be compared with it as text.
"""

import argparse

import numpy as np

import samples_format as fmt

DEFAULT_FIRST = 10
CHUNK_SAMPLES = 1 << 20


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "path", nargs="?", default=fmt.DEFAULT_PATH, metavar="PATH",
        help=f"samples file, raw little-endian int32 (default "
             f"{fmt.DEFAULT_PATH})")
    fmt.add_bits_option(parser)
    parser.add_argument(
        "--first", type=fmt.non_negative_option, default=DEFAULT_FIRST,
        metavar="K",
        help=f"how many bins to print, from bin 0; more than 2**B prints "
             f"them all (default {DEFAULT_FIRST})")
    return parser.parse_args(argv)


def histogram(samples, bits):
    bins = fmt.bin_count(bits)
    counts = np.zeros(bins, dtype=np.int64)
    # np.bincount first copies its input to 64-bit integers; counting in
    # chunks keeps that copy small instead of 256 MiB for the standard set.
    for start in range(0, samples.size, CHUNK_SAMPLES):
        # minlength keeps trailing empty bins, so there are always 2**bits.
        counts += np.bincount(samples[start:start + CHUNK_SAMPLES],
                              minlength=bins)
    return counts


def main(argv=None):
    args = parse_arguments(argv)
    samples = fmt.read_samples(args.path, args.bits)
    # tolist() gives Python ints, which print as [1, 2] not [np.int64(1), ...].
    print(histogram(samples, args.bits)[:args.first].tolist())


if __name__ == "__main__":
    fmt.run_command_line(main)
