#!/usr/bin/env python3
"""PrairieLearn's entry point end to end on the CPU backend (about a minute: it builds lab 01 once):
run.sh in a fake /grade (PL_GRADE_ROOT), with the question template's server files, after its
warm-up: lab 01 of the solutions scores 1 with every test's points, the starter 0, a file that
does not compile is not gradable with the compiler's message, and a grader that cannot set up its
sandbox gives not gradable with the reason; every results.json meets the documented format.

Skips (exit 77), saying why: GRADER_SKIP_SLOW=1; a build of another backend than cpu (it grades
on the CPU backend whatever the build, and the cpu build runs it). Without a sandbox every case
must be not gradable, saying so."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from batch import project
from batch.tests.test_gradescope import sandbox_problem  # why the batch's sandbox cannot run here
from prairielearn import results_format
from batch.tests import machine_speed  # time limits scaled to this machine

ROOT = project.ROOT
RUN = os.path.join(ROOT, "grader", "prairielearn", "run.sh")
SERVER_FILES = os.path.join(ROOT, "grader", "prairielearn", "question", "serverFilesCourse")
FILE = "lab01_global_atomics.cu"


class GradePlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="prairielearn-")
        cls.grade = os.path.join(cls.tmp, "grade")
        shutil.copytree(SERVER_FILES, os.path.join(cls.grade, "serverFilesCourse"))
        with open(os.path.join(cls.grade, "serverFilesCourse", "gpu_workbook", "grade_args"), "a") as f:
            f.write(f"--timeout={machine_speed.seconds(20)}\n--jobs=1\n")
        cls.env = dict(os.environ, PL_GRADE_ROOT=cls.grade, PL_WORK_DIR=os.path.join(cls.tmp, "work"))
        cls.env.pop("PL_SETTINGS", None)
        started = time.monotonic()
        done = subprocess.run(["bash", RUN, "warm-up", "--labs", "01"], env=cls.env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1500)
        print(f"warm-up: {time.monotonic() - started:.0f} s, status {done.returncode}\n"
              + done.stdout[-1500:], flush=True)
        cls.problem = sandbox_problem()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def grade_file(self, data, env=None):
        student, results = os.path.join(self.grade, "student"), os.path.join(self.grade, "results")
        for folder in (student, results):
            shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(student)
        with open(os.path.join(student, FILE), "wb") as f:
            f.write(data)
        started = time.monotonic()
        done = subprocess.run(["bash", RUN, "--labs", "01"], env=dict(self.env, **(env or {})),
                              text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
        print(f"one job: {time.monotonic() - started:.1f} s", flush=True)
        self.assertEqual(done.returncode, 0, done.stdout[-3000:])
        with open(os.path.join(results, "results.json"), encoding="utf-8") as f:
            results = json.load(f)
        self.assertEqual(results_format.problems(results), [], results)
        if self.problem:
            self.assertIs(results["gradable"], False)
            self.assertIn("sandbox", results["message"])
        return results, done.stdout

    def lab_file(self, folder):
        with open(os.path.join(ROOT, folder, FILE), "rb") as f:
            return f.read()

    def test_solutions_score_1(self):
        results, out = self.grade_file(self.lab_file("solutions"))
        if self.problem:
            return
        self.assertIs(results["gradable"], True, out[-3000:])
        self.assertEqual(results["score"], 1.0, results["message"])
        self.assertEqual([t["name"] for t in results["tests"] if t["points"] != t["max_points"]], [])
        self.assertEqual(sum(t["max_points"] for t in results["tests"]), 22)  # lab 01, CPU backend
        self.assertIn("CPU backend", results["message"])

    def test_starter_scores_0(self):
        results, out = self.grade_file(self.lab_file("starter"))
        if self.problem:
            return
        self.assertIs(results["gradable"], True, out[-3000:])
        self.assertEqual(results["score"], 0.0)
        self.assertTrue(any(t["max_points"] > 0 and "bins wrong" in t["message"]
                            for t in results["tests"]))

    def test_a_file_that_does_not_compile_is_not_gradable(self):
        results, _ = self.grade_file(b"__global__ void histogram_v1_slices( {\n")
        if self.problem:
            return
        self.assertIs(results["gradable"], False)
        self.assertIn("does not compile", results["message"])
        self.assertIn(FILE, results["format_errors"][0])

    def test_a_kernel_cannot_write_the_results(self):
        # The solution, whose first launcher also tries to write a forged results.json where
        # PrairieLearn reads it, and a marker beside it: the sandbox binds neither folder.
        forged = os.path.join(self.grade, "results", "results.json")
        marker = os.path.join(self.tmp, "forged-marker")
        source = self.lab_file("solutions").decode()
        signature = ("void histogram_v1_slices(const int* d_samples, int n, int* d_bins, "
                     "SliceLaunch launch) {")
        self.assertIn(signature, source)
        forge = ("#include <cstdio>\n#include <initializer_list>\n"
                 "static void forge() {\n  for (const char* path : {"
                 f"{json.dumps(forged)}, {json.dumps(marker)}, \"/grade/results/results.json\""
                 "}) {\n    if (FILE* f = std::fopen(path, \"w\")) {\n"
                 "      std::fputs(\"{\\\"score\\\": 0.0, \\\"message\\\": \\\"forged\\\"}\", f);\n"
                 "      std::fclose(f);\n    }\n  }\n}\n")
        source = forge + source.replace(signature, signature + "\n  forge();")
        results, out = self.grade_file(source.encode())
        self.assertFalse(os.path.exists(marker), "the kernel wrote outside its sandbox")
        self.assertNotIn("forged", json.dumps(results))
        if self.problem:
            return
        self.assertEqual(results["score"], 1.0, results["message"])

    def test_no_sandbox_is_not_gradable_and_says_why(self):
        settings = os.path.join(self.tmp, "no-sandbox")
        os.makedirs(settings, exist_ok=True)
        with open(os.path.join(settings, "grade_args"), "w") as f:
            f.write("--run-as=no-such-user\n")
        results, out = self.grade_file(self.lab_file("solutions"), {"PL_SETTINGS": settings})
        self.assertIs(results["gradable"], False)
        self.assertIn("not of your code", results["message"])
        self.assertIn("no-such-user", results["message"])


if __name__ == "__main__":
    if os.environ.get("GRADER_SKIP_SLOW"):
        print("skipped: GRADER_SKIP_SLOW is set: PrairieLearn's end-to-end run (builds lab 01) skipped")
        sys.exit(77)
    if os.environ.get("BATCH_OUTER_BACKEND", "cpu") != "cpu":
        print("skipped: this build's backend is not cpu; the entry point grades on the CPU backend "
              "whatever the build, and the cpu build runs this test")
        sys.exit(77)
    unittest.main(verbosity=2)
