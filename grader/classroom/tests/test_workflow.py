#!/usr/bin/env python3
"""The GitHub Classroom workflows, fast: the checked-in .github/workflows/ are what make_workflow.py
makes from this build's checkers (their points table); every step's inputs are ones the actions
document (action_inputs.json) and the validator catches those that are not; a version's step earns
exactly when the grader's record says the version earned all its points, and fails closed
otherwise. Needs PyYAML: without it the test skips (exit 77), but under CI (CI=true) it fails.
The points check needs every lab built on the CPU backend (CLASSROOM_ALL_LABS=1 and
CLASSROOM_CPU_BUILD=1, set by meson); otherwise it says so."""
import copy
import io
import contextlib
import os
import sys
import tempfile
import unittest

from classroom import grade_repo, make_workflow, run_workflow, version_points

WORKFLOWS = make_workflow.WORKFLOWS
CPU = os.path.join(WORKFLOWS, make_workflow.CPU_WORKFLOW)
GPU = os.path.join(WORKFLOWS, make_workflow.GPU_WORKFLOW)


def test_entry(name, kind, points, status="passed", score=None, message=""):
    return {"name": name, "kind": kind, "status": status, "max_score": points,
            "score": points if score is None and status == "passed" else (score or 0.0),
            "message": message}


def record(tests, status="graded", reasons=()):
    return {"labs": {"lab01": {"status": status, "reasons": list(reasons), "tests": tests}}}


MAIN = [test_entry("Lab01Slices.MatchesCpu", "main", 2), test_entry("Lab01Slices.Tail", "main", 1)]
EDGE = test_entry("Lab01Slices.HandlesEmpty", "edge", 1)
OTHER = test_entry("Lab01GridStride.MatchesCpu", "main", 5, status="failed", message="bins wrong")


class WorkflowTest(unittest.TestCase):
    def setUp(self):
        self.actions = run_workflow.load_actions()

    def test_the_checked_in_workflows_are_the_points_table(self):
        if os.environ.get("CLASSROOM_ALL_LABS") != "1":
            self.skipTest("this build does not hold every lab's checker (-Dlabs): the points table "
                          "is checked in a build of every lab")
        if os.environ.get("CLASSROOM_CPU_BUILD") != "1":
            self.skipTest("this is a cuda build: the CPU workflow's points are checked in the cpu "
                          "build (make_workflow.py refuses any other, see test_a_cuda_build_is_refused)")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = make_workflow.main(["--build-dir", os.environ["CLASSROOM_BUILD_DIR"], "--check"])
        self.assertEqual(status, 0, out.getvalue())

    def test_a_cuda_build_is_refused(self):
        with tempfile.TemporaryDirectory() as build:
            with open(os.path.join(build, "backend.txt"), "w", encoding="utf-8") as f:
                f.write("cuda\n")
            with self.assertRaises(SystemExit) as refused:
                make_workflow.workflows(build)
            self.assertIn("grades on the CPU backend", str(refused.exception.code))
            self.assertIn("-Dkernel_backend=cpu", str(refused.exception.code))

    def test_every_input_is_documented(self):
        for path in (CPU, GPU):
            self.assertEqual(run_workflow.check(run_workflow.load_workflow(path), self.actions), [],
                             path)
        for name, action in self.actions.items():
            self.assertTrue(action["source"].startswith("https://github.com/"), name)

    def test_the_cpu_workflow_follows_the_reporters_rules_and_says_cpu(self):
        workflow = run_workflow.load_workflow(CPU)
        self.assertEqual(workflow["name"], "Autograding Tests")
        self.assertEqual(list(workflow["jobs"]), ["run-autograding-tests"])
        job = workflow["jobs"]["run-autograding-tests"]
        self.assertEqual(job["runs-on"], "ubuntu-latest")
        steps = [s for s in job["steps"] if run_workflow.action_of(s) in run_workflow.COMMAND_GRADERS]
        self.assertEqual(steps[0]["with"]["command"], make_workflow.GRADE)
        self.assertIn("CPU backend", steps[0]["with"]["test-name"])
        for step in steps[1:]:
            self.assertIn("(CPU backend)", step["with"]["test-name"])
            lab, version, points = step["with"]["command"].split()[-3:]
            self.assertEqual(int(points), step["with"]["max-score"], step["id"])
        with open(CPU, encoding="utf-8") as f:
            self.assertIn("tests need a GPU", f.read())

    def test_the_gpu_job_is_off_unless_the_course_says_so(self):
        workflow = run_workflow.load_workflow(GPU)
        self.assertNotEqual(workflow["name"], "Autograding Tests")  # Classroom reads one workflow
        job = workflow["jobs"]["grade-on-gpu"]
        self.assertEqual(job["runs-on"], ["self-hosted", "gpu"])
        self.assertIn(f"vars.{make_workflow.GPU_SWITCH} == 'true'", job["if"])
        self.assertIn("--backend cuda", job["steps"][-1]["run"])

    def test_the_validator_catches_what_the_actions_do_not_document(self):
        good = run_workflow.load_workflow(CPU)
        job = good["jobs"]["run-autograding-tests"]["steps"]
        grader_index = next(i for i, s in enumerate(job) if s.get("id") == "lab01slices")
        reporter_index = len(job) - 1
        breakages = {
            "an input no action has": lambda s: s[grader_index]["with"].update({"points": 3}),
            "a missing required input": lambda s: s[grader_index]["with"].pop("command"),
            "points that are not whole": lambda s: s[grader_index]["with"].update({"max-score": 2.5}),
            "a timeout above 6 hours": lambda s: s[grader_index]["with"].update({"timeout": 400}),
            "a runner without its variable": lambda s: s[reporter_index]["env"].pop("LAB01SLICES_RESULTS"),
            "a variable of another step": lambda s: s[reporter_index]["env"].update(
                {"LAB01SLICES_RESULTS": "${{steps.grade.outputs.result}}"}),
            "an undocumented action": lambda s: s[grader_index].update({"uses": "someone/grader@v1"}),
        }
        for what, breaking in breakages.items():
            broken = copy.deepcopy(good)
            breaking(broken["jobs"]["run-autograding-tests"]["steps"])
            self.assertNotEqual(run_workflow.check(broken, self.actions), [], what)
        renamed = dict(copy.deepcopy(good), name="Grading")
        self.assertNotEqual(run_workflow.check(renamed, self.actions), [])

    def test_the_command_graders_environment_is_the_actions(self):
        self.assertEqual(set(run_workflow.grader_env()),
                         {"PATH", "HOME", "FORCE_COLOR", "DOTNET_CLI_HOME", "DOTNET_NOLOGO"})


