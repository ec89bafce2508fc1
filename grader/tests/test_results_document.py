#!/usr/bin/env python3
"""grader/runs/results.py, the one writer of a lab's results: a test's points (pass, stretch),
the gates applied once, withholding, and the same entry for the same outcome whether grade.py
(lab_document) or the batch (batch/grading.assemble_lab) makes it."""
import unittest

from batch import grading
from batch.builder import LabBuild
from runs import results
from runs.harness import RunResult, TestOutcome
from batch.project import Lab

STRETCH = [{"name": "pass", "met": True}, {"name": "stretch", "met": True}]
TABLE = [("S.Main", 2.0, 0.0, "main", []), ("S.Empty", 1.0, 0.0, "edge", ["S.Main"]),
         ("S.Speed", 2.0, 1.0, "speed", ["S.Main"])]


def outcomes(main="passed"):
    return {"S.Main": TestOutcome("S.Main", main, "bins wrong" if main == "failed" else ""),
            "S.Empty": TestOutcome("S.Empty", "passed", kind="edge"),
            "S.Speed": TestOutcome("S.Speed", "passed", kind="speed", tiers=STRETCH)}


class Document(unittest.TestCase):
    def test_points_stretch_and_totals(self):
        document = results.lab_document("lab01", "mine.cu", {"backend": "cuda", "device": "H100"},
                                        TABLE, outcomes())
        self.assertEqual(document["schema"], results.SCHEMA)
        self.assertEqual([t["score"] for t in document["tests"]], [2.0, 1.0, 3.0])
        self.assertEqual((document["score"], document["max_score"]), (6.0, 6.0))

    def test_gates_applied_once_in_the_document(self):
        document = results.lab_document("lab01", "mine.cu", {}, TABLE, outcomes("failed"))
        self.assertEqual([t["score"] for t in document["tests"]], [0.0, 0.0, 0.0])
        self.assertIn("not passed yet: S.Main", document["tests"][1]["message"])
        self.assertEqual(document["score"], 0.0)

    def test_a_stretch_tier_not_met_earns_the_pass_points(self):
        entry = results.test_entry("S.Speed", "speed", "passed", 2.0, 1.0,
                                   tiers=[{"name": "stretch", "met": False}])
        self.assertEqual((entry["score"], entry["max_score"]), (2.0, 3.0))

    def test_withhold_keeps_what_was_earned(self):
        document = results.lab_document("lab01", "mine.cu", {}, TABLE, outcomes())
        results.withhold(document, "calls a library")
        self.assertEqual(document["score"], 0.0)
        self.assertEqual([t["earned"] for t in document["tests"]], [2.0, 1.0, 3.0])
        self.assertTrue(document["tests"][0]["message"].startswith("score withheld: calls a library"))

    def test_the_batch_writes_the_same_entries(self):
        reference = {"lab": "lab01", "tests": [
            {"name": n, "kind": k, "points": p, "stretch_points": s, "needs": needs,
             "status": "passed"} for n, p, s, k, needs in TABLE]}
        run = RunResult(outcomes=outcomes(), hello={"backend": "cuda", "device": "H100"})
        lab = Lab("lab01", "01", "01-global-atomics", "lab01_global_atomics.cu")
        record = grading.assemble_lab(lab, LabBuild("lab01", "built"), run, reference, "zero")
        document = results.lab_document("lab01", "lab01_global_atomics.cu", run.hello, TABLE,
                                        outcomes())
        for key in ("schema", "lab", "submission", "backend", "device", "score", "max_score",
                    "tests"):
            self.assertEqual(record[key], document[key], key)


if __name__ == "__main__":
    unittest.main()
