"""What test_fixture_class.py grades and how: the fixtures as a class (folders, a zip, a
tar.gz, a stray file), the batch grader run on them, its records read back, and the tests of lab 01
they are judged by (the CPU backend: 22 correctness points and the technique check of what v2's
loads did, 1 point)."""
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile

from batch.tests import machine_speed  # time limits scaled to this machine now

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures")
TOOL = [sys.executable, os.path.join(ROOT, "grader", "grade_submissions.py")]
FILE = "lab01_global_atomics.cu"
HIDDEN_SEED = "918273645"  # long enough that finding it in an output is no accident
DATA_SEED = "273645918"    # the data file's, apart from the inputs'
COMMON = ["--backend", "cpu", "--labs", "01", "--jobs", "2", "--timeout", machine_speed.seconds(10),
          "--no-matplotlib"]
SLICES = ["Lab01Slices." + t for t in (
    "MatchesCpuOnUniformSamples", "MatchesCpuOnNormalSamples", "MatchesCpuOnAllEqualSamples",
    "MatchesCpuWhenEverySampleIsTheLargestValue", "HandlesAnEmptyInput", "HandlesASingleSample",
    "MatchesCpuOn1023Samples", "MatchesCpuWhenSizeIsNotAMultipleOfBlockTimesSlice",
    "MatchesCpuOnTheStandardDataFile", "MatchesCpuForTheLaunchShapesOfTheHandoutTable")]
GRID = ["Lab01GridStride." + t for t in (
    "MatchesCpuOnUniformSamples", "MatchesCpuOnNormalSamples", "MatchesCpuOnAllEqualSamples",
    "MatchesCpuWhenEverySampleIsTheLargestValue", "HandlesAnEmptyInput", "HandlesASingleSample",
    "MatchesCpuWhenSizeIsNotAMultipleOfTheGrid", "MatchesCpuOnTheStandardDataFile")]
EMPTY = {"Lab01Slices.HandlesAnEmptyInput", "Lab01GridStride.HandlesAnEmptyInput"}
# Lab 01's technique check (labs/01-global-atomics/meson.build): graded on what ran, on the CPU
# backend too, once the tests it needs passed; the fixtures below load strided, whatever they hold.
CHECK = "Technique.v2_coalesced_loads"
CHECK_NEEDS = {"Lab01GridStride.MatchesCpuOnUniformSamples", "Lab01GridStride.MatchesCpuWhenSizeIsNotAMultipleOfTheGrid"}
UNCOALESCED = {"transposed_index", "dead_coalesced_loop", "decoy_coalesced_kernel", "idle_named_kernel"}
MAX = 23  # lab 01's correctness points and its check; its speed tests skip on the CPU backend


def grade(*args):
    started = time.monotonic()
    done = subprocess.run(TOOL + list(args), capture_output=True, text=True, timeout=1500)
    print(f"$ grade_submissions.py {' '.join(args)}  ({time.monotonic() - started:.0f} s)\n"
          + done.stdout[-3000:] + done.stderr[-3000:], flush=True)
    return done


def make_class(folder, names):
    """The fixtures as a class: some folders, one zip (nested), one tar.gz, and a stray file."""
    os.makedirs(folder)
    for name in names:
        source = os.path.join(FIXTURES, name)
        if name == "correct":
            with zipfile.ZipFile(os.path.join(folder, "correct.zip"), "w") as z:
                z.write(os.path.join(source, FILE), f"correct-work/src/{FILE}")
        elif name == "wrong_tail":
            with tarfile.open(os.path.join(folder, "wrong_tail.tar.gz"), "w:gz") as t:
                t.add(source, "wrong_tail")
        else:
            shutil.copytree(source, os.path.join(folder, name))
    with open(os.path.join(folder, "README.txt"), "w") as f:
        f.write("not a submission\n")


def load(report):
    records = {}
    for student in os.listdir(os.path.join(report, "submissions")):
        with open(os.path.join(report, "submissions", student, "grading.json")) as f:
            records[student] = json.load(f)
    return records


def tests_of(record):
    return {t["name"]: t for t in record["labs"]["lab01"]["tests"]}


class FixtureRecords:
    """What a graded class shows (`self.records`, `self.report`: set up by the test class)."""

    def expect(self, student, passed, failed_with=None, status="failing"):
        """`passed`: the tests that must pass, every other one fails (with `failed_with` in its
        message, where given). The technique check passes where the tests it needs pass and the
        student's v2 loads coalesced (all but UNCOALESCED)."""
        record = self.records[student]
        tests = tests_of(record)
        passed = set(passed) | ({CHECK} if CHECK_NEEDS <= set(passed) and student not in UNCOALESCED else set())
        self.assertEqual(record["max_score"], MAX, student)
        self.assertEqual(set(tests), set(SLICES + GRID + [CHECK]), student)
        for name, t in tests.items():
            want = "passed" if name in passed else "failed"
            self.assertEqual(t["status"], want, f"{student} {name}: {t['message'][:300]}")
            if want == "failed" and failed_with and name != CHECK:
                self.assertIn(failed_with, t["message"], f"{student} {name}")
        # An edge test (n = 0, n = 1) earns its points only when the tests it needs passed too.
        earning = [n for n in passed if all(m in passed for m in tests[n].get("needs") or [])]
        self.assertEqual(record["score"], sum(tests[n]["max_score"] for n in earning), student)
        self.assertEqual(record["labs"]["lab01"]["status"], "graded" if status == "failing" else status)
        return record

    def student_files(self, student):
        """What a student is shown: results.json and log.txt."""
        folder = os.path.join(self.report, "submissions", student)
        return {name: open(os.path.join(folder, name), encoding="utf-8").read()
                for name in ("results.json", "log.txt")}

    def instructor_log(self, student):
        """The instructor's log: every line the runs printed (the student's log.txt holds few)."""
        with open(os.path.join(self.report, "submissions", student, "instructor-log.txt"),
                  encoding="utf-8") as f:
            return f.read()
