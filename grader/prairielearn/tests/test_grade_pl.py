#!/usr/bin/env python3
"""PrairieLearn's entry point end to end on the CPU backend (about two minutes: it builds lab 01
once), as in a PrairieLearn image: the students' copy of the project (grade_pl.py export) in a
folder every user can read, the system's tools (PATH /usr/local/bin:/usr/bin:/bin: meson, ninja,
numpy where nobody can run them), run.sh in a fake /grade (PL_GRADE_ROOT) with the question
template's server files (--sandbox=uid) and a hidden seed, after its warm-up: lab 01 of the
solutions scores 1 with every test's points, the starter 0, a file that does not compile is not
gradable with the compiler's message, a grader that cannot set up its sandbox gives not gradable
with the reason, and attacks on the uid sandbox fail (the batch's fixtures graded as PrairieLearn
would: nothing outlives a job, no secret reaches the student, nothing can be written where the
results go); every results.json meets the documented format.

Skips (exit 77), saying why: GRADER_SKIP_SLOW=1; a build of another backend than cpu (it grades
on the CPU backend whatever the build, and the cpu build runs it). Where the uid sandbox cannot
start (not root, or the system's tools missing) every case must be not gradable, saying so;
GRADER_REQUIRE_UID_SANDBOX=1 (CI) makes that a failure."""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from batch import project
from batch.tests.fixture_class_run import MAX  # lab 01's points on the CPU backend (23)
from prairielearn import results_format
from batch.tests import machine_speed  # time limits scaled to this machine

ROOT = project.ROOT
SERVER_FILES = os.path.join(ROOT, "grader", "prairielearn", "question", "serverFilesCourse")
FIXTURES = os.path.join(ROOT, "grader", "batch", "fixtures")
FILE = "lab01_global_atomics.cu"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
SEED = str(random.SystemRandom().randrange(10 ** 8, 10 ** 9))  # in no file of the project


def uid_sandbox_problem(workbook):
    """Why the uid sandbox cannot start with the system's tools, or None."""
    if shutil.which("meson", path=SYSTEM_PATH) is None:
        return f"no meson on {SYSTEM_PATH} (Debian: apt-get install meson python3-numpy)"
    done = subprocess.run(["python3", "-c", "from batch import uid_sandbox\n"
                           "uid_sandbox.detect('nobody', False)"], capture_output=True, text=True,
                          env=dict(os.environ, PATH=SYSTEM_PATH,
                                   PYTHONPATH=os.path.join(workbook, "grader")))
    return (done.stderr.strip().splitlines() or ["?"])[-1] if done.returncode else None


def run_uids():
    """Processes of the uids the uid sandbox runs student code as, still alive."""
    from batch import uid_sandbox, uid_start
    return [pid for index in range(16) for pid in uid_start.processes_of(uid_sandbox.UID_BASE + index)]


class GradePlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="prairielearn-")
        os.chmod(cls.tmp, 0o755)  # as an image's folders: the run uids reach the project's copy
        cls.workbook = os.path.join(cls.tmp, "workbook")
        subprocess.run([sys.executable, os.path.join(ROOT, "grader", "prairielearn", "grade_pl.py"),
                        "export", cls.workbook], check=True, capture_output=True)
        cls.run_sh = os.path.join(cls.workbook, "grader", "prairielearn", "run.sh")
        cls.grade = os.path.join(cls.tmp, "grade")
        settings = os.path.join(cls.grade, "serverFilesCourse", "gpu_workbook")
        shutil.copytree(SERVER_FILES, os.path.join(cls.grade, "serverFilesCourse"))
        with open(os.path.join(settings, "grade_args"), "a") as f:
            f.write(f"--timeout={machine_speed.seconds(20)}\n--jobs=1\n")
        with open(os.path.join(settings, "seed"), "w") as f:  # as a course's repository has it
            f.write(f"{SEED}\n")
        cls.env = dict(os.environ, PL_GRADE_ROOT=cls.grade, PATH=SYSTEM_PATH)
        for name in ("PL_SETTINGS", "PL_WORK_DIR", "PYTHONPATH", "VIRTUAL_ENV"):
            cls.env.pop(name, None)
        started = time.monotonic()
        done = subprocess.run(["bash", cls.run_sh, "warm-up", "--labs", "01"], env=cls.env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1500)
        print(f"warm-up: {time.monotonic() - started:.0f} s, status {done.returncode}\n"
              + done.stdout[-1500:], flush=True)
        cls.problem = uid_sandbox_problem(cls.workbook)
        if cls.problem and os.environ.get("GRADER_REQUIRE_UID_SANDBOX"):
            raise AssertionError(f"GRADER_REQUIRE_UID_SANDBOX is set, but: {cls.problem}")

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
        done = subprocess.run(["bash", self.run_sh, "--labs", "01"], env=dict(self.env, **(env or {})),
                              text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
        print(f"one job: {time.monotonic() - started:.1f} s", flush=True)
        self.assertEqual(done.returncode, 0, done.stdout[-3000:])
        with open(os.path.join(results, "results.json"), encoding="utf-8") as f:
            results = json.load(f)
        self.assertEqual(results_format.problems(results), [], results)
        self.assertNotIn(SEED, json.dumps(results))
        self.assertEqual(run_uids(), [], "a process of student code outlived its job")
        self.assertEqual(os.stat(os.path.join(self.grade, "serverFilesCourse")).st_mode & 0o077, 0)
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
        self.assertEqual(sum(t["max_points"] for t in results["tests"]), MAX)  # lab 01, CPU backend
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

    def test_attacks_on_the_uid_sandbox_fail(self):
        # The batch's fixtures (grader/batch/fixtures/README.md), each graded as one job: the score
        # PrairieLearn gets (lab 01, CPU backend: MAX points) and a line its log must hold.
        expected = {
            "detached_process": (1.0, None),       # its setsid'd sleep is killed after the run
            "memory_reader": (1.0, "reader: parent_mem=denied parent_environ=denied "
                                   "parent_maps=denied ptrace=denied"),
            "snooping": ((MAX - 1) / MAX, "seed_in_env=0 seed_in_args=0"),
            "macro_include": (1.0, None),          # the report is the grader's alone
            "key_thief": (0.0, None),              # withheld, its verdicts not believed
            "process_flood": (None, None),         # its own runs lose their threads; nothing survives
        }
        for name, (score, line) in expected.items():
            with self.subTest(name):
                with open(os.path.join(FIXTURES, name, FILE), "rb") as f:
                    results, out = self.grade_file(f.read())
                if self.problem:
                    continue
                self.assertIs(results["gradable"], True, out[-3000:])
                if score is not None:
                    self.assertAlmostEqual(results["score"], score, places=5, msg=results["message"])
                if line:
                    self.assertIn(line, results["output"])

    def test_no_sandbox_is_not_gradable_and_says_why(self):
        settings = os.path.join(self.tmp, "no-sandbox")
        os.makedirs(settings, exist_ok=True)
        with open(os.path.join(settings, "grade_args"), "w") as f:
            f.write("--run-as=no-such-user\n--sandbox=uid\n")
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
