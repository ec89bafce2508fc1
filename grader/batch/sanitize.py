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
Only positive evidence counts: never a crash, a hang or an exit under the tool (the tool can cause
those; the normal run already judged them), and never a test the reference itself fails under it.
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
    """{test: what the tool run shows against it}: reported hazards, and wrong results (the
    grader's own "failed" verdict, not a fault of the harness)."""
    found = {}
    for attempt in run_result.attempts:
        for name, lines in hazards_by_test(attempt.output).items():
            found[name] = "it reported:\n" + "\n".join(lines[:6])
    for name, outcome in run_result.outcomes.items():
        # The runner (the student's code under the tool) crashing or hanging is the tool's limit
        # as much as the code's: like a crash of the harness, it never counts.
        runner_fault = RUNNER_FAULT in outcome.message
        if outcome.status == "failed" and not outcome.fault and not runner_fault and name not in found:
            found[name] = ("under its schedule the result was wrong:\n"
                           + "\n".join(outcome.message.strip().splitlines()[:6]))
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
