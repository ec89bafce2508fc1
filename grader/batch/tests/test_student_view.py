#!/usr/bin/env python3
"""What a student is shown of their grading: the grader's lines whole (each cut to a few hundred
characters), of the runner's printed lines only the first few of a lab, cut short; one test's
message capped, in the grader's own words (no GoogleTest framing) and whole in log.txt; the class
report's reasons cut at a word; the instructor's log and record keep everything; a starter
standing in for the reference is said to score 0 as expected. Fast, nothing built."""
import html
import os
import re
import shutil
import tempfile
import unittest

from batch import reports, sanitize, student_view
from gradescope import results_format
from batch.student_view import RUNNER_PREFIX

SAMPLES = " ".join(str(v) for v in range(1000, 1256))  # 256 samples, 1279 characters


def record(message, output):
    test = {"name": "Lab01Slices.MatchesCpuOnUniformSamples", "kind": "main", "status": "failed",
            "score": 0.0, "max_score": 2.0, "message": message, "metrics": {}, "fault": "",
            "needs": []}
    lab = {"lab": "lab01", "file": "lab01_global_atomics.cu", "status": "graded", "score": 0.0,
           "max_score": 2.0, "tests": [test], "reasons": [], "findings": [], "review_notes": [],
           "build_output": "", "symbols_checked": True, "forged_lines": 0, "forged_samples": [],
           "device": "", "attempts": [{"filter_count": 1, "returncode": 0, "duration_s": 1.0,
                                       "reason": "", "output": output}]}
    return {"student": "alice", "source": "alice", "fingerprint": "f", "score": 0.0,
            "max_score": 2.0, "labs": {"lab01": lab}, "notes": [], "duration_s": 1.0}


def longest_run(text):
    """How many of SAMPLES, from the first and in order, appear in `text`."""
    values, flat, shown = SAMPLES.split(), " ".join(text.split()), 0
    while shown < len(values) and " ".join(values[:shown + 1]) in flat:
        shown += 1
    return shown


