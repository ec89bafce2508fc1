"""Tests for grader/report.py's score table and grader/runs/results.py's reading of messages.
Run: PYTHONPATH=grader python3 grader/tests/test_report.py"""
import contextlib
import io
import json
import os
import tempfile
import unittest
from unittest import mock

import report
from runs import results as lab_results


def test(name, status, kind, metrics=None, tiers=None):
    return {"name": name, "status": status, "kind": kind, "score": 0, "max_score": 1,
            "message": "", "metrics": metrics or {}, "tiers": tiers or []}


LAB03 = {"lab": "lab03", "score": 50, "max_score": 55,
         "headline": {"test": "Lab03Speed.GridStride", "kernel": "v2 shared grid-stride"},
         "tests": [
             test("Lab03Speed.Slices", "passed", "speed", {"time_ms": 0.3, "speedup_vs_baseline": 9.0}),
             test("Lab03Speed.GridStride", "passed", "speed",
                  {"time_ms": 0.0523, "gbps": 2566.4, "percent_of_read_bw": 97.24,
                   "percent_of_peak_bw": 76.5, "speedup_vs_baseline": 54.2},
                  [{"name": "pass", "met": True, "detail": "54x faster; needs 4x"},
                   {"name": "stretch", "met": False, "detail": "58 % of read; needs 60 %"}]),
             test("Lab03SharedSlices.MatchesCpu", "failed", "main")]}
LAB05 = {"lab": "lab05", "score": 3, "max_score": 68,
         "headline": {"test": "Lab05Speed.WholeArray", "kernel": "whole-array scan"},
         "tests": [test("Lab05Speed.WholeArray", "failed", "speed",
                        {"time_ms": 0.2, "percent_of_copy_bw": 40.0})]}


class ScoreTable(unittest.TestCase):
    def test_each_row_shows_the_headline_kernel_not_the_first_timed_test(self):
        table = report.table([LAB03, LAB05], not_run=["lab06"])
        row = next(line for line in table.splitlines() if line.startswith("lab03"))
        for cell in ("v2 shared grid-stride", "0.052", "2566", "97.2 read", "76.5", "54.20x"):
            self.assertIn(cell, row)
        self.assertNotIn("9.00x", row)
        lab05 = next(line for line in table.splitlines() if line.startswith("lab05"))
        self.assertIn("40.0 copy", lab05)
        self.assertIn("lab06  not run this time", table)

    def test_every_speed_test_that_ran_shows_each_tier(self):
        lines = report.tier_lines([LAB03, LAB05])
        self.assertEqual(lines, [
            "  lab03 Slices: pass met",
            "  lab03 GridStride: pass met (54x faster; needs 4x); stretch not met (58 % of read; needs 60 %)",
            "  lab05 WholeArray: pass not met"])

    def test_each_hint_is_shown_once(self):
        message = ("uniform: bin 3 wrong\n  hint: exactly the last 7 samples were not counted\n"
                   "Actual: false (normal: bin 3 wrong\n  hint: exactly the last 7 samples were not counted)")
        self.assertEqual(report.hint_lines(message), ["hint: exactly the last 7 samples were not counted"])

    def test_messages_are_in_the_graders_own_words(self):
        message = ("labs/test.cu:51: Failure\nValue of: grader::histogram_matches_cpu(what, samples)\n"
                   "  Actual: false (uniform: histogram_v1_slices: bins wrong\nbin 3: expected 5, "
                   "got 4)\nExpected: true\nlabs/test.cu:57: Failure\nFailed\nnormal: 2 bins wrong")
        self.assertEqual(lab_results.own_words(message), "uniform: histogram_v1_slices: bins wrong\n"
                         "bin 3: expected 5, got 4\nnormal: 2 bins wrong")
        self.assertEqual(lab_results.telling_line("Value of: f()\n  Actual: false (bins wrong)\n"
                                             "Expected: true"), "bins wrong")
        self.assertEqual(lab_results.telling_line(""), "(no message)")
        threw = ('C++ exception with description "lab01::histogram_v1_slices: the process running '
                 'your code crashed: SIGSEGV" thrown in the test body.')
        self.assertEqual(lab_results.own_words(threw),
                         "lab01::histogram_v1_slices: the process running your code crashed: SIGSEGV")

    def test_long_text_is_cut_at_a_word_with_an_ellipsis(self):
        self.assertEqual(lab_results.shorten("the bins were never zeroed", 40), "the bins were never zeroed")
        self.assertEqual(lab_results.shorten("the bins were never zeroed", 17), "the bins were…")
        self.assertEqual(len(lab_results.shorten("x" * 50, 10)), 10)  # no word to cut at

    def test_results_without_a_headline_fall_back_to_the_first_timed_pass(self):
        old = dict(LAB03, headline=None)
        kernel, metrics = report.headline(old)
        self.assertEqual((kernel, metrics["time_ms"]), ("Slices", 0.3))


def check(name, status, needs, message=""):
    return {"name": name, "kind": "check", "status": status, "score": 1 if status == "passed" else 0,
            "max_score": 1, "message": message, "needs": needs, "metrics": {}, "tiers": []}


