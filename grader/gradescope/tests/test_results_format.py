#!/usr/bin/env python3
"""Gradescope: results.json checked against the published specification, visibility by kind of
test, notes for the instructor (never a test, never hiding the total), and the autograder
template of grader/gradescope/ run in a fake /autograder tree: the precomputed mode (fast) and
the cpu mode end to end on one fixture (minutes: it builds lab 01; GRADER_SKIP_SLOW=1 skips it)."""
import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import zipfile

from batch import cli, grading, integrity, project, reports, submissions
from gradescope import results_format
from runs import harness
from batch.builder import LabBuild
from gradescope import make_autograder_zip
from batch.tests import machine_speed  # time limits scaled to this machine
from batch.tests.fixture_class_run import MAX  # lab 01's points on the CPU backend

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

LAB = project.Lab("lab01", "01", "01-global-atomics", "lab01_global_atomics.cu")
FILE = LAB.submission_file
NUMBER = (int, float)
# https://gradescope-autograders.readthedocs.io/en/latest/specs/ ("Output format")
TOP_FIELDS = {"score": NUMBER, "execution_time": NUMBER, "output": str, "output_format": str,
              "test_output_format": str, "test_name_format": str, "visibility": str,
              "stdout_visibility": str, "extra_data": dict, "tests": list, "leaderboard": list}
TEST_FIELDS = {"score": NUMBER, "max_score": NUMBER, "status": str, "name": str, "name_format": str,
               "number": str, "output": str, "output_format": str, "tags": list, "visibility": str,
               "extra_data": dict}
FORMATS = ("text", "html", "simple_format", "md", "ansi")
FORMAT_FIELDS = ("output_format", "test_output_format", "test_name_format", "name_format")


def spec_problems(results):
    """What in `results` the specification does not allow; [] when it is a valid results.json."""
    problems = []

    def check(where, value, fields):
        for key, item in value.items():
            if key not in fields:
                problems.append(f"{where}: {key!r} is not a documented field")
            elif isinstance(item, bool) or not isinstance(item, fields[key]):
                problems.append(f"{where}: {key} is a {type(item).__name__}")
            elif key in ("visibility", "stdout_visibility") and item not in results_format.VISIBILITIES:
                problems.append(f"{where}: {key} {item!r}")
            elif key in FORMAT_FIELDS and item not in FORMATS:
                problems.append(f"{where}: {key} {item!r}")
            elif key == "status" and item not in ("passed", "failed"):
                problems.append(f"{where}: status {item!r}")
    if not isinstance(results, dict):
        return ["not a JSON object"]
    try:
        json.dumps(results, allow_nan=False)
    except ValueError as error:
        problems.append(f"not strict JSON: {error}")
    check("top level", results, TOP_FIELDS)
    for i, test in enumerate(results.get("tests") or []):
        if not isinstance(test, dict):
            problems.append(f"test {i}: not an object")
            continue
        check(f"test {i} ({test.get('name')})", test, TEST_FIELDS)
        if "score" not in results and "score" not in test:
            problems.append(f"test {i}: no score, and no top-level score")
    if "score" not in results and not results.get("tests"):
        problems.append("neither a top-level score nor tests")
    for i, entry in enumerate(results.get("leaderboard") or []):
        if set(entry) - {"name", "value", "order"} or not isinstance(entry.get("name"), str) \
                or not isinstance(entry.get("value"), (int, float, str)) \
                or entry.get("order", "desc") not in ("asc", "desc"):
            problems.append(f"leaderboard {i}: {entry}")
    return problems


# ---- synthetic records ---------------------------------------------------------------------------
CORRECTNESS = [("Lab01Slices.MatchesCpu", 2, 0), ("Lab01GridStride.MatchesCpu", 1, 0)]
SPEED = [("Lab01Speed.SlicesRunWithinOneAndAHalfTimesTheBaseline", 2, 1)]
CHECK = "Lab01Technique.UsesSharedAtomics"
REFERENCE = {"lab": "lab01", "findings": [],
             "tests": [{"name": n, "points": p, "stretch_points": s, "status": "passed", "message": ""}
                       for n, p, s in CORRECTNESS + SPEED],
             "checks": [{"name": CHECK, "max_score": 1, "status": "passed"}]}
