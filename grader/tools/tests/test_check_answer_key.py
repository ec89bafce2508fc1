#!/usr/bin/env python3
"""grader/tools/check_answer_key.py accepts a solution that is its starter plus answers and refuses
one that rewords a starter comment, drops a TODO or rewrites given code."""
import os
import subprocess
import sys
import tempfile
import unittest

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "check_answer_key.py")

STARTER = """// Lab 99 - a tiny lab. Fill in the TODOs.
__device__ int given(int x) { return x + 1; }

__global__ void kernel(int* d_out, int n) {
  // TODO(Q1.1): write given(i) into d_out[i] for every i < n (3 lines).
  (void)d_out, (void)n;
}
"""

ANSWER = """// Lab 99 - a tiny lab. Fill in the TODOs.
__device__ int given(int x) { return x + 1; }

__global__ void kernel(int* d_out, int n) {
  // TODO(Q1.1): write given(i) into d_out[i] for every i < n (3 lines).
  // One thread per element: the grid covers n.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d_out[i] = given(i);
}
"""


def run(solution):
    with tempfile.TemporaryDirectory() as root:
        for folder, text in (("starter", STARTER), ("solutions", solution)):
            os.makedirs(os.path.join(root, folder))
            with open(os.path.join(root, folder, "lab99_tiny.cu"), "w") as f:
                f.write(text)
        return subprocess.run([sys.executable, TOOL, "--root", root], capture_output=True, text=True)


class CheckAnswerKey(unittest.TestCase):
    def test_starter_plus_answers_passes(self):
        result = run(ANSWER)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("1 solutions are their starters plus answers", result.stdout)

    def test_a_reworded_comment_fails(self):
        result = run(ANSWER.replace("Fill in the TODOs.", "Reference solution."))
        self.assertEqual(result.returncode, 1)
        self.assertIn("starter/lab99_tiny.cu:1: the solution drops or rewords this starter comment", result.stdout)

    def test_a_dropped_todo_fails(self):
        result = run(ANSWER.replace("  // TODO(Q1.1): write given(i) into d_out[i] for every i < n (3 lines).\n", ""))
        self.assertEqual(result.returncode, 1)
        self.assertIn("lab99_tiny.cu:5:", result.stdout)

    def test_rewritten_given_code_fails(self):
        result = run(ANSWER.replace("return x + 1;", "return x + 2;"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("lab99_tiny.cu:2: the solution changes given code", result.stdout)

    def test_a_missing_solution_fails(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "starter"))
            os.makedirs(os.path.join(root, "solutions"))
            with open(os.path.join(root, "starter", "lab99_tiny.cu"), "w") as f:
                f.write(STARTER)
            result = subprocess.run([sys.executable, TOOL, "--root", root], capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn("solutions/lab99_tiny.cu: missing", result.stdout)


if __name__ == "__main__":
    unittest.main()
