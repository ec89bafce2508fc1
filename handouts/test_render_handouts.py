#!/usr/bin/env python3
"""Proves that render_handouts.py --check fails, naming file and line, on each kind of broken figure or
reference and on two question labels in one paragraph, and passes on a sound folder; and that
--screenshot without a browser fails instead of skipping. Each case is a tiny handout folder made in
a temporary directory. Standard library only."""
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "render_handouts.py"
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10" viewBox="0 0 20 10">'
       '<rect width="20" height="10"/></svg>')


def png(width=2, height=2, level=9, corrupt_crc=False):
    """A grey PNG; level 0 stores its pixels uncompressed, corrupt_crc damages its image data chunk."""
    def chunk(kind, body, bad=False):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) ^ bad)
    pixels = b"".join(b"\0" + bytes([128] * width) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(pixels, level), corrupt_crc) + chunk(b"IEND", b""))


class CheckTest(unittest.TestCase):
    def folder(self, markdown, figures):
        """A handouts folder holding a.md and figures/NAME files; removed after the test."""
        root = Path(self.temporary_folder())
        (root / "figures").mkdir()
        (root / "a.md").write_text(markdown, encoding="utf-8")
        for name, data in figures.items():
            (root / "figures" / name).write_bytes(data.encode() if isinstance(data, str) else data)
        return root

    def temporary_folder(self):
        holder = tempfile.TemporaryDirectory()
        self.addCleanup(holder.cleanup)
        return holder.name

    def check(self, root, *extra):
        return subprocess.run([sys.executable, str(SCRIPT), "--check", "--handouts", str(root), *extra],
                              capture_output=True, text=True, timeout=60)

    def assertFails(self, result, *expected):
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        for text in expected:
            self.assertIn(text, result.stderr)

    def test_sound_folder_passes(self):
        root = self.folder("# A\n\n![plot](figures/p.png)\n\nText, ![diagram](figures/d.svg) and "
                           "[the web](https://example.org).\n", {"p.png": png(), "d.svg": SVG})
        result = self.check(root)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("2 figure files", result.stdout)

    def test_missing_image_and_missing_file(self):
        root = self.folder("# A\n\n![gone](figures/gone.svg)\n\nSee [the notes](../notes/none.txt).\n", {})
        self.assertFails(self.check(root), "a.md:3: image figures/gone.svg: no such file",
                         "a.md:5: link ../notes/none.txt: no such file")

    def test_broken_png_reference(self):
        root = self.folder("# A\n\n\n![plot](figures/p.png)\n", {"p.png": png(corrupt_crc=True)})
        self.assertFails(self.check(root), "a.md:4: image", "p.png is damaged", "fails its CRC")

    def test_truncated_png(self):
        root = self.folder("![plot](figures/p.png)\n", {"p.png": png()[:40]})
        self.assertFails(self.check(root), "a.md:1: image", "truncated")

    def test_uncompressed_png(self):
        root = self.folder("![plot](figures/p.png)\n", {"p.png": png(64, 64, level=0)})
        self.assertFails(self.check(root), "a.md:1: image", "stored uncompressed")

    def test_oversized_png(self):
        root = self.folder("![plot](figures/p.png)\n", {"p.png": png(5000, 1)})
        self.assertFails(self.check(root), "more than 4096 on a side")

    def test_broken_svg(self):
        root = self.folder("![a](figures/a.svg)\n![b](figures/b.svg)\n",
                           {"a.svg": SVG[:-8], "b.svg": SVG.replace(' xmlns="http://www.w3.org/2000/svg"', "")})
        self.assertFails(self.check(root), "a.md:1: image", "not well-formed XML",
                         "a.md:2: image", "root element svg")

    def test_figure_shown_by_no_handout(self):
        root = self.folder("# A\n\nNo figure here.\n", {"orphan.png": png()})
        self.assertFails(self.check(root), "orphan.png: shown by no handout")

    def test_references_in_code_are_not_references(self):
        root = self.folder("# A\n\n```md\n![x](figures/none.png)\n```\n\n    ![y](figures/none.png)\n\n"
                           "Write `![z](figures/none.png)` to show one.\n", {})
        result = self.check(root)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_questions_in_one_paragraph_fail(self):
        root = self.folder("# A\n\n## Q1 — Part\n\n**Q1.1 — First (5 min).** Do this.\n**Q1.2 — Second.** And that."
                           "\n\n**Q1.3** Alone. Text of it, then **Q1.4 (no code).** inside it.\n", {})
        self.assertFails(self.check(root), "a.md:6: question Q1.2 renders in the paragraph of Q1.1",
                         "a.md:8: question Q1.4 renders in the paragraph of Q1.3")

    def test_questions_apart_pass(self):
        root = self.folder("## Q1 — Part\n\n**Q1.1** One.\n\n**Q1.2** Two, see **Q1.2** again.\n\n"
                           "- **Q2.1** An answer in a list\n- **Q2.2** and the next item.\n\n"
                           "```\n**Q3.1** in code\n**Q3.2** in code\n```\n", {})
        result = self.check(root)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_screenshot_without_a_browser_fails(self):
        root = self.folder("# A\n", {})
        out = Path(self.temporary_folder())
        result = subprocess.run([sys.executable, str(SCRIPT), str(out / "html"), "--screenshot",
                                 str(out / "shots"), "--handouts", str(root),
                                 "--browser", str(out / "no-such-chromium")],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("no headless browser", result.stderr)
        self.assertFalse((out / "shots").exists())


if __name__ == "__main__":
    unittest.main(verbosity=2)