TECHNIQUE = [{"check": "lab01 technique", "returncode": 0, "output": "",
              "results": {"tests": [{"name": CHECK, "status": "passed", "score": 1, "max_score": 1}]}}]
FLAG = "calls exit()"


def run_of(passed=True, speed_passed=True):
    result = harness.RunResult()
    for name, _, _ in CORRECTNESS:
        result.outcomes[name] = harness.TestOutcome(name, "passed" if passed else "failed",
                                                   "" if passed else "bins wrong at 3")
    name = SPEED[0][0]
    result.outcomes[name] = harness.TestOutcome(
        name, "passed" if speed_passed else "failed", "" if speed_passed else "2.1x the baseline",
        metrics={"time_ms": 0.42, "speedup_vs_baseline": 1.1}, tiers=[{"name": "stretch", "met": True}])
    return result


def record(student, build, run, fingerprint="f" * 64):
    labs = {"lab01": grading.assemble_lab(LAB, build, run, REFERENCE, "zero")}
    return grading.submission_record(student, student, fingerprint, "key", labs, [], 2.0, "nobody")


def class_of_records():
    """Every case results.json must carry: all passed, a compile error, a withheld integrity
    finding, a flagged (suspicious) submission with forged channel lines, a failed speed test."""
    shortcut = integrity.finding("shortcut", "library", "line 3: cub::DeviceHistogram", "source")
    suspicious = integrity.finding("suspicious", "host-call", f"line 9: {FLAG}", "source")
    flagged_run = run_of()
    flagged_run.forged_lines = 2
    return {
        "passes": record("passes", LabBuild("lab01", "built", checks=TECHNIQUE), run_of()),
        "compile_error": record("compile_error", LabBuild(
            "lab01", "compile_error", output=f"{FILE}:3:1: error: expected ';'"), None),
        "withheld": record("withheld", LabBuild("lab01", "built", findings=[shortcut],
                                                checks=TECHNIQUE), run_of()),
        "flagged": record("flagged", LabBuild("lab01", "built", findings=[suspicious],
                                              checks=TECHNIQUE), flagged_run),
        "slow": record("slow", LabBuild("lab01", "built", checks=TECHNIQUE), run_of(speed_passed=False)),
    }


def expected_kind(test_name):
    if "compiles" in test_name or "integrity" in test_name:
        return "compile"
    return "speed" if "Speed" in test_name else "check" if "Technique" in test_name else "correctness"


