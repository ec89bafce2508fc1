#!/usr/bin/env python3
"""Run a lab's test program and check the grader reached the verdict it must reach.

The project's self-tests use it: the solutions must pass every test; the untouched starter and the
known-wrong kernels must fail the named tests, by failing (not by crashing), and, where given,
with a message that names the defect. Exit status: 0 expectation met, 1 not met, 77 skipped
(every test skipped, e.g. no GPU).

Usage: expect_outcome.py --expect pass -- PROGRAM ARGS...
       expect_outcome.py --expect fail --must-fail Suite.Test [--must-fail ...]
                         [--message-contains TEXT] [--max-score POINTS] [--only-named]
                         -- PROGRAM ARGS...

--max-score: the program's own results file must give at most POINTS (the untouched starter: 0,
since tests that code doing nothing passes earn points only with the main tests).
--only-named: run only the --must-fail tests (a known-wrong kernel: its defect is named, and
leaving the speed tests out lets meson run these self-tests side by side).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77


def run_tests(command, timeout):
    """(the finished process, {test: (status, failure text)}, the score its results file gives)"""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        results = os.path.join(tmp, "results.json")
        done = subprocess.run(command + [f"--gtest_output=json:{report}", f"--results={results}"],
                              capture_output=True, text=True, timeout=timeout)
        score = None
        if os.path.exists(results):
            with open(results) as f:
                score = json.load(f).get("score")
        tests = {}
        if os.path.exists(report):
            with open(report) as f:
                for suite in json.load(f).get("testsuites", []):
                    for test in suite.get("testsuite", []):
                        name = f"{suite['name']}.{test['name']}"
                        failures = [x.get("failure", "") for x in test.get("failures", [])]
                        skipped = test.get("result") == "SKIPPED"
                        tests[name] = ("skipped" if skipped else "failed" if failures else "passed",
                                       "\n".join(failures))
    return done, tests, score


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--expect", choices=["pass", "fail"], required=True)
    parser.add_argument("--must-fail", action="append", default=[])
    parser.add_argument("--message-contains")
    parser.add_argument("--max-score", type=float)
    parser.add_argument("--only-named", action="store_true")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no program to run")
    if args.only_named:
        if not args.must_fail:
            parser.error("--only-named runs the --must-fail tests: name at least one")
        command = command + ["--gtest_filter=" + ":".join(args.must_fail)]

    done, tests, score = run_tests(command, args.timeout)
    if done.returncode < 0 or done.returncode not in (0, 1, SKIP):
        print(done.stdout[-4000:], done.stderr[-4000:], sep="\n")
        print(f"the test program crashed or stopped abnormally (status {done.returncode})")
        return 1
    if not tests:
        print(done.stdout[-4000:], done.stderr[-4000:], sep="\n")
        print("the test program reported no tests")
        return 1
    if all(status == "skipped" for status, _ in tests.values()):
        print("every test was skipped:", next(iter(tests.values()))[1] or done.stdout[-400:])
        return SKIP

    failed = sorted(name for name, (status, _) in tests.items() if status == "failed")
    if args.expect == "pass":
        if failed or done.returncode != 0:
            print(done.stdout[-6000:])
            print("expected every test to pass; failed:", ", ".join(failed) or "(exit status)")
            return 1
        print(f"all {len(tests)} tests passed or were skipped with a reason, as expected")
        return 0

    problems = []
    for name in args.must_fail:
        status, _ = tests.get(name, ("missing", ""))
        if status == "skipped":
            print(f"{name} was skipped: this expectation cannot be checked here")
            return SKIP
        if status != "failed":
            problems.append(f"{name} {status}, but it must fail")
    if args.message_contains and not any(args.message_contains in message
                                         for name, (_, message) in tests.items() if name in failed):
        problems.append(f'no failure message mentions "{args.message_contains}"')
    if not failed:
        problems.append("no test failed")
    if args.max_score is not None and (score is None or score > args.max_score):
        problems.append(f"it scores {score} points, but may score at most {args.max_score:g}"
                        if score is not None else "its results file was not written")
    if problems:
        print(done.stdout[-6000:])
        print("\n".join(problems))
        return 1
    print(f"caught as expected: {len(failed)} of {len(tests)} tests failed, including "
          + ", ".join(args.must_fail)
          + (f"; it scores {score:g} points" if args.max_score is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
