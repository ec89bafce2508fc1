#!/usr/bin/env python3
"""A technique self-test end to end: the lab's checker runs the correctness tests the checks need
on one runner (the solutions', the starter's, a known-wrong kernel's), with the same harness and
the same evidence pass grade.py runs (grader/student_runs.py, runs/evidence_pass.py); then
inspect_kernels.py judges the checks on that runner's machine code (a GPU) or its file (the CPU
backend) and on what its kernels executed. Its exit status is inspect_kernels.py's, so
--expect-fail and --expect-fail-all say which checks must fail.

Usage: selftest.py --checker PROGRAM --lab NAME --data FILE --yardstick-runner PROGRAM
                   --runner PROGRAM [--submission FOLDER] -- INSPECT_KERNELS_ARGUMENTS
"""
import argparse
import os
import sys
import tempfile

# Run as a file, Python sees this folder only: run again with grader/, the import root, on
# PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

import student_runs  # noqa: E402
from runs import checker, evidence_pass  # noqa: E402
from technique import inspect_kernels  # noqa: E402


def main(argv):
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    ours, inspect_args = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    if inspect_args and os.path.basename(inspect_args[0]) == "inspect_kernels.py":
        inspect_args = inspect_args[1:]  # meson's command line for the check names the script
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for option in ("--checker", "--lab", "--data", "--yardstick-runner", "--runner"):
        parser.add_argument(option, required=True)
    parser.add_argument("--submission", default="")
    args = parser.parse_args(ours)
    settings = checker.CheckerSettings(lab=args.lab, checker=args.checker, runner=args.runner,
                                       yardstick_runner=args.yardstick_runner, data=args.data,
                                       submission=args.submission)
    timeout_s = float(os.environ.get("GRADER_TEST_TIMEOUT") or student_runs.DEFAULT_TEST_TIMEOUT_S)
    run = student_runs.LabRun(settings, timeout_s, timeout_option="")
    check_tests = [{"cmd": inspect_args}]
    run.run(only=set(evidence_pass.needed_tests(check_tests)))
    with tempfile.TemporaryDirectory(prefix="technique_selftest_") as results_dir:
        run.evidence(results_dir, check_tests)
        return inspect_kernels.main(inspect_args + ["--evidence", evidence_pass.path(results_dir, args.lab)])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
