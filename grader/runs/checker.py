"""What a lab's checker is told, and how: one settings object, given to the checker as the GRADER_*
environment it reads (grader/core/run_options.cpp), never as a command line to rewrite. Shared by
grade.py's runs (grader/student_runs.py) and the batch (grader/batch), which start the checker with
no argument of theirs but GoogleTest's filter.

Where a build keeps a lab's programs (meson introspect --targets) is here too, the target names
being those grader/core/student_code.hpp and labs/meson.build give them.
"""
from dataclasses import dataclass

# meson targets: per lab, "<lab>_checker" and "<lab>_runner_graded"; once per build, these two.
YARDSTICK_RUNNER_TARGET = "grader_yardstick_runner"
DATA_TARGET = "standard-data"


@dataclass(frozen=True)
class CheckerSettings:
    lab: str                       # GRADER_LAB: names the run in the results
    checker: str                   # the program started (the lab's tests, no student code)
    runner: str                    # GRADER_RUNNER: the program built from the graded lab file
    yardstick_runner: str          # GRADER_YARDSTICK_RUNNER: the grader's yardsticks, timed alike
    data: str                      # GRADER_DATA: the standard samples file
    submission: str = ""           # GRADER_SUBMISSION: the graded folder (tests that read it)
    test_timeout_s: float = 0.0    # GRADER_TEST_TIMEOUT: the program's own watchdog (0 = none)
    small_inputs: bool = False     # GRADER_SMALL_INPUTS: sanitizer runs' small sizes
    runner_wrapper: tuple = ()     # GRADER_RUNNER_WRAPPER: what the runner is started under
    runner_start_timeout_s: float = 0.0  # GRADER_RUNNER_START_TIMEOUT: for main() (0 = the test's)
    timeout_option: str = ""       # GRADER_TIMEOUT_OPTION: how to allow more time ("" = no advice)
    evidence: bool = False         # GRADER_EVIDENCE: the runner counts what ran (runs/evidence_pass.py)

    def command(self):
        return [self.checker]

    def environment(self):
        env = {"GRADER_LAB": self.lab, "GRADER_RUNNER": self.runner,
               "GRADER_YARDSTICK_RUNNER": self.yardstick_runner, "GRADER_DATA": self.data,
               "GRADER_TEST_TIMEOUT": f"{self.test_timeout_s:g}",
               "GRADER_TIMEOUT_OPTION": self.timeout_option}
        if self.submission:
            env["GRADER_SUBMISSION"] = self.submission
        if self.small_inputs:
            env["GRADER_SMALL_INPUTS"] = "1"
        if self.runner_wrapper:
            env["GRADER_RUNNER_WRAPPER"] = "\n".join(self.runner_wrapper)
        if self.runner_start_timeout_s:
            env["GRADER_RUNNER_START_TIMEOUT"] = f"{self.runner_start_timeout_s:g}"
        if self.evidence:
            env["GRADER_EVIDENCE"] = "1"
        return env


@dataclass(frozen=True)
class BuildPrograms:
    """A configured build's programs and files, as paths: {lab: (checker, runner)}, and the two
    every lab shares."""
    labs: dict
    yardstick_runner: str
    data: str


def build_programs(targets, labs):
    """From `meson introspect --targets` (a list of dicts), the programs of `labs` (names)."""
    by_name = {t["name"]: t["filename"][0] for t in targets}
    found = {}
    for lab in labs:
        checker, runner = by_name.get(lab + "_checker"), by_name.get(lab + "_runner_graded")
        if checker is None or runner is None:
            raise RuntimeError(f"the build has no programs for {lab} (targets {lab}_checker, "
                               f"{lab}_runner_graded); was it selected with -Dlabs?")
        found[lab] = (checker, runner)
    return BuildPrograms(found, by_name[YARDSTICK_RUNNER_TARGET], by_name[DATA_TARGET])


def suites_of(test):
    """A `meson introspect --tests` test's suites, without the project's prefix."""
    return {suite.split(":")[-1] for suite in test["suite"]}


def graded_labs(tests):
    """The labs whose checker the build runs as a graded test (suites grade and checker)."""
    return [t["name"] for t in tests if {"grade", "checker"} <= suites_of(t)]


def lab_checks(tests, lab):
    """The lab's other graded tests (its technique checks): meson test dicts."""
    return [t for t in tests if {"grade", lab} <= suites_of(t) and "checker" not in suites_of(t)]
