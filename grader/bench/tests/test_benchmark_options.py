"""The benchmark's command line, checked before any GPU work (--list stops there), so it runs
without a GPU. Run: python3 grader/bench/tests/test_benchmark_options.py BUILD/grader/bench/kernel_benchmark"""
import subprocess
import sys
import unittest

BENCHMARK = None
BYTES = ["256-bin byte histogram", "7-bin letter histogram", "equalization (lab06)"]
GROUPS = ["1024-bin histogram", "4096-bin histogram", *BYTES, "scan (int32)"]


def run(*args):
    done = subprocess.run([BENCHMARK, *args], capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout.splitlines(), done.stderr


class OnlyOption(unittest.TestCase):
    def test_without_only_every_group_runs(self):
        self.assertEqual(run("--list")[:2], (0, GROUPS))

    def test_each_group_by_part_of_its_name(self):
        for text, groups in [("1024", GROUPS[:1]), ("4096", GROUPS[1:2]), ("scan", GROUPS[-1:]),
                             ("256-bin", BYTES), ("letter", BYTES), ("equalization", BYTES)]:
            self.assertEqual(run("--only", text, "--list")[:2], (0, groups), text)

    def test_a_name_no_group_has_is_an_error_that_lists_the_groups(self):
        code, out, err = run("--only", "equalisation", "--list")
        self.assertEqual((code, out), (1, []), err)
        self.assertIn("--only equalisation matches no group", err)
        for group in GROUPS:
            self.assertIn(group, err)


class RunsOption(unittest.TestCase):
    def test_fewer_than_twenty_runs_is_an_error(self):
        code, _, err = run("--runs", "5", "--list")
        self.assertEqual(code, 1, err)
        self.assertIn("at least 20 timed runs", err)


if __name__ == "__main__":
    BENCHMARK = sys.argv.pop(1)
    unittest.main()
