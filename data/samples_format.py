"""The samples file format, shared by generate.py, histogram.py and the tests.

A samples file is a flat array of little-endian int32 values with no header:
sample i occupies bytes [4*i, 4*i + 4).  With B bits every sample lies in
[0, 2**B), so a histogram of the file has 2**B bins.  Keeping the format this
bare lets a CUDA program read it with one fread() into an int array.
"""

import argparse
import os
import sys
import tempfile

import numpy as np

# '<i4' rather than np.int32: the file is little-endian on every host.
SAMPLE_DTYPE = np.dtype("<i4")
SAMPLE_BYTES = SAMPLE_DTYPE.itemsize

# The standard data set: what the labs, the grader and the build all use.
DEFAULT_PATH = "data.bin"
DEFAULT_COUNT = 1 << 25  # 33554432 samples = 128 MiB
DEFAULT_BITS = 10  # 1024 bins
DEFAULT_SEED = 2025

# 1..16 bits spans every case the labs need: from 2 bins up to 65536 bins,
# whose 256 KiB of 32-bit counters no longer fit in one block's shared memory
# (the case that forces a different kernel design).
MIN_BITS = 1
MAX_BITS = 16

USAGE_EXIT_CODE = 2  # the same code argparse uses for bad arguments


class UsageError(Exception):
    """A problem the user can fix; reported as one line, never a traceback."""


def bin_count(bits):
    return 1 << bits


def bits_option(text):
    """argparse type for --bits: an integer in [MIN_BITS, MAX_BITS]."""
    bits = integer_option(text)
    if not MIN_BITS <= bits <= MAX_BITS:
        raise argparse.ArgumentTypeError(
            f"{bits} is out of range: use {MIN_BITS}..{MAX_BITS} "
            f"(the histogram has 2**bits bins)")
    return bits


def non_negative_option(text):
    """argparse type for counts, seeds and the like."""
    value = integer_option(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative: use 0 or more")
    return value


def integer_option(text):
    """argparse type for a whole number, with a message that says so."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number") from None


def add_bits_option(parser):
    parser.add_argument(
        "--bits", type=bits_option, default=DEFAULT_BITS, metavar="B",
        help=f"sample width: values lie in [0, 2**B) and the histogram has "
             f"2**B bins ({MIN_BITS}..{MAX_BITS}, default {DEFAULT_BITS})")


def read_samples(path, bits):
    """Read and validate a samples file; raise UsageError if it is unusable."""
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        raise UsageError(
            f"{path} not found: generate it with "
            f"`python3 data/generate.py --output {path}`") from None
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    if os.path.isdir(path):
        raise UsageError(f"{path} is a folder, not a samples file")
    if size % SAMPLE_BYTES:
        raise UsageError(
            f"{path}: truncated? {size} bytes is not a whole number of int32 "
            f"samples ({SAMPLE_BYTES} bytes each); generate it again")
    try:
        samples = np.fromfile(path, dtype=SAMPLE_DTYPE)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    _check_range(path, samples, bits)
    return samples


def _check_range(path, samples, bits):
    bins = bin_count(bits)
    # min/max are cheap and allocate nothing; only a bad file pays for the
    # mask that locates the first offending sample.
    if samples.size == 0 or (samples.min() >= 0 and samples.max() < bins):
        return
    outside = (samples < 0) | (samples >= bins)
    index = int(np.argmax(outside))  # argmax finds the first True
    raise UsageError(
        f"{path}: sample {index} is {int(samples[index])}, outside the "
        f"allowed range [0, {bins}) for --bits {bits}; pass the --bits "
        f"the file was generated with")


def write_samples_atomically(path, samples):
    """Write samples to path so that readers see the old file or the whole
    new one, never a partial one: a killed or failed run (Ctrl-C during a
    128 MiB write, a full disk) would otherwise leave a truncated data.bin
    that later fails in confusing ways."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        # Same folder as the target, so os.replace is a rename within one
        # file system and therefore atomic.
        handle, temporary = tempfile.mkstemp(
            dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    except OSError as error:
        raise UsageError(
            f"cannot write {path}: {error.strerror} ({folder}); "
            f"choose a writable --output path") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            np.asarray(samples, dtype=SAMPLE_DTYPE).tofile(stream)
        # mkstemp creates the file private (0600); give it the permissions
        # an ordinary open() would have.
        os.chmod(temporary, 0o666 & ~_current_umask())
        os.replace(temporary, path)
    except BaseException as error:
        os.unlink(temporary)
        if isinstance(error, OSError):
            raise UsageError(
                f"cannot write {path}: {error.strerror}; "
                f"choose a writable --output path") from None
        raise


def _current_umask():
    mask = os.umask(0)  # the only portable way to read it is to set it
    os.umask(mask)
    return mask


def run_command_line(main):
    """Run main(); turn UsageError into one stderr line and exit code 2."""
    program = os.path.basename(sys.argv[0])
    try:
        main()
    except UsageError as error:
        print(f"{program}: error: {error}", file=sys.stderr)
        sys.exit(USAGE_EXIT_CODE)
    except KeyboardInterrupt:
        sys.exit(130)  # the shell convention for "stopped by Ctrl-C"
