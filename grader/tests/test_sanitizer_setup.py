"""Tests for grader/runs/sanitizer_setup.py. Run: python3 grader/tests/test_sanitizer_setup.py"""
import os
import stat
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

WRAPPER = Path(__file__).resolve().parent.parent / "runs" / "sanitizer_setup.py"


def run(*args, env=None):
    return subprocess.run([sys.executable, str(WRAPPER), *args], capture_output=True, text=True,
                          env=None if env is None else dict(os.environ, **env))


class SanitizeTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        # A stand-in sanitizer that prints what it was asked to run, then exits 66 (an error found).
        self.fake = Path(self.folder.name) / "compute-sanitizer"
        self.fake.write_text("#!/bin/sh\necho sanitizer: \"$@\"\nexit 66\n")
        self.fake.chmod(self.fake.stat().st_mode | stat.S_IEXEC)

    def tearDown(self):
        self.folder.cleanup()

    def test_wraps_a_compiled_test_program(self):
        result = run(str(self.fake), "racecheck", "--", "/bin/true", "--gtest_filter=X")
        self.assertEqual(result.returncode, 66)
        self.assertIn("sanitizer: --tool racecheck --error-exitcode 66 --print-limit 20 /bin/true "
                      "--gtest_filter=X", result.stdout)

    def test_a_checker_starts_its_runner_under_the_sanitizer(self):
        # A lab's checker (GRADER_RUNNER names its runner) runs as it is; the student's code, in
        # the runner it starts, runs under the sanitizer named in GRADER_RUNNER_WRAPPER, one
        # argument a line.
        result = run(str(self.fake), "racecheck", "--", "/bin/sh", "-c",
                     'printf "%s" "$GRADER_RUNNER_WRAPPER"',
                     env={"GRADER_RUNNER": "/build/lab01_runner_graded"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split("\n"), [str(self.fake), "--tool", "racecheck",
                                                     "--error-exitcode", "66", "--print-limit", "20"])

    def test_a_labs_graded_test_starts_its_runners_under_the_sanitizer(self):
        # `meson test --suite labNN` runs grader/grade_lab.py, which starts the lab's checker with
        # this environment: the runners it starts run under the sanitizer, as above.
        harness = Path(self.folder.name) / "grade_lab.py"
        harness.write_text("import os\nprint(os.environ['GRADER_RUNNER_WRAPPER'].replace('\\n', ' '))\n")
        result = run(str(self.fake), "racecheck", "--", sys.executable, str(harness), "--lab", "lab01")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), f"{self.fake} --tool racecheck --error-exitcode 66 "
                                                "--print-limit 20")

    def test_the_cpu_backend_runs_a_labs_graded_test_under_several_schedule_seeds(self):
        harness = Path(self.folder.name) / "grade_lab.py"
        harness.write_text("import os\nprint('seed', os.environ['CUDA_CPU_BACKEND_SEED'])\n")
        result = run("cpu-backend", "racecheck", "--", sys.executable, str(harness), "--lab", "lab01")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.count("seed "), 4, result.stdout)

    def test_runs_python_tests_without_the_sanitizer(self):
        result = run(str(self.fake), "memcheck", "--", sys.executable, "-c", "print('plain run')")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "plain run")

    def test_keeps_a_python_tests_exit_status(self):
        result = run(str(self.fake), "memcheck", "--", sys.executable, "-c", "raise SystemExit(3)")
        self.assertEqual(result.returncode, 3)

    def test_skips_with_the_reason_without_a_sanitizer(self):
        result = run("", "memcheck", "--", "/bin/true")
        self.assertEqual(result.returncode, 77)
        self.assertIn("compute-sanitizer was not found", result.stderr)

    def test_the_cpu_backend_runs_racecheck_under_several_schedule_seeds(self):
        result = run("cpu-backend", "racecheck", "--", "/bin/sh", "-c", 'echo "seed $CUDA_CPU_BACKEND_SEED"')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual([l for l in result.stdout.splitlines() if l.startswith("seed")],
                         ["seed 2", "seed 3", "seed 5", "seed 7"])
        self.assertIn("passed under schedule seeds 2, 3, 5, 7", result.stdout)

    def test_the_cpu_backend_names_the_seed_that_fails(self):
        result = run("cpu-backend", "racecheck", "--", "/bin/sh", "-c", 'test "$CUDA_CPU_BACKEND_SEED" != 5')
        self.assertEqual(result.returncode, 1)
        self.assertIn("CUDA_CPU_BACKEND_SEED=5", result.stdout)

    def test_the_cpu_backend_skips_memcheck_with_the_reason(self):
        result = run("cpu-backend", "memcheck", "--", "/bin/true")
        self.assertEqual(result.returncode, 77)
        self.assertIn("needs compute-sanitizer and a GPU", result.stderr)

    def test_refuses_a_command_line_without_its_separator(self):
        result = run(str(self.fake), "memcheck", "/bin/true")
        self.assertEqual(result.returncode, 2)
        self.assertIn("usage", result.stderr)


if __name__ == "__main__":
    unittest.main()
