#!/usr/bin/env python3
"""The loop a student repeats, replayed on the CPU backend through `grader/grade.py`, asserting
what the student sees: the score table shows this run only; a crash and an endless loop are
reported on their tests, with the cause, while the other tests still run (the endless loop costs
the limit once, said at once, with a line of progress while it waits); Ctrl-C stops it all with
one line; a typo in --labs and a damaged data file are set-up errors, said before anything is
graded.

It builds lab 01 a few times in its own build folder (build-student-loop): minutes on 2 cores.
Exit 77 (SKIP) in a cuda-backend project build: the cpu one runs it, once per CI."""
import json
import os
import re
import shutil
import signal
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
    # A wide terminal: the lines this test looks for stay whole (test_first_run.py checks the
    # wrapping to 80 columns).
    done = subprocess.run([sys.executable, os.path.join(ROOT, "grader", "grade.py"), "--backend",
                           "cpu", "--build-dir", BUILD] + list(args), cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, COLUMNS="400"))
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


def commands_with(text):
    """Command lines of live processes that hold `text`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in command:
            found.append(command)
    return found


def wait_for(predicate, limit_s):
    deadline = time.monotonic() + limit_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


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
        # `meson test --suite lab01` grades through the same harness: the same row after it.
        row = next(line for line in first.stdout.splitlines() if line.startswith("lab01 "))
        meson = subprocess.run(["meson", "test", "-C", BUILD, "--suite", "lab01", "--no-rebuild"],
                               cwd=ROOT, capture_output=True, text=True, timeout=600)
        self.assertEqual(meson.returncode, 0, meson.stdout[-2000:])
        table = subprocess.run([sys.executable, os.path.join(ROOT, "grader", "report.py"), BUILD],
                               cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
        self.assertIn(row, table.splitlines())
        again = grade("--labs", "01")
        table = again.stdout[again.stdout.index("Score table"):]
        self.assertIn("submission: starter", table.splitlines()[0])
        # The starter's row, not the solution's: its two empty-input passes earn nothing.
        self.assertRegex(table, r"lab01\s+2/18\s+2\s+0/26")
        for lab in ("lab02", "lab03", "lab06"):
            self.assertRegex(table, lab + r"\s+not run this time")
        # 26 points of tests and lab 01's technique check (what v2's loads did: none, here).
        self.assertIn("Total: 0 / 27 points (labs run this time)", table)
        last = again.stdout.strip().splitlines()
        self.assertIn("2 passed, 17 failed, 2 skipped", "\n".join(last[-8:]))
        # The last line says what to do next (grader/next_step.py).
        self.assertTrue(last[-1].startswith("Next: open handouts/01-global-atomics.md and edit "
                                            "starter/lab01_global_atomics.cu"), last[-1])
        # Lab 02 stays in the build (the build's labs only grow), but --labs 01 compiles lab 01
        # alone: an unfinished lab 02 does not stop it.
        folder = submission_with(os.path.join(self.tmp, "lab02-unfinished"), "", "")
        with open(os.path.join(folder, "lab02_unrolling_ilp.cu"), "w") as f:
            f.write("this lab is not written yet\n")
        alone = grade("--labs", "01", "--submission", folder)
        self.assertEqual(alone.returncode, 0, alone.stdout[-2000:])
        self.assertRegex(alone.stdout, r"lab01\s+18/18\s+2\s+")

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

    def test_3_an_endless_loop_costs_the_limit_once_and_is_said_while_waiting(self):
        folder = submission_with(os.path.join(self.tmp, "endless"), "i += stride) {", "i += 0) {")
        done = grade("--submission", folder, "--labs", "01", "--timeout", "12")
        # Said when it happens, then the other tests of the version get a short probe each.
        self.assertIn("  lab01: Lab01GridStride.MatchesCpuOnUniformSamples failed: "
                      "lab01::histogram_v2_grid_stride: the process running your code did not finish "
                      "within 12 s: an endless loop", done.stdout)
        self.assertIn("(to allow more time: grade.py --timeout 24)", done.stdout)
        self.assertRegex(done.stdout, r"  lab01: \d+/20 tests, 1\d s, running ")  # not silent
        with open(os.path.join(ROOT, BUILD, "results", "lab01.json")) as f:
            tests = {t["name"]: t for t in json.load(f)["tests"]}
        hung = [t for t in tests.values() if t["status"] == "failed"]
        self.assertEqual({t["fault"] for t in hung}, {"timeout"})
        self.assertEqual(sum("within 12 s" in t["message"] for t in hung), 1)
        probed = [t for t in hung if "within a 1 s probe: it already ran past the 12 s limit in "
                  "Lab01GridStride.MatchesCpuOnUniformSamples" in t["message"]]
        self.assertEqual(len(probed), len(hung) - 1)
        self.assertGreaterEqual(len(probed), 5)
        # The call that returns at once still does, and v1 is graded as before.
        self.assertEqual(tests["Lab01GridStride.HandlesAnEmptyInput"]["status"], "passed")
        self.assertTrue(all(t["status"] == "passed" for n, t in tests.items() if n.startswith("Lab01Slices.")))

    def test_7_ctrl_c_stops_everything_with_one_line(self):
        folder = os.path.join(self.tmp, "endless")
        if not os.path.isdir(folder):
            submission_with(folder, "i += stride) {", "i += 0) {")
        process = subprocess.Popen([sys.executable, os.path.join(ROOT, "grader", "grade.py"),
                                    "--backend", "cpu", "--build-dir", BUILD, "--submission", folder,
                                    "--labs", "01", "--timeout", "120"], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ours = os.path.join(ROOT, BUILD)  # only this test's processes hold its build folder
        runner = os.path.join(ours, "labs", "lab01_runner_graded")
        self.assertTrue(wait_for(lambda: any(c.split(" ")[0] == runner for c in commands_with(ours)),
                                 600), "the runner never ran")
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
        self.assertEqual(process.returncode, 130, stdout[-2000:] + stderr[-2000:])
        self.assertNotIn("Traceback", stderr)
        self.assertEqual([line for line in stderr.splitlines() if line.strip()],
                         ["grade.py stopped (Ctrl-C); every program it had started is stopped too."])
        self.assertTrue(wait_for(lambda: not commands_with(ours), 10), commands_with(ours))

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
