#!/usr/bin/env python3
"""Grade a lab's checker on one runner and check the grader reached the verdict it must reach.

The project's self-tests use it: the solutions must pass every test; the untouched starter and the
known-wrong kernels must fail the named tests, by failing (not by crashing), and, where given,
with a message that names the defect. The checker runs test by test through the harness grade.py
uses (grader/student_runs.py), and its points are scored by the same code. Exit status: 0
expectation met, 1 not met, 77 skipped (every test skipped, e.g. no GPU).

Usage: expect_outcome.py --expect pass CHECKER_OPTIONS
       expect_outcome.py --expect fail --must-fail Suite.Test [--must-fail ...]
                         [--message-contains TEXT] [--max-score POINTS] [--only-named]
                         CHECKER_OPTIONS
CHECKER_OPTIONS: --checker PROGRAM --lab NAME --data FILE --yardstick-runner PROGRAM
                 --runner PROGRAM [--submission FOLDER]

--max-score: the run may score at most POINTS (the untouched starter: 0, since tests that code
doing nothing passes earn points only with the main tests).
--only-named: run only the --must-fail tests (a known-wrong kernel: its defect is named, and
leaving the speed tests out lets meson run these self-tests side by side).
--races: then the race pass, as grade.py runs it on the CPU backend (grader/counting/
race_verdicts.py): a data race fails its function's correctness tests; where the runner cannot be
watched, it says so and the verdict is the run's alone.
"""
import argparse
import os
import sys
import tempfile

import student_runs
from runs import checker

SKIP = 77


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--expect", choices=["pass", "fail"], required=True)
    parser.add_argument("--must-fail", action="append", default=[])
    parser.add_argument("--message-contains")
    parser.add_argument("--max-score", type=float)
    parser.add_argument("--only-named", action="store_true")
    parser.add_argument("--races", action="store_true")
    parser.add_argument("--timeout", type=float, help="seconds one call into the code under test "
                        "may run (default: GRADER_TEST_TIMEOUT, else 30)")
    for option in ("--checker", "--lab", "--data", "--yardstick-runner", "--runner"):
        parser.add_argument(option, required=True)
    parser.add_argument("--submission", default="")
    args = parser.parse_args()
    if args.only_named and not args.must_fail:
        parser.error("--only-named runs the --must-fail tests: name at least one")

    settings = checker.CheckerSettings(lab=args.lab, checker=args.checker, runner=args.runner,
                                       yardstick_runner=args.yardstick_runner, data=args.data,
                                       submission=args.submission)
    timeout_s = args.timeout or float(os.environ.get("GRADER_TEST_TIMEOUT") or
                                      student_runs.DEFAULT_TEST_TIMEOUT_S)
    run = student_runs.LabRun(settings, timeout_s, timeout_option="")
    run.run(only=set(args.must_fail) if args.only_named else None)
    if args.races:
        with tempfile.TemporaryDirectory(prefix="expect_races_") as scratch:
            run.evidence(scratch, [], races=True)
        if run.races.get("unavailable"):
            print(f"no race detection: {run.races['unavailable']}")
        print(f"race pass: {len(run.races.get('tests', []))} test(s) in {run.races.get('seconds', 0)} s; "
              f"racy functions: {', '.join(run.races.get('functions', {})) or 'none'}")
    document, output = run.document()
    tests = {t["name"]: t for t in document["tests"]}
    score = document["score"]
    if not tests:
        print(output[-4000:])
        print("the checker reported no tests")
        return 1
    if all(t["status"] == "skipped" for t in tests.values()):
        print("every test was skipped:", next(iter(tests.values()))["message"] or output[-400:])
        return SKIP

    failed = sorted(name for name, t in tests.items() if t["status"] == "failed")
    # A crash, a hang or an early exit is the harness's verdict, not the grader's: a self-test
    # expects the grader's own verdicts.
    faults = [f"{name}: {t['fault']} ({t['message'].strip().splitlines()[0][:200] if t['message'].strip() else ''})"
              for name, t in tests.items() if t.get("fault")]
    if args.expect == "pass":
        if failed:
            print(output[-6000:])
            print("expected every test to pass; failed:", ", ".join(failed))
            return 1
        print(f"all {len(tests)} tests passed or were skipped with a reason, as expected")
        return 0

    problems = []
    for name in args.must_fail:
        status = tests[name]["status"] if name in tests else "missing"
        if status == "skipped":
            print(f"{name} was skipped: this expectation cannot be checked here")
            return SKIP
        if status != "failed":
            problems.append(f"{name} {status}, but it must fail")
    if faults:
        problems.append("the checker or the runner stopped abnormally: " + "; ".join(faults))
    if args.message_contains and not any(args.message_contains in tests[name]["message"] for name in failed):
        problems.append(f'no failure message mentions "{args.message_contains}"')
    if not failed:
        problems.append("no test failed")
    if args.max_score is not None and score > args.max_score:
        problems.append(f"it scores {score:g} points, but may score at most {args.max_score:g}")
    if problems:
        print(output[-6000:])
        print("\n".join(problems))
        return 1
    print(f"caught as expected: {len(failed)} of {len(tests)} tests failed, including "
          + ", ".join(args.must_fail)
          + (f"; it scores {score:g} points" if args.max_score is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
