#!/usr/bin/env python3
"""grader/runs/scoring.py: an edge test earns its points only once the main tests it needs passed;
a needed test that did not run here (skipped, or left out of the batch's plan) does not gate, but
one needed test at least must have run and passed; a technique check earns only for a kernel its
passed tests launched."""
import unittest

from runs import scoring


def test(name, status, score=1.0, needs=None):
    return {"name": name, "status": status, "score": score, "message": "", "needs": needs or []}


class Gates(unittest.TestCase):
    def test_a_failed_main_test_gates(self):
        tests = scoring.apply_gates([test("S.Main", "failed", 0), test("S.Empty", "passed", 1, ["S.Main"])])
        self.assertEqual(tests[1]["score"], 0)
        self.assertIn("S.Main", tests[1]["message"])

    def test_a_skipped_or_absent_needed_test_does_not_gate(self):
        # The lab 06 case: its real-image tests skip where no photograph is installed, and the
        # batch leaves them out of its plan; the empty-image test keeps its point.
        tests = scoring.apply_gates([test("S.Main", "passed"), test("S.Real", "skipped", 0),
                                     test("S.Empty", "passed", 1, ["S.Main", "S.Real", "S.Absent"])])
        self.assertEqual(tests[2]["score"], 1, tests[2]["message"])

    def test_no_needed_test_ran_earns_nothing(self):
        tests = scoring.apply_gates([test("S.Real", "skipped", 0),
                                     test("S.Empty", "passed", 1, ["S.Real", "S.Absent"])])
        self.assertEqual(tests[1]["score"], 0)


def check(kernels, needs, score=5.0):
    return {"name": "Technique.v2", "kind": "check", "status": "passed", "score": score,
            "message": "", "needs": needs, "kernels": kernels}


def ran(name, *launched, status="passed"):
    entry = test(name, status)
    entry["metrics"] = {f"launched:{k}": 1 for k in launched}
    return entry


class LaunchedKernels(unittest.TestCase):
    """A technique check earns its points only for a kernel its passed correctness tests launched."""

    def test_the_checked_kernel_launched_earns(self):
        tests = scoring.apply_gates([ran("S.Main", "_ZN5lab0418histogram_v2_banksEPKiiPj"),
                                     check(["histogram_v2_banks"], ["S.Main"])])
        self.assertEqual(tests[1]["score"], 5.0, tests[1]["message"])

    def test_a_decoy_kernel_that_never_ran_earns_nothing(self):
        tests = scoring.apply_gates([ran("S.Main", "_Z12other_kernelPKiiPj"),
                                     check(["histogram_v2_banks"], ["S.Main"])])
        self.assertEqual(tests[1]["score"], 0)
        self.assertIn("_Z12other_kernelPKiiPj, not histogram_v2_banks", tests[1]["message"])

    def test_a_name_that_only_contains_the_checked_one_is_another_kernel(self):
        tests = scoring.apply_gates([ran("S.Main", "_Z19a16histogram_kernelv"),
                                     check(["histogram_kernel"], ["S.Main"])])
        self.assertEqual(tests[1]["score"], 0)

    def test_no_launch_recorded_earns_nothing(self):
        tests = scoring.apply_gates([ran("S.Main"), check(["histogram_v2_banks"], ["S.Main"])])
        self.assertEqual(tests[1]["score"], 0)
        self.assertIn("none the grader could name", tests[1]["message"])

    def test_only_passed_tests_count(self):
        tests = scoring.apply_gates([ran("S.Main", "_Z6kernelv"), ran("S.Edge", "_Z6kernelv", status="failed"),
                                     check(["kernel"], ["S.Main", "S.Edge"])])
        self.assertEqual(tests[2]["score"], 0)  # the ordinary gate: S.Edge failed

    def test_kernel_identifiers(self):
        for symbol, name in [("_Z16histogram_kernelPKhiPj", "histogram_kernel"),
                             ("_ZN2ns6kernelIiEEvPT_", "kernel"), ("_ZL6staticv", "static"),
                             ("_ZN5lab0412_GLOBAL__N_16kernelEv", "kernel"),
                             ("extern_c_kernel", "extern_c_kernel"), ("lab04::foo(int*)", "foo")]:
            self.assertEqual(scoring.kernel_identifier(symbol), name)


if __name__ == "__main__":
    unittest.main()