class TechniqueChecks(unittest.TestCase):
    """A technique check's point needs its version's correctness tests (grader/runs/scoring.py);
    a check the CPU backend did not grade is skipped, 0 points, its advice shown as advice."""

    def load(self, lab_tests, checks, *flags):
        with tempfile.TemporaryDirectory() as build:
            os.makedirs(os.path.join(build, "results"))
            documents = {"lab02.json": {"lab": "lab02", "tests": lab_tests},
                         "lab02_technique.json": {"lab": "lab02-technique", "tests": checks}}
            for name, document in documents.items():
                document.update(schema=lab_results.SCHEMA, score=sum(t["score"] for t in document["tests"]),
                                max_score=len(document["tests"]), backend="b", device="d", submission="s")
                with open(os.path.join(build, "results", name), "w") as f:
                    json.dump(document, f)
            with open(os.path.join(build, "results", "run.json"), "w") as f:
                json.dump({"labs_run": ["lab02"], "all_labs": ["lab02"], "submission": "s"}, f)
            output = io.StringIO()
            with contextlib.redirect_stdout(output):
                report.main(["report.py", build] + list(flags))
            loaded, _, _ = lab_results.load_run(build)
            return {r["lab"]: r for r in loaded}, output.getvalue()

    def test_a_check_earns_only_once_the_tests_it_needs_passed(self):
        main = dict(test("Lab02PragmaUnroll.MatchesCpuOnUniformSamples", "failed", "main"))
        results, output = self.load([main], [check("Technique.v2", "passed", [main["name"]])])
        gated = results["lab02-technique"]
        self.assertEqual((gated["score"], gated["tests"][0]["score"]), (0, 0))
        self.assertIn("not passed yet: Lab02PragmaUnroll.MatchesCpuOnUniformSamples",
                      gated["tests"][0]["message"])
        self.assertIn("Total: 0 / 2 points", output)
        main.update(status="passed", score=1)
        results, output = self.load([main], [check("Technique.v2", "passed", [main["name"]])])
        self.assertEqual(results["lab02-technique"]["score"], 1)
        self.assertIn("Total: 2 / 2 points", output)

    def test_a_check_whose_tests_did_not_run_earns_nothing(self):
        results, _ = self.load([], [check("Technique.v2", "passed", ["Lab02PragmaUnroll.Missing"])])
        self.assertEqual(results["lab02-technique"]["score"], 0)

    def test_a_check_not_graded_is_skipped_with_its_advice(self):
        message = ("not graded: the CPU backend runs no GPU machine code\n"
                   "advice from a compile of the file (PTX), not graded: would pass")
        main = dict(test("Lab02PragmaUnroll.MatchesCpuOnUniformSamples", "passed", "main"), score=1)
        results, output = self.load([main], [check("Technique.v2", "skipped", [main["name"]], message)], "--verbose")
        self.assertEqual(results["lab02-technique"]["score"], 0)
        self.assertIn("Total: 1 / 2 points", output)
        self.assertIn("Technique checks, 0 points, not graded: the CPU backend", output)
        self.assertIn("lab02-technique v2: advice from a compile of the file (PTX), not graded: would pass", output)
        self.assertIn("1 passed, 0 failed, 1 skipped", output)
        # The short view: one line for the lab, whether graded or advice; --technique: each check.
        _, output = self.load([main], [check("Technique.v2", "skipped", [main["name"]], message)])
        self.assertIn("lab02 technique, advice only (not graded here): 1 of 1 would pass — grade.py --labs 02 "
                      "--technique shows each", " ".join(output.split()))
        _, output = self.load([main], [check("Technique.v2", "passed", [main["name"]])])
        self.assertIn("lab02 technique: 1 of 1 checks pass", output)
        _, output = self.load([main], [check("Technique.v2", "skipped", [main["name"]], message)], "--technique")
        self.assertIn("v2: skipped\n    not graded: the CPU backend", output)

    def test_no_technique_line_for_a_lab_whose_correctness_tests_all_fail(self):
        main = test("Lab02PragmaUnroll.MatchesCpuOnUniformSamples", "failed", "main")
        _, output = self.load([main], [check("Technique.v2", "skipped", [main["name"]], "would fail")])
        self.assertNotIn("--technique", output)


class ShortView(unittest.TestCase):
    """The short view (grader/short_report.py): each lab's first failure, its hints once each with
    the tests they cover, every line within the terminal's width."""

    def output(self, documents, columns=60):
        with tempfile.TemporaryDirectory() as build, mock.patch.dict(os.environ, {"COLUMNS": str(columns)}):
            os.makedirs(os.path.join(build, "results"))
            for document in documents:
                document.update(schema=lab_results.SCHEMA, score=0, max_score=1, backend="cpu", device="d",
                                submission="s")
                with open(os.path.join(build, "results", document["lab"] + ".json"), "w") as f:
                    json.dump(document, f)
            with open(os.path.join(build, "results", "run.json"), "w") as f:
                json.dump({"labs_run": [d["lab"] for d in documents], "all_labs": [d["lab"] for d in documents],
                           "submission": "s"}, f)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = report.main(["report.py", build])
        return code, out.getvalue()

    def test_a_hint_shared_by_failures_is_said_once_with_the_tests_it_covers(self):
        race = "bins wrong\n  hint: the same input gave other bins when it ran again: likely a race"
        tests = [dict(test(f"Lab03SharedSlices.Case{i}", "failed", "main"), message=race) for i in range(3)]
        tests += [dict(test("Lab03SharedSlices.Tail", "failed", "main"), message="tail\n  hint: exactly the last 7")]
        code, output = self.output([{"lab": "lab03", "tests": tests}])
        self.assertEqual(code, 1)
        said = " ".join(output.split())
        self.assertIn("lab03, 4 failed: Lab03SharedSlices.Case0: bins wrong", said)
        self.assertEqual(said.count("likely a race"), 1)
        self.assertIn("hint (3 tests: Case0, Case1, …): the same input gave other bins", said)
        self.assertIn("hint (Tail): exactly the last 7", said)
        self.assertNotIn("Case1:", said)  # one failure a lab; the failures file holds every message
        self.assertTrue(all(len(line) <= 60 for line in output.splitlines()), output)


if __name__ == "__main__":
    unittest.main()
