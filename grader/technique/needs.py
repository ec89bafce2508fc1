#!/usr/bin/env python3
"""The tests each technique check needs (labs' meson.build 'needs') are tests of the lab's checker:
a name that is no test would keep the check's point from ever being earned.

Usage: technique_needs.py CHECKER --needs 'LABEL=Suite.Test,...' ...
Reads the checker's own points table (CHECKER --grader-list-points); exit 0 when every name is a
main (correctness) test of it, 1 when not, saying which.
"""
import argparse
import subprocess
import sys


def points_table(checker):
    """{test name: kind} from `CHECKER --grader-list-points` (grader/student_runs.py reads it too)."""
    done = subprocess.run([checker, "--grader-list-points"], capture_output=True, text=True,
                          timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{checker} --grader-list-points failed ({done.returncode}): "
                           f"{(done.stdout + done.stderr)[-500:]}")
    return {parts[0]: parts[3] for parts in map(str.split, done.stdout.splitlines()) if len(parts) == 5}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checker")
    parser.add_argument("--needs", action="append", default=[], metavar="LABEL=TESTS")
    args = parser.parse_args(argv)
    kinds = points_table(args.checker)
    wrong = []
    for spec in args.needs:
        label, _, tests = spec.partition("=")
        for name in filter(None, (t.strip() for t in tests.split(","))):
            if kinds.get(name) != "main":
                why = "no test of the checker" if name not in kinds else \
                    f"{'an' if kinds[name][0] in 'aeiou' else 'a'} {kinds[name]} test, not a main one"
                wrong.append(f"{label}: {name} is {why}")
    for line in wrong:
        print(line)
    if not wrong:
        print(f"every test the {len(args.needs)} technique checks need is a main test of the checker")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
