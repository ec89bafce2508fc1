#!/usr/bin/env python3
"""grader/terminal.py and grader/build_steps.py, no build: lines wrapped between words to a width
and cut after a word with an ellipsis, never inside one; the progress line rewritten on a
terminal, a line at most every few seconds elsewhere, and said again while nothing moves; a failed
compile's log shown with the compiler's message first and without its step lines.
Run: PYTHONPATH=grader python3 grader/tests/test_terminal.py"""
import io
import time
import unittest

import build_steps
import terminal

TEXT = ("[uniform samples] histogram_v1_slices (32 threads/block, 1 samples/thread): 1024 of 1024 bins "
        "wrong; total 0, expected 1048581")


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Wrap(unittest.TestCase):
    def test_lines_break_between_words_with_a_hanging_indent(self):
        lines = terminal.wrap(TEXT, 40, "  ", "  ")
        self.assertTrue(all(len(line) <= 40 for line in lines), lines)
        self.assertEqual(" ".join(lines).split(), TEXT.split())
        self.assertTrue(lines[0].startswith("  [uniform") and all(l.startswith("    ") for l in lines[1:]))

    def test_at_most_n_lines_end_after_a_word_with_an_ellipsis(self):
        lines = terminal.wrap(TEXT, 40, "", "  ", most=2)
        self.assertEqual(len(lines), 2)
        self.assertTrue(lines[-1].endswith("…") and len(lines[-1]) <= 40, lines)
        kept = " ".join(lines).split()
        self.assertEqual(kept[:-1], TEXT.split()[:len(kept) - 1])
        self.assertEqual(kept[-1][:-1], TEXT.split()[len(kept) - 1].rstrip(",;:"))
        self.assertEqual(terminal.wrap("short", 40, most=2), ["short"])

    def test_a_word_wider_than_the_line_stays_whole(self):
        path = "/a/very/long/path/" * 5
        self.assertIn("  " + path, terminal.wrap(f"see {path} there", 30))
        self.assertEqual(terminal.cut(path + " and more", 20), path + "…")

    def test_cut_keeps_whole_words(self):
        self.assertEqual(terminal.cut("the bins were never zeroed", 17), "the bins were…")
        self.assertEqual(terminal.cut("the bins", 17), "the bins")
        self.assertEqual(terminal.cut("Hint: put `#pragma unroll` before the loop", 16), "Hint: put…")


class ProgressLine(unittest.TestCase):
    def test_elsewhere_a_line_at_most_every_few_seconds(self):
        out, clock = io.StringIO(), Clock()
        line = terminal.Progress(out, every_s=8, clock=clock, terminal=False)
        for step in range(1, 20):
            clock.now = step
            line.update(f"Build: {step}/19 steps, lab01")
        line.done("Build: 19 steps done in 19 s")
        self.assertEqual(out.getvalue().splitlines(), ["Build: 1/19 steps, lab01 (1 s)", "Build: 9/19 steps, lab01 (9 s)",
                                                       "Build: 17/19 steps, lab01 (17 s)", "Build: 19 steps done in 19 s"])

    def test_on_a_terminal_the_line_is_rewritten(self):
        out, clock = io.StringIO(), Clock()
        line = terminal.Progress(out, clock=clock, terminal=True)
        line.update("Build: 1/2 steps, lab01")
        line.done("Build: 2 steps done in 0 s")
        self.assertEqual(out.getvalue().count("\n"), 1)
        self.assertTrue(out.getvalue().startswith("\r") and "\x1b[K" in out.getvalue())

    def test_a_step_that_takes_long_is_said_again(self):
        out, clock = io.StringIO(), Clock()
        line = terminal.Progress(out, every_s=8, clock=clock, terminal=False)
        line.update("Build: 3/9 steps, the CPU backend")
        clock.now = 7.5
        line.tick()  # the ticker's check, by hand: nothing yet
        clock.now = 8.5
        line.tick()
        self.assertEqual(len(out.getvalue().splitlines()), 2)
        self.assertEqual(out.getvalue().splitlines()[-1], "Build: 3/9 steps, the CPU backend (8 s)")


class Ticking(unittest.TestCase):
    def test_a_step_without_lines_of_its_own_gets_one_every_few_seconds(self):
        said = []
        self.assertEqual(terminal.ticking("technique checks", lambda: time.sleep(0.25) or 7, every_s=0.1,
                                          write=said.append), 7)
        self.assertGreaterEqual(len(said), 1)
        self.assertTrue(said[0].startswith("  technique checks: 0 s"))
        with self.assertRaises(ZeroDivisionError):
            terminal.ticking("x", lambda: 1 / 0, write=said.append)


class CompileLog(unittest.TestCase):
    def test_the_compilers_message_comes_first_without_the_step_lines(self):
        log = ["ninja: Entering directory `build'", "[1/3] Compiling C++ object grader/x.o",
               "[2/3] Compiling C++ object labs/lab01_runner_graded.p/lab01.cpp.o",
               "FAILED: labs/lab01_runner_graded.p/lab01.cpp.o", "c++ -c lab01.cpp",
               "starter/lab01_global_atomics.cu:21:5: error: 'atomicAd' was not declared",
               "ninja: build stopped: subcommand failed."]
        messages, rest = build_steps.compiler_messages(log)
        self.assertEqual(messages, ["starter/lab01_global_atomics.cu:21:5: error: 'atomicAd' was not declared"])
        self.assertEqual(rest, ["ninja: Entering directory `build'", "FAILED: labs/lab01_runner_graded.p/lab01.cpp.o",
                                "c++ -c lab01.cpp", "ninja: build stopped: subcommand failed."])
        self.assertEqual([build_steps.what_is_built(line) for line in log[1:3]], ["the grader", "lab01"])


if __name__ == "__main__":
    unittest.main()
