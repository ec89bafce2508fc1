#!/usr/bin/env python3
"""`meson test --suite labNN`'s program: one lab of this build graded as grade.py grades it, test
by test through the same harness (grader/student_runs.py), its results written by the same code.
`python3 grader/report.py BUILD` then prints the score table grade.py prints.

    grade_lab.py --build-dir BUILD --lab lab01

GRADER_TEST_TIMEOUT (seconds, default 30) is how long one call into the student's code may run;
GRADER_CHECKER_WRAPPER (one argument a line) what the checker is started through (an emulator).
Exit status: 0 every test passed (or was skipped with a reason), 1 some failed, 2 a set-up error,
77 (meson's SKIP) every test was skipped (e.g. no GPU on a cuda build): never a pass for nothing.
"""
import argparse
import os
import sys

import student_runs
from runs import results

SKIP = 77
from runs.processes import interrupt_stops_everything


def main():
    interrupt_stops_everything("grade_lab.py")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--lab", required=True, help="e.g. lab01")
    args = parser.parse_args()
    try:
        timeout_s = float(os.environ.get("GRADER_TEST_TIMEOUT", student_runs.DEFAULT_TEST_TIMEOUT_S))
        build = student_runs.introspect_tests(args.build_dir)
        programs = student_runs.graded_programs(build)
        # A cross build's checker runs through an emulator, one argument a line (as the checker
        # starts its runner through GRADER_RUNNER_WRAPPER): grader/cpu_backend/tests/check_aarch64.sh.
        wrapper = [line for line in os.environ.get("GRADER_CHECKER_WRAPPER", "").split("\n") if line]
        run = student_runs.LabRun(programs[args.lab], timeout_s, timeout_option="",
                                  checker_wrapper=wrapper)
    except (ValueError, KeyError, RuntimeError) as error:
        print(f"error: {args.lab} cannot be graded in {args.build_dir}: {error!r}", file=sys.stderr)
        return 2
    run.run()
    document, output = run.document()
    results_dir = os.path.join(args.build_dir, "results")
    results.write(results_dir, document, output)
    print(output)
    # What the lab's checked kernels executed, for its technique checks (they run after this test).
    student_runs.run_evidence(build, results_dir, {args.lab: run})
    tests = document["tests"]
    if not tests:
        print(f"error: the checker of {args.lab} reported no tests", file=sys.stderr)
        return 2
    failed = [t["name"] for t in tests if t["status"] == "failed"]
    print(f"{args.lab}: {sum(t['status'] == 'passed' for t in tests)}/{len(tests)} tests passed, "
          f"{document['score']:g}/{document['max_score']:g} points"
          + (f"; failed: {', '.join(failed)} (every message: "
             f"{os.path.relpath(os.path.join(results_dir, args.lab + '-failures.txt'))})" if failed else "")
          + f"; the score table: python3 grader/report.py {os.path.relpath(args.build_dir)}")
    if failed:
        return 1
    return SKIP if tests and all(t["status"] == "skipped" for t in tests) else 0


if __name__ == "__main__":
    sys.exit(main())
