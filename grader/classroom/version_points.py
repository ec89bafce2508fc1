#!/usr/bin/env python3
"""One step of the Classroom workflow: did one version of a lab earn its points?

    version_points.py LAB VERSION POINTS      e.g. version_points.py lab01 Lab01Slices 12

Reads the record grade_repo.py wrote (build-classroom/grading.json, made by grade_submissions.py:
nothing student code could write) and exits 0 when every test of VERSION (a GoogleTest suite of
LAB) passed and earned its points, which must add up to POINTS, the workflow's max-score for the
step; otherwise 1, saying why. It fails closed: no record (the grading step failed), a lab that
was not graded, a test missing from the record, or points that differ from the workflow's (a
workflow older than the grader: regenerate it with make_workflow.py) all give the step nothing.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
RECORD = os.path.join(ROOT, "build-classroom", "grading.json")  # grade_repo.py's OUT and RECORD
GRADED_KINDS = ("main", "edge")  # make_workflow.py's: a version's correctness tests
TECHNIQUE = "Technique"  # make_workflow.py's: a lab's technique checks, kind "check"


def first_line(message):
    return next((line.strip() for line in (message or "").splitlines() if line.strip()),
                "(no message)")[:200]


def verdict(record, lab_name, version, points):
    """(earned all, lines that say so)."""
    if record is None:
        return False, ["not graded: the step \"Grade every lab on the CPU backend\" could not "
                       "grade this repository; its log says why"]
    lab = (record.get("labs") or {}).get(lab_name)
    if lab is None:
        return False, [f"{lab_name} was not graded"]
    if lab.get("status") in ("compile_error", "missing", "withheld"):
        return False, [f"{lab_name}: " + "; ".join(lab.get("reasons") or [lab["status"]])]
    kinds = ("check",) if version == TECHNIQUE else GRADED_KINDS
    tests = [t for t in lab.get("tests", [])
             if t["name"].split(".")[0] == version and t.get("kind") in kinds]
    most = sum(t["max_score"] for t in tests)
    if not tests:
        return False, [f"{lab_name} {version}: no test of this version was graded here (the "
                       "grading step's log says which ran)"]
    if most != points:
        return False, [f"{lab_name} {version}: the grader's tests are worth {most:g} points, this "
                       f"workflow's step {points:g}: the workflow is out of date (regenerate it "
                       "with python3 grader/classroom/make_workflow.py)"]
    earned = sum(t["score"] for t in tests)
    failed = [t for t in tests if t["status"] != "passed"]
    waiting = [t for t in tests if t["status"] == "passed" and t["score"] < t["max_score"]]
    if not failed and not waiting and earned == points:
        return True, [f"{lab_name} {version}: all {len(tests)} tests passed, {earned:g}/{points:g} "
                      "points"]
    lines = [f"{lab_name} {version}: {earned:g} of {points:g} points in the grader's table; this "
             "step gives its points once every test of the version earns them"]
    lines += [f"  failed: {t['name']}: {first_line(t['message'])}" for t in failed[:5]]
    lines += [f"  passed, 0 points until the version's main tests pass: {t['name']}"
              for t in waiting[:5]]
    return False, lines


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    lab_name, version, points_text = argv
    try:
        points = float(points_text)
    except ValueError:
        print(f"error: POINTS is {points_text!r}, not a number", file=sys.stderr)
        return 2
    try:
        with open(RECORD, encoding="utf-8") as f:
            record = json.load(f)
    except (OSError, ValueError):
        record = None
    earned, lines = verdict(record, lab_name, version, points)
    print("\n".join(lines))
    return 0 if earned else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
