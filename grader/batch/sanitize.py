"""Races a GPU hides: each submission's passing correctness tests run once more under
compute-sanitizer (racecheck, synccheck) on small inputs, in the same sandbox, and a hazard the tool
reports fails the test it happened in, with the tool's words.

A missing __syncthreads() after zeroing shared bins often gives the right bins on a GPU (the
warps happen to run in order), so only a tool that watches every shared-memory access catches it.
The tool writes its reports on the program's standard output as the kernels finish, between
GoogleTest's "[ RUN ]" lines, which is how a report is tied to its test. The tool also runs the
warps of a block in another order, which turns some races into wrong results (racecheck does not
report a plain store racing with an atomicAdd, but the bins come out wrong under it): a test whose
grader verdict under the tool is "failed" fails too, as on the CPU backend's shuffled schedule.

A crash is evidence too. Code that adds up its own bins and traps (__builtin_trap, assert, a
sticky error), exits or spins forever when they come out wrong turns every race the tool's order
exposes into a crash or a hang, where a failed verdict was: so a test whose runner crashed, exited,
sent no well-formed reply or did not finish under the tool, where the normal run passed, fails
too, with its own message (runner_ending). A hang counts as well: a trap's next of kin, and the
tool's own slowness is allowed for (five times --timeout, small inputs). What never counts: the
checker's own faults (the harness's), the submission's time budget running out, a runner that
never started under the tool, and any test the reference itself fails, crashes or hangs in under
the tool (those tests are exempt: `evidence` of the reference's run, pipeline.py).
"""
import os
import re
import shutil

TOOLS = ("racecheck", "synccheck")
RUN_LINE = re.compile(r"^\[ RUN      \] (\S+)")
# The tool wraps the runner, so its reports come through the checker behind the runner's prefix
# (grader/runner/process.hpp kRunnerPrefix).
REPORT_LINE = re.compile(r"^(?:\[ runner   \] )?========= (?!.*SUMMARY)(.*(?:Race reported|[Hh]azard|Barrier error|"
                         r"[Ii]nvalid .*(?:sync|barrier)|[Dd]ivergent).*)$")


def find_tool():
    """compute-sanitizer beside nvcc or on PATH; None when absent."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    nvcc = shutil.which("nvcc")
    if nvcc:
        cuda = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
        for candidate in (os.path.join(cuda, "bin", "compute-sanitizer"),
                          os.path.join(cuda, "compute-sanitizer", "compute-sanitizer")):
            if os.access(candidate, os.X_OK):
                return candidate
    return None


def parse_tools(spec, available):
    """--sanitizers: "auto" (every tool, when compute-sanitizer is present), "none", or a list."""
    if spec == "none":
        return []
    if spec == "auto":
        return list(TOOLS) if available else []
    tools = [t.strip() for t in spec.split(",") if t.strip()]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        raise ValueError(f"--sanitizers: unknown tool(s) {', '.join(unknown)}; use some of "
                         f"{', '.join(TOOLS)}, auto or none")
    if tools and not available:
        raise ValueError("--sanitizers: compute-sanitizer not found (it comes with the CUDA "
                         "toolkit); give --sanitizers none to grade without it")
    return tools


# What the checker's message says when the runner crashed, hung or exited (grader/core/student_code.cu).
RUNNER_FAULT = "the process running your code"
# How it ended, in the runner's words (grader/runner/process.cpp describe_exit, student_code.cu).
RUNNER_ENDINGS = [
    ("crash", re.compile(re.escape(RUNNER_FAULT) + r" (crashed: (?:SIG[A-Z0-9]+|signal \d+))")),
    ("exit", re.compile(re.escape(RUNNER_FAULT) + r" (exited with status \d+)")),
    ("malformed", re.compile(re.escape(RUNNER_FAULT) + r" (sent the grader a malformed reply)")),
    ("hang", re.compile(re.escape(RUNNER_FAULT) + r" (did not finish within [0-9.]+ s)")),
    ("start", re.compile(re.escape(RUNNER_FAULT) + r" (never started|could not be started)")),
]


def runner_ending(message):
    """(kind, words) of how the runner running the student's code ended during a test: crash
    (a signal: SIGILL for __builtin_trap on the CPU, SIGABRT for abort() or a failed assert),
    exit, malformed (its reply), hang or start (it never started); (None, "") when it did not."""
    for kind, pattern in RUNNER_ENDINGS:
        found = pattern.search(message)
        if found:
            return kind, found.group(1)
    return None, ""


def command_prefix(tool_path, tool):
    return [tool_path, "--tool", tool, "--print-limit", "10", "--show-backtrace", "no"]


def hazards_by_test(output):
    """{test name: [report lines]} from one run's output."""
    found, current = {}, None
    for line in output.splitlines():
        run = RUN_LINE.match(line)
        if run:
            current = run.group(1)
            continue
        report = REPORT_LINE.match(line)
        if report and current:
            found.setdefault(current, []).append(report.group(1).strip())
    return found


def evidence(run_result):
    """{test: what the tool run shows against it}: reported hazards, wrong results (the grader's
    own "failed" verdict), and the runner crashing, exiting or hanging (runner_ending); never a
    fault of the harness (the checker's), the budget, or a runner that never started."""
    found = {}
    for attempt in run_result.attempts:
        for name, lines in hazards_by_test(attempt.output).items():
            found[name] = "it reported:\n" + "\n".join(lines[:6])
    for name, outcome in run_result.outcomes.items():
        if outcome.status != "failed" or name in found or outcome.fault not in ("", "timeout"):
            continue
        kind, words = runner_ending(outcome.message)
        if kind == "start" or (outcome.fault == "timeout" and kind != "hang"):
            continue
        what = "\n".join(outcome.message.strip().splitlines()[:6])
        if kind is None:
            found[name] = "under its schedule the result was wrong:\n" + what
        else:
            found[name] = (f"the process running your code {words} under it, where the normal run "
                           "passed (code that stops the run when its own results come out wrong "
                           f"hides a race that way, and that counts as the race):\n{what}")
    return found


def apply(outcomes, tool, run_result):
    """Fail each test of `outcomes` (name -> harness.TestOutcome) that passed in the normal run and
    that the `tool` run shows a race in. Returns the names failed."""
    failed = []
    for name, why in evidence(run_result).items():
        outcome = outcomes.get(name)
        if outcome is None or outcome.status != "passed":
            continue
        outcome.status = "failed"
        outcome.fault = tool
        outcome.message = (f"passed on the GPU, but compute-sanitizer {tool} (small inputs) shows a "
                           f"race or a barrier misuse a normal run can hide: check your "
                           f"__syncthreads() calls; {why}")
        failed.append(name)
    return failed
