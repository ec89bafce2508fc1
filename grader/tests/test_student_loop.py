#!/usr/bin/env python3
"""The loop a student repeats, replayed on the CPU backend through `grader/grade.py`, asserting
what the student sees: the score table shows this run only; a crash and an endless loop are
reported on their tests, with the cause, while the other tests still run; a typo in --labs and a
damaged data file are set-up errors, said before anything is graded.

It builds lab 01 a few times in its own build folder (build-student-loop): minutes on 2 cores.
Exit 77 (SKIP) in a cuda-backend project build: the cpu one runs it, once per CI."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = "build-student-loop"
FILE = "lab01_global_atomics.cu"


def grade(*args, timeout=900):
    started = time.monotonic()
    done = subprocess.run([sys.executable, os.path.join(ROOT, "grader", "grade.py"), "--backend",
                           "cpu", "--build-dir", BUILD] + list(args), cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    done.seconds = time.monotonic() - started
    print(f"$ grade.py {' '.join(args)}  ({done.seconds:.0f} s, exit {done.returncode})\n"
          + done.stdout[-2500:] + done.stderr[-1500:], flush=True)
    return done


def submission_with(folder, old, new):
    """A copy of the solution of lab 01 with one change: a bug a student makes."""
    with open(os.path.join(ROOT, "solutions", FILE)) as f:
        text = f.read()
    if old not in text:
        raise AssertionError(f"the solution no longer holds {old!r}: update this test")
    os.makedirs(folder)
    with open(os.path.join(folder, FILE), "w") as f:
        f.write(text.replace(old, new))
    return folder


class StudentLoop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="student-loop-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)
        shutil.rmtree(os.path.join(ROOT, BUILD), ignore_errors=True)

    def test_1_solutions_then_one_lab_of_the_starter(self):
        first = grade("--submission", "solutions", "--labs", "01,02")
        self.assertIn("lab02 ", first.stdout)
        again = grade("--labs", "01")
        table = again.stdout[again.stdout.index("Score table"):]
        self.assertIn(os.path.join(ROOT, "starter"), table.splitlines()[0])
        # The starter's row, not the solution's: its two empty-input passes earn nothing.
        self.assertRegex(table, r"lab01\s+2/18\s+2\s+0/26")
        for lab in ("lab02", "lab03", "lab06"):
            self.assertRegex(table, lab + r"\s+not run this time")
        self.assertIn("Total: 0 / 26 points (labs run this time)", table)
        last = again.stdout.strip().splitlines()
        self.assertIn("2 passed, 16 failed, 2 skipped", "\n".join(last[-8:]))
        # The last line says what to do next (grader/next_step.py).
        self.assertTrue(last[-1].startswith("Next: open handouts/01-global-atomics.md and edit "
                                            "starter/lab01_global_atomics.cu"), last[-1])

    def test_2_a_crash_costs_its_test_and_says_why(self):
        folder = submission_with(os.path.join(self.tmp, "no_tail_check"),
                                 "const long long end = begin + samples_per_thread < n ? "
                                 "begin + samples_per_thread : n;",
                                 "const long long end = begin + samples_per_thread + (1 << 22);")
        done = grade("--submission", folder, "--labs", "01")
        # The runner (the student's code) crashes; the checker says so and starts a new one.
        self.assertIn("the process running your code crashed: SIGSEGV", done.stdout)
        self.assertIn("missing i < n tail check", done.stdout)
        # v2 (grid-stride) is correct: its tests ran, with fresh runners, and passed
        self.assertRegex(done.stdout, r"lab01\s+(\d+)/18")
        passed = int(re.search(r"lab01\s+(\d+)/18", done.stdout).group(1))
        self.assertGreaterEqual(passed, 8)

    def test_3_an_endless_loop_is_stopped_well_under_a_minute(self):
        folder = submission_with(os.path.join(self.tmp, "endless"), "i += stride) {", "i += 0) {")
        done = grade("--submission", folder, "--labs", "01", "--timeout", "3")
        self.assertIn("timed out: Lab01GridStride.MatchesCpuOnUniformSamples still running after 3 s",
                      done.stdout)
        with open(os.path.join(ROOT, BUILD, "results", "lab01-failures.txt")) as f:
            self.assertIn("an endless loop", f.read())
        self.assertLess(done.seconds, 300)

    def test_4_a_tail_short_by_its_samples_gets_the_hint(self):
        folder = submission_with(os.path.join(self.tmp, "rounds_down"),
                                 "(n + per_block - 1) / per_block", "n / per_block")
        done = grade("--submission", folder, "--labs", "01")
        with open(os.path.join(ROOT, BUILD, "results", "lab01-failures.txt")) as f:
            self.assertRegex(f.read(), r"hint: exactly the last \d+ samples were not counted")

    def test_5_a_typo_in_labs_is_said_before_building(self):
        done = grade("--labs", "1", timeout=120)
        self.assertEqual(done.returncode, 2)
        with open(os.path.join(ROOT, "labs", "labs.txt")) as f:  # the one list of labs
            numbers = [line.split("-")[0] for line in f if line.strip() and not line.startswith("#")]
        self.assertIn(f"no lab '1' (labs found: {', '.join(numbers)})", done.stderr)
        self.assertNotIn("meson setup", done.stdout)
        self.assertEqual(grade("--labs", "99", timeout=120).returncode, 2)

    def test_6_a_damaged_data_file_is_a_set_up_error(self):
        data = os.path.join(ROOT, BUILD, "data", "data.bin")
        if not os.path.exists(data):
            grade("--labs", "01")
        with open(data, "r+b") as f:
            f.truncate(os.path.getsize(data) - 4096)
        done = grade("--labs", "01")
        self.assertEqual(done.returncode, 2)
        self.assertIn("is damaged", done.stderr)
        self.assertIn("rm ", done.stderr)
        self.assertNotIn("FAILED", done.stdout)
        os.remove(data)  # the next build makes it anew


if __name__ == "__main__":
    if os.environ.get("STUDENT_LOOP_OUTER_BACKEND", "cpu") != "cpu":
        print("skipped: runs in the cpu-backend project build (once per CI)")
        sys.exit(77)
    unittest.main(verbosity=2)