class StudentViewTest(unittest.TestCase):
    def test_a_message_keeps_the_graders_words_and_two_runner_lines_cut_short(self):
        text = ("histogram_v1_slices threw an exception: leak " + SAMPLES + "\n"
                + "\n".join(f"{RUNNER_PREFIX}leak {SAMPLES}" for _ in range(5)))
        shown = student_view.message(text)
        self.assertTrue(shown.startswith("histogram_v1_slices threw an exception: leak 1000 1001"))
        self.assertLessEqual(len(shown), student_view.MESSAGE_CHARS + 100)  # and the cut notes
        self.assertEqual(shown.count(RUNNER_PREFIX), 2)
        self.assertIn("3 more line(s) your code printed", shown)
        self.assertLessEqual(longest_run(shown), 64)

    def test_a_labs_runs_share_a_budget_of_runner_lines(self):
        lines = student_view.RunnerLines()
        output = "[ RUN      ] A\n" + "\n".join(f"{RUNNER_PREFIX}{i} {SAMPLES}" for i in range(6))
        first = student_view.run_output(output, lines)
        second = student_view.run_output(output, lines)
        self.assertEqual(first.count(RUNNER_PREFIX) + second.count(RUNNER_PREFIX),
                         student_view.RUNNER_LINES)
        self.assertIn("[ RUN      ] A", second)  # the grader's own lines stay
        self.assertEqual(lines.held_back, 12 - student_view.RUNNER_LINES)
        self.assertLessEqual(longest_run(first + second), 64)

    def test_the_students_files_hold_a_few_samples_the_instructors_all(self):
        leaky = record("threw an exception: leak " + SAMPLES,
                       "\n".join(f"{RUNNER_PREFIX}leak {SAMPLES}" for _ in range(40)))
        log = reports.render_log(leaky)
        results = str(results_format.results_json(leaky))
        for text in (log, results):
            self.assertLessEqual(longest_run(text), 64)
        self.assertIn("more line(s) your code printed: kept for the instructor", log)
        full = reports.render_log(leaky, student=False)
        self.assertEqual(longest_run(full), 256)
        self.assertEqual(full.count(f"{RUNNER_PREFIX}leak {SAMPLES}"), 40)

    def test_what_students_read_starts_with_the_graders_sentence(self):
        framed = ("labs/01-global-atomics/test_lab01_global_atomics.cu:51: Failure\n"
                  "Value of: grader::histogram_matches_cpu(what, samples, kNumBins, {v.kernel})\n"
                  "  Actual: false (uniform: histogram_v1_slices <<<4, 256>>>: bins wrong\n"
                  "bin 3: expected 5, got 4)\nExpected: true")
        wrong = record(framed, "")
        output = results_format.results_json(wrong)["tests"][0]["output"]
        self.assertTrue(output.startswith("uniform: histogram_v1_slices <<<4, 256>>>: bins wrong"))
        self.assertTrue(output.endswith("bin 3: expected 5, got 4"), output)
        log = reports.render_log(wrong)
        for framing in ("Value of:", "Expected: true", "Actual: false", ": Failure"):
            self.assertNotIn(framing, output + log)
        self.assertIn("            uniform: histogram_v1_slices <<<4, 256>>>: bins wrong\n"
                      "            bin 3: expected 5, got 4\n", log)
        self.assertIn("bins wrong", results_format.results_json(wrong)["tests"][0]["output"])

    def test_log_txt_is_complete_in_itself(self):
        bins = "\n".join(f"bin {i}: expected 5, got 4" for i in range(20))  # 20 lines, < 600 chars
        log = reports.render_log(record("uniform: bins wrong\n" + bins, ""))
        self.assertNotIn("grading.json", log)
        self.assertIn("bin 19: expected 5, got 4", log)
        self.assertIn("bin 19: expected 5, got 4", reports.render_log(record(bins, ""), student=False))

    def test_the_class_report_cuts_a_reason_at_a_word(self):
        long = record("", "")
        reason = ("1 test(s) failed, e.g. Lab01Slices.MatchesCpuOnUniformSamples: uniform samples: "
                  "histogram_v1_slices <<<4, 256>>>: 442312 samples counted twice in the bins")
        long["labs"]["lab01"]["reasons"] = [reason]
        report = tempfile.mkdtemp(prefix="student-view-")
        self.addCleanup(shutil.rmtree, report, True)
        reports.write_class_html(report, [long], {}, use_matplotlib=False)
        with open(os.path.join(report, "index.html"), encoding="utf-8") as f:
            summary = html.unescape(re.search(r"<summary>(.*?)</summary>", f.read()).group(1))
        self.assertTrue(summary.endswith("…"), summary)
        self.assertLessEqual(len(summary), 140)
        kept = summary[:-1]  # the reason is shown with its lab's name
        self.assertTrue(kept.startswith("lab01: ") and f"lab01: {reason}".startswith(kept), summary)
        self.assertEqual(f"lab01: {reason}"[len(kept)], " ", summary)

    def test_a_starter_standing_in_for_the_reference_scores_0_as_expected(self):
        starter = {"source": "starter", "score": 0, "max_score": 22, "device": ""}
        line = reports.reference_line("lab01", starter)
        self.assertIn("the starter scores 0/22 as expected", line)
        self.assertIn("no solutions/", line)
        self.assertNotIn("reference (starter)", line)
        self.assertNotIn("as expected", reports.starter_note(3, 22))
        solutions = dict(starter, source="solutions", score=22, device="H100")
        self.assertEqual(reports.reference_line("lab01", solutions),
                         "  lab01: reference (solutions) scores 22/22 on H100")

    def test_the_sanitizers_reports_read_behind_the_runner_prefix(self):
        # compute-sanitizer wraps the runner: its reports reach the log as the runner's lines,
        # while a runner cannot start a test of its own with a RUN line.
        output = "\n".join(["[ RUN      ] Lab01Slices.A",
                            RUNNER_PREFIX + "========= Error: Race reported between Write access",
                            RUNNER_PREFIX + "[ RUN      ] Lab01Slices.B",
                            RUNNER_PREFIX + "========= RACECHECK SUMMARY: 1 hazard displayed"])
        self.assertEqual(sanitize.hazards_by_test(output),
                         {"Lab01Slices.A": ["Error: Race reported between Write access"]})


if __name__ == "__main__":
    unittest.main()