class ResultsTest(unittest.TestCase):
    def test_every_case_meets_the_specification(self):
        for student, rec in class_of_records().items():
            for policy in (None, "after_published", results_format.VisibilityPolicy().with_kind("speed", "hidden")):
                results = results_format.results_json(rec, policy)
                self.assertEqual(spec_problems(results), [], f"{student} {policy}")
                self.assertAlmostEqual(results["score"], sum(t["score"] for t in results["tests"]))
        cases = class_of_records()
        self.assertEqual(results_format.results_json(cases["passes"])["score"], 7)  # 2 + 1 + 2 + stretch 1 + check 1
        compile_error = results_format.results_json(cases["compile_error"])
        self.assertIn("lab01: lab01_global_atomics.cu compiles", [t["name"] for t in compile_error["tests"]])
        self.assertIn("expected ';'", compile_error["output"])
        withheld = results_format.results_json(cases["withheld"])
        self.assertEqual(withheld["score"], 0)
        self.assertIn("cub::DeviceHistogram", withheld["output"])

    def test_the_validator_catches_what_gradescope_does_not_document(self):
        good = results_format.results_json(class_of_records()["passes"])
        for broken in ({"max_score": 6}, {"visibility": "sometimes"}, {"output_format": "pdf"},
                       {"score": "6"}, {"score": float("nan")}, {"execution_time": True}):
            self.assertNotEqual(spec_problems(dict(good, **broken)), [], broken)
        self.assertNotEqual(spec_problems(dict(good, tests=[dict(good["tests"][0], status="skipped")])), [])

    def test_visibility_by_kind_of_test(self):
        args = cli.parse_args(["class", "--out", "r", "--visibility", "after_published",
                               "--test-visibility", "speed=after_due_date",
                               "--test-visibility", "check=hidden",
                               "--test-visibility", "compile=visible"])
        policy = args.visibility
        for student, rec in class_of_records().items():
            results = results_format.results_json(rec, policy)
            self.assertEqual(results["visibility"], "after_published")
            for test in results["tests"]:
                kind = expected_kind(test["name"])
                self.assertEqual(test["extra_data"]["kind"], kind, test["name"])
                self.assertEqual(test["visibility"], policy.of(kind), test["name"])
            self.assertNotIn("leaderboard", results)  # speed figures wait with the speed tests
        self.assertEqual(policy.of("correctness"), "after_published")
        slow = results_format.results_json(class_of_records()["slow"],
                                       results_format.VisibilityPolicy().with_kind("speed", "after_due_date"))
        self.assertNotIn("Speed", slow["output"])  # a test not shown yet is not told in the summary
        self.assertIn("not shown yet", slow["output"])
        self.assertEqual(cli.parse_args(["c", "--out", "r"]).visibility, results_format.VisibilityPolicy())

    def test_bad_values_are_refused_clearly(self):
        for bad, says in ((["--visibility", "later"], "is not a Gradescope visibility"),
                          (["--test-visibility", "sped=hidden"], "is not a kind of test"),
                          (["--test-visibility", "speed"], "expected KIND=VALUE"),
                          (["--test-visibility", "speed=soon"], "after_due_date")):
            stderr = io.StringIO()
            with contextlib.redirect_stderr(stderr), self.assertRaises(SystemExit) as exit_:
                cli.parse_args(["class", "--out", "r"] + bad)
            self.assertEqual(exit_.exception.code, 2)
            self.assertIn(says, stderr.getvalue())

    def test_notes_never_hide_a_test_or_the_total(self):
        cases = class_of_records()
        for policy in (None, results_format.VisibilityPolicy().with_kind("speed", "hidden")):
            flagged = results_format.results_json(cases["flagged"], policy)
            clean = results_format.results_json(cases["passes"], policy)
            shape = lambda r: [(t["name"], t["visibility"], t["score"]) for t in r["tests"]]
            self.assertEqual(shape(flagged), shape(clean))  # the flag adds and hides nothing
            self.assertEqual(flagged["score"], clean["score"])
            notes = flagged["extra_data"]["instructor_notes"]["lab01"]
            self.assertTrue(any(FLAG in n for n in notes))
            self.assertTrue(any("2 line(s)" in n for n in notes))
            self.assertNotIn(FLAG, json.dumps(flagged["tests"]) + flagged["output"])
        self.assertEqual(results_format.hidden_tests(results_format.results_json(cases["flagged"])), [])

    def test_the_report_writes_the_policy(self):
        tmp = tempfile.mkdtemp(prefix="gradescope-test-")
        self.addCleanup(shutil.rmtree, tmp, True)
        policy = results_format.VisibilityPolicy().with_kind("speed", "after_due_date")
        reports.write_submission(tmp, class_of_records()["passes"], policy)
        with open(os.path.join(tmp, "submissions", "passes", "results.json")) as f:
            written = json.load(f)
        self.assertEqual({t["visibility"] for t in written["tests"] if "Speed" in t["name"]},
                         {"after_due_date"})


# ---- the template in a fake /autograder ----------------------------------------------------------
def unpack(zip_path, folder):
    """As unzip does, with the files' modes (Python's extractall drops them)."""
    with zipfile.ZipFile(zip_path) as archive:
        for info in archive.infolist():
            path = archive.extract(info, folder)
            mode = info.external_attr >> 16 & 0o777
            if mode:
                os.chmod(path, mode)
        return archive.namelist()


def make_zip(folder, *argv):
    out = os.path.join(folder, "autograder.zip")
    with contextlib.redirect_stdout(io.StringIO()):
        make_autograder_zip.main(["--out", out] + list(argv))
    return out


