#!/usr/bin/env python3
"""A student's first run, replayed: `grade.py` on the untouched starter in a build folder of its
own (build-first-run, made afresh), on the CPU backend, in an 80-column terminal. What it prints
fits on a screen: after the build's progress line at most 60 lines, among them every lab's first
failure; no line is wider than the terminal unless it is one word; the build says something at
least every 10 s; and no message is cut inside a word (terminal.wrap on every failure message of
the run, at several widths, keeps every word whole and in order).

It builds every lab once (about two minutes on 2 cores). Exit 77 (SKIP) in a cuda-backend
project build: the cpu one runs it, once per CI."""
import json
import os
import shutil
import subprocess
import sys
import time
import unittest

import terminal
from runs import labs as lab_list

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = "build-first-run"
COLUMNS = 80
MOST_LINES = 60


def first_run():
    """[(seconds since the start, line)] of a first grade.py run on the starter."""
    shutil.rmtree(os.path.join(ROOT, BUILD), ignore_errors=True)
    env = dict(os.environ, COLUMNS=str(COLUMNS))
    started, lines = time.monotonic(), []
    with subprocess.Popen([sys.executable, os.path.join(ROOT, "grader", "grade.py"), "--backend", "cpu",
                           "--build-dir", BUILD], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as process:
        for line in process.stdout:
            lines.append((time.monotonic() - started, line.rstrip("\n")))
        process.wait(timeout=60)
    print("\n".join(line for _, line in lines), flush=True)
    return process.returncode, lines


class FirstRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.code, cls.timed = first_run()
        cls.lines = [line for _, line in cls.timed]
        build = [i for i, line in enumerate(cls.lines) if line.startswith("Build:")]
        cls.after = cls.lines[build[-1] + 1:] if build else cls.lines
        cls.results = {}
        for lab in lab_list.discover_labs(ROOT):
            with open(os.path.join(ROOT, BUILD, "results", f"{lab.name}.json"), encoding="utf-8") as f:
                cls.results[lab.name] = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(os.path.join(ROOT, BUILD), ignore_errors=True)

    def test_it_fits_on_a_screen_with_every_labs_first_failure(self):
        self.assertEqual(self.code, 1)  # the starter fails its tests
        self.assertLessEqual(len(self.after), MOST_LINES, f"{len(self.after)} lines after the build's")
        shown = " ".join(" ".join(self.after).split())
        for lab, document in self.results.items():
            failed = [t["name"] for t in document["tests"] if t["status"] == "failed"]
            self.assertTrue(failed, lab)
            self.assertIn(f"{lab}, {len(failed)} failed: {failed[0]}", shown)
        self.assertIn("Score table", shown)
        self.assertTrue(self.after[-1].strip() and any(line.startswith("Next: ") for line in self.after[-3:]))

    def test_no_line_is_wider_than_the_terminal_but_a_single_word(self):
        for line in self.lines:
            if len(line) > COLUMNS:
                self.assertNotIn(" ", line.strip(), line)

    def test_the_build_is_never_silent_for_10_s(self):
        build = [t for t, line in self.timed if line.startswith("Build:")]
        self.assertGreaterEqual(len(build), 2)
        self.assertLessEqual(max(b - a for a, b in zip(build, build[1:])), 10)

    def test_no_message_is_cut_inside_a_word(self):
        messages = [t["message"] for d in self.results.values() for t in d["tests"] if t["message"].strip()]
        self.assertTrue(messages)
        for message in messages:
            words = message.split()
            for columns in (40, 57, 80, 111):
                lines = terminal.wrap(message, columns, "  ", "  ")
                self.assertEqual(" ".join(lines).split(), words)
                for line in lines:
                    self.assertTrue(len(line) <= columns or " " not in line.strip(), line)
                kept = " ".join(terminal.wrap(message, columns, "  ", "  ", most=2)).split()
                if kept[-1].endswith(terminal.ELLIPSIS):  # whole words, then the ellipsis
                    self.assertEqual(kept[:-1], words[:len(kept) - 1], message)
                    self.assertEqual(kept[-1][:-1], words[len(kept) - 1].rstrip(",;:—-"), message)


if __name__ == "__main__":
    if os.environ.get("STUDENT_LOOP_OUTER_BACKEND", "cpu") != "cpu":
        print("skipped: runs in the cpu-backend project build (once per CI)")
        sys.exit(77)
    unittest.main(verbosity=2)
