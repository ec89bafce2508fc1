"""Samples drawn from SHAKE-256 keyed by the seed (generate.py --keyed): the batch's hidden data
seeds. Unlike numpy's PCG64, whose state follows from its output, the samples do not give the
seed back, so a few leaked samples neither give the rest of the file nor the seed. Each
distribution has the shape generate.py documents; the bits come in chunks, each its own XOF call,
so memory stays bounded."""
import hashlib
import struct

import numpy as np

DOMAIN = b"gpu-histogram-workbook/data/keyed/v1"
CHUNK = 1 << 22  # samples drawn per XOF call
SAMPLES, PERMUTATION = 0, 1  # the streams of one seed


def words(seed, stream, chunk, count, dtype):
    """`count` words of `dtype` ('<u4' or '<u8'): chunk `chunk` of stream `stream` of the key."""
    key = DOMAIN + struct.pack("<QQQ", seed, stream, chunk)
    size = np.dtype(dtype).itemsize
    return np.frombuffer(hashlib.shake_256(key).digest(count * size), dtype=dtype)


def unit_uniforms(raw):
    """Uniform doubles in (0, 1) from 64-bit words (53 bits each, never 0: Box-Muller takes a log)."""
    return ((raw >> np.uint64(11)).astype(np.float64) + 0.5) * (1.0 / 9007199254740992.0)


def chunks(count):
    for index, start in enumerate(range(0, count, CHUNK)):
        yield index, start, min(CHUNK, count - start)


def uniform(seed, count, bins):
    """Integers in [0, bins), bins a power of two (a mask of uniform bits: no bias)."""
    out = np.empty(count, dtype="<i4")
    for index, start, n in chunks(count):
        out[start:start + n] = words(seed, SAMPLES, index, n, "<u4") & np.uint32(bins - 1)
    return out


def normal(seed, count, bins, mean, stddev):
    """N(mean, stddev) rounded and clipped into [0, bins - 1]: Box-Muller, both of a pair."""
    out = np.empty(count, dtype="<i4")
    for index, start, n in chunks(count):
        pairs = (n + 1) // 2
        u = unit_uniforms(words(seed, SAMPLES, index, 2 * pairs, "<u8"))
        radius = np.sqrt(-2.0 * np.log(u[:pairs]))
        angle = 2.0 * np.pi * u[pairs:]
        gaussian = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)])[:n]
        out[start:start + n] = np.clip(np.rint(mean + stddev * gaussian), 0, bins - 1)
    return out


def uniform_unit(seed, count):
    """Doubles in (0, 1), for inverse-CDF sampling."""
    out = np.empty(count, dtype=np.float64)
    for index, start, n in chunks(count):
        out[start:start + n] = unit_uniforms(words(seed, SAMPLES, index, n, "<u8"))
    return out


def permutation(seed, bins):
    """A permutation of range(bins), from the seed's own stream: the order of 64-bit keys."""
    return np.argsort(words(seed, PERMUTATION, 0, bins, "<u8"), kind="stable")
