#!/usr/bin/env python3
"""grader/next_step.py: the last line of grade.py says what to do next, and the optional tools
that are missing are listed one line each (--verbose), or named together in one line. No build
needed."""
import os
import tempfile
import unittest

import next_step

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STARTER = os.path.join(ROOT, "starter")


def lab(name, *statuses, backend="cpu"):
    return {"lab": name, "backend": backend,
            "tests": [{"name": f"T.{i}", "status": s} for i, s in enumerate(statuses)]}


class NextStepTest(unittest.TestCase):
    def test_the_first_lab_with_a_failure_is_named_with_its_handout_and_file(self):
        results = [lab("lab00", "passed"), lab("lab01", "passed", "failed"), lab("lab03", "failed")]
        line = next_step.next_step(ROOT, STARTER, results, ["lab00", "lab01", "lab03"])
        self.assertEqual(line, "Next: open handouts/01-global-atomics.md and edit "
                               "starter/lab01_global_atomics.cu, then regrade it: "
                               "python3 grader/grade.py --labs 01")

    def test_a_failed_technique_check_leaves_its_lab_unfinished(self):
        results = [lab("lab03", "passed"), lab("lab03-technique", "failed", backend="cuda")]
        self.assertIn("handouts/03-shared-privatization.md",
                      next_step.next_step(ROOT, STARTER, results, ["lab03"]))

    def test_a_lab_without_results_is_unfinished(self):
        line = next_step.next_step(ROOT, STARTER, [lab("lab01", "passed")], ["lab01", "lab02"])
        self.assertIn("--labs 02", line)

    def test_another_submission_folder_is_named_in_the_command(self):
        folder = os.path.join(ROOT, "solutions")
        line = next_step.next_step(ROOT, folder, [lab("lab01", "failed")], ["lab01"])
        self.assertIn("edit solutions/lab01_global_atomics.cu", line)
        self.assertTrue(line.endswith("python3 grader/grade.py --submission solutions --labs 01"))

    def test_all_passing_names_the_labs_left_then_the_gpu(self):
        results = [lab("lab01", "passed", "skipped")]
        line = next_step.next_step(ROOT, STARTER, results, ["lab01"], ["lab00", "lab01"])
        self.assertEqual(line, "Next: every lab graded passes its tests; grade the others (lab00): "
                               "python3 grader/grade.py")
        line = next_step.next_step(ROOT, STARTER, results, ["lab01"], ["lab01"])
        self.assertTrue(line.startswith("Next: every lab passes its tests on the CPU backend"))
        line = next_step.next_step(ROOT, STARTER, [lab("lab01", "passed", backend="cuda")],
                                   ["lab01"], ["lab01"])
        self.assertIn("handouts/benchmark.md", line)


class OptionalToolsTest(unittest.TestCase):
    def test_a_missing_photograph_and_nvcc_are_one_line_each(self):
        with tempfile.TemporaryDirectory() as build:
            folder = os.path.join(build, "labs", "06-histogram-equalization")
            os.makedirs(folder)
            with open(os.path.join(folder, "sample_image.pgm.txt"), "w") as f:
                f.write("no real image was found on this machine:\nfrom_shipped: no such file\n")
            notes = next_step.optional_tools(ROOT, build, ["lab06"], "cpu", None)
        self.assertTrue(any(n.startswith("nvcc (the CUDA toolkit) not found") for n in notes))
        self.assertTrue(any("lab 06 has no real photograph" in n and "from_shipped" in n
                            for n in notes))
        self.assertTrue(all("\n" not in n for n in notes))

    def test_the_short_view_names_each_tool_in_one_line(self):
        notes = ["nvcc (the CUDA toolkit) not found: the CPU backend's technique advice ...",
                 "lab 06 has no real photograph (its two real-image tests skip): no file",
                 "matplotlib not installed: grader/bench/plot_sweeps.py ..."]
        self.assertEqual([next_step.tool_name(n) for n in notes],
                         ["nvcc (the CUDA toolkit)", "lab 06's real photograph", "matplotlib"])

    def test_nothing_about_lab_06_when_it_was_not_graded(self):
        with tempfile.TemporaryDirectory() as build:
            notes = next_step.optional_tools(ROOT, build, ["lab01"], "cpu", None)
        self.assertFalse(any("lab 06" in n for n in notes))


if __name__ == "__main__":
    unittest.main()
