"""Helpers shared by the data tests: where the scripts are, how to run them.

The tests run the scripts as a student would, in a subprocess, so exit codes,
stdout and stderr are checked exactly as seen from a shell.  Paths come from
this file's location, so the tests work from any working directory.
"""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parent.parent
GENERATE = DATA_DIR / "generate.py"
HISTOGRAM = DATA_DIR / "histogram.py"

# Lets the tests import samples_format and generate for their constants.
if str(DATA_DIR) not in sys.path:
    sys.path.insert(0, str(DATA_DIR))

import generate  # noqa: E402  (needs the path above)
import samples_format as fmt  # noqa: E402


def generated_samples(*args):
    """What generate.py would write for these options, computed in-process:
    statistical tests need many data sets, and a subprocess each is slow."""
    options = generate.parse_arguments([str(arg) for arg in args])
    generate.resolve_distribution_options(options)
    return generate.generate_samples(options)


def run_script(script, *args, cwd=None):
    return subprocess.run(
        [sys.executable, str(script), *map(str, args)],
        cwd=cwd, capture_output=True, text=True, check=False)


class ScratchFolderTestCase(unittest.TestCase):
    """A test case with a fresh temporary folder, self.folder."""

    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="data-test-")
        self.addCleanup(scratch.cleanup)
        self.folder = Path(scratch.name)

    def generate(self, *args, name="samples.bin"):
        """Run generate.py into self.folder/name; return (path, samples)."""
        path = self.folder / name
        result = run_script(GENERATE, *args, "--output", path)
        self.assertEqual(result.returncode, 0, result.stderr)
        return path, np.fromfile(path, dtype=fmt.SAMPLE_DTYPE)

    def write_samples(self, values, name="samples.bin"):
        path = self.folder / name
        np.asarray(values, dtype=fmt.SAMPLE_DTYPE).tofile(path)
        return path

    def assertUsageError(self, result, *fragments):
        """Exit code 2, no stdout, and one stderr line naming the problem."""
        self.assertEqual(result.returncode, fmt.USAGE_EXIT_CODE, result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertNotIn("Traceback", result.stderr)
        error_line = result.stderr.strip().splitlines()[-1]
        self.assertIn("error:", error_line)
        for fragment in fragments:
            self.assertIn(fragment, error_line)
