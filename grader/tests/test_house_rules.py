#!/usr/bin/env python3
"""The house rules CONTRIBUTING.md states that a test can check: every source file under 400
lines; no Python file under grader/ edits sys.path (grader/ is the import root: CONTRIBUTING.md,
"Python imports"); every commit since the rules were written down has a subject `area: imperative
summary` of at most 72 characters. Needs git and the project's history (a clean clone); without
them it skips, saying why."""
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAX_LINES = 400
SOURCE = re.compile(r"(\.(py|cpp|hpp|cu|cuh|c|h|sh)|(^|/)meson\.build)$")
SUBJECT = re.compile(r"^[a-z0-9_./+-]+( [a-z0-9_./+-]+)*(, [a-z0-9_./+-]+( [a-z0-9_./+-]+)*)*: \S")
MAX_SUBJECT = 72
# An edit of sys.path: a call of its insert, append or extend; an assignment to it, an item or a
# slice of it; +=. Reading it (`set(sys.path)`, `x in sys.path`, `sys.path[0] == x`) is fine.
PATH_EDIT = re.compile(r"\bsys\.path\s*(\.\s*(insert|append|extend)\s*\(|\[[^\]]*\]\s*=(?!=)|\+=|=(?!=))")


def git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True, check=True).stdout


def tracked_files():
    try:
        return git("ls-files").splitlines()
    except (OSError, subprocess.CalledProcessError):
        return None


def too_long(paths):
    found = []
    for path in paths:
        if not SOURCE.search(path) or not os.path.isfile(os.path.join(ROOT, path)):
            continue
        with open(os.path.join(ROOT, path), "rb") as f:
            lines = f.read().count(b"\n")
        if lines > MAX_LINES:
            found.append(f"{path}: {lines} lines")
    return found


def path_edits(paths):
    """`FILE:LINE: text` of each sys.path edit in the Python files under grader/."""
    found = []
    for path in paths:
        if not (path.startswith("grader/") and path.endswith(".py")):
            continue
        if not os.path.isfile(os.path.join(ROOT, path)):
            continue
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
            found += [f"{path}:{number}: {line.strip()}" for number, line in enumerate(f, 1)
                      if PATH_EDIT.search(line)]
    return found


def bad_subjects(subjects):
    return [s for s in subjects if len(s) > MAX_SUBJECT or not SUBJECT.match(s)]


class HouseRules(unittest.TestCase):
    def test_the_checks_can_fail(self):
        self.assertEqual(bad_subjects(["lab01: add a hint", "Fix stuff", "x: " + "y" * 80]),
                         ["Fix stuff", "x: " + "y" * 80])
        self.assertTrue(SOURCE.search("grader/meson.build") and not SOURCE.search("README.md"))
        edit = "sys" + ".path"  # spelt in two, so that this file holds no edit itself
        for line in (".insert(0, HERE)", ".append(HERE)", " .extend([HERE])", "[0] = HERE",
                     "[:0] = [HERE]", " += [HERE]", " = [HERE]"):
            self.assertTrue(PATH_EDIT.search(edit + line), edit + line)
        for line in ("set(sys.path)", "x not in map(os.path.realpath, sys.path)", "sys.path[0] == x"):
            self.assertFalse(PATH_EDIT.search(line), line)

    def test_every_source_file_stays_under_400_lines(self):
        files = tracked_files()
        if files is None:
            self.skipTest("not a git checkout: the tracked files are unknown")
        self.assertEqual(too_long(files), [], "split these files by job (CONTRIBUTING.md)")

    def test_no_python_file_under_grader_edits_sys_path(self):
        files = tracked_files()
        if files is None:
            self.skipTest("not a git checkout: the tracked files are unknown")
        self.assertEqual(path_edits(files), [], "grader/ is the import root: import from it, and give "
                         "a child process PYTHONPATH (CONTRIBUTING.md, \"Python imports\")")

    def test_commit_subjects_since_the_rules(self):
        try:
            marker = git("log", "--diff-filter=A", "--format=%H", "--", "CONTRIBUTING.md").split()
            if git("rev-parse", "--is-shallow-repository").strip() == "true" or not marker:
                self.skipTest("no full history here (a shallow clone): the commits are not known")
            subjects = git("log", "--no-merges", "--format=%s", f"{marker[-1]}^..HEAD").splitlines()
        except (OSError, subprocess.CalledProcessError) as error:
            self.skipTest(f"git cannot read the history here: {error}")
        self.assertEqual(bad_subjects(subjects), [],
                         "commit subjects are `area: imperative summary`, at most 72 characters")


if __name__ == "__main__":
    sys.exit(unittest.main())
