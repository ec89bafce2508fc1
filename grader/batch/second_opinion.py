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

Only positive evidence counts, as in sanitize.py: a test fails here when the checker's own verdict
on the CPU backend is "failed" (wrong bins), never for a crash, a hang or an exit there (a GPU
kernel may rely on what the backend does not model), and only for tests the reference solution
passes on the CPU backend. A submission that does not build for the CPU backend keeps its GPU
verdicts, with a finding for the instructor's review (the sanitizer pass still judged it).

It runs whenever the sanitizer pass is asked for (--sanitizers other than none), even where
compute-sanitizer is absent: then it is the batch's only race check.
"""
import queue
from concurrent.futures import ThreadPoolExecutor

from batch import builder, grading, integrity, sanitize

SCHEDULE = "the CPU backend, under a shuffled thread schedule"


def wanted(settings):
    return settings.backend == "cuda" and settings.sanitizers != "none"


def judged_tests(run_result):
    """The tests the reference passes on the CPU backend: the ones this opinion may fail."""
    return sorted(name for name, o in run_result.outcomes.items() if o.status == "passed")


# A failure these words describe is the run's, not the kernel's answer: the runner crashed, threw
# (the backend could not start its threads: a process flood fills the sandbox's process limit),
# or a CUDA call failed. A race shows as a wrong answer, which none of them is.
NOT_A_VERDICT = (sanitize.RUNNER_FAULT, "exception", "failed while running", "out of memory")


def evidence(run_result):
    """{test: the checker's message} for each test the CPU run says is wrong (not a fault of the
    harness, not the runner crashing, throwing or hanging)."""
    found = {}
    for name, outcome in run_result.outcomes.items():
        if (outcome.status == "failed" and not outcome.fault
                and not any(words in outcome.message for words in NOT_A_VERDICT)):
            found[name] = "\n".join(outcome.message.strip().splitlines()[:6])
    return found


def apply(outcomes, judged, cpu_run):
    """Fail each test of `outcomes` (name -> harness.TestOutcome) that passed on the GPU, that the
    reference passes on the CPU backend (`judged`) and that fails there. Returns the names failed."""
    failed = []
    for name, why in evidence(cpu_run).items():
        outcome = outcomes.get(name)
        if name not in judged or outcome is None or outcome.status != "passed":
            continue
        outcome.status = "failed"
        outcome.fault = "cpu-schedule"
        outcome.message = (f"passed on the GPU, but the same test fails on {SCHEDULE}, which runs a "
                           "block's threads in another order: a race a GPU run can hide (check your "
                           f"__syncthreads() calls); there:\n{why}")
        failed.append(name)
    return failed


class CpuOpinion:
    """The CPU-backend workers, the tests the reference passes there, and the judging of one
    submission's GPU outcomes."""

    def __init__(self, batch):
        self.batch = batch
        self.workers = queue.Queue()
        self.judged = {}  # lab name -> [test names]

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
        runs = self._run(reference_files, {name: [t["name"] for t in lab["tests"] if t["status"] == "passed"]
                                 for name, lab in reference["labs"].items()},
                         batch.settings.seeds.for_submission("(reference)", ""))[1]
        for lab in batch.labs:
            self.judged[lab.name] = judged_tests(runs[lab.name]) if lab.name in runs else []
            batch.log(f"  {lab.name}: second opinion on {SCHEDULE}: {len(self.judged[lab.name])} "
                      "correctness test(s) the reference passes there")

    def _run(self, files, tests_by_lab, seeds):
        """Build `files` for the CPU backend and run `tests_by_lab` there with `seeds` (the
        submission's own, settings.Seeds.for_submission): (builds, runs)."""
        batch = self.batch
        worker = self.workers.get()
        try:
            builds = worker.build(files)
            ready = [name for name, b in builds.items() if b.status == "built"]
            folder = batch.stage(builds, files, ready, seeds)
        finally:
            self.workers.put(worker)
        runs = {}
        try:
            for name in ready:
                tests = tests_by_lab.get(name) or []
                if tests:
                    runs[name] = batch.run_lab(name, folder, tests, None, worker.run_inputs,
                                               batch.settings.budget_s)
        finally:
            batch.unstage(folder)
        return builds, runs

    def judge(self, files, gpu_builds, gpu_runs, seeds):
        """Fail the GPU-passed tests the CPU backend shows wrong; a finding where it cannot build.
        `seeds`: the submission's, the same its GPU run was graded with."""
        tests = {name: [t for t in self.judged.get(name, []) if run.outcomes.get(t)
                        and run.outcomes[t].status == "passed"]
                 for name, run in gpu_runs.items()}
        if not any(tests.values()):
            return
        wanted_files = {lab.submission_file for lab in self.batch.labs if tests.get(lab.name)}
        builds, runs = self._run({k: v for k, v in files.items() if k in wanted_files}, tests, seeds)
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
                for attempt in runs[name].attempts:  # in the log, after the GPU's
                    attempt.reason = (f"second opinion on {SCHEDULE}"
                                      + (f"; {attempt.reason}" if attempt.reason else ""))
                    run.attempts.append(attempt)
