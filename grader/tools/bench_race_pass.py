#!/usr/bin/env python3
"""What grading's race pass costs, per lab, on one core: the lab's checker run as the race pass
runs it (every main and edge test of the points table, the sanitizer pass's small inputs, the
runner in evidence mode with the race detector on: race_verdicts.RACE_PASS), pinned to CPU 0
(taskset), on a cpu build of a submission (default build-project, the solutions). Prints the tests
run, CPU seconds (user + system: what other work on the machine does not inflate) and wall seconds,
best of --repeat. A benchmark, not a test: the figures depend on the machine. grader/counting/bench_races.py times
the count programs instead (races.py's inputs, by hand).

  python3 grader/tools/bench_race_pass.py [--build-dir build-project] [--labs 03,06] [--repeat 3]"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

import student_runs  # noqa: E402  (the points table, as grade.py reads it)
import toolchain  # noqa: E402
from counting import race_verdicts  # noqa: E402
from runs.checker import CheckerSettings  # noqa: E402

ROOT = os.path.dirname(GRADER)


def race_pass_tests(checker, env):
    """The main and edge tests of the checker's points table: those the race pass watches when
    every one passed (race_verdicts.race_tests)."""
    table, _ = student_runs.points_table([checker], env, ROOT)
    return [name for name, _, _, kind, _ in table if kind in ("main", "edge")]


def timed(command, env, cwd):
    """(CPU seconds, wall seconds, exit status) of one run, pinned to CPU 0."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(pin + command, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, done.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build-project"))
    parser.add_argument("--labs", default="00,01,02,03,04,05,06")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    build = os.path.abspath(options.build_dir)
    if toolchain.backend_of(build) != "cpu":
        print(f"error: {build} is not a cpu build: the race pass runs on the CPU backend "
              "(python3 grader/grade.py --project-tests makes build-project/)", file=sys.stderr)
        return 2
    print(f"The race pass, one core (taskset -c 0), best of {options.repeat}: {build}")
    print(f"{'lab':<7}{'tests':>7}{'CPU s':>9}{'wall s':>9}")
    worst = 0.0
    for number in options.labs.split(","):
        lab = f"lab{number.zfill(2)}"
        settings = CheckerSettings(lab=lab, checker=os.path.join(build, "labs", f"{lab}_checker"),
                                   runner=os.path.join(build, "labs", f"{lab}_runner_graded"),
                                   yardstick_runner=os.path.join(build, "grader", "grader_yardstick_runner"),
                                   data=os.path.join(build, "data", "data.bin"),
                                   submission=os.path.join(ROOT, "solutions"), small_inputs=True, evidence=True)
        if not os.access(settings.checker, os.X_OK):
            print(f"error: {settings.checker} is not built", file=sys.stderr)
            return 2
        env = {**os.environ, **settings.environment(), **race_verdicts.RACE_PASS}
        tests = race_pass_tests(settings.checker, env)
        command = settings.command() + ["--gtest_filter=" + ":".join(tests)]
        runs = [timed(command, env, build) for _ in range(options.repeat)]
        failed = [status for _, _, status in runs if status != 0]
        cpu, wall = min(r[0] for r in runs), min(r[1] for r in runs)
        worst = max(worst, wall)
        print(f"{lab:<7}{len(tests):>7}{cpu:>9.1f}{wall:>9.1f}" + ("  (some tests failed)" if failed else ""))
    print(f"slowest lab: {worst:.1f} s wall (the goal: at most 10 s a lab)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
