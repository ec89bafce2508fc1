#!/usr/bin/env python3
"""The batch's technique checks (grading.assemble_lab): a check earns its point only once the
correctness tests its reference entry needs passed (grader/runs/scoring.py), whatever the
submission's own check results say they need; a check the reference skipped (the CPU backend
grades no technique check) is left out of the grade."""
import unittest

from batch import grading, project, technique_evidence
from batch.builder import LabBuild
from runs import harness

LAB = project.Lab("lab02", "02", "02-unrolling-ilp", "lab02_unrolling_ilp.cu")
MAIN = "Lab02PragmaUnroll.MatchesCpuOnUniformSamples"
CHECK = "Technique.v2_pragma_unroll"


def reference(check_status="passed"):
    return {"lab": "lab02", "findings": [],
            "tests": [{"name": MAIN, "points": 2, "stretch_points": 0, "status": "passed",
                       "message": "", "needs": []}],
            "checks": [{"name": CHECK, "max_score": 1, "status": check_status, "needs": [MAIN]}]}


def build(needs_claimed):
    """The submission's check passed; its results file claims `needs_claimed`."""
    results = {"tests": [{"name": CHECK, "status": "passed", "score": 1, "max_score": 1,
                          "needs": needs_claimed, "kind": "check"}]}
    return LabBuild("lab02", "built", checks=[{"check": "lab02 technique", "returncode": 0,
                                                "output": "", "results": results}])


def run(main_status):
    result = harness.RunResult()
    result.outcomes[MAIN] = harness.TestOutcome(MAIN, main_status, "" if main_status == "passed"
                                               else "bins wrong at 3")
    return result


def check_of(record):
    return next(t for t in record["tests"] if t["name"] == CHECK)


class CheckGates(unittest.TestCase):
    def test_a_check_earns_only_with_its_tests_passed(self):
        record = grading.assemble_lab(LAB, build([MAIN]), run("failed"), reference(), "report")
        self.assertEqual((check_of(record)["status"], check_of(record)["score"]), ("passed", 0.0))
        self.assertIn("not passed yet: " + MAIN, check_of(record)["message"])
        self.assertEqual(record["score"], 0)
        record = grading.assemble_lab(LAB, build([MAIN]), run("passed"), reference(), "report")
        self.assertEqual((check_of(record)["score"], record["score"]), (1.0, 3.0))

    def test_the_needs_are_the_references_not_the_submissions(self):
        record = grading.assemble_lab(LAB, build([]), run("failed"), reference(), "report")
        self.assertEqual(check_of(record)["score"], 0.0)

    def test_a_check_the_reference_skipped_is_not_graded(self):
        record = grading.assemble_lab(LAB, build([MAIN]), run("passed"), reference("skipped"), "report")
        self.assertNotIn(CHECK, [t["name"] for t in record["tests"]])
        self.assertEqual(record["max_score"], 2)

    def test_a_check_whose_evidence_counted_nothing_fails_and_is_named(self):
        # Counts that name no instruction of the program: the submission's check fails (it is in
        # the plan because the reference's counts were read), and the pipeline can tell the
        # reference's own such checks apart to leave them out for everyone.
        lab_build = build([MAIN])
        entry = lab_build.checks[0]["results"]["tests"][0]
        entry["evidence"] = {"ran": "kernel.global_atomic >= 0.9 * all.global_load_words",
                             "machine_code_passed": True, "code": {}}
        counted = run("passed")
        counted.evidence = {MAIN: [{"function": "lab02::histogram_v2_pragma_unroll", "collected": True,
                                    "unavailable": "", "entries": []}]}
        record = grading.assemble_lab(LAB, lab_build, counted, reference(), "report")
        self.assertEqual((check_of(record)["status"], check_of(record)["score"]), ("failed", 0.0))
        self.assertEqual(technique_evidence.uncounted_checks(record), [CHECK])

    def test_a_check_judged_on_what_ran_needs_no_launch_record(self):
        # The CPU backend records no launched kernel names; the evidence names who did the work.
        lab_build = build([MAIN])
        entry = lab_build.checks[0]["results"]["tests"][0]
        entry["kernels"] = ["histogram_v2_pragma_unroll_kernel"]
        entry["evidence"] = {"ran": "kernel.global_atomic >= 0.9 * all.global_load_words",
                             "machine_code_passed": True, "code": {}}
        counted = run("passed")
        kernel = "histogram_v2_pragma_unroll_kernel"
        counted.evidence = {MAIN: [{"function": "lab02::histogram_v2_pragma_unroll", "collected": True,
                                    "unavailable": "", "entries": [
                                        [kernel, 1, "global_load", 4, 32, 1024, 128],
                                        [kernel, 2, "global_atomic", 4, 32, 1024, 0]]}]}
        record = grading.assemble_lab(LAB, lab_build, counted, reference(), "report")
        self.assertEqual((check_of(record)["status"], check_of(record)["score"]), ("passed", 1.0))


if __name__ == "__main__":
    unittest.main()
