#!/usr/bin/env python3
"""toolchain.py's GPU detection with a stand-in nvidia-smi: the compute capabilities meson reads,
the free memory grade.py reads, and how many labs grade.py then grades side by side."""
import os
import stat
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import grade
import toolchain

FAKE = """#!/bin/sh
case "$*" in
  *compute_cap*) printf '9.0\\n9.0\\n8.6\\n' ;;
  *memory.free*--id=1*) printf '4096\\n' ;;
  *memory.free*) printf '81000\\n' ;;
esac
"""


class DetectGpus(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        fake = Path(self.folder.name) / "nvidia-smi"
        fake.write_text(FAKE)
        fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
        self.path = mock.patch.dict(os.environ, {"PATH": self.folder.name})
        self.path.start()
        (Path(self.folder.name) / "backend.txt").write_text("cuda\n")

    def tearDown(self):
        self.path.stop()
        self.folder.cleanup()

    def test_compute_capabilities_once_each(self):
        self.assertEqual(toolchain.detected_archs(), ["90", "86"])

    def test_free_memory_of_the_named_gpu(self):
        self.assertEqual(toolchain.free_memory_mib("0"), 81000)
        self.assertEqual(toolchain.free_memory_mib("1"), 4096)

    def test_labs_side_by_side_from_cores_and_free_memory(self):
        with mock.patch.object(os, "cpu_count", return_value=16):
            self.assertEqual(grade.side_by_side(self.folder.name, 7), 7)
            self.assertEqual(grade.side_by_side(self.folder.name, 3), 3)
            with mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": "1"}):
                self.assertEqual(grade.side_by_side(self.folder.name, 7), 1)  # 4 GiB free

    def test_no_nvidia_smi_means_one_lab_at_a_time(self):
        with mock.patch.dict(os.environ, {"PATH": "/nonexistent"}):
            self.assertIsNone(toolchain.free_memory_mib("0"))
            self.assertEqual(grade.side_by_side(self.folder.name, 7), 1)


if __name__ == "__main__":
    unittest.main()
