"""Run one lab program of one submission and learn each test's verdict from the grader itself.

The verdicts come through a private channel (grader/core/results_channel.cpp): a pipe whose lines
carry a per-run key that only the grader's listener knows, so what the submission prints, and the
exit status, count for nothing. The harness also keeps one submission's faults to itself:

- a test that does not finish within the per-test timeout is killed and reported as a hang (a
  checker given a limit of its own, as grade.py's is, stops the call first, names the function,
  and gives that function's later calls only a short probe: one hang costs the limit once);
- a crash (a signal, an exit() in the middle of a test) fails the test that was running;
- a sticky CUDA error (illegal address, launch failure) fails its test, and the process is
  stopped, since every later GPU call in it would fail too;
in each case the tests that have not reported yet run again in a fresh process, so one fault
costs one test; but a runner that never reaches main() (code run before it hangs: the checker
says so, grader/runner/process.cpp) would never start in a fresh process either, so the
remaining tests fail at once with that reason instead of each waiting out its timeout. Output is
captured up to a cap, the rest counted and dropped.
"""
import subprocess
import time

from runs.attempt import run_attempt
# What a run yields; callers name these harness.X.
from runs.outcomes import (NEVER_STARTED, OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES, Attempt, RunResult,  # noqa: F401
                           TestOutcome)
from runs.processes import REGISTRY, STOP, kill_group  # noqa: F401  (the batch stops them)
from runs.unfair_timing import retry_unfair_timings


def run_tests(command, tests, env, cwd, timeout, user=None, budget_s=None, seed=None, wrap=None,
              progress=None):
    """Every test of `tests` ends with an outcome: its verdict, or the fault that stopped it."""
    result = RunResult()
    remaining = list(tests)
    deadline_total = time.monotonic() + (budget_s if budget_s else float("inf"))
    while remaining and not STOP.is_set():
        if time.monotonic() >= deadline_total:
            for name in remaining:
                result.outcomes[name] = TestOutcome(
                    name, "failed", "not run: the submission's time budget was spent (on earlier "
                    "hangs?)", fault="budget")
            break
        before = len(result.outcomes)
        attempt = run_attempt(command, remaining, env, cwd, timeout, user, result, deadline_total,
                              seed=seed, wrap=wrap, progress=progress)
        result.attempts.append(attempt)
        remaining = [name for name in remaining if name not in result.outcomes]
        if remaining and NEVER_STARTED in attempt.reason:
            for name in remaining:
                result.outcomes[name] = TestOutcome(name, "failed", attempt.reason, fault="no-start")
            break
        if remaining and len(result.outcomes) == before:
            why = attempt.reason or f"the program ended (status {attempt.returncode})"
            for name in remaining:
                result.outcomes[name] = TestOutcome(
                    name, "failed", f"no result from the grader: {why} before this test reported",
                    fault="no-result")
            remaining = []
    if not STOP.is_set():
        retry_unfair_timings(result, lambda names: run_attempt(command, names, env, cwd, timeout, user,
                                                               result, deadline_total, seed=seed, wrap=wrap,
                                                               progress=progress))
    return result


def list_tests(command, env, cwd, timeout, user=None, wrap=None):
    """The test names of a trusted program (the reference build), in run order."""
    popen_user = dict(user=user.uid, group=user.gid, extra_groups=[]) if user is not None else {}
    command = command + ["--gtest_list_tests"]
    done = subprocess.run(wrap(command) if wrap else command, env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, **popen_user)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({done.returncode}): "
                           f"{(done.stdout + done.stderr)[-2000:]}")
    names, suite = [], None
    for line in done.stdout.splitlines():
        if not line.strip() or line.startswith("[") or line.startswith("Running"):
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        elif suite:
            names.append(suite + line.split("#")[0].strip())
    return names
