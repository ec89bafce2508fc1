"""A second opinion on correctness in a GPU batch: each submission is built once more for the CPU
backend and its correctness tests run there too, where the threads of a block resume in a seeded
shuffle after every barrier (grader/cpu_backend/README.md, "The schedule seed"); a test passes
only if it passes on the GPU and, where the CPU backend can judge it, there as well.

Why: a kernel that leaves out a __syncthreads() only when compute-sanitizer is absent (it looks for
the tool's variables, its preloaded libraries, its own /proc/self/maps) passes the sanitizer pass
(sanitize.py) and, on the GPU, usually every test. The CPU backend has no tool to look for; code
can still tell it apart (CUDA_CPU_BACKEND is defined, __CUDA_ARCH__ is not), but only by testing
the backend in its source, which the source rules report (integrity.py, "backend-test"), or by
timing its own kernels.

What counts (judge): a test fails here when the checker's own verdict on the CPU backend is
"failed" (wrong bins), and when the student's code stopped the run there: a trap (__builtin_trap:
SIGILL; the backend's __trap()), abort() or a failed assert (SIGABRT), any other signal, an exit,
an exception, a malformed reply, memory written out of bounds. Code that adds up its own bins and
stops when they are wrong turns the race the shuffle exposes into such a crash, where a wrong
verdict was (issue 51, attack 2): that counts as the race. Each CUDA thread has 1 MiB of stack here
(STACK_KB), more than a GPU thread's 512 KiB of local memory, so its stack guard is no limit of
the backend's: an overflow is the code's. Not held against the student, and said so in the test's
message, is what the backend causes itself (BACKEND_CAUSED): a feature it does not model (a launch
from device code), a resource it ran out of (fiber stacks), a barrier or warp mask that exited
threads miss (the backend is stricter than a GPU there), and a run that never started or did not
finish (a spin loop that waits for another thread of its block never
ends there: threads switch only at barriers, warp intrinsics and atomics). Only tests the
reference solution passes on the CPU backend are judged. A submission that does not build for
the CPU backend keeps its GPU verdicts, with a finding for the instructor's review (the sanitizer
pass still judged it).

Then the race detector (counting/race_verdicts.py, as a CPU batch's race pass): the same tests
that passed there run once more at small sizes with the detector watching every access; a data
race fails that function's GPU-passed tests, the witness as the message, whatever the schedule.
A test that fails when watched counts as unwatched (fail closed) where judge() holds it against
the student. A lab whose reference shows a race, or cannot be watched, there is judged without it
(the log says so).

It runs whenever the sanitizer pass is asked for (--sanitizers other than none), even where
compute-sanitizer is absent: then it is the batch's only race check.
"""
import queue
import re
from concurrent.futures import ThreadPoolExecutor

from batch import builder, grading, integrity, sanitize
from counting import race_verdicts

SCHEDULE = "the CPU backend, under a shuffled thread schedule"


def wanted(settings):
    return settings.backend == "cuda" and settings.sanitizers != "none"


def judged_tests(run_result):
    """The tests the reference passes on the CPU backend: the ones this opinion may fail."""
    return sorted(name for name, o in run_result.outcomes.items() if o.status == "passed")


# Each CUDA thread's stack in these runs, KiB: a GPU thread has at most 512 KiB of local memory.
STACK_KB = 1024
ENVIRONMENT = {"CUDA_CPU_BACKEND_STACK_KB": str(STACK_KB)}

# What the CPU backend causes itself (its words in the checker's message), and why that is not
# held against the student.
BACKEND_CAUSED = [
    (re.compile(r"not supported by the CPU backend"), "it uses a feature the CPU backend does not model"),
    (re.compile(r"could not map a fiber stack"), "the CPU backend ran out of fiber stacks"),
    (re.compile(r"exited while .*(?:wait at __syncthreads\(\)|wait for it in)|cannot make progress|"
                r"wait in \S+ with mask"),
     "the CPU backend stops at a barrier or warp mask that exited threads miss, where a GPU goes on"),
]
HANG = ("it did not finish there: on the CPU backend a thread that waits for another thread of its "
        "block (a spin loop) may wait forever, as threads switch only at barriers, warp intrinsics "
        "and atomics")


