#!/usr/bin/env python3
"""PrairieLearn's results.json, fast: what grade_pl.py makes of a passing, a failing and a
non-building submission (and of a grader that could not grade) meets the documented format
(results_format.py, with the documentation's URL), and the format's check catches what the
documentation does not allow; the question template (grader/prairielearn/question/) names a real
lab, its file, the entrypoint and only documented externalGradingOptions."""
import json
import os
import re
import unittest

from batch import cli, project, single
from batch.builder import LabBuild
from gradescope.tests.test_results_format import TECHNIQUE, class_of_records, record, run_of
import gradescope.results_format
from prairielearn import grade_pl, results_format

HERE = os.path.dirname(os.path.abspath(__file__))
QUESTION = os.path.join(os.path.dirname(HERE), "question")
# https://prairielearn.readthedocs.io/en/latest/externalGrading/ ("Configuring and enabling
# external grader support")
GRADING_OPTIONS = {"enabled", "image", "entrypoint", "serverFilesCourse", "timeout",
                   "enableNetworking", "environment"}


def graded(rec):
    return single.Graded(rec, gradescope.results_format.results_json(rec), "log of the run", "")


def cases():
    records = class_of_records()
    failing = record("failing", LabBuild("lab01", "built", checks=TECHNIQUE), run_of(passed=False))
    return {"passing": graded(records["passes"]), "failing": graded(failing),
            "not building": graded(records["compile_error"]),
            "withheld": graded(records["withheld"]),
            "no sandbox": single.Graded(output="1 submission(s)\nerror: no sandbox for student "
                                               "code: bwrap: No permissions to create a new namespace")}


class ResultsFormatTest(unittest.TestCase):
    def test_every_case_meets_the_documented_format(self):
        self.assertTrue(results_format.DOCUMENTATION.startswith("https://prairielearn.readthedocs.io/"))
        made = {what: grade_pl.results_of(g, ["lab01"]) for what, g in cases().items()}
        for what, results in made.items():
            self.assertEqual(results_format.problems(results), [], what)
        passing, failing = made["passing"], made["failing"]
        self.assertEqual(passing["score"], 1.0)
        self.assertEqual(sum(t["points"] for t in passing["tests"]),
                         sum(t["max_points"] for t in passing["tests"]))
        self.assertTrue(0.0 <= failing["score"] < 1.0)
        self.assertTrue(any(t["points"] == 0 and t["max_points"] > 0 and "bins wrong" in t["message"]
                            for t in failing["tests"]), failing["tests"])
        self.assertIn("CPU backend", passing["message"])
        self.assertEqual(made["withheld"]["score"], 0.0)
        self.assertIn("cub::DeviceHistogram", made["withheld"]["message"])

    def test_what_is_not_gradable_says_why(self):
        made = {what: grade_pl.results_of(g, ["lab01"]) for what, g in cases().items()}
        building = made["not building"]
        self.assertIs(building["gradable"], False)
        self.assertNotIn("score", building)
        self.assertIn("does not compile", building["message"])
        self.assertIn("expected ';'", building["format_errors"][0])
        sandbox = made["no sandbox"]
        self.assertIs(sandbox["gradable"], False)
        self.assertIn("not of your code", sandbox["message"])
        self.assertIn("no sandbox for student code", sandbox["message"])

    def test_the_check_catches_what_the_documentation_does_not_allow(self):
        good = grade_pl.results_of(cases()["failing"], ["lab01"])
        test = good["tests"][0]
        for broken in ({"score": 1.5}, {"score": "1"}, {"score": True}, {"gradable": "false"},
                       {"format_errors": ["x"]}, {"max_score": 3}, {"score": float("nan")},
                       {"output": "x" * results_format.MAX_BYTES},
                       {"images": [{"src": "data:image/png;base64,"}]},
                       {"tests": [dict(test, points=test["max_points"] + 1)]},
                       {"tests": [dict(test, passed=True)]}, {"tests": [{"points": 1}]}):
            self.assertNotEqual(results_format.problems(dict(good, **broken)), [], broken)
        not_gradable = {"gradable": False, "message": "m"}
        self.assertEqual(results_format.problems(not_gradable), [])
        self.assertNotEqual(results_format.problems({"message": "no score"}), [])


class QuestionTemplateTest(unittest.TestCase):
    def test_the_template_names_a_real_lab_and_documented_options(self):
        folder = os.path.join(QUESTION, "questions", "GpuWorkbookLab01")
        with open(os.path.join(folder, "info.json"), encoding="utf-8") as f:
            info = json.load(f)
        self.assertEqual(info["gradingMethod"], "External")
        options = info["externalGradingOptions"]
        self.assertEqual(set(options) - GRADING_OPTIONS, set())
        self.assertIs(options["enabled"], True)
        self.assertTrue(0 < options["timeout"] <= 600)  # the documentation's limit
        program, flag, number = options["entrypoint"].split()
        self.assertEqual(program, "/workbook/grader/prairielearn/run.sh")
        self.assertTrue(os.access(os.path.join(project.ROOT, "grader", "prairielearn", "run.sh"),
                                  os.X_OK))
        self.assertEqual(flag, "--labs")
        lab, = project.select_labs(project.discover_labs(), number)
        with open(os.path.join(folder, "question.html"), encoding="utf-8") as f:
            html = f.read()
        editor = re.search(r"<pl-file-editor([^>]*)>", html).group(1)
        self.assertIn(f'file-name="{lab.submission_file}"', editor)
        self.assertIn(f'source-file-name="{lab.submission_file}"', editor)
        self.assertIn("<pl-external-grader-results>", html)
        for shared in options["serverFilesCourse"]:
            self.assertTrue(os.path.isdir(os.path.join(QUESTION, "serverFilesCourse", shared)), shared)
        args = single.read_arguments(os.path.join(QUESTION, "serverFilesCourse", "gpu_workbook",
                                                  "grade_args"))
        parsed = cli.parse_args(["SUBMISSIONS", "--out", "REPORT"] + args)  # exits on a bad option
        # A hanging submission must still get a result before PrairieLearn kills the job.
        self.assertLess(parsed.budget or 10 * parsed.timeout, options["timeout"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
