#!/usr/bin/env python3
"""Lab 06's image helper: find a real photograph on this machine, and turn PNG files into PGM.

  lab06_image.py sample OUT.pgm     write a real grayscale photograph to OUT.pgm: scikit-image's
                                    low-contrast moon where scikit-image is installed (the
                                    handout's figures are of it), else the photograph this lab
                                    ships, images/camera.pgm (CC0, images/README.md).
                                    When neither can be read, OUT.pgm is left empty and
                                    OUT.pgm.txt says what was tried; the exit status is 0 either
                                    way, so a build never fails for want of a picture.
  lab06_image.py to-pgm IN.png OUT.pgm
                                    decode a PNG (8 or 16 bits; gray, RGB, palette, with or
                                    without alpha; not interlaced) with Python's zlib and write an
                                    8-bit PGM. Color becomes gray as (299 R + 587 G + 114 B + 500) // 1000.

Nothing is downloaded: only the lab's own photograph and images installed packages ship are used.
"""
import os
import struct
import sys
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def write_pgm(path, width, height, pixels):
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (width, height))
        f.write(bytes(pixels))


# ---- PNG decoding ----------------------------------------------------------------------------------
def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def unfilter(raw, width, height, bytes_per_pixel, row_bytes):
    """The PNG scanline filters undone, row by row (numpy where it helps, plain Python for Paeth)."""
    import numpy as np
    out = np.zeros((height, row_bytes), dtype=np.uint8)
    previous = np.zeros(row_bytes, dtype=np.int32)
    at = 0
    for y in range(height):
        kind = raw[at]
        line = np.frombuffer(raw, dtype=np.uint8, count=row_bytes, offset=at + 1).astype(np.int32)
        at += row_bytes + 1
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + previous) & 0xFF
        elif kind == 1:  # Sub: a running sum along each byte of the pixel
            row = (np.cumsum(line.reshape(-1, bytes_per_pixel), axis=0) & 0xFF).reshape(-1)
        elif kind in (3, 4):  # Average and Paeth depend on the byte just decoded: one at a time
            row = line.copy()
            for x in range(row_bytes):
                left = row[x - bytes_per_pixel] if x >= bytes_per_pixel else 0
                if kind == 3:
                    row[x] = (row[x] + ((left + previous[x]) >> 1)) & 0xFF
                else:
                    up_left = previous[x - bytes_per_pixel] if x >= bytes_per_pixel else 0
                    row[x] = (row[x] + paeth(left, previous[x], up_left)) & 0xFF
        else:
            raise ValueError(f"unknown PNG filter type {kind} in row {y}")
        out[y] = row
        previous = row
    return out


def read_png_gray(path):
    """(width, height, list of 8-bit gray levels)."""
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError(f"{path} is not a PNG file")
    at, idat, palette = 8, [], None
    header = None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = np.frombuffer(body, dtype=np.uint8).reshape(-1, 3)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    if interlace:
        raise ValueError(f"{path} is interlaced; save it without interlacing (or as PGM)")
    if depth not in (8, 16):
        raise ValueError(f"{path} has {depth}-bit samples; only 8 and 16 are read")
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
    sample_bytes = depth // 8
    bytes_per_pixel = channels * sample_bytes
    rows = unfilter(zlib.decompress(b"".join(idat)), width, height, bytes_per_pixel,
                    width * bytes_per_pixel)
    samples = rows.reshape(height, width, channels * sample_bytes)
    if sample_bytes == 2:
        samples = samples[:, :, 0::2]  # the high byte of each big-endian sample
    if color == 3:
        rgb = palette[samples[:, :, 0]].astype(np.int64)
    elif color in (2, 6):
        rgb = samples[:, :, :3].astype(np.int64)
    else:
        return width, height, samples[:, :, 0].reshape(-1).tolist()
    gray = (299 * rgb[:, :, 0] + 587 * rgb[:, :, 1] + 114 * rgb[:, :, 2] + 500) // 1000
    return width, height, gray.astype(np.uint8).reshape(-1).tolist()


# ---- Sample photographs ----------------------------------------------------------------------------
def from_scikit_image(out):
    import numpy as np
    from skimage import data  # ships its sample photographs inside the package
    for name in ("moon", "camera", "coins"):
        try:
            image = getattr(data, name)()
        except Exception:  # noqa: BLE001 - a missing or unreadable sample: try the next one
            continue
        image = np.asarray(image)
        if image.ndim == 2 and image.dtype == np.uint8:
            write_pgm(out, image.shape[1], image.shape[0], image.reshape(-1).tolist())
            return f"scikit-image's data.{name}()"
    raise RuntimeError("scikit-image has none of its sample photographs")


SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "images", "camera.pgm")


def from_shipped(out):
    with open(SHIPPED, "rb") as f:
        data = f.read()
    if not data.startswith(b"P5"):
        raise RuntimeError(f"{SHIPPED} is not a binary PGM")
    with open(out, "wb") as f:
        f.write(data)
    return "the lab's own photograph, images/camera.pgm (CC0, Lav Varshney, from scikit-image)"


def sample(out):
    tried = []
    for source in (from_scikit_image, from_shipped):
        try:
            found = source(out)
            with open(out + ".txt", "w") as f:
                f.write(f"{found}\n")
            return 0
        except Exception as error:  # noqa: BLE001 - every failure is reported, none is fatal
            tried.append(f"{source.__name__}: {error}")
    open(out, "wb").close()
    with open(out + ".txt", "w") as f:
        f.write("no real image was found on this machine:\n" + "\n".join(tried) + "\n")
    print("lab 06 sample image: none found (" + "; ".join(tried) + ")")
    return 0


def main(argv):
    if len(argv) == 2 and argv[0] == "sample":
        return sample(argv[1])
    if len(argv) == 3 and argv[0] == "to-pgm":
        try:
            width, height, pixels = read_png_gray(argv[1])
        except (OSError, ValueError, KeyError, struct.error, zlib.error) as error:
            print(f"error: cannot read {argv[1]}: {error}", file=sys.stderr)
            return 1
        write_pgm(argv[2], width, height, pixels)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
