"""Tests for grader/testlog_summary.py: the last lines of `grade.py --project-tests` name each
failed test with the line that says why (unittest, GoogleTest, a script of its own, a timeout, a
signal), each skipped one with its reason, then the counts.
Run: PYTHONPATH=grader python3 grader/tests/test_testlog_summary.py"""
import json
import os
import tempfile
import unittest

import testlog_summary

PROJECT = "gpu-histogram-workbook"
UNITTEST_FAILURE = """..F....
======================================================================
FAIL: test_the_checker_is_told_its_settings (__main__.CheckerSettingsTest.test_the_checker_is_told_its_settings)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/work/grader/batch/tests/test_settings.py", line 169, in test_the_checker_is_told_its_settings
    self.assertEqual({k: v for k, v in env.items()},
AssertionError: {'GRADER_LAB': 'lab01'} != {'GRADER_LAB': 'lab02'}
- {'GRADER_LAB': 'lab01'}

======================================================================
ERROR: test_other (__main__.CheckerSettingsTest.test_other)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "x.py", line 3, in test_other
KeyError: 'x'

----------------------------------------------------------------------
Ran 16 tests in 0.045s

FAILED (failures=1, errors=1)
"""
GTEST_FAILURE = """[==========] Running 2 tests from 1 test suite.
[ RUN      ] Lab01Slices.MatchesCpuOnUniformSamples
[       OK ] Lab01Slices.MatchesCpuOnUniformSamples (3 ms)
[ RUN      ] Lab01Slices.MatchesCpuOnAllEqualSamples
/work/labs/01-global-atomics/test_lab01_global_atomics.cu:51: Failure
Value of: grader::histogram_matches_cpu(what, samples, kNumBins, {v.kernel, grader::describe(launch)})
  Actual: false (all equal: histogram_v1_slices <<<4, 256>>>: bins wrong
bin 7: expected 1024, got 1000)
Expected: true
[  FAILED  ] Lab01Slices.MatchesCpuOnAllEqualSamples (5 ms)
[==========] 2 tests from 1 test suite ran. (8 ms total)
[  FAILED  ] 1 test, listed below:
[  FAILED  ] Lab01Slices.MatchesCpuOnAllEqualSamples
"""


def entry(name, result, stdout="", stderr="", returncode=0, duration=1.0, suite="batch"):
    return {"name": f"{suite} - {PROJECT}:{name}", "result": result, "stdout": stdout,
            "stderr": stderr, "returncode": returncode, "duration": duration}


class Reasons(unittest.TestCase):
    def test_a_unittest_failure_names_the_test_and_its_exception(self):
        why = testlog_summary.reason(entry("settings", "FAIL", stderr=UNITTEST_FAILURE, returncode=1))
        self.assertEqual(why, "test_the_checker_is_told_its_settings: AssertionError: "
                              "{'GRADER_LAB': 'lab01'} != {'GRADER_LAB': 'lab02'} (and 1 more)")

    def test_a_googletest_failure_is_in_the_graders_words(self):
        why = testlog_summary.reason(entry("lab01", "FAIL", stdout=GTEST_FAILURE, returncode=1))
        self.assertEqual(why, "Lab01Slices.MatchesCpuOnAllEqualSamples: all equal: "
                              "histogram_v1_slices <<<4, 256>>>: bins wrong")

    def test_a_script_says_fail_itself(self):
        out = "the students' copy holds no answer key\nFAIL: ninja -C build\nlabs/x.cu:3: error: y\n"
        why = testlog_summary.reason(entry("copy", "FAIL", stdout=out, returncode=1))
        self.assertEqual(why, "FAIL: ninja -C build")

    def test_a_timeout_and_a_signal_say_so_with_the_last_line(self):
        timeout = testlog_summary.reason(entry("fixtures", "TIMEOUT", stdout="grading 3 of 30\n",
                                               returncode=-15, duration=1200.4))
        self.assertEqual(timeout, "timed out after 1200 s; last: grading 3 of 30")
        crash = testlog_summary.reason(entry("core", "FAIL", stdout="[ RUN      ] A.B\n",
                                             returncode=-11))
        self.assertEqual(crash, "killed by signal 11; [ RUN      ] A.B")
        self.assertEqual(testlog_summary.reason(entry("quiet", "FAIL", returncode=3)),
                         "exit status 3, no output")

    def test_a_long_line_is_cut_at_a_word(self):
        why = testlog_summary.reason(entry("long", "FAIL", stdout="error: " + "word " * 100))
        self.assertLessEqual(len(why), testlog_summary.LINE_CHARS)
        self.assertTrue(why.endswith("word…"), why)

    def test_a_skip_gives_its_reason(self):
        out = "skipped: Slurm/munge not installed (munged not found)\n"
        self.assertEqual(testlog_summary.skip_reason(entry("slurm", "SKIP", stdout=out, returncode=77)),
                         "skipped: Slurm/munge not installed (munged not found)")
        gtest = ("[ RUN      ] ReadYardstick.ReachesEightyPercent\n../grader/core/device.cu:105: Skipped\n"
                 "timing needs a GPU: the CPU backend checks correctness only\n"
                 "[  SKIPPED ] ReadYardstick.ReachesEightyPercent (0 ms)\n")
        self.assertEqual(testlog_summary.skip_reason(entry("roofline", "SKIP", stdout=gtest)),
                         "timing needs a GPU: the CPU backend checks correctness only")
        checks = ("[ technique ] not graded: the CPU backend runs no GPU machine code\n"
                  "[ SKIP      ] v2 pragma unroll: advice from a compile of the file\n")
        self.assertEqual(testlog_summary.skip_reason(entry("lab02 technique", "SKIP", stdout=checks)),
                         "[ technique ] not graded: the CPU backend runs no GPU machine code")


class Summary(unittest.TestCase):
    def test_the_last_lines_name_skips_then_failures_then_count(self):
        entries = [entry("batch parts", "OK"),
                   entry("slurm", "SKIP", stdout="skipped: no Slurm\n", returncode=77),
                   entry("settings", "FAIL", stderr=UNITTEST_FAILURE, returncode=1),
                   entry("grader core", "FAIL", stdout=GTEST_FAILURE, returncode=1, suite="unit")]
        lines = testlog_summary.summary_lines(entries)
        self.assertEqual(lines[0], "SKIPPED batch/slurm: skipped: no Slurm")
        self.assertTrue(lines[1].startswith("FAILED batch/settings: test_the_checker_is_told"), lines)
        self.assertTrue(lines[2].startswith("FAILED unit/grader core: Lab01Slices."), lines)
        self.assertEqual(lines[-1], "1 passed, 2 failed, 1 skipped")

    def test_many_failures_are_counted_past_the_first(self):
        entries = [entry(f"t{i}", "FAIL", stdout="error: no", returncode=1) for i in range(20)]
        lines = testlog_summary.summary_lines(entries)
        self.assertEqual(len([x for x in lines if x.startswith("FAILED ")]), testlog_summary.SHOWN)
        self.assertIn(f"... and {20 - testlog_summary.SHOWN} more failed tests", lines[-2])

    def test_read_from_a_build_folder_skipping_a_cut_line(self):
        with tempfile.TemporaryDirectory() as build:
            os.makedirs(os.path.join(build, "meson-logs"))
            with open(testlog_summary.log_path(build), "w") as f:
                f.write(json.dumps(entry("a", "OK")) + "\n" + '{"name": "cut sh')
            self.assertEqual(testlog_summary.counts(testlog_summary.read(build)), (1, 0, 0))


if __name__ == "__main__":
    unittest.main(verbosity=2)
