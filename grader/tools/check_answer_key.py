#!/usr/bin/env python3
"""Check that `diff starter/X solutions/X` is the answer key: the solution is the starter plus answers.

For every starter/labNN_*.cu with a solutions/ twin, the lines the solution drops or changes from
the starter must all be placeholder code (`return {};`, `(void)n;`, `const int blocks = 1;` ...):
  - no comment line of the starter is dropped or reworded (TODO lines included: each answer goes
    below its TODO, so the diff shows the question next to its answer);
  - no code line of the starter is dropped unless a TODO stands within a few lines above it (the
    placeholder it replaces), so given code is never rewritten in the key.
Blank lines may go. Lines the solution adds are free: code, and comments that say why.

Fixing a failure: put the starter's comment back verbatim in the solution and write the answer
below it; when the starter's wording is wrong, change it in both files (and in the handout).

Usage: check_answer_key.py [--root DIR] [--verbose]   (default root: two folders above this script)
Exit status 0 with one summary line per lab when every rule holds, 1 with FILE:LINE problems.
"""
import argparse
import difflib
import glob
import os
import sys

PLACEHOLDER_REACH = 4  # a dropped code line must have a TODO at most this many starter lines above


def is_comment(line):
    return line.lstrip().startswith("//")


def todo_above(lines, index):
    """True when one of the PLACEHOLDER_REACH lines before lines[index] (or it) holds a TODO."""
    return any("TODO(" in lines[i] for i in range(max(0, index - PLACEHOLDER_REACH), index + 1))


def check_pair(starter_path, solution_path, rel):
    """Problems as 'FILE:LINE: text', and (added, dropped code) line counts for the summary."""
    with open(starter_path, encoding="utf-8") as f:
        starter = f.read().splitlines()
    with open(solution_path, encoding="utf-8") as f:
        solution = f.read().splitlines()
    problems, added, dropped = [], 0, 0
    matcher = difflib.SequenceMatcher(None, starter, solution, autojunk=False)
    for tag, s0, s1, t0, t1 in matcher.get_opcodes():
        if tag in ("insert", "replace"):
            added += t1 - t0
        if tag not in ("delete", "replace"):
            continue
        for i in range(s0, s1):
            line = starter[i]
            if not line.strip():
                continue
            if is_comment(line):
                problems.append(f"{rel}:{i + 1}: the solution drops or rewords this starter comment: "
                                f"{line.strip()[:90]}")
            elif not todo_above(starter, i):
                problems.append(f"{rel}:{i + 1}: the solution changes given code (no TODO above it): "
                                f"{line.strip()[:90]}")
            else:
                dropped += 1
    return problems, added, dropped


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    parser.add_argument("--verbose", action="store_true", help="print every lab's counts")
    args = parser.parse_args()
    starters = sorted(glob.glob(os.path.join(args.root, "starter", "lab*.cu")))
    if not starters:
        print(f"error: no starter/lab*.cu under {args.root}: pass --root the repository", file=sys.stderr)
        return 1
    all_problems, checked = [], 0
    for starter_path in starters:
        name = os.path.basename(starter_path)
        solution_path = os.path.join(args.root, "solutions", name)
        if not os.path.exists(solution_path):
            all_problems.append(f"solutions/{name}: missing (solutions/ mirrors starter/ file for file)")
            continue
        problems, added, dropped = check_pair(starter_path, solution_path, f"starter/{name}")
        all_problems += problems
        checked += 1
        if args.verbose:
            print(f"{name}: {added} lines added, {dropped} placeholder lines replaced")
    for problem in all_problems:
        print(problem)
    if all_problems:
        print(f"{len(all_problems)} problems: the solutions must keep the starters' comments and "
              "given code verbatim (see this script's docstring)")
        return 1
    print(f"answer keys: {checked} solutions are their starters plus answers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