def run_autograder(root, metadata, submission_files, env=None, timeout=120):
    """A fresh submission in `root` (holding source/), then run_autograder: (results, stdout)."""
    for name in ("submission", "results"):
        shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        os.makedirs(os.path.join(root, name))
    for name, data in submission_files.items():
        with open(os.path.join(root, "submission", name), "wb") as f:
            f.write(data)
    with open(os.path.join(root, "submission_metadata.json"), "w") as f:
        json.dump(metadata, f)
    done = subprocess.run(["bash", os.path.join(root, "source", "run_autograder")], cwd=root,
                          env=dict(os.environ, AUTOGRADER_ROOT=root, **(env or {})),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    with open(os.path.join(root, "results", "results.json")) as f:
        return json.load(f), done.stdout


class PrecomputedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gradescope-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_results_are_found_by_submission_or_user_id_only_and_else_say_so(self):
        graded = {FILE: b"__global__ void graded() {}\n"}
        fingerprint = submissions.CollectedFiles(graded).fingerprint()
        report = os.path.join(self.tmp, "report")
        cases = class_of_records()
        for name, rec in (("submission_1234", cases["passes"]), ("user_42", cases["flagged"]),
                          ("Carol", cases["passes"]), ("carol_uni.edu", cases["passes"])):
            reports.write_submission(report, dict(rec, student=name, fingerprint=fingerprint), "visible")
        names = unpack(make_zip(self.tmp, "--mode", "precomputed", "--report", report),
                       os.path.join(self.tmp, "ag", "source"))
        for required in ("setup.sh", "run_autograder", "gradescope_mode", "grader/grade_submissions.py",
                         "starter/" + FILE, "precomputed/submission_1234/results.json"):
            self.assertIn(required, names)
        for name in names:  # the project as students see it: no answers, no answer keys
            self.assertFalse(name.startswith(("solutions/", ".git/", "build", ".venv/")), name)
            self.assertNotIn("batch/fixtures/", name)
            self.assertFalse(name.endswith("-answers.md") or name.startswith("grader/bench/"), name)
        root = os.path.join(self.tmp, "ag")

        results, out = run_autograder(root, {"id": 1234, "users": [{"email": "x@y", "name": "X"}]}, graded)
        self.assertEqual(spec_problems(results), [])
        self.assertEqual(results["score"], 7)
        self.assertNotIn("differ", results["output"])

        # by user id; the upload is not the graded files, which the output says;
        # the instructor's notes are on stdout (instructors only), not in the student's view
        results, out = run_autograder(root, {"id": 77, "users": [{"id": 42, "email": "a@uni.edu"}]},
                                      {FILE: b"something else"})
        self.assertEqual(results["score"], 7)
        self.assertIn("differ from this upload", results["output"])
        self.assertIn(FLAG, out)
        self.assertEqual(results_format.hidden_tests(results), [])

        # never by a name or an email a student can change (here: to folders graded for others)
        results, out = run_autograder(root, {"id": 5, "users": [{"id": 9, "email": "carol@uni.edu",
                                                                 "name": "Carol"}]}, graded)
        self.assertEqual(spec_problems(results), [])
        self.assertEqual(results["score"], 0)
        self.assertIn("No result has been computed for this submission", results["output"])
        self.assertIn("submission_5", results["output"])

    def test_a_report_can_be_published_with_other_visibility(self):
        report = os.path.join(self.tmp, "report")
        reports.write_submission(report, class_of_records()["slow"], "visible")
        unpack(make_zip(self.tmp, "--mode", "precomputed", "--report", report,
                        "--test-visibility", "speed=after_due_date"), os.path.join(self.tmp, "src"))
        with open(os.path.join(self.tmp, "src", "precomputed", "slow", "results.json")) as f:
            results = json.load(f)
        self.assertEqual({t["visibility"] for t in results["tests"] if "Speed" in t["name"]},
                         {"after_due_date"})


def sandbox_problem():
    """Why the batch grader's sandbox cannot run here, or None."""
    from batch import sandbox
    try:
        sandbox.detect()
    except Exception as error:  # noqa: BLE001
        return str(error)
    return None


SEED = str(random.SystemRandom().randrange(10 ** 8, 10 ** 9))  # in no file, not even this one


def seen_by_students(folder, secret):
    """Files in `folder` (the project's copy, which student code can read) holding `secret`."""
    found = []
    for directory, _, names in os.walk(folder):
        for name in names:
            with open(os.path.join(directory, name), "rb") as f:
                if secret.encode() in f.read():
                    found.append(os.path.join(directory, name))
    return found


def build_tools_env():
    """What setup.sh's source/.venv gives on Gradescope: a Python with numpy, and meson and ninja
    on PATH; here this Python, or the project's .venv (grade.py's) where this one lacks them."""
    venv_bin = os.path.join(ROOT, ".venv", "bin")
    if shutil.which("meson") is None and os.path.exists(os.path.join(venv_bin, "meson")):
        return {"AUTOGRADER_PYTHON": os.path.join(venv_bin, "python3"),
                "PATH": venv_bin + os.pathsep + os.environ.get("PATH", "")}
    return {"AUTOGRADER_PYTHON": sys.executable}


class CpuModeTest(unittest.TestCase):
    def test_a_grader_that_cannot_start_says_why(self):
        # No such run user: the sandbox is refused before anything is built, as when bwrap is
        # missing or cannot start; the student gets 0 points and the grader's reason.
        tmp = tempfile.mkdtemp(prefix="gradescope-cpu-")
        self.addCleanup(shutil.rmtree, tmp, True)
        unpack(make_zip(tmp, "--mode", "cpu", "--", "--labs", "01", "--run-as", "no-such-user"),
               os.path.join(tmp, "ag", "source"))
        results, out = run_autograder(os.path.join(tmp, "ag"), {"id": 7}, {FILE: b"int x;"},
                                      env=build_tools_env())
        self.assertEqual(spec_problems(results), [])
        self.assertEqual(results["score"], 0)
        self.assertIn("not of your code", results["output"])
        self.assertIn("no sandbox for student code", results["output"])
        self.assertIn("no-such-user", out)

    def test_one_fixture_graded_on_the_cpu_backend(self):
        if os.environ.get("GRADER_SKIP_SLOW"):
            reason = "GRADER_SKIP_SLOW is set: the cpu mode's end-to-end run (builds lab 01) skipped"
            print(reason)
            self.skipTest(reason)
        tmp = tempfile.mkdtemp(prefix="gradescope-cpu-")
        self.addCleanup(shutil.rmtree, tmp, True)
        names = unpack(make_zip(tmp, "--mode", "cpu", "--", "--labs", "01", "--input-seed", SEED,
                                "--data-seed", SEED, "--jobs", "1", "--timeout", machine_speed.seconds(20)), os.path.join(tmp, "ag", "source"))
        self.assertIn(make_autograder_zip.SEED_FILE, names)
        with open(os.path.join(tmp, "ag", "source", "gradescope_grade_args")) as f:
            self.assertNotIn(SEED, f.read())  # the seed is never on a command line
        with open(os.path.join(ROOT, "grader", "batch", "fixtures", "correct", FILE), "rb") as f:
            files = {FILE: f.read()}
        started = time.monotonic()
        results, out = run_autograder(os.path.join(tmp, "ag"), {"id": 42, "users": []}, files,
                                      env=build_tools_env(), timeout=1500)
        print(f"cpu mode, one submission from scratch: {time.monotonic() - started:.0f} s\n"
              + out[-3000:], flush=True)
        self.assertEqual(spec_problems(results), [])
        self.assertEqual(seen_by_students(os.path.join(tmp, "ag", "work", "project"), SEED), [])
        problem = sandbox_problem()
        if problem:  # the run must say why it could not grade, to the student and the instructor
            self.assertIn("sandbox", results["output"])
            print(f"no sandbox here ({problem}): the run said so; the grades are not checked")
            return
        self.assertEqual(results["score"], MAX, results["output"])
        self.assertEqual({t["status"] for t in results["tests"]}, {"passed"})
        self.assertTrue(results["output"].startswith("Graded on Gradescope's CPU backend"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
