#!/usr/bin/env python3
"""The Classroom workflow run as written (run_workflow.py: every step's setup-command and command,
with the command grader's environment), in a template repository made by make_template.py (no
solutions/): with the solutions' files in its starter/ (a student who finished every lab) every
step passes and the reporter's total is the workflow's maximum, which is the total of the batch's
own CPU-backend grade; with the untouched starter every version step fails and the total is 0.
Minutes: it grades every lab twice (the second run reuses the first one's builds).

Skips (exit 77), saying why: GRADER_SKIP_SLOW=1; a build of another backend than cpu (the
workflow grades on the CPU backend whatever the build, and the cpu build's run covers it); no
PyYAML unless CI=true. Without a sandbox the grading step must fail, saying so, and give 0."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from batch import project
from gradescope.tests.test_results_format import sandbox_problem  # why the batch's sandbox cannot run here
from classroom import make_template, make_workflow

ROOT = project.ROOT
WORKFLOW = os.path.join(".github", "workflows", make_workflow.CPU_WORKFLOW)


def run_workflow(template, label):
    """The workflow run in `template` by run_workflow.py there: ({step: result}, total, max)."""
    report = os.path.join(template, f"run-{label}.json")
    started = time.monotonic()
    done = subprocess.run([sys.executable, os.path.join(template, "grader", "classroom",
                                                        "run_workflow.py"),
                           "--workflow", os.path.join(template, WORKFLOW), "--root", template,
                           "--json", report], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=3000)
    print(f"--- {label}: {time.monotonic() - started:.0f} s\n" + done.stdout[-2500:], flush=True)
    if done.returncode != 0:
        raise AssertionError(f"run_workflow.py failed ({done.returncode}):\n{done.stdout[-4000:]}")
    with open(report, encoding="utf-8") as f:
        data = json.load(f)
    return data["steps"], data["total"], data["max_score"], done.stdout


def put_lab_files(template, folder):
    for lab in project.discover_labs():
        shutil.copy2(os.path.join(ROOT, folder, lab.submission_file),
                     os.path.join(template, "starter", lab.submission_file))


class WorkflowRunTest(unittest.TestCase):
    def test_solutions_earn_every_point_and_the_starter_none(self):
        tmp = tempfile.mkdtemp(prefix="classroom-run-")
        self.addCleanup(shutil.rmtree, tmp, True)
        template = make_template.make_template(os.path.join(tmp, "template"))
        self.assertFalse(os.path.exists(os.path.join(template, "solutions")))
        with open(os.path.join(template, WORKFLOW), encoding="utf-8") as f:
            self.assertIn("CPU backend", f.read())

        put_lab_files(template, "solutions")
        steps, total, most, output = run_workflow(template, "solutions")
        problem = sandbox_problem()
        if problem:  # the grading step must fail, saying why, and no step may earn
            self.assertEqual(steps["grade"]["status"], "fail")
            self.assertIn("sandbox", output)
            self.assertEqual(total, 0)
            print(f"no sandbox here ({problem}): the workflow said so and gave 0; grades not checked")
            return
        self.assertEqual(steps["grade"]["status"], "pass")
        failed = [step for step, r in steps.items() if r["status"] != "pass"]
        self.assertEqual(failed, [], output[-3000:])
        with open(os.path.join(template, "build-classroom", "grading.json"), encoding="utf-8") as f:
            batch_total = json.load(f)["max_score"]
        self.assertEqual((total, most), (batch_total, batch_total))  # the batch's own CPU grade

        put_lab_files(template, "starter")
        steps, total, most, output = run_workflow(template, "starter")
        self.assertEqual(steps["grade"]["status"], "pass", output[-3000:])  # graded, scoring 0
        self.assertEqual(total, 0)
        self.assertEqual(most, batch_total)
        self.assertEqual([s for s, r in steps.items() if r["status"] == "pass"], ["grade"])


def skip_reason():
    if os.environ.get("GRADER_SKIP_SLOW"):
        return "GRADER_SKIP_SLOW is set: the workflow's run (grades every lab twice) skipped"
    if os.environ.get("BATCH_OUTER_BACKEND", "cpu") != "cpu":
        return ("this build's backend is not cpu; the workflow grades on the CPU backend whatever "
                "the build, and the cpu build runs it")
    try:
        import yaml  # noqa: F401
    except ImportError:
        if os.environ.get("CI") != "true":
            return "PyYAML is not installed (python3 -m pip install pyyaml)"
    return None


if __name__ == "__main__":
    reason = skip_reason()
    if reason:
        print(f"skipped: {reason}")
        sys.exit(77)
    unittest.main(verbosity=2)