def judge(outcome):
    """(held, why) of a test the CPU run failed: held against the student (a wrong verdict, or the
    student's code stopping the run), or not (the harness's fault, or BACKEND_CAUSED), and why."""
    kind, words = sanitize.runner_ending(outcome.message)
    if outcome.fault not in ("", "timeout") or (outcome.fault == "timeout" and kind != "hang"):
        return False, f"the grader's own run failed there ({outcome.fault})"
    if kind in ("hang", "start"):
        return False, HANG if kind == "hang" else "it never started there"
    for pattern, why in BACKEND_CAUSED:
        if pattern.search(outcome.message):
            return False, why
    message = "\n".join(outcome.message.strip().splitlines()[:6])
    if kind is None:
        return True, message
    return True, (f"your code stopped the run there ({words}): a trap, abort() or a failed assert, "
                  "or a check of its own results that failed, counts as the wrong result it "
                  f"stopped (each CUDA thread had {STACK_KB} KiB of stack there):\n{message}")


def evidence(run_result):
    """{test: why} for each test the CPU run holds against the student (judge)."""
    found = {}
    for name, outcome in run_result.outcomes.items():
        if outcome.status == "failed":
            held, why = judge(outcome)
            if held:
                found[name] = why
    return found


def race_verdict(lab, outcomes, race_run):
    """Fail the GPU-passed main and edge tests (`outcomes`) of each function the race pass
    (`race_run`: the CPU backend, small inputs, the detector on) shows racy or could not watch,
    counting only what judge() holds against the student; returns the names failed."""
    held = {name: o for name, o in race_run.outcomes.items() if o.status == "passed" or judge(o)[0]}
    document, _ = race_verdicts.judge(lab, [held], outcomes)
    return document["failed"]


def apply(outcomes, judged, cpu_run):
    """Fail each test of `outcomes` (name -> harness.TestOutcome) that passed on the GPU, that the
    reference passes on the CPU backend (`judged`) and that fails there, held against the student;
    one the backend failed itself keeps its pass, its message saying so. Returns the names failed."""
    failed = []
    held = evidence(cpu_run)
    for name, cpu in cpu_run.outcomes.items():
        outcome = outcomes.get(name)
        if name not in judged or outcome is None or outcome.status != "passed" or cpu.status != "failed":
            continue
        if name not in held:
            outcome.message = (outcome.message + "\n" if outcome.message else "") + (
                f"(not judged on {SCHEDULE}: {judge(cpu)[1]})")
            continue
        outcome.status = "failed"
        outcome.fault = "cpu-schedule"
        outcome.message = (f"passed on the GPU, but the same test fails on {SCHEDULE}, which runs a "
                           "block's threads in another order: a race a GPU run can hide (check your "
                           f"__syncthreads() calls); there:\n{held[name]}")
        failed.append(name)
    return failed