class VersionStepTest(unittest.TestCase):
    def test_the_step_reads_what_grade_repo_writes(self):
        self.assertEqual(version_points.RECORD, os.path.join(grade_repo.OUT, grade_repo.RECORD))

    def test_a_version_earns_only_with_every_point_earned(self):
        cases = {
            "all passed": (record(MAIN + [EDGE, OTHER]), 4, True),
            "a main test failed": (record([MAIN[0], dict(MAIN[1], status="failed", score=0.0), EDGE]), 4, False),
            "an edge test waiting": (record(MAIN + [dict(EDGE, score=0.0)]), 4, False),
            "no record: the grading step failed": (None, 4, False),
            "does not compile": (record([], "compile_error", ["does not compile: x.cu:3: error"]), 4, False),
            "score withheld": (record([dict(t, score=0.0) for t in MAIN + [EDGE]], "withheld",
                                      ["score withheld: calls cub"]), 4, False),
            "a workflow older than the grader": (record(MAIN + [EDGE]), 5, False),
            "a version the record lacks": (record([OTHER]), 4, False),
        }
        for what, (rec, points, expected) in cases.items():
            earned, lines = version_points.verdict(rec, "lab01", "Lab01Slices", points)
            self.assertEqual(earned, expected, f"{what}: {lines}")
            self.assertTrue(lines and all(lines), what)
        _, lines = version_points.verdict(None, "lab01", "Lab01Slices", 4)
        self.assertIn("could not grade", lines[0])
        _, lines = version_points.verdict(record(MAIN + [EDGE]), "lab01", "Lab01Slices", 5)
        self.assertIn("make_workflow.py", lines[0])

    def test_bad_usage_says_what_to_do(self):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            self.assertEqual(version_points.main(["lab01", "Lab01Slices", "twelve"]), 2)
        self.assertIn("not a number", stderr.getvalue())


def yaml_missing():
    try:
        import yaml  # noqa: F401
    except ImportError:
        return True
    return False


if __name__ == "__main__":
    if yaml_missing():
        reason = "PyYAML is not installed (python3 -m pip install pyyaml): the workflows cannot be read"
        if os.environ.get("CI") == "true":
            sys.exit(f"FAILED: {reason}; CI installs it (.ci/run)")
        print(f"skipped: {reason}")
        sys.exit(77)
    unittest.main(verbosity=2)
