"""Tests for lab06_image.py: PNG decoding (every filter, color type and depth it reads) and the
sample finder's promise never to fail a build. Run: python3 test_lab06_image.py"""
import os
import struct
import sys
import tempfile
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lab06_image  # noqa: E402


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def filtered(rows, bpp, kinds):
    """The rows encoded with the given filter type per row (the encoder side of PNG's filters)."""
    out, previous = b"", [0] * len(rows[0])
    for row, kind in zip(rows, kinds):
        encoded = []
        for x, value in enumerate(row):
            left = row[x - bpp] if x >= bpp else 0
            up_left = previous[x - bpp] if x >= bpp else 0
            predictor = [0, left, previous[x], (left + previous[x]) // 2,
                         lab06_image.paeth(left, previous[x], up_left)][kind]
            encoded.append((value - predictor) & 0xFF)
        out += bytes([kind] + encoded)
        previous = row
    return out


def png(width, height, depth, color, raw, palette=None):
    data = lab06_image.PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0))
    if palette:
        data += chunk(b"PLTE", bytes(palette))
    return data + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


class DecodesPng(unittest.TestCase):
    def decode(self, data):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "x.png")
            with open(path, "wb") as f:
                f.write(data)
            return lab06_image.read_png_gray(path)

    def test_gray_with_every_filter_type(self):
        rows = [[(x * 37 + y * 11) % 256 for x in range(7)] for y in range(5)]
        got = self.decode(png(7, 5, 8, 0, filtered(rows, 1, [0, 1, 2, 3, 4])))
        self.assertEqual(got, (7, 5, [v for row in rows for v in row]))

    def test_rgb_becomes_gray_with_integer_luma(self):
        rows = [[255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30]]
        width, height, gray = self.decode(png(4, 1, 8, 2, filtered(rows, 3, [4])))
        self.assertEqual(gray, [(299 * 255 + 500) // 1000, (587 * 255 + 500) // 1000,
                                (114 * 255 + 500) // 1000, (299 * 10 + 587 * 20 + 114 * 30 + 500) // 1000])

    def test_palette_gray_alpha_and_sixteen_bits(self):
        self.assertEqual(self.decode(png(2, 1, 8, 3, filtered([[1, 0]], 1, [0]), [0, 0, 0, 9, 9, 9]))[2], [9, 0])
        self.assertEqual(self.decode(png(2, 1, 8, 4, filtered([[50, 255, 60, 0]], 2, [1]), None))[2], [50, 60])
        self.assertEqual(self.decode(png(1, 1, 16, 0, filtered([[0xAB, 0xCD]], 2, [0])))[2], [0xAB])

    def test_interlaced_files_are_refused_with_a_reason(self):
        data = lab06_image.PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 1))
        with self.assertRaisesRegex(ValueError, "interlaced"):
            self.decode(data + chunk(b"IEND", b""))


class FindsSamples(unittest.TestCase):
    def test_sample_never_fails_and_says_what_it_found(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "sample.pgm")
            self.assertEqual(lab06_image.sample(out), 0)
            self.assertTrue(os.path.exists(out))
            with open(out + ".txt") as f:
                note = f.read()
            self.assertGreater(os.path.getsize(out), 0, note)  # the shipped photograph at least
            with open(out, "rb") as f:
                self.assertEqual(f.read(2), b"P5")

    def test_without_scikit_image_the_shipped_photograph_is_used(self):
        def missing(out):
            raise ImportError("No module named 'skimage'")
        saved, lab06_image.from_scikit_image = lab06_image.from_scikit_image, missing
        try:
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "sample.pgm")
                self.assertEqual(lab06_image.sample(out), 0)
                with open(out + ".txt") as f:
                    self.assertIn("camera.pgm", f.read())
                with open(out, "rb") as f, open(lab06_image.SHIPPED, "rb") as shipped:
                    self.assertEqual(f.read(), shipped.read())
        finally:
            lab06_image.from_scikit_image = saved


if __name__ == "__main__":
    unittest.main()