class CpuOpinion:
    """The CPU-backend workers, the tests the reference passes there, and the judging of one
    submission's GPU outcomes."""

    def __init__(self, batch):
        self.batch = batch
        self.workers = queue.Queue()
        self.judged = {}  # lab name -> [test names]
        self.race_clean = {}  # lab name -> the reference's race pass found nothing and watched all

    def setup(self, reference_files, reference, worker_count, ninja_jobs):
        """`reference_files`: the reference's lab files (pipeline.reference_files)."""
        batch = self.batch
        options = dict(batch.meson_options(), kernel_backend="cpu")
        workers = []
        for index in range(max(1, worker_count)):
            worker = builder.Worker(f"cpu{index}", batch.work, batch.snapshot, options, batch.labs,
                                    batch.log, batch.sandbox)
            worker.ninja_jobs = ninja_jobs
            workers.append(worker)
        with ThreadPoolExecutor(len(workers)) as pool:
            for future in [pool.submit(w.setup) for w in workers]:
                future.result()
        for worker in workers:
            self.workers.put(worker)
        _, runs, race_runs = self._run(reference_files, {name: [t["name"] for t in lab["tests"] if t["status"] == "passed"]
                                                        for name, lab in reference["labs"].items()},
                                       batch.settings.seeds.for_submission("(reference)", ""))
        for lab in batch.labs:
            self.judged[lab.name] = judged_tests(runs[lab.name]) if lab.name in runs else []
            batch.log(f"  {lab.name}: second opinion on {SCHEDULE}: {len(self.judged[lab.name])} "
                      "correctness test(s) the reference passes there")
            if lab.name in race_runs:
                document, _ = race_verdicts.judge(lab.name, [race_runs[lab.name].outcomes])
                self.race_clean[lab.name] = not document["functions"] and not document["unwatched"] \
                    and not document["unavailable"]
                if not self.race_clean[lab.name]:
                    found = "; ".join([line for lines in document["functions"].values() for line in lines]
                                      + list(document["unwatched"].values()) + [document["unavailable"]])
                    batch.warnings.append(f"{lab.name}: the second opinion's race detector cannot judge the "
                                          f"reference solution ({found.strip('; ')[:300]}); the lab is judged "
                                          "without it")

    def _run(self, files, tests_by_lab, seeds):
        """Build `files` for the CPU backend and run `tests_by_lab` there with `seeds` (the
        submission's own, settings.Seeds.for_submission), then the race pass on the main and edge
        tests that passed there: (builds, runs, race runs)."""
        batch = self.batch
        worker = self.workers.get()
        try:
            builds = worker.build(files)
            ready = [name for name, b in builds.items() if b.status == "built"]
            folder = batch.stage(builds, files, ready, seeds)
        finally:
            self.workers.put(worker)
        runs, race_runs = {}, {}
        try:
            for name in ready:
                tests = tests_by_lab.get(name) or []
                if tests:
                    runs[name] = batch.run_lab(name, folder, tests, None, worker.run_inputs,
                                               batch.settings.budget_s, environment=ENVIRONMENT)
                watched = race_verdicts.race_tests(runs[name].outcomes) if tests else []
                if watched and self.race_clean.get(name, True):
                    race_runs[name] = batch.run_lab(name, folder, watched, None, worker.run_inputs,
                                                    batch.settings.budget_s, evidence=True,
                                                    environment=dict(ENVIRONMENT, **race_verdicts.RACE_PASS))
        finally:
            batch.unstage(folder)
        return builds, runs, race_runs

    def judge(self, files, gpu_builds, gpu_runs, seeds):
        """Fail the GPU-passed tests the CPU backend shows wrong; a finding where it cannot build.
        `seeds`: the submission's, the same its GPU run was graded with."""
        tests = {name: [t for t in self.judged.get(name, []) if run.outcomes.get(t)
                        and run.outcomes[t].status == "passed"]
                 for name, run in gpu_runs.items()}
        if not any(tests.values()):
            return
        wanted_files = {lab.submission_file for lab in self.batch.labs if tests.get(lab.name)}
        builds, runs, race_runs = self._run({k: v for k, v in files.items() if k in wanted_files}, tests, seeds)
        for name, run in gpu_runs.items():
            build = builds.get(name)
            if tests[name] and (build is None or build.status != "built"):
                why = grading.first_line(build.output) if build and build.output else "no build"
                gpu_builds[name].findings.append(integrity.finding(
                    "suspicious", "second-opinion",
                    f"does not build for the CPU backend, so its tests had no second opinion on "
                    f"{SCHEDULE} ({why[:200]})", "second-opinion"))
                continue
            if name in runs:
                apply(run.outcomes, tests[name], runs[name])
                if name in race_runs and self.race_clean.get(name):
                    race_verdict(name, run.outcomes, race_runs[name])
                for attempt in runs[name].attempts:  # in the log, after the GPU's
                    attempt.reason = (f"second opinion on {SCHEDULE}"
                                      + (f"; {attempt.reason}" if attempt.reason else ""))
                    run.attempts.append(attempt)
